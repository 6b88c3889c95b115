"""The line/regex parser: theorem-like environments out of a flattened LaTeX text, without running TeX.

It is the fallback for texts plasTeX cannot handle. A missing ``\\end`` closes the statement at the next
heading or theorem-like ``\\begin`` (so it cannot swallow the rest of the file) and is counted.

>>> from corpus_build.theorems import parse_theorem_decls
>>> envs = parse_theorem_decls(r"\\newtheorem{lem}{Lemma}[section]")
>>> tex = r"\\section{A}\\begin{lem}[Zorn]\\label{l:z} Every chain is bounded. \\end{lem}\\begin{proof}By \\ref{l:y}.\\end{proof}"
>>> s = parse_fallback(tex, envs).statements[0]
>>> (s.kind, s.number, s.name, s.label, s.body, s.refs, s.section, s.proof)
('lemma', '1.1', 'Zorn', 'l:z', 'Every chain is bounded.', ['l:y'], ['A'], 'By \\\\ref{l:y}.')
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from corpus_build.macros import read_group
from corpus_build.raw import RawStatement
from corpus_build.tex_scan import mask_text
from corpus_build.theorems import TheoremEnv

LEVELS = ("part", "chapter", "section", "subsection", "subsubsection")
_TOKEN = re.compile(
    r"\\(?:(?P<head>part|chapter|section|subsection|subsubsection|olsection)(?P<star>\*?)\s*(?=[\[{])"
    r"|begin\s*\{(?P<begin>[^{}]+)\}|end\s*\{(?P<end>[^{}]+)\}|(?P<appendix>appendix)\b"
    r"|setcounter\s*\{(?P<ctr>\w+)\}\s*\{(?P<val>-?\d+)\})"
)
_LABEL = re.compile(r"\\(?:ol)?label\s*\{([^{}]*)\}")
_REF = re.compile(r"\\(?:[cC]ref|ref|eqref|autoref|[cC]pageref|pageref|[oO]lref|hyperref)\*?\s*(\[[^\]]*\]\s*)*\{([^{}]+)\}")


@dataclass
class FallbackResult:
    """What the regex parser found: statements, and environments it had to close itself (``env``, line)."""

    statements: list[RawStatement]
    unterminated: list[tuple[str, int]] = field(default_factory=list)
    unknown_kind: dict[str, int] = field(default_factory=dict)


class _Counters:
    """LaTeX counters with their ``within`` parents, enough to print theorem numbers."""

    def __init__(self, envs: dict[str, TheoremEnv], has_chapters: bool) -> None:
        self.value: dict[str, int] = {}
        self.parent: dict[str, str | None] = {
            "part": None,
            "chapter": None,
            "section": "chapter" if has_chapters else None,
            "subsection": "section",
            "subsubsection": "subsection",
        }
        for e in envs.values():
            if e.counter == e.name:
                self.parent.setdefault(e.name, e.within)
        self.alpha: set[str] = set()

    def step(self, name: str) -> None:
        """Add one to ``name`` and zero every counter numbered within it (LaTeX's ``\\refstepcounter``)."""
        self.value[name] = self.value.get(name, 0) + 1
        self._reset_children(name, 0)

    def _reset_children(self, name: str, depth: int) -> None:
        for child, par in self.parent.items():
            if par == name and depth < 8:
                self.value[child] = 0
                self._reset_children(child, depth + 1)

    def printed(self, name: str, depth: int = 0) -> str:
        v = self.value.get(name, 0)
        own = chr(64 + v) if name in self.alpha and 0 < v <= 26 else str(v)
        par = self.parent.get(name)
        if par and depth < 6:
            return f"{self.printed(par, depth + 1)}.{own}"
        return own


# Proofs longer than this are cut: a card shows a few thousand characters, and a runaway (a missing \end{proof})
# must not copy a chapter into every record.
PROOF_MAX_CHARS = 20_000


def refs_in(text: str) -> list[str]:
    """Targets of ``\\ref``-like commands in ``text``, in order, without repeats (``\\cref{a,b}`` gives two).

    >>> refs_in(r"by \\cref{a, b} and \\eqref{e} and \\olref[sec]{x}")
    ['a', 'b', 'e', 'x']
    """
    out: list[str] = []
    for m in _REF.finditer(text):
        for t in m.group(2).split(","):
            t = t.strip()
            if t and t not in out:
                out.append(t)
    return out


def _line_of(newlines: list[int], pos: int) -> int:
    return bisect.bisect_right(newlines, pos) + 1


def parse_fallback(text: str, envs: dict[str, TheoremEnv]) -> FallbackResult:
    """Parse every declared theorem-like environment in a comment-stripped, flattened ``text``.

    Commands inside verbatim material and ``comment`` environments are not read, as TeX does not read them (the
    CRing Project keeps unfinished statements in ``\\begin{comment}``); bodies are cut from ``text`` as written.
    """
    newlines = [i for i, c in enumerate(text) if c == "\n"]
    tokens = list(_TOKEN.finditer(mask_text(text)[0]))
    ctr = _Counters(envs, any(t.group("head") == "chapter" for t in tokens))
    result = FallbackResult([])
    section: list[tuple[int, str]] = []
    k, n = 0, len(tokens)
    while k < n:
        t = tokens[k]
        k += 1
        head = t.group("head")
        if head:
            level = "section" if head == "olsection" else head
            j = t.end()
            opt = read_group(text, j, "[", "]")
            g = read_group(text, opt[1] if opt else j)
            title = re.sub(r"\s+", " ", g[0]).strip() if g else ""
            depth = LEVELS.index(level)
            if not t.group("star"):
                ctr.step(level)
            section = [s for s in section if s[0] < depth] + [(depth, title)]
            continue
        if t.group("appendix"):
            top = "chapter" if "chapter" in ctr.value else "section"
            ctr.value[top] = 0
            ctr.alpha.add(top)
            continue
        if t.group("ctr"):
            ctr.value[t.group("ctr")] = int(t.group("val"))
            continue
        env = envs.get(t.group("begin") or "")
        if env is None:
            continue
        if env.kind is None:
            result.unknown_kind[env.name] = result.unknown_kind.get(env.name, 0) + 1
        # Find the matching \end, or close early at a heading / theorem-like begin (a missing \end).
        depth, end_tok, closed = 0, None, False
        while k < n:
            u = tokens[k]
            if u.group("begin") == env.name:
                depth += 1
            elif u.group("end") == env.name:
                if depth == 0:
                    end_tok, closed = u, True
                    k += 1
                    break
                depth -= 1
            elif u.group("head") or u.group("end") == "document" or (
                u.group("begin") in envs and u.group("begin") != env.name
            ):
                end_tok = u
                break
            k += 1
        body_end = end_tok.start() if end_tok else len(text)
        line = _line_of(newlines, t.start())
        if not closed:
            result.unterminated.append((env.name, line))
        i = t.end()
        # Like LaTeX, look for the [name] past blanks and at most one line break (a blank line ends the search).
        opt_at = re.compile(r"[ \t]*(?:\n[ \t]*)?").match(text, i, body_end).end()
        name = None
        opt = read_group(text, opt_at, "[", "]") if text.startswith("[", opt_at) else None
        if opt and opt[1] <= body_end:
            name = re.sub(r"\s+", " ", opt[0]).strip() or None
            i = opt[1]
        raw = text[i:body_end]
        labels = [m.group(1).strip() for m in _LABEL.finditer(raw)]
        body = re.sub(r"[ \t]*\n[ \t]*\n\s*", "\n\n", _LABEL.sub("", raw)).strip()
        refs: list[str] = []
        proof = ""
        if closed:
            m = re.compile(r"\s*\\begin\s*\{proof\}").match(text, end_tok.end())
            if m:
                pdepth, pk = 0, k + 1
                while pk < n:
                    u = tokens[pk]
                    if u.group("begin") == "proof":
                        pdepth += 1
                    elif u.group("end") == "proof":
                        if pdepth == 0:
                            break
                        pdepth -= 1
                    pk += 1
                stop = tokens[pk].start() if pk < n else len(text)
                refs = refs_in(text[m.end() : stop])
                proof = text[m.end() : stop]
                opt_proof = re.compile(r"\s*\[[^\]]*\]").match(proof)  # \begin{proof}[Proof of (1)]
                proof = (proof[opt_proof.end() :] if opt_proof else proof).strip()[:PROOF_MAX_CHARS]
        number = None
        if env.numbered:
            ctr.step(env.counter)
            number = ctr.printed(env.counter)
        if env.kind is None:
            continue
        result.statements.append(
            RawStatement(
                env=env.name,
                kind=env.kind,
                body=body,
                parser="fallback",
                name=name,
                label=labels[0] if labels else None,
                labels=labels,
                number=number,
                section=[s[1] for s in section],
                refs=refs,
                proof=proof,
                line=line,
            )
        )
    return result
