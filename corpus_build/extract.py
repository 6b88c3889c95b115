"""Statements of one document: plasTeX first, the regex parser when plasTeX fails, truncates or finds fewer.

>>> from corpus_build.theorems import DEFAULT_ENVS
>>> ext = extract_statements(r"\\begin{document}\\begin{lemma}A lemma about sets.\\end{lemma}\\end{document}",
...                          DEFAULT_ENVS, {}, use_plastex=False)
>>> [s.kind for s in ext.statements], ext.parser, ext.reason
(['lemma'], 'fallback', 'plasTeX disabled')
"""

from __future__ import annotations

import importlib.util
import re
import time
from dataclasses import dataclass, field

from corpus_build.fallback_parser import FallbackResult, parse_fallback
from corpus_build.macros import Macro
from corpus_build.raw import RawStatement
from corpus_build.theorems import TheoremEnv


@dataclass
class Extraction:
    """The statements of one document, the parser that produced them, and why the fallback was used; ``refused``:
    what plasTeX's sandbox refused the document (files outside its folder, ...; :mod:`corpus_build.sandbox`)."""

    statements: list[RawStatement]
    parser: str
    reason: str | None = None
    fallback: FallbackResult | None = None
    found_by: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)


def plastex_available() -> bool:
    """Whether the plasTeX path can run here (the module and plasTeX itself import)."""
    if importlib.util.find_spec("plasTeX") is None:  # found, not imported (see plastex_parser.parse_with_plastex)
        return False
    try:
        from corpus_build import plastex_parser  # noqa: F401
    except ImportError:
        return False
    return True


def preamble_for(envs: dict[str, TheoremEnv], macros: dict[str, Macro]) -> str:
    """Definitions plasTeX needs before the body: user macros and theorem declarations, regenerated."""
    lines = []
    for m in macros.values():
        if "#" in m.body and m.nargs == 0:
            continue
        if m.nargs == 1 and re.search(r"\\label\s*\{[^{}]*\\", m.body):
            # A label wrapper that builds the label from counters (Open Logic's \ollabel): plasTeX cannot
            # expand \the<counter> inside \label, and the adapter namespaces labels itself.
            lines.append(f"\\providecommand{{\\{m.name}}}[1]{{\\label{{#1}}}}")
            continue
        args = f"[{m.nargs}]" if m.nargs else ""
        default = f"[{m.default}]" if m.default is not None else ""
        lines.append(f"\\providecommand{{\\{m.name}}}{args}{default}{{{m.body}}}")
    for e in envs.values():
        if e.kind is None:
            continue
        printed = re.sub(r"[{}\\]", "", e.printed) or e.name
        if not e.numbered:
            lines.append(f"\\newtheorem*{{{e.name}}}{{{printed}}}")
        elif e.counter != e.name:
            lines.append(f"\\newtheorem{{{e.name}}}[{e.counter}]{{{printed}}}")
        else:
            within = f"[{e.within}]" if e.within else ""
            lines.append(f"\\newtheorem{{{e.name}}}{{{printed}}}{within}")
    return "\n".join(lines)


_PLAUSIBLE_NUMBER = re.compile(r"[A-Za-z0-9]+(?:[.\-][A-Za-z0-9]+)*")


def plausible_number(number: str | None) -> bool:
    """Whether ``number`` can be a printed theorem number: letters and digits joined by dots or dashes.

    plasTeX prints a counter through the document's ``\\the<counter>`` macros, and an odd one (Stacks' class
    defines ``\\thesection`` as ``\\@Alph\\c@section`` inside ``\\appendix``) comes out as ``Alph@̧section.1``.

    >>> plausible_number("10.20.1"), plausible_number("A.2-3"), plausible_number("Alph@̧section.1"), plausible_number("1.")
    (True, True, False, False)
    """
    return bool(number) and _PLAUSIBLE_NUMBER.fullmatch(number) is not None


def fill_from_fallback(primary: list[RawStatement], fallback: list[RawStatement]) -> None:
    """Fill what plasTeX left out from the regex parser's statement at the same line.

    plasTeX can drop a ``\\label`` it failed to expand, and does not know wrappers such as Open Logic's
    ``\\olref``; a missing label, name or number is taken over and references are united. A number that
    cannot be printed (:func:`plausible_number`) counts as missing.

    >>> p = RawStatement("lemma", "lemma", "B", "plastex", line=3, refs=["a"])
    >>> fill_from_fallback([p], [RawStatement("lemma", "lemma", "B", "fallback", label="l", labels=["l"], line=3, refs=["b"])])
    >>> p.label, p.labels, p.refs
    ('l', ['l'], ['a', 'b'])
    """
    by_line = {s.line: s for s in fallback if s.line is not None}
    for p in primary:
        if p.number is not None and not plausible_number(p.number):
            p.number = None
        # A label plasTeX could not turn into text (``\\label{ex:R[x]/(x^{n+1})}``) comes back as an object's repr.
        p.labels = [x for x in p.labels if " object at 0x" not in x]
        if p.label and " object at 0x" in p.label:
            p.label = p.labels[0] if p.labels else None
        f = by_line.get(p.line)
        if f is None or f.env != p.env:
            continue
        if not p.label and f.label:
            p.label, p.labels = f.label, list(f.labels)
        p.name = p.name or f.name
        # A 0 in the fallback's number is a counter no heading ever stepped (a file parsed on its own): no number.
        if not p.number and plausible_number(f.number) and "0" not in f.number.split("."):
            p.number = f.number
        p.refs = list(p.refs) + [r for r in f.refs if r not in p.refs]
        p.proof = p.proof or f.proof


def document_body(text: str) -> tuple[str, int]:
    """The text between ``\\begin{document}`` and ``\\end{document}`` and the number of lines before it."""
    m = re.search(r"\\begin\s*\{document\}", text)
    if not m:
        return text, 0
    end = re.search(r"\\end\s*\{document\}", text[m.end() :])
    body = text[m.end() : m.end() + end.start()] if end else text[m.end() :]
    return body, text.count("\n", 0, m.end())


def extract_statements(
    text: str,
    envs: dict[str, TheoremEnv],
    macros: dict[str, Macro],
    *,
    use_plastex: bool = True,
    base_dir: str | None = None,
    timeout_s: float = 60.0,
) -> Extraction:
    """Parse ``text`` (comment-stripped, flattened) with plasTeX, falling back to the regex parser."""
    t0 = time.perf_counter()
    fb = parse_fallback(text, envs)
    found = {"fallback": len(fb.statements)}
    secs = {"fallback": time.perf_counter() - t0}
    if not use_plastex:
        return Extraction(fb.statements, "fallback", "plasTeX disabled", fb, found, secs)
    if not plastex_available():
        return Extraction(fb.statements, "fallback", "plasTeX not installed", fb, found, secs)
    if not fb.statements and not any(f"\\begin{{{n}}}" in text for n in envs):
        return Extraction([], "fallback", None, fb, found, secs)
    from corpus_build.plastex_parser import parse_with_plastex

    body, offset = document_body(text)
    kinds = {n: e.kind for n, e in envs.items() if e.kind}
    pr = parse_with_plastex(
        body, theorem_envs=kinds, preamble=preamble_for(envs, macros), base_dir=base_dir, timeout_s=timeout_s
    )
    found["plastex"] = len(pr.statements)
    secs["plastex"] = pr.seconds
    refused = pr.refused
    if pr.error:
        reason = f"plasTeX error: {pr.error[:300]}"
    elif pr.truncated:
        reason = "plasTeX output truncated"
    elif len(pr.statements) < len(fb.statements):
        reason = f"plasTeX found {len(pr.statements)} statements, fallback {len(fb.statements)}"
    else:
        for s in pr.statements:
            if s.line is not None:
                s.line += offset
        fill_from_fallback(pr.statements, fb.statements)
        return Extraction(pr.statements, "plastex", None, fb, found, secs, refused)
    return Extraction(fb.statements, "fallback", reason, fb, found, secs, refused)
