"""The offline slogan writer: a rule-based plain-English reading of a statement, no LLM needed.

It is the default writer and the baseline the LLM writers are measured against. The slogan puts the most
informative words first, because MiniLM reads only the first 256 word pieces: the statement's name, the words of
its label, its kind and section, then the statement read as English (:func:`latex_to_text`). A Lean declaration
is read by :func:`~theorem_rag.slogans.lean_text.lean_slogan` instead: its name, docstring and statement.

>>> from theorem_rag.records import Theorem
>>> t = Theorem(id="x:1", source="x", kind="lemma", doc_id="x:d", label="lemma-flat-base-change",
...             section=("Flatness",), body_latex=r"Let $A \\to B$ be flat. Then $B \\otimes_A C$ is flat over $C$.")
>>> offline_slogan(t)
'Flat base change. Lemma on flatness. Let A to B be flat. Then B tensor over A C is flat over C.'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from theorem_rag.records import Document, Theorem
from theorem_rag.slogans.base import SloganResult
from theorem_rag.slogans.latex_text import label_words, latex_to_text
from theorem_rag.slogans.lean_text import is_lean, lean_slogan

# Bump when the rules change: the cache keys on it, so old slogans are rewritten rather than reused.
OFFLINE_PROMPT_VERSION = "offline-6"
# The same for the rules of Lean declarations alone (lean_text), which a Lean declaration's inputs carry: a change to
# them rewrites the declarations' slogans and leaves the LaTeX statements' cached. lean-2: Greek letters in a
# docstring's prose spelt out ("σ-algebra" was "-algebra"), a code span's plural kept ("`Real`s" was "real s");
# lean-3: what the module's docstring says of the declaration (meta.summary) read before its own docstring; lean-4:
# after its statement (the statement keeps its place among the words the model reads).
LEAN_RULES_VERSION = "lean-4"
DEFAULT_MAX_WORDS = 160


def _sentence(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].upper() + text[1:] + "." if text else ""


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


# Words that only connect a name to a reference ("using \axiomref{sqc}", "requires \sectionref{...}",
# "\NC{} version of \autoref{thm:gap}"): once the references are gone, a name of these words alone names nothing.
_LINK_WORDS = frozenset("using uses use requires required see cf citing cited by from in of version after following "
                        "also and with compare".split())  # fmt: skip


def _names_something(name: str) -> bool:
    """Whether a name read as text still says something once its references are gone.

    >>> _names_something("using , ,"), _names_something("version of"), _names_something("Exercise 2.56")
    (False, False, True)
    """
    return any(w not in _LINK_WORDS for w in re.findall(r"[a-z0-9]+", name.lower()))


def offline_slogan(
    theorem: Theorem,
    *,
    variables: bool = True,
    max_words: int = DEFAULT_MAX_WORDS,
    context: bool = True,
) -> str:
    """A readable English slogan for ``theorem`` from rules alone.

    ``context=False`` leaves out name, label, kind and section (the body alone); ``variables=False`` drops
    single-letter variables from formulas; the body is cut after ``max_words`` words. A Lean declaration
    (:func:`~theorem_rag.slogans.lean_text.is_lean`) is read as Lean, with the same options.
    """
    if is_lean(theorem):
        return lean_slogan(theorem, variables=variables, max_words=max_words, context=context)
    body = latex_to_text(theorem.text, variables=variables)
    words = body.split()
    if len(words) > max_words:
        body = " ".join(words[:max_words]).rstrip(",;:") + " ..."
    if not context:
        return _sentence(body) if not body.endswith("...") else body
    head: list[str] = []
    seen: set[str] = set()
    name = latex_to_text(theorem.name or "")
    for part in (name if _names_something(name) else "", label_words(theorem.label)):
        key = _norm(part)
        if key and key not in seen and not any(key in s for s in seen):
            head.append(_sentence(part))
            seen.add(key)
    section = latex_to_text(theorem.section[-1]) if theorem.section else ""
    kind = theorem.kind.capitalize()
    if section and _norm(section) not in seen:
        head.append(f"{kind} on {section[:1].lower() + section[1:]}.")
    else:
        head.append(f"{kind}.")
    if body:
        head.append(body if body.endswith("...") else _sentence(body))
    return " ".join(head)


class OfflineSloganWriter:
    """Rule-based slogans (see :func:`offline_slogan`); fast, free and deterministic.

    >>> w = OfflineSloganWriter()
    >>> out = []
    >>> w.write([Theorem(id="a", source="x", kind="definition", doc_id="d", body_latex=r"A ring $R$ is \\emph{local} if it has one maximal ideal.")], {}, out.append)
    >>> out[0].slogan
    'Definition. A ring R is local if it has one maximal ideal.'
    """

    name = "offline"
    model = "rules"
    prompt_version = OFFLINE_PROMPT_VERSION

    def __init__(self, *, variables: bool = True, max_words: int = DEFAULT_MAX_WORDS) -> None:
        self.variables = variables
        self.max_words = max_words
        if not variables or max_words != DEFAULT_MAX_WORDS:
            self.prompt_version = f"{OFFLINE_PROMPT_VERSION}-v{int(variables)}-w{max_words}"

    def inputs(self, theorem: Theorem, document: Document | None = None) -> tuple[str, ...]:
        """What :func:`offline_slogan` reads: kind, name, label, innermost section and the (expanded) statement;
        for a Lean declaration also its docstring, Lean kind and module."""
        section = theorem.section[-1] if theorem.section else ""
        read = (theorem.kind, theorem.name or "", theorem.label or "", section, theorem.text)
        if is_lean(theorem):
            meta = theorem.meta
            return (*read, meta.get("docstring") or "", meta["lean_kind"], meta.get("module") or "",
                    meta.get("summary") or "", LEAN_RULES_VERSION)
        return read

    def write(
        self,
        theorems: Sequence[Theorem],
        documents: Mapping[str, Document],
        on_result: Callable[[SloganResult], None],
    ) -> None:
        for t in theorems:
            slogan = offline_slogan(t, variables=self.variables, max_words=self.max_words)
            on_result(SloganResult(t.id, slogan) if slogan else SloganResult(t.id, None, error="empty statement"))
