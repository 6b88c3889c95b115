"""What every corpus adapter shares: which files start a document, ids, urls and document metadata.

A subclass per corpus overrides only what differs (Stacks tags, PlanetMath entries, Open Logic labels...).

Ids. A statement with a ``\\label`` is ``<prefix>:<label>``. One without is ``<prefix>:<file>#<kind>-<hash>``, the
hash being 8 hex digits of :func:`~theorem_rag.records.digest` over its body as parsed, normalised
(:func:`corpus_build.filters.normalized`: layout commands dropped, whitespace collapsed): adding, deleting,
reordering or renumbering other statements never moves it, and editing the statement itself gives it a new id.
The printed number is left out on purpose: deleting an earlier exercise renumbers the later ones. Two statements
of one document never share a normalised body (the second is dropped as a duplicate), so ids of one file collide
only if two bodies share a hash prefix; the second in document order then gets ``#2`` (the third ``#3``), the
rule every id collision follows (:func:`corpus_build.parse._finish`).

Such statements were once numbered by position in their file (``<prefix>:<file>#<n>``), which moved when an
earlier one was deleted. The id that rule gives in the same parse is kept as ``meta["legacy_id"]``, so that
references written against it (evaluation sets) still resolve (:func:`theorem_rag.eval.queries.resolve_ids`);
it is only meaningful for the sources it was written against.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from corpus_build.filters import normalized
from corpus_build.macros import read_group
from corpus_build.raw import RawStatement
from corpus_build.sources import SourceTree
from corpus_build.texfiles import Flattened
from theorem_rag.records import Document, digest


@dataclass
class Unit:
    """One document to parse: a main file flattened with its includes, or a file parsed on its own."""

    doc_id: str
    main: str
    flat: Flattened
    meta: dict = field(default_factory=dict)


def slug(text: str) -> str:
    """A lowercase id fragment: letters, digits and ``-``.

    >>> slug("Sphere Eversion_blueprint.tex")
    'sphere-eversion-blueprint-tex'
    """
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def statement_key(kind: str, body: str) -> str:
    """The id fragment of a statement without a label: its kind and 8 hex digits of its normalised body's hash.

    >>> statement_key("exercise", "Show that  $x^2 \\geq 0$.") == statement_key("exercise", "Show that $x^2 \\geq 0$.")
    True
    >>> statement_key("exercise", "Show that $x^2 \\geq 0$.")
    'exercise-...'
    """
    return f"{kind}-{digest(normalized(body), length=8)}"


def command_arg(text: str, command: str) -> str:
    """The first braced argument of ``\\command`` in ``text`` (skipping an optional ``[...]``), or ``""``."""
    m = re.search(rf"\\{command}\*?\s*(?=[\[{{])", text)
    if not m:
        return ""
    i = m.end()
    opt = read_group(text, i, "[", "]")
    g = read_group(text, opt[1] if opt else i)
    return re.sub(r"\s+", " ", g[0]).strip() if g else ""


def env_body(text: str, env: str) -> str:
    """The body of the first ``\\begin{env}...\\end{env}``, or ``""``."""
    m = re.search(rf"\\begin\s*\{{{re.escape(env)}\}}(.*?)\\end\s*\{{{re.escape(env)}\}}", text, re.S)
    return m.group(1).strip() if m else ""


def introduction(text: str, max_chars: int = 6000) -> str:
    """The text of the section titled Introduction (or Overview), up to the next heading, capped."""
    m = re.search(r"\\(?:section|chapter)\*?\s*\{\s*(?:Introduction|Overview)\s*\}", text, re.I)
    if not m:
        return ""
    rest = text[m.end() :]
    stop = re.search(r"\\(?:section|chapter)\*?\s*[\[{]", rest)
    intro = re.sub(r"\\label\s*\{[^{}]*\}", "", rest[: stop.start() if stop else len(rest)])
    return intro.strip()[:max_chars]


def authors(text: str) -> tuple[str, ...]:
    r"""Author names from ``\author{A \and B}`` (affiliations and thanks removed)."""
    found = []
    for m in re.finditer(r"\\author\s*(?:\[[^\]]*\])?\s*(?=\{)", text):
        g = read_group(text, m.end())
        if not g:
            continue
        raw = re.sub(r"\\(thanks|footnote|inst|affil|email|url)\s*\{[^{}]*\}", "", g[0])
        for part in re.split(r"\\and\b|\\\\|,\s*and\s+|\band\b|,", raw):
            name = re.sub(r"\\[A-Za-z]+\s*|[{}$^]|\d", " ", part)
            name = re.sub(r"\s+", " ", name).strip()
            if name and len(name) < 80 and name not in found:
                found.append(name)
    return tuple(found)


class Adapter:
    """The generic adapter: a folder of LaTeX (a paper); ids ``<source>:<label>`` or ``<source>:<file>#<kind>-<hash>``
    (see the module docs)."""

    source = "paper"
    license = ""
    mains_override: tuple[str, ...] = ()

    def __init__(self, tree: SourceTree, source: str | None = None, doc_meta: dict | None = None) -> None:
        self.tree = tree
        if source:
            self.source = source
        self.doc_meta = doc_meta or {}

    def doc_id(self, main: str) -> str:
        return self.source

    def main_files(self, texts: dict[str, str]) -> list[str]:
        """The files that start documents; others are parsed alone if they hold statements."""
        from corpus_build.texfiles import find_main_files

        present = [m for m in self.mains_override if m in texts]
        return present or find_main_files(texts)

    def statements(self, unit: Unit) -> list[RawStatement] | None:
        """Statements an adapter reads itself (PlanetMath entries); None: run the LaTeX parsers."""
        return None

    def learn(self, texts: dict[str, str]) -> None:
        """Read what the tree defines beyond LaTeX macros that its statements print through (Open Logic's text
        tokens); nothing by default."""

    def printed(self, text: str) -> str:
        """``text`` (a statement, its name or a section title, macros expanded) as the corpus prints it; as it
        stands by default."""
        return text

    def id_prefix(self) -> str:
        """What every id of this adapter starts with, before ``:``."""
        return self.source

    def label_id(self, label: str, unit: Unit) -> str:
        return f"{self.id_prefix()}:{label}"

    def unlabelled_id(self, raw: RawStatement, unit: Unit) -> str:
        """The id of a statement without a label: ``<prefix>:<file>#<kind>-<hash>`` (:func:`statement_key`)."""
        return f"{self.id_prefix()}:{raw.file or unit.main}#{statement_key(raw.kind, raw.body)}"

    def legacy_id(self, raw: RawStatement, unit: Unit, index: int) -> str:
        """The positional id an unlabelled statement had before :meth:`unlabelled_id` (``index``: its place among
        the statements of its file), kept in ``meta["legacy_id"]`` for old references only."""
        return f"{self.id_prefix()}:{raw.file or unit.main}#{index}"

    def theorem_id(self, raw: RawStatement, unit: Unit, index: int) -> str:
        """The statement's id: :meth:`label_id` of its label, else :meth:`unlabelled_id` (``index`` unused here;
        adapters with their own rules may read it)."""
        if raw.label:
            return self.label_id(raw.label, unit)
        return self.unlabelled_id(raw, unit)

    def ref_ids(self, raw: RawStatement, unit: Unit) -> list[str]:
        return [self.label_id(r, unit) for r in raw.refs]

    def number(self, raw: RawStatement, unit: Unit) -> str | None:
        """The printed number (Stacks puts its chapter's number in front)."""
        return raw.number

    def url(self, raw: RawStatement, theorem_id: str, unit: Unit) -> str | None:
        return self.doc_meta.get("url")

    def meta(self, raw: RawStatement, unit: Unit) -> dict:
        return {}

    def document(self, unit: Unit) -> Document:
        text = unit.flat.text
        return Document(
            id=unit.doc_id,
            source=self.source,
            title=self.doc_meta.get("title") or command_arg(text, "title"),
            authors=self.doc_meta.get("authors") or authors(text),
            abstract=env_body(text, "abstract")[:6000],
            introduction=introduction(text),
            license=self.doc_meta.get("license") or self.license,
            url=self.doc_meta.get("url"),
            meta={k: v for k, v in self.doc_meta.items() if k not in ("title", "authors", "license", "url")},
        )


def relpath_stem(path: str) -> str:
    """``a/b/c.tex`` -> ``a/b/c``."""
    p = Path(path)
    return p.with_suffix("").as_posix()
