"""Parsing on Ray Data: arXiv papers, or the documents of ``corpus parse``, as a map over workers.

Both call the same pure functions as the single-process path (:func:`corpus_build.arxiv.papers.parse_paper`,
:func:`corpus_build.units.parse_unit`), so both produce the same records; the driver reads the trees, merges the
results in order and runs the per-source filters and id checks, as the local path does.

>>> mapper = ray_paper_mapper(timeout=600)          # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from corpus_build.arxiv.papers import PaperResult, PaperTask, parse_paper
from corpus_build.extract import Extraction
from corpus_build.fallback_parser import FallbackResult
from corpus_build.ray_engine import RayUnavailable, TaskError, ray_map, require_ray
from corpus_build.report import Report
from corpus_build.texfiles import DEFAULT_MAX_FILE_BYTES
from corpus_build.units import UnitJob, parse_unit

__all__ = ["RayUnavailable", "parse_sources_ray", "ray_paper_mapper", "ray_unit_mapper"]


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


def ray_unit_mapper(*, timeout: float | None = 1800, memory_mb: int | None = 4096):
    """A ``map_units`` engine for :func:`corpus_build.parse.parse_sources`: each document is a Ray task.

    A document whose task crashes, passes ``timeout`` or loses its worker comes back as a ``failed`` parse with
    the reason, which the parse report lists under its source; the others are unaffected.
    """
    require_ray()

    def mapper(jobs: list[UnitJob]) -> list[Extraction]:
        out: list[Extraction | None] = [None] * len(jobs)
        for got in ray_map(parse_unit, jobs, timeout=timeout, memory_mb=memory_mb):
            if isinstance(got, TaskError):
                out[got.index] = Extraction([], "failed", reason=f"parser {got.reason}", fallback=FallbackResult([]))
            else:
                out[got[0]] = got[1]
        return out  # type: ignore[return-value]

    return mapper


def parse_sources_ray(
    paths: Iterable[str | os.PathLike],
    out_dir: str | os.PathLike,
    *,
    fmt: str = "jsonl",
    use_plastex: bool = True,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    timeout: float | None = 1800,
    memory_mb: int | None = 4096,
) -> Report:
    """:func:`corpus_build.parse.parse_sources` with every document (a paper, a Stacks chapter, a book's main
    file) parsed as a Ray task: the same function (:func:`corpus_build.units.parse_unit`) on the same jobs, merged
    in the same order, so the records are the same as the local path's.
    """
    from corpus_build.parse import parse_sources

    return parse_sources(paths, out_dir, fmt=fmt, use_plastex=use_plastex, max_file_bytes=max_file_bytes,
                         progress=False, map_units=ray_unit_mapper(timeout=timeout, memory_mb=memory_mb))  # fmt: skip
