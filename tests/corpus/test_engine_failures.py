"""A document whose parse failed in an engine (crash, timeout, lost worker) is listed in the report, not dropped."""

from __future__ import annotations

from pathlib import Path

from corpus_build.extract import Extraction
from corpus_build.fallback_parser import FallbackResult
from corpus_build.parse import parse_sources

PAPER = Path(__file__).resolve().parents[1] / "fixtures" / "latex" / "paper"


def test_failed_documents_are_reported_with_the_reason(tmp_path):
    def engine(jobs):
        return [Extraction([], "failed", reason="parser timed out after 5 s", fallback=FallbackResult([])) for _ in jobs]

    report = parse_sources([PAPER], tmp_path, use_plastex=False, progress=False, map_units=engine)
    src = report.sources[0]
    assert src.failed == [{"path": "main.tex", "reason": "parser timed out after 5 s"}]
    assert src.records_kept == 0
    assert (tmp_path / "theorems.jsonl").read_text() == ""
