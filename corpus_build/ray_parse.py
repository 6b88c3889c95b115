"""Parsing on Ray Data: arXiv papers, or the papers and corpora of ``corpus parse``, as a map over workers.

Both call the same pure per-paper functions as the single-process path (:func:`corpus_build.arxiv.papers.parse_paper`,
:func:`parse_adapter`), so both paths produce the same records; the driver merges the per-paper reports and runs
the per-source filters and id checks, as the local path does.

>>> mapper = ray_paper_mapper(timeout=600)          # doctest: +SKIP
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from corpus_build.arxiv.papers import PaperResult, PaperTask, parse_paper
from corpus_build.ray_engine import RayUnavailable, TaskError, ray_map, require_ray
from corpus_build.report import Report, SourceReport
from corpus_build.texfiles import DEFAULT_MAX_FILE_BYTES

__all__ = ["RayUnavailable", "parse_adapter", "parse_sources_ray", "ray_paper_mapper"]


def ray_paper_mapper(*, timeout: float | None = 600, memory_mb: int | None = 2048):
    """A mapper for :func:`corpus_build.arxiv.ingest.ingest_arxiv` that parses the papers on Ray."""
    require_ray()

    def mapper(tasks: list[PaperTask]) -> Iterator[PaperResult]:
        for got in ray_map(parse_paper, tasks, timeout=timeout, memory_mb=memory_mb):
            if isinstance(got, TaskError):
                aid = tasks[got.index].entry["id"]
                yield PaperResult(aid, "failed", f"parser {got.reason}")
            else:
                yield got[1]

    return mapper


def parse_adapter(job: tuple) -> tuple:
    """One adapter (a paper, or a whole corpus) parsed: ``(theorems before filters, documents, report)``."""
    from corpus_build.parse import parse_tree

    adapter, use_plastex, max_bytes = job
    rep = SourceReport(adapter.source, str(adapter.tree.root), "paper")
    theorems, documents = parse_tree(adapter, rep, use_plastex=use_plastex, max_bytes=max_bytes, progress=False)
    return theorems, documents, rep


_ADDITIVE = ("files_seen", "files_read", "files_not_latex", "documents", "statements_found", "id_collisions")


def merge_report(into: SourceReport, part: SourceReport) -> None:
    """Add a worker's report of one adapter into its source's report."""
    for name in _ADDITIVE:
        setattr(into, name, getattr(into, name) + getattr(part, name))
    for name, value in vars(part).items():
        if isinstance(value, Counter):
            getattr(into, name).update(value)
        elif isinstance(value, list):
            getattr(into, name).extend(value)


def parse_sources_ray(
    paths: Iterable[str | os.PathLike],
    out_dir: str | os.PathLike,
    *,
    fmt: str = "jsonl",
    use_plastex: bool = True,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    timeout: float | None = 3600,
    memory_mb: int | None = 4096,
) -> Report:
    """:func:`corpus_build.parse.parse_sources` with every paper (adapter) parsed as a Ray task.

    A folder of papers (``MANIFEST.jsonl``) gives one task per paper; a corpus such as the Stacks project is
    one task. A task that crashes or passes ``timeout`` is reported as a failed file of its source.
    """
    from corpus_build.parse import _finish, adapters_for
    from corpus_build.writer import write_outputs
    from theorem_rag.record_files import read_records

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".scratch-", dir=out))
    start = time.perf_counter()
    from corpus_build.extract import plastex_available

    report = Report([], plastex_available=use_plastex and plastex_available())
    jobs, owners = [], []
    # per source, in argument order: ("records", theorems, documents) or the indexes of its adapter jobs
    pieces: list[tuple[SourceReport, object]] = []
    theorems, documents = [], []
    try:
        for raw in paths:
            path = Path(raw)
            rep = SourceReport(path.name, str(path), "paper")
            report.sources.append(rep)
            if not path.exists():
                rep.fail(str(path), "no such file or folder")
                continue
            if path.is_file() and path.suffix == ".jsonl":
                rep.corpus, rep.source = "jsonl", path.stem
                records = read_records(path, strict=False)
                for rejected in records.rejected:
                    rep.fail(f"{rejected.path}:{rejected.line}", rejected.reason)
                rep.files_seen = rep.files_read = 1
                rep.statements_found = len(records.theorems)
                rep.found_by_parser["jsonl"] = len(records.theorems)
                pieces.append((rep, (_finish(records.theorems, rep), records.documents)))
                continue
            first = len(jobs)
            for adapter in adapters_for(path, scratch, rep, max_file_bytes):
                rep.source = adapter.source if rep.corpus != "papers" else "papers"
                jobs.append((adapter, use_plastex, max_file_bytes))
                owners.append(rep)
            pieces.append((rep, range(first, len(jobs))))
        results: dict[int, tuple] = {}
        for got in ray_map(parse_adapter, jobs, timeout=timeout, memory_mb=memory_mb):
            if isinstance(got, TaskError):
                owners[got.index].fail(str(jobs[got.index][0].tree.root), f"parser {got.reason}")
                continue
            i, (ts, ds, part) = got
            merge_report(owners[i], part)
            results[i] = (ts, ds)
        for rep, piece in pieces:
            if isinstance(piece, range):
                # the same order as the local path: a source's adapters in turn, then its filters and id checks
                found = [t for i in piece if i in results for t in results[i][0]]
                theorems += _finish(found, rep)
                documents += [d for i in piece if i in results for d in results[i][1]]
            else:
                theorems += piece[0]
                documents += piece[1]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report.seconds = time.perf_counter() - start
    write_outputs(out, theorems, documents, report, fmt)
    return report
