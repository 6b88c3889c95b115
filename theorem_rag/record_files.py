"""Reading record files: the one reader of theorem and document records, JSON Lines or Parquet (neutral, pure).

``corpus_build`` (a ``.jsonl`` source), ``theorem-rag index build`` (``--records``, ``--jsonl``) and the evaluation
(``--records``, ``--extra-records``) all read records here, under one contract: every row is validated (a JSON
object, the required fields, a known kind, an id not seen before in the file) and every row that fails is
reported with its file and line, never dropped silently. ``strict=True`` raises :class:`RecordFileError` on the
first rejected rows; ``strict=False`` returns them in :attr:`RecordSet.rejected` for a report.

A theorem row may carry its paper's fields (``title``, ``abstract``, ``introduction``, ``authors``, ``license``,
``year``); they become one :class:`~theorem_rag.records.Document` per ``doc_id`` unless a documents file names it.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
>>> _ = p.write_text('{"id": "me:1", "source": "me", "kind": "lemma", "body_latex": "Every group is a set.", '
...                  '"doc_id": "me", "title": "Notes"}\\nnot json\\n')
>>> got = read_records(p, strict=False)
>>> [t.id for t in got.theorems], [d.title for d in got.documents], got.rejected
(['me:1'], ['Notes'], [Rejected(path='t.jsonl', line=2, reason='invalid JSON: Expecting value')])
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from theorem_rag.errors import InputError
from theorem_rag.records import KINDS, Document, Theorem

PAPER_FIELDS = ("title", "abstract", "introduction", "authors", "license", "year")
_PARQUET_EXTRA = 'pip install "theorem-rag[corpus]"'


class RecordFileError(InputError):
    """A record file (or folder) that cannot be read, or rows in it that are not valid records."""


@dataclass(frozen=True)
class Rejected:
    """A row that is not a valid record: the file (its name), the line (or Parquet row, from 1) and why."""

    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


@dataclass
class RecordSet:
    """What a record file or folder holds: valid theorems and documents, and the rows rejected."""

    theorems: list[Theorem] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)


def read_json_objects(path: Path) -> tuple[list[tuple[int, dict]], list[tuple[int, str]]]:
    """``(line number, object)`` for each JSON object line, ``(line number, error)`` for the other non-blank ones."""
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


def _parquet_objects(path: Path) -> list[tuple[int, dict]]:
    try:
        import pyarrow.parquet as pq
    except ImportError as e:
        raise ImportError(f"reading Parquet records needs pyarrow: {_PARQUET_EXTRA}") from e
    rows = pq.read_table(path).to_pylist()
    for row in rows:
        # The Parquet writer stores nested mappings (meta, formula keys) as JSON text.
        if isinstance(row.get("meta"), str):
            row["meta"] = json.loads(row["meta"] or "{}")
        if isinstance(row.get("formula_keys"), str):
            row["formula_keys"] = json.loads(row["formula_keys"])
    return list(enumerate(rows, start=1))


def _objects(path: Path) -> tuple[list[tuple[int, dict]], list[tuple[int, str]]]:
    if not path.is_file():
        raise RecordFileError(f"{path}: no such record file")
    if path.suffix == ".parquet":
        return _parquet_objects(path), []
    return read_json_objects(path)


def theorems_from_objects(objects: Iterable[tuple[int, dict]]) -> tuple[list[Theorem], list[tuple[int, str]]]:
    """Theorem records from ``(line, object)`` pairs (``parser`` set to ``jsonl`` unless given) and ``(line, error)``
    for the invalid ones: missing fields, an unknown kind, an id already seen."""
    rows: list[Theorem] = []
    bad: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    for n, d in objects:
        try:
            t = Theorem.from_dict({"parser": "jsonl", **d})
        except (ValueError, TypeError) as e:
            bad.append((n, str(e)))
            continue
        if t.kind not in KINDS:
            bad.append((n, f"unknown kind {t.kind!r} (expected one of {', '.join(KINDS)})"))
        elif t.id in seen:
            bad.append((n, f"duplicate id {t.id!r} (first on line {seen[t.id]})"))
        else:
            seen[t.id] = n
            rows.append(t)
    return rows, bad


def _documents_from_objects(objects: Iterable[tuple[int, dict]]) -> tuple[list[Document], list[tuple[int, str]]]:
    docs: dict[str, Document] = {}
    bad: list[tuple[int, str]] = []
    for n, d in objects:
        try:
            doc = Document.from_dict(d)
        except (ValueError, TypeError) as e:
            bad.append((n, str(e)))
            continue
        if doc.id in docs:
            bad.append((n, f"duplicate document id {doc.id!r}"))
        else:
            docs[doc.id] = doc
    return list(docs.values()), bad


def _paper_documents(objects: Iterable[tuple[int, dict]], wanted: set[str]) -> list[Document]:
    """One document per ``doc_id`` from the paper fields theorem rows carry (the first row of a paper wins)."""
    docs: dict[str, Document] = {}
    for _, d in objects:
        doc_id = d.get("doc_id")
        if doc_id not in wanted or doc_id in docs:
            continue
        fields = {k: d[k] for k in PAPER_FIELDS if k in d}
        if fields:
            docs[doc_id] = Document.from_dict({"id": doc_id, "source": d.get("source") or "", **fields})
    return list(docs.values())


def _in_folder(folder: Path, name: str) -> Path | None:
    """``<name>.jsonl`` or ``<name>.parquet`` in ``folder``; both is an error (which one is current is unknown)."""
    found = [folder / f"{name}{suffix}" for suffix in (".jsonl", ".parquet") if (folder / f"{name}{suffix}").is_file()]
    if len(found) > 1:
        raise RecordFileError(f"{folder} holds both {found[0].name} and {found[1].name}, and either may be stale: "
                              "delete the older one, or parse again (`theorem-rag corpus parse` keeps one format)")
    return found[0] if found else None


def read_records(path: str | Path, *, strict: bool = True) -> RecordSet:
    """The records of a folder written by ``theorem-rag corpus parse`` (``theorems.jsonl`` or ``.parquet``, and
    ``documents.jsonl`` or ``.parquet`` when present) or of one theorem file (``.jsonl`` or ``.parquet``).

    ``strict=True`` raises :class:`RecordFileError` naming the first rejected rows (``file:line: reason``);
    ``strict=False`` keeps the valid rows and lists the others in ``rejected``.
    """
    path = Path(path)
    if not path.exists():
        raise RecordFileError(f"{path}: no such folder or record file (a folder from `theorem-rag corpus parse`, "
                              "or a theorems .jsonl or .parquet file)")
    if path.is_dir():
        tpath, dpath = _in_folder(path, "theorems"), _in_folder(path, "documents")
        if tpath is None:
            raise RecordFileError(f"no theorems.jsonl or theorems.parquet in {path}: run `theorem-rag corpus parse`")
    else:
        tpath, dpath = path, None
    objects, bad = _objects(tpath)
    theorems, invalid = theorems_from_objects(objects)
    rejected = [Rejected(tpath.name, n, why) for n, why in sorted(bad + invalid)]
    documents: list[Document] = []
    if dpath is not None:
        dobjects, dbad = _objects(dpath)
        documents, dinvalid = _documents_from_objects(dobjects)
        rejected += [Rejected(dpath.name, n, why) for n, why in sorted(dbad + dinvalid)]
    named = {d.id for d in documents}
    documents += _paper_documents(objects, {t.doc_id for t in theorems} - named)
    if strict and rejected:
        more = f" (and {len(rejected) - 5} more)" if len(rejected) > 5 else ""
        raise RecordFileError("invalid records: " + "; ".join(map(str, rejected[:5])) + more)
    return RecordSet(theorems, documents, rejected)
