"""One record reader, one contract: JSON Lines and Parquet, folder or file, every bad row reported with its line."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from theorem_rag.record_files import RecordFileError, Rejected, read_records
from theorem_rag.records import Document, Theorem

T1 = Theorem(id="me:1", source="me", kind="lemma", body_latex="Every group is a set.", doc_id="me:notes",
             meta={"synonyms": ["sets"]})
T2 = Theorem(id="me:2", source="me", kind="theorem", body_latex="Every ring is a group.", doc_id="me:paper")
DOC = Document(id="me:notes", source="me", title="Notes", year=2020)


def _jsonl(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_a_theorem_file_reports_every_bad_row_and_builds_paper_documents(tmp_path):
    path = _jsonl(tmp_path / "mine.jsonl", [
        {**T1.to_dict(), "parser": "jsonl"}, "not json", [1, 2], {"id": "me:3", "source": "me"},
        {**T2.to_dict(), "kind": "musing"}, {**T2.to_dict(), "title": "A paper", "year": 2001, "parser": "jsonl"},
        {**T1.to_dict(), "body_latex": "again"},
    ])  # fmt: skip
    got = read_records(path, strict=False)
    assert got.theorems == [replace(T1, parser="jsonl"), replace(T2, parser="jsonl")]
    assert got.documents == [Document(id="me:paper", source="me", title="A paper", year=2001)]
    assert [(r.line, r.reason.split(" (")[0]) for r in got.rejected] == [
        (2, "invalid JSON: Expecting value"), (3, "not a JSON object"),
        (4, "theorem record 'me:3' lacks required field(s): kind, body_latex, doc_id"),
        (5, "unknown kind 'musing'"), (7, "duplicate id 'me:1'"),
    ]  # fmt: skip
    with pytest.raises(RecordFileError, match=r"mine.jsonl:2: invalid JSON.*; mine.jsonl:7: duplicate id"):
        read_records(path)


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_a_parse_folder_reads_the_same_in_both_formats(tmp_path, fmt):
    from corpus_build.writer import write_outputs

    class NoReport:
        def to_dict(self):
            return {}

        def to_markdown(self):
            return ""

    write_outputs(tmp_path, [T1, T2], [DOC], NoReport(), fmt)
    got = read_records(tmp_path)
    assert got.theorems == [T1, T2]  # meta survives Parquet's JSON text column
    assert got.documents == [DOC] and got.rejected == []


def test_a_folder_without_theorems_is_a_clear_error(tmp_path):
    with pytest.raises(RecordFileError, match="no theorems.jsonl or theorems.parquet.*corpus parse"):
        read_records(tmp_path)
    with pytest.raises(RecordFileError, match="no such folder or record file"):
        read_records(tmp_path / "absent.jsonl")
    assert str(Rejected("t.jsonl", 3, "why")) == "t.jsonl:3: why"
