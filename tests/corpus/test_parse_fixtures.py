"""End to end on hand-written fixtures: exact ids, kinds, numbers, names, refs, urls and the report."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from corpus_build.extract import plastex_available
from corpus_build.parse import parse_sources
from theorem_rag.cli import main


def _records(out: Path) -> dict[str, dict]:
    return {d["id"]: d for d in map(json.loads, (out / "theorems.jsonl").open())}


@pytest.fixture
def parsed(fixtures: Path, tmp_path: Path):
    srcs = [fixtures / n for n in ("paper", "stacks", "planetmath", "hostile/missing_end.tex",
                                   "hostile/empty.tex", "theorems.jsonl")]
    report = parse_sources(srcs, tmp_path, use_plastex=False, progress=False)
    return report, _records(tmp_path), tmp_path


def test_paper_records(parsed):
    _, recs, out = parsed
    paper = {k: v for k, v in recs.items() if v["source"] == "paper"}
    assert [(k, v["kind"], v["number"], v["name"]) for k, v in paper.items()] == [
        ("paper:def:norm", "definition", "2.1", "Norm"),
        ("paper:thm:main", "theorem", "2.2", None),
        ("paper:lem:aux", "lemma", "2.3", "Auxiliary"),
        ("paper:sections/body.tex#claim-f90ee1e2", "claim", None, None),
        ("paper:satz:de", "theorem", "1", None),
        ("paper:lem:unknown", "lemma", "2.4", None),
    ]
    main = paper["paper:thm:main"]
    assert main["proof_refs"] == ["paper:def:norm", "paper:lem:aux"]
    assert (main["file"], main["line"], main["section"]) == ("sections/body.tex", 6, ["Results"])
    assert "% not a comment" not in main["body_latex"] and "$50\\%$ of" in main["body_latex"]
    assert main["body_expanded"].startswith(r"For every $x \in \mathbb{R}^n$ we have $\lvert \lVert x \rVert \rvert")
    aux = paper["paper:lem:aux"]
    assert r"\verb|%| sign" in aux["body_latex"] and r"\operatorname{Spec} \mathbb{Z}" in aux["body_expanded"]
    assert r"\frobnicate{$x$}" in paper["paper:lem:unknown"]["body_latex"]
    doc = next(json.loads(x) for x in (out / "documents.jsonl").open() if json.loads(x)["id"] == "paper")
    assert (doc["title"], doc["authors"], doc["abstract"]) == (
        "A Test Paper on Norms", ["Ada Lovelace", "Emmy Noether"], "We prove that norms are nonnegative.")
    assert doc["introduction"] == "Norms measure size."


def test_stacks_records_tags_urls_and_refs(parsed):
    _, recs, _ = parsed
    stacks = {k: v for k, v in recs.items() if v["source"] == "stacks"}
    assert sorted(stacks) == ["stacks:00AB", "stacks:00AC", "stacks:00AD", "stacks:00AE",
                              "stacks:algebra-remark-untagged"]
    lemma = stacks["stacks:00AC"]
    assert (lemma["kind"], lemma["number"], lemma["url"]) == ("lemma", "10.1.2", "https://stacks.math.columbia.edu/tag/00AC")
    assert lemma["proof_refs"] == ["stacks:00AB", "stacks:00AE"]
    assert stacks["stacks:00AD"]["proof_refs"] == ["stacks:00AC"]
    assert lemma["meta"] == {"chapter": "algebra", "full_label": "algebra-lemma-local", "tag": "00AC"}
    assert stacks["stacks:algebra-remark-untagged"]["url"] is None
    assert stacks["stacks:00AE"]["doc_id"] == "stacks:schemes"
    # The proof that follows a statement is kept with it, as written; a statement without one has none.
    assert lemma["proof"] == "Follows from Definition \\ref{definition-ring} and\nLemma \\ref{schemes-lemma-affine}."
    assert stacks["stacks:00AD"]["proof"] == "See Lemma \\ref{lemma-local} and Lemma \\ref{lemma-nonexistent}."
    assert stacks["stacks:00AB"]["proof"] == ""


def test_planetmath_entries(parsed):
    _, recs, _ = parsed
    b = recs["planetmath:Bijection"]
    assert (b["kind"], b["name"], b["url"]) == ("definition", "bijection", "https://planetmath.org/bijection")
    assert b["meta"]["synonyms"] == ["bijective", "one-to-one correspondence"]
    assert (b["meta"]["msc"], b["meta"]["related"], b["meta"]["pmtype"]) == (["03E20"], ["Injective", "Surjective"], "Definition")
    assert b["body_latex"].startswith(r"A function $f\colon A \to B$ is a \emph{bijection}")
    assert recs["planetmath:CantorsTheorem"]["kind"] == "theorem"
    assert (recs["planetmath:ProofOfCantorsTheorem"]["kind"], recs["planetmath:ProofOfCantorsTheorem"]["meta"]["pmtype"]) == ("remark", "Proof")


def test_missing_end_and_empty_and_jsonl(parsed):
    report, recs, _ = parsed
    assert ["missing-end:lem:open", "missing-end:thm:after"] == [k for k in recs if k.startswith("missing-end:") and "#" not in k]
    assert recs["missing-end:thm:after"]["body_latex"] == "The theorem after a missing end is found intact."
    by_source = {s.source: s for s in report.sources}
    assert by_source["missing-end"].unterminated == [{"file": "missing_end.tex", "env": "lemma", "line": 6}]
    assert by_source["empty"].without_statements == ["empty.tex"] and by_source["empty"].records_kept == 0
    assert recs["mine:1"]["parser"] == "jsonl"
    assert [f["path"] for f in by_source["theorems"].failed] == ["theorems.jsonl:2", "theorems.jsonl:3", "theorems.jsonl:4"]


def test_report_counts_add_up(parsed):
    report, recs, out = parsed
    d = json.loads((out / "report.json").read_text())
    for s in d["sources"]:
        assert s["statements_found"] == s["records_kept"] + sum(
            v for k, v in s["dropped"].items() if not k.startswith("unknown_kind")
        )
    assert d["totals"]["records_kept"] == len(recs)
    assert d["sources"][0]["dropped"] == {"unknown_kind:algo": 1}
    assert "| paper | paper | 3 | 0 | 1 | 6 | 6 | fallback 6 |" in (out / "report.md").read_text()


def test_ids_are_stable_across_runs(fixtures: Path, tmp_path: Path):
    a = parse_sources([fixtures / "paper"], tmp_path / "a", use_plastex=False, progress=False)
    b = parse_sources([fixtures / "paper"], tmp_path / "b", use_plastex=False, progress=False)
    assert a.sources[0].records_kept == 6
    assert (tmp_path / "a" / "theorems.jsonl").read_text() == (tmp_path / "b" / "theorems.jsonl").read_text()


def test_cli_parse_parquet(fixtures: Path, tmp_path: Path):
    pq = pytest.importorskip("pyarrow.parquet", reason='pip install "theorem-rag[corpus]"')
    res = CliRunner().invoke(
        main, ["corpus", "parse", str(fixtures / "stacks"), "--out", str(tmp_path), "--format", "parquet",
               "--no-plastex", "--quiet"]
    )
    assert res.exit_code == 0, res.output
    assert "stacks: 5 records from 5 statements" in res.output
    table = pq.read_table(tmp_path / "theorems.parquet")
    assert sorted(table.column("id").to_pylist())[0] == "stacks:00AB"
    assert json.loads(table.column("meta").to_pylist()[0])["chapter"] == "algebra"


def test_importing_the_pipeline_stays_light():
    code = "import sys, corpus_build.parse, theorem_rag.cli; print(sorted(m for m in ('plasTeX','torch','pyarrow') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.slow
def test_plastex_path_agrees_with_fallback_on_the_paper(fixtures: Path, tmp_path: Path):
    assert plastex_available(), 'plasTeX path missing: pip install "theorem-rag[corpus]"'
    report = parse_sources([fixtures / "paper"], tmp_path / "plastex", progress=False)
    parse_sources([fixtures / "paper"], tmp_path / "fallback", use_plastex=False, progress=False)
    rep = report.sources[0]
    # plasTeX reads the whole paper, so no unit falls back to the regex parser (fallback use would be reported).
    assert dict(rep.found_by_parser) == {"plastex": 6} and rep.fallback_units == []
    recs, fallback = _records(tmp_path / "plastex"), _records(tmp_path / "fallback")
    assert {r["parser"] for r in recs.values()} == {"plastex"}

    def fields(rs: dict[str, dict]) -> list[tuple]:
        return [(k, r["kind"], r["number"], r["name"], r["proof_refs"], r["section"]) for k, r in rs.items()]

    assert fields(recs) == fields(fallback)
