"""Lint what the cards show: statements whose rendering still has raw LaTeX commands or KaTeX errors, per source.

Each statement is rendered exactly as its result card renders it (:func:`theorem_rag.ui.cards.card_parts`:
the header with kind, number, name and section, and the full statement). The text outside the formulas must not
contain a LaTeX command (``\\foo``) or a diagram shown as source; every formula must parse in KaTeX (checked with
the real KaTeX through :class:`~theorem_rag.ui.katex_check.KatexChecker` when ``katex`` is given). A command the
renderer did not know and dropped (keeping its argument) counts too: the reader sees no macro, but may miss
what it meant.

>>> t = Theorem(id="s:1", source="s", kind="lemma", body_latex=r"Let $x$ be \\weird{y}.", doc_id="s")
>>> r = lint_theorems([t])
>>> row = r.rows["papers"]
>>> row.raw_text, row.unknown_dropped, row.examples["unknown_dropped"], row.dropped.most_common(1)
(0, 1, ['s:1'], [('\\\\weird', 1)])
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from theorem_rag.records import Theorem
from theorem_rag.ui.cards import SOURCE_LABELS, card_parts

_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
_PRE = re.compile(r'<pre class="trag-diagram">.*?</pre>', re.S)
_TAG = re.compile(r"<[^>]+>")
_COMMAND = re.compile(r"\\(?:[A-Za-z@]+\*?|[\[\]()])")
CHECKS = ("raw_text", "unknown_dropped", "raw_header", "diagram_source", "katex_error")


def split_rendered(rendered: str) -> tuple[str, list[tuple[str, bool]], int]:
    """``(plain text outside formulas, [(tex, display)], diagrams shown as source)`` of rendered card HTML.

    Outside formulas every ``$`` is escaped (``&#36;``), so the remaining ones delimit formulas.

    >>> split_rendered('See <em>this</em>: $a&lt;b$ and $$x$$ \\\\foo')
    ('See this:  and  \\\\foo', [('a<b', False), ('x', True)], 0)
    """
    diagrams = len(_PRE.findall(rendered))
    rendered = _PRE.sub(" ", rendered)
    maths = [(html.unescape(m[1] if m[1] is not None else m[2]), m[1] is not None) for m in _MATH.finditer(rendered)]
    text = html.unescape(_TAG.sub("", _MATH.sub("", rendered)))
    return text, maths, diagrams


def raw_commands(text: str) -> list[str]:
    """LaTeX commands left in plain text.

    >>> raw_commands(r"a \\ref{x} and \\begin{lemma} b")
    ['\\\\ref', '\\\\begin']
    """
    return _COMMAND.findall(text)


def source_group(source: str) -> str:
    """The lint's row for a source: the six corpora by name, every paper under ``papers``."""
    return source if source in SOURCE_LABELS else "papers"


@dataclass
class LintRow:
    """Counts for one source: statements with each problem, and the commands left most often."""

    statements: int = 0
    raw_text: int = 0
    unknown_dropped: int = 0
    raw_header: int = 0
    diagram_source: int = 0
    katex_error: int = 0
    any: int = 0
    any_guessed: int = 0
    commands: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)
    katex_messages: Counter = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=lambda: {c: [] for c in CHECKS})

    @property
    def share(self) -> float:
        """Statements with raw LaTeX, a diagram shown as source or a KaTeX error (the issue's measure)."""
        return self.any / self.statements if self.statements else 0.0

    @property
    def share_guessed(self) -> float:
        """The same, also counting statements where the renderer dropped or guessed an unknown command."""
        return self.any_guessed / self.statements if self.statements else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"statements": self.statements, **{c: getattr(self, c) for c in CHECKS}, "any": self.any,
                "share": round(self.share, 5), "any_guessed": self.any_guessed,
                "share_guessed": round(self.share_guessed, 5), "top_commands": self.commands.most_common(15),
                "top_dropped": self.dropped.most_common(15),
                "top_katex_errors": self.katex_messages.most_common(10),
                "examples": {k: v[:5] for k, v in self.examples.items()}}  # fmt: skip


@dataclass
class LintReport:
    rows: dict[str, LintRow]
    katex: str = "not checked"

    @property
    def total(self) -> LintRow:
        t = LintRow()
        for r in self.rows.values():
            t.statements += r.statements
            t.any += r.any
            t.any_guessed += r.any_guessed
            for c in CHECKS:
                setattr(t, c, getattr(t, c) + getattr(r, c))
            t.commands.update(r.commands)
            t.dropped.update(r.dropped)
            t.katex_messages.update(r.katex_messages)
        return t

    def to_dict(self) -> dict[str, Any]:
        return {"katex": self.katex, "sources": {k: v.to_dict() for k, v in sorted(self.rows.items())},
                "total": self.total.to_dict()}  # fmt: skip

    def markdown(self) -> str:
        """The per-source table: statements with each problem and the share with any problem."""
        lines = [
            "| source | statements | raw LaTeX in statement | raw LaTeX in header | diagram shown as source | "
            "KaTeX error | **any of these** | **share** | unknown command dropped or guessed | share, counting those |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for name, r in [*sorted(self.rows.items()), ("**total**", self.total)]:
            lines.append(f"| {name} | {r.statements:,} | {r.raw_text:,} | {r.raw_header:,} | {r.diagram_source:,} | "
                         f"{r.katex_error:,} | {r.any:,} | {100 * r.share:.2f}% | {r.unknown_dropped:,} | "
                         f"{100 * r.share_guessed:.2f}% |")  # fmt: skip
        return "\n".join(lines)


def lint_theorems(
    theorems: Iterable[Theorem],
    *,
    katex: Any = None,
    resolve: Callable[[Theorem], Any] | None = None,
    progress: Callable[[Iterable], Iterable] | None = None,
) -> LintReport:
    """Render each statement as its card does and count what is left raw, per source.

    ``katex`` is a :class:`~theorem_rag.ui.katex_check.KatexChecker` (formulas are then checked in one batch);
    ``resolve(theorem)`` gives the reference resolver the card would get for it.
    """
    rows: dict[str, LintRow] = {}
    pending: list[tuple[LintRow, str, set[str], list[tuple[str, bool]]]] = []
    items: Iterable[Theorem] = progress(theorems) if progress else theorems
    for t in items:
        row = rows.setdefault(source_group(t.source), LintRow())
        row.statements += 1
        dropped: list[str] = []
        header, statement = card_parts(t, resolve=resolve(t) if resolve else None, dropped=dropped)
        text, maths, diagrams = split_rendered(statement)
        head_text, head_maths, _ = split_rendered(header)
        found: set[str] = set()
        cmds = raw_commands(text)
        if cmds:
            found.add("raw_text")
            row.commands.update(cmds)
        if dropped:
            found.add("unknown_dropped")
            row.dropped.update(dropped)
        head_cmds = raw_commands(head_text)
        if head_cmds:
            found.add("raw_header")
            row.commands.update(head_cmds)
        if diagrams:
            found.add("diagram_source")
        pending.append((row, t.id, found, maths + head_maths))
    checked = "not checked"
    if katex is not None:
        formulas = [f for *_, maths in pending for f in maths]
        errors = iter(katex.errors(formulas))
        for row, _tid, found, maths in pending:
            messages = [m for m in (next(errors) for _ in maths) if m]
            if messages:
                found.add("katex_error")
                row.katex_messages.update(_short(m) for m in messages)
        checked = f"KaTeX {katex.version} ({katex.katex_js})"
    for row, tid, found, _ in pending:
        for c in found:
            setattr(row, c, getattr(row, c) + 1)
            row.examples[c].append(tid)
        row.any += bool(found - {"unknown_dropped"})
        row.any_guessed += bool(found)
    return LintReport(rows, katex=checked)


def _short(message: str) -> str:
    """A KaTeX message without its position and excerpt, so equal causes count together."""
    message = message.replace("KaTeX parse error: ", "")
    return re.split(r" at position \d| at end of input", message, maxsplit=1)[0][:120]
