"""The parse report: per source, files read, statements found, records kept, per parser, per filter, failures.

>>> r = SourceReport("demo", "/x", "paper"); r.records_kept = 3
>>> Report([r]).to_dict()["totals"]["records_kept"]
3
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SourceReport:
    """What happened to one SOURCE argument."""

    source: str
    path: str
    corpus: str
    files_seen: int = 0
    files_read: int = 0
    files_not_latex: int = 0
    documents: int = 0
    statements_found: int = 0
    records_kept: int = 0
    found_by_parser: Counter = field(default_factory=Counter)
    kept_by_parser: Counter = field(default_factory=Counter)
    kept_by_kind: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)
    fallback_units: list[dict] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)
    without_statements: list[str] = field(default_factory=list)
    notes: list[dict] = field(default_factory=list)
    unterminated: list[dict] = field(default_factory=list)
    parser_runs: Counter = field(default_factory=Counter)
    parser_seconds: Counter = field(default_factory=Counter)
    id_collisions: int = 0
    refs_resolved: int = 0
    refs_unresolved: int = 0
    seconds: float = 0.0
    lean: dict[str, Any] = field(default_factory=dict)

    def fail(self, path: str, reason: str) -> None:
        self.failed.append({"path": path, "reason": reason})

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        for k, v in d.items():
            if isinstance(v, Counter):
                d[k] = {a: round(b, 3) if isinstance(b, float) else b for a, b in sorted(v.items())}
        return d


@dataclass
class Report:
    """All sources of one parse run; ``to_markdown`` is the human-readable form written as ``report.md``."""

    sources: list[SourceReport]
    seconds: float = 0.0
    plastex_available: bool = False

    def to_dict(self) -> dict[str, Any]:
        keys = ("files_seen", "files_read", "documents", "statements_found", "records_kept")
        totals: dict[str, Any] = {k: sum(getattr(s, k) for s in self.sources) for k in keys}
        for k in ("kept_by_parser", "dropped", "found_by_parser"):
            c: Counter = Counter()
            for s in self.sources:
                c.update(getattr(s, k))
            totals[k] = dict(sorted(c.items()))
        totals["files_failed"] = sum(len(s.failed) for s in self.sources)
        return {
            "seconds": round(self.seconds, 2),
            "plastex_available": self.plastex_available,
            "totals": totals,
            "sources": [s.to_dict() for s in self.sources],
        }

    def to_markdown(self) -> str:
        d = self.to_dict()
        lines = [
            "# Parse report",
            "",
            f"{d['totals']['records_kept']} records kept from {d['totals']['statements_found']} statements in "
            f"{d['totals']['files_read']} files ({d['seconds']} s; plasTeX available: {self.plastex_available}).",
            "",
            "| source | corpus | files read | failed | documents | found | kept | kept per parser | dropped |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for s in self.sources:
            fmt = lambda c: ", ".join(f"{k} {v}" for k, v in sorted(c.items())) or "-"  # noqa: E731
            lines.append(
                f"| {s.source} | {s.corpus} | {s.files_read} | {len(s.failed)} | {s.documents} | "
                f"{s.statements_found} | {s.records_kept} | {fmt(s.kept_by_parser)} | {fmt(s.dropped)} |"
            )
        for s in self.sources:
            lines += ["", f"## {s.source} ({s.path})", ""]
            lines.append(f"- kinds kept: {', '.join(f'{k} {v}' for k, v in sorted(s.kept_by_kind.items()))}")
            if s.corpus != "lean":  # what only LaTeX sources have
                lines.append(f"- proof references resolved to statements: {s.refs_resolved}, "
                             f"unresolved: {s.refs_unresolved}")
                lines.append(f"- environments closed without `\\end` (fallback parser): {len(s.unterminated)}")
                lines.append(f"- id collisions (suffixed `#2`...): {s.id_collisions}")
                lines.append(f"- files without theorem-like statements: {len(s.without_statements)} "
                             "(listed in report.json)")
                lines.append(f"- non-LaTeX files not read (.bib, .bst, images...): {s.files_not_latex}")
            if s.fallback_units:
                lines.append(f"- documents parsed by the fallback parser: {len(s.fallback_units)}; reasons:")
                why = Counter(re.sub(r"\d+", "N", u["reason"])[:90] for u in s.fallback_units)
                lines += [f"  - {n} x {r}" for r, n in why.most_common()]
                lines.append("- the documents:")
                for u in s.fallback_units[:50]:
                    lines.append(f"  - `{u['file']}`: {u['reason']}")
                if len(s.fallback_units) > 50:
                    lines.append(f"  - ... {len(s.fallback_units) - 50} more in report.json")
            if s.failed:
                lines.append("- files that failed:")
                lines += [f"  - `{f['path']}`: {f['reason']}" for f in s.failed]
            if s.notes:
                lines.append(f"- notes: {len(s.notes)} (e.g. `{s.notes[0]['path']}`: {s.notes[0]['note']})")
            for key, value in s.lean.items():  # Lean sources: kinds, generated names, what was left out
                shown = ", ".join(f"{k} {v}" for k, v in value.items()) if isinstance(value, dict) else value
                lines.append(f"- {key}: {shown or '-'}")
        return "\n".join(lines) + "\n"
