"""Parsing one arXiv paper: a pure top-level function over plain data, so a process pool or Ray can map it.

>>> import gzip, tempfile, pathlib
>>> src = pathlib.Path(tempfile.mkdtemp()) / "v1.eprint"
>>> _ = src.write_bytes(gzip.compress(rb"\\documentclass{article}\\newtheorem{thm}{Theorem}\\begin{document}"
...     rb"\\begin{thm}\\label{main}Every prime $p>2$ is odd.\\end{thm}\\end{document}"))
>>> r = parse_paper(PaperTask({"id": "2301.01234v1", "title": "Odd primes"}, str(src), use_plastex=False))
>>> r.status, [t["id"] for t in r.theorems], r.document["title"]
('ok', ['arxiv:2301.01234#main'], 'Odd primes')
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from corpus_build.arxiv.adapter import ArxivAdapter, empty_document
from corpus_build.arxiv.atom import ArxivEntry
from corpus_build.arxiv.eprint import Limits, unpack
from corpus_build.arxiv.ids import ArxivId, parse_arxiv_id
from corpus_build.arxiv.withdrawal import is_withdrawal_notice
from corpus_build.report import SourceReport
from corpus_build.sources import walk_tree
from corpus_build.texfiles import DEFAULT_MAX_FILE_BYTES

STATUSES = ("ok", "no-theorems", "pdf-only", "withdrawn", "failed")
# A version in one of these states has no statements, and that is what it says about the paper: its document
# replaces the earlier version's records. ``failed`` (a download or parser failure) says nothing about the
# version and leaves them alone.
EMPTY = ("no-theorems", "pdf-only", "withdrawn")


@dataclass
class PaperTask:
    """What parsing one paper needs: its metadata (:meth:`ArxivEntry.to_dict`, at least ``id``) and its cached
    e-print file; everything is plain data so the task pickles and serializes."""

    entry: dict
    source: str
    use_plastex: bool = True
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    limits: dict = field(default_factory=dict)


@dataclass
class PaperResult:
    """The records of one paper (as dicts), its status (one of :data:`STATUSES`) and the reason when not ok."""

    id: str
    status: str
    reason: str = ""
    theorems: list[dict] = field(default_factory=list)
    document: dict | None = None
    problems: list[dict] = field(default_factory=list)
    dropped: dict = field(default_factory=dict)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


def parse_paper(task: PaperTask) -> PaperResult:
    """Unpack and parse one paper; a bad e-print is a result with a status and reason, never an exception.

    A version without statements (:data:`EMPTY`) still has a document (:func:`empty_document`), which replaces the
    earlier version's records; a withdrawn version (its metadata says so) is not read at all.
    """
    t0 = time.perf_counter()
    entry = ArxivEntry.from_dict(task.entry) if len(task.entry) > 1 else None
    aid = entry.id if entry else parse_arxiv_id(task.entry["id"])
    res = PaperResult(aid.versioned, "ok")
    if entry is not None and entry.withdrawn:
        res.status, res.reason = "withdrawn", entry.comment or entry.abstract
    else:
        _parse_source(task, entry, aid, res)
    if res.status in EMPTY:
        res.document = empty_document(entry, aid, res.status, res.reason).to_dict()
    res.seconds = round(time.perf_counter() - t0, 3)
    return res


def _parse_source(task: PaperTask, entry: ArxivEntry | None, aid: ArxivId, res: PaperResult) -> None:
    from corpus_build.parse import _finish, parse_tree

    scratch = Path(tempfile.mkdtemp(prefix="arxiv-"))
    try:
        data = Path(task.source).read_bytes()
        unpacked = unpack(data, scratch / "src", Limits(**task.limits))
        res.problems = [{"path": p.path, "reason": p.reason} for p in unpacked.problems]
        if unpacked.status != "ok":
            res.status, res.reason = unpacked.status, unpacked.reason
            return
        rep = SourceReport(aid.versioned, task.source, "arxiv")
        adapter = ArxivAdapter(walk_tree(scratch / "src", label=aid.key), aid, entry)
        found, docs = parse_tree(adapter, rep, use_plastex=task.use_plastex, max_bytes=task.max_file_bytes,
                                 progress=False)  # fmt: skip
        kept = _finish(found, rep)
        res.problems += rep.failed
        res.dropped = dict(rep.dropped)
        if not kept and not found and _only_a_notice(scratch / "src"):
            res.status, res.reason = "withdrawn", "the source is only a withdrawal notice"
        elif not kept:
            res.status = "no-theorems"
            res.reason = "the source has no theorem environments" if not found else "every statement was filtered out"
        else:
            res.theorems = [t.to_dict() for t in kept]
            res.document = docs[0].to_dict() if docs else None
    except Exception as e:  # noqa: BLE001 - one bad paper must not stop a run of thousands; it is reported
        res.status, res.reason = "failed", f"parser crashed: {type(e).__name__}: {e}"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _only_a_notice(folder: Path, max_bytes: int = 64 * 1024) -> bool:
    """Whether the unpacked source is short and only says that the paper was withdrawn."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    if not files or sum(p.stat().st_size for p in files) > max_bytes:
        return False
    return is_withdrawal_notice("\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files))
