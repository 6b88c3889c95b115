"""Theorem records brought as JSON Lines (the fields of :class:`theorem_rag.records.Theorem`), validated per line.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
>>> _ = p.write_text('{"id": "me:1", "source": "me", "kind": "lemma", "body_latex": "Every group is a set.", "doc_id": "me"}\\nnot json\\n')
>>> rows, bad = read_theorems(p)
>>> [t.id for t in rows], bad
(['me:1'], [(2, 'invalid JSON: Expecting value')])
"""

from __future__ import annotations

import json
from pathlib import Path

from theorem_rag.records import KINDS, Theorem


def read_json_objects(path: Path) -> tuple[list[tuple[int, dict]], list[tuple[int, str]]]:
    """``(line number, object)`` for each JSON object line and ``(line number, error)`` for the other non-blank lines."""
    rows: list[tuple[int, dict]] = []
    bad: list[tuple[int, str]] = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except json.JSONDecodeError as e:
                bad.append((n, f"invalid JSON: {e.msg}"))
                continue
            if not isinstance(d, dict):
                bad.append((n, "not a JSON object"))
                continue
            rows.append((n, d))
    return rows, bad


def read_theorems(path: Path) -> tuple[list[Theorem], list[tuple[int, str]]]:
    """Valid records (``parser`` set to ``jsonl`` unless given) and ``(line number, error)`` for the others."""
    objects, bad = read_json_objects(path)
    rows, more = theorems_from_objects(objects)
    return rows, sorted(bad + more)


def theorems_from_objects(objects: list[tuple[int, dict]]) -> tuple[list[Theorem], list[tuple[int, str]]]:
    """Theorem records from ``(line number, object)`` pairs and ``(line number, error)`` for invalid ones."""
    rows: list[Theorem] = []
    bad: list[tuple[int, str]] = []
    for n, d in objects:
        try:
            t = Theorem.from_dict({"parser": "jsonl", **d})
        except (ValueError, TypeError) as e:
            bad.append((n, str(e)))
            continue
        if t.kind not in KINDS:
            bad.append((n, f"unknown kind {t.kind!r} (expected one of {', '.join(KINDS)})"))
            continue
        rows.append(t)
    return rows, bad
