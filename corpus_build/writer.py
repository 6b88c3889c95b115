"""Writing the parse output atomically (temp file + rename) into the output folder, as JSON Lines or Parquet."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from theorem_rag.errors import InputError


def write_atomic(path: Path, lines: Iterable[str]) -> None:
    """Write text lines to ``path`` through a temporary file in the same folder, renamed at the end."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for line in lines:
                f.write(line)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_parquet(path: Path, rows: list[dict]) -> None:
    """Rows as a Parquet table; nested values (meta, lists of lists) are JSON strings."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as e:
        raise ImportError('Parquet output needs pyarrow: pip install "theorem-rag[corpus]"') from e
    flat = [{k: json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else v for k, v in r.items()} for r in rows]
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        pq.write_table(pa.Table.from_pylist(flat), tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


FORMATS = ("jsonl", "parquet")


def write_outputs(out: Path, theorems, documents, report, fmt: str = "jsonl") -> None:
    """``theorems.*``, ``documents.*``, ``report.json`` and ``report.md`` under ``out``.

    The records of the other format are removed once the new ones are in place: a reader finding both
    (:func:`theorem_rag.record_files.read_records`) cannot tell which is current, so it refuses the folder.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown output format {fmt!r}: use jsonl or parquet")
    for name, rows in (("theorems", theorems), ("documents", documents)):
        if fmt == "parquet":
            write_parquet(out / f"{name}.parquet", [r.to_dict() for r in rows])
        else:
            write_atomic(out / f"{name}.jsonl", (r.to_json() + "\n" for r in rows))
    for name in ("theorems", "documents"):
        for other in FORMATS:
            if other != fmt:
                (out / f"{name}.{other}").unlink(missing_ok=True)
    write_atomic(out / "report.json", [json.dumps(report.to_dict(), indent=1, ensure_ascii=False) + "\n"])
    write_atomic(out / "report.md", [report.to_markdown()])
