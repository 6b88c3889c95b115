"""A parse folder holds the records of one format: a parse in the other format never leaves a stale file behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from corpus_build.writer import write_parquet
from theorem_rag.cli import main
from theorem_rag.record_files import RecordFileError, read_records

pytest.importorskip("pyarrow.parquet", reason='pip install "theorem-rag[corpus]"')

TEX = r"""\documentclass{article}\newtheorem{lemma}{Lemma}\begin{document}
\begin{lemma}\label{l:%s}%s\end{lemma}
\end{document}
"""


def _parse(src: Path, out: Path, fmt: str, label: str, body: str) -> None:
    (src / "main.tex").write_text(TEX % (label, body))
    res = CliRunner().invoke(main, ["corpus", "parse", str(src), "--out", str(out), "--format", fmt, "--no-plastex",
                                    "--quiet"])  # fmt: skip
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize(("first", "second"), [("jsonl", "parquet"), ("parquet", "jsonl")])
def test_a_parse_in_the_other_format_replaces_the_records(tmp_path, first, second):
    src, out = tmp_path / "notes", tmp_path / "records"
    src.mkdir()
    _parse(src, out, first, "old", "Every field is an integral domain.")
    _parse(src, out, second, "new", "Every finite integral domain is a field.")
    assert sorted(p.name for p in out.glob("*s.*")) == [f"documents.{second}", f"theorems.{second}"]
    got = read_records(out)
    assert [(t.id, t.body_latex) for t in got.theorems] == [("notes:l:new", "Every finite integral domain is a field.")]


def test_a_folder_with_both_formats_is_refused(tmp_path):
    src, out = tmp_path / "notes", tmp_path / "records"
    src.mkdir()
    _parse(src, out, "jsonl", "a", "Every field is an integral domain.")
    write_parquet(out / "theorems.parquet", [])  # left by another tool, or by a run killed between two renames
    with pytest.raises(RecordFileError, match=r"holds both theorems.jsonl and theorems.parquet.*delete the older"):
        read_records(out)
