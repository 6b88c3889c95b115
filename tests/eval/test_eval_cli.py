"""``theorem-rag eval`` on a tiny records folder with BM25: outputs, extra records, clear errors."""

import json

import pytest
from click.testing import CliRunner

from theorem_rag.cli.eval import eval_command
from theorem_rag.records import Document, Theorem

STATEMENTS = {
    "s:1": ("ch1", "Every Noetherian ring has finitely many minimal primes."),
    "s:2": ("ch1", "A flat module over a local ring is free if finitely presented."),
    "s:3": ("ch2", r"An \'etale morphism of schemes is open."),
    "s:4": ("ch2", "A proper morphism is universally closed."),
}


@pytest.fixture
def corpus(tmp_path):
    records = tmp_path / "records"
    records.mkdir()
    with open(records / "theorems.jsonl", "w") as f:
        for tid, (doc, body) in STATEMENTS.items():
            f.write(Theorem(id=tid, source="s", kind="lemma", body_latex=body, doc_id=doc).to_json() + "\n")
    (records / "documents.jsonl").write_text(
        "".join(Document(id=d, source="s").to_json() + "\n" for d in ("ch1", "ch2"))
    )
    queries = tmp_path / "dev.jsonl"
    rows = [
        {"id": "q1", "query": "minimal primes of a Noetherian ring", "relevant": ["s:1"]},
        {"id": "q2", "query": "etale morphisms are open", "relevant": ["s:3"], "exclude": ["s:4"]},
        {"id": "q3", "query": "proper implies universally closed", "relevant": ["s:9"]},
    ]
    queries.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path, records, queries


def run(*args):
    return CliRunner().invoke(eval_command, [str(a) for a in args], catch_exceptions=False)


def test_eval_writes_json_markdown_and_plot(corpus):
    tmp, records, queries = corpus
    out = tmp / "out"
    result = run("--queries", queries, "--config", "bm25-latex", "--records", records, "--out", out, "--k", 1, "--k", 2)
    assert result.exit_code == 0, result.output
    assert "### dev (n = 3; 1 with relevant ids missing from the corpus (1 with none present" in result.output
    data = json.loads((out / "results.json").read_text())
    scores = data["results"]["bm25-latex"]["dev"]
    assert scores["n"] == 3 and data["ks"] == [1, 2]
    assert scores["theorem"]["hit@1"] == pytest.approx(2 / 3)
    assert scores["paper"]["hit@1"] == pytest.approx(2 / 3)
    # The per-query ranks sit beside the scores, in a file result folders do not commit (.gitignore).
    assert "per_query" not in data
    rows = [json.loads(line) for line in (out / "per_query.jsonl").read_text().splitlines()]
    assert {q["query_id"]: q["rank"] for q in rows} == {"q1": 1, "q2": 1, "q3": None}
    assert (out / "results.md").read_text().startswith("### dev")
    assert (out / "hit_at_k.png").read_bytes()[:4] == (out / "recall_at_k.png").read_bytes()[:4] == b"\x89PNG"


def test_extra_records_count_for_one_run_only(corpus):
    tmp, records, queries = corpus
    extra = tmp / "extra.jsonl"
    extra.write_text(Theorem(id="s:9", source="x", kind="lemma", body_latex="Proper implies universally closed.",
                             doc_id="ch9").to_json() + "\n")
    before = (records / "theorems.jsonl").read_text()
    result = run("--queries", queries, "--records", records, "--extra-records", extra, "--out", tmp / "o", "--no-plots")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp / "o" / "results.json").read_text())
    assert data["results"]["bm25-latex"]["dev"]["theorem"]["hit@1"] == 1.0
    assert data["results"]["bm25-latex"]["dev"]["n_missing"] == 0
    assert (records / "theorems.jsonl").read_text() == before
    assert not (tmp / "o" / "hit_at_k.png").exists()


def test_errors_are_clear(corpus):
    tmp, records, queries = corpus
    result = run("--queries", queries, "--config", "nope", "--records", records)
    assert result.exit_code == 1 and "unknown configuration 'nope'; available:" in result.output
    bad = tmp / "bad.jsonl"
    bad.write_text('{"id": "x", "query": "q", "relevant": ["s:1"]}\n{"id": "y"}\n')
    result = run("--queries", bad, "--records", records)
    assert result.exit_code == 1 and f"{bad}:2:" in result.output
    result = run("--queries", queries, "--records", tmp / "missing")
    assert result.exit_code == 1 and "missing: no such folder or record file" in result.output
    (tmp / "empty").mkdir()
    no_sets = run("--records", records, "--eval-dir", tmp / "empty")
    assert no_sets.exit_code == 2 and "no --queries given and no query sets (*.jsonl) in --eval-dir" in no_sets.output
    assert run("--queries", queries, "--records", records, "--baseline", "bm25-text").exit_code == 2
    listing = run("--list-configs")
    assert listing.exit_code == 0 and "bm25-latex\t" in listing.output


def test_without_queries_the_panel_of_the_eval_dir_is_scored(corpus):
    """No --queries: every query set of --eval-dir, each judged by its own primary metric; --baseline applies the
    panel rule to the other configurations."""
    tmp, records, queries = corpus
    panel = tmp / "panel"
    panel.mkdir()
    (panel / "research_dev.jsonl").write_text(queries.read_text())
    (panel / "stacks_slogans_dev.jsonl").write_text(
        json.dumps({"id": "s1", "query": "proper morphism universally closed", "relevant": ["s:4"]}) + "\n")
    (panel / "README.md").write_text("not a query set")
    out = tmp / "out"
    result = run("--eval-dir", panel, "--records", records, "--config", "bm25-latex,bm25-text", "--out", out,
                 "--no-plots", "--baseline", "bm25-latex")
    assert result.exit_code == 0, result.output
    data = json.loads((out / "results.json").read_text())
    assert set(data["results"]["bm25-latex"]) == {"research_dev", "stacks_slogans_dev"}
    table = (out / "results.md").read_text()
    assert "| config | research_dev MRR@20 | stacks_slogans_dev Hit@20 | ms/query |" in table
    mrr = data["results"]["bm25-latex"]["research_dev"]["theorem"]["mrr@20"]
    assert f"| bm25-latex | {mrr:.3f} | 1.000 |" in table
    assert "panel rule, bm25-text against bm25-latex: passes" in result.output


def _papers_folder(root, paper, body):
    """A folder of papers in the layout of ../shared/corpora/papers: MANIFEST.jsonl and one paper with one lemma."""
    (root / paper).mkdir(parents=True)
    (root / paper / "main.tex").write_text(
        "\\documentclass{article}\\newtheorem{lemma}{Lemma}\\begin{document}"
        f"\\begin{{lemma}}\\label{{lem:a}}{body}\\end{{lemma}}\\end{{document}}\n")
    (root / "MANIFEST.jsonl").write_text(json.dumps(
        {"id": paper, "title": "A paper", "main_file": f"{paper}/main.tex", "path_in_repo": paper,
         "license": "CC-BY-4.0"}) + "\n")


def test_a_query_set_with_its_own_sources_adds_them_for_the_run(corpus, monkeypatch):
    """unseen_dev.jsonl beside unseen/ (papers in no index): the panel parses unseen/ once, scores the set with its
    statements in the corpus, leaves the records folder as it was; a set with no answer in the corpus is skipped
    out loud, not scored as zeros."""
    tmp, records, queries = corpus
    monkeypatch.setenv("THEOREM_RAG_DATA_DIR", str(tmp / "data"))
    panel = tmp / "panel"
    _papers_folder(panel / "unseen", "new-paper", "Every widget is a gadget.")
    (panel / "unseen_dev.jsonl").write_text(
        json.dumps({"id": "u1", "query": "widgets are gadgets", "relevant": ["new-paper:lem:a"]}) + "\n")
    (panel / "lean_dev.jsonl").write_text(
        json.dumps({"id": "l1", "query": "two le prime", "relevant": ["mathlib:Nat.Prime.two_le"]}) + "\n")
    (panel / "research_dev.jsonl").write_text(queries.read_text())
    before = (records / "theorems.jsonl").read_text()
    out = tmp / "out"
    result = run("--eval-dir", panel, "--records", records, "--out", out, "--no-plots")
    assert result.exit_code == 0, result.output
    data = json.loads((out / "results.json").read_text())
    assert set(data["results"]["bm25-latex"]) == {"research_dev", "unseen_dev"}
    assert data["results"]["bm25-latex"]["unseen_dev"]["theorem"]["mrr@20"] == 1.0
    assert "lean_dev: skipped, none of its 1 queries has an answer in the corpus" in result.output
    assert "| config | research_dev MRR@20 | unseen_dev MRR@20 |" in (out / "results.md").read_text()
    assert (records / "theorems.jsonl").read_text() == before
    cached = list((tmp / "data" / "eval-corpora").iterdir())
    assert [p.name.split("-")[0] for p in cached] == ["unseen"]
    # parsed once: a second run reuses the cache; a changed source is parsed again
    assert run("--eval-dir", panel, "--records", records, "--out", out, "--no-plots").exit_code == 0
    assert len(list((tmp / "data" / "eval-corpora").iterdir())) == 1
    (panel / "unseen" / "new-paper" / "main.tex").write_text(
        (panel / "unseen" / "new-paper" / "main.tex").read_text().replace("gadget", "gizmo"))
    assert run("--eval-dir", panel, "--records", records, "--out", out, "--no-plots").exit_code == 0
    assert len(list((tmp / "data" / "eval-corpora").iterdir())) == 2
    # and so is an unchanged source when the parser's code changes (its parse could differ)
    monkeypatch.setattr("theorem_rag.eval.set_corpora.parser_digest", lambda: "another-parser")
    assert run("--eval-dir", panel, "--records", records, "--out", out, "--no-plots").exit_code == 0
    assert len(list((tmp / "data" / "eval-corpora").iterdir())) == 3


def test_a_set_with_styles_beside_it_is_scored_per_style_by_its_primary_metric(corpus):
    """mathlib_dev.jsonl with mathlib_dev.styles.tsv: nDCG@10 in the tables, and the set's primary metric (nDCG@10)
    per style in results.md and results.json. BM25 ranks q1 and q2 first and misses q3 (its answer is absent)."""
    tmp, records, queries = corpus
    mathlib = tmp / "mathlib_dev.jsonl"
    mathlib.write_text(queries.read_text())
    (tmp / "mathlib_dev.styles.tsv").write_text("id\tstyle\tkind\nq1\tlean\ttheorem\nq2\tlatex\tdef\n"
                                                 "q3\tlean\tstructure\n")
    out = tmp / "out"
    result = run("--queries", mathlib, "--records", records, "--out", out, "--no-plots")
    assert result.exit_code == 0, result.output
    scores = json.loads((out / "results.json").read_text())["results"]["bm25-latex"]["mathlib_dev"]
    assert scores["theorem"]["ndcg@10"] == pytest.approx(2 / 3)
    assert {s: (r["n"], r["theorem"]["ndcg@10"]) for s, r in scores["styles"].items()} == {
        "latex": (1, 1.0), "lean": (2, 0.5)}
    table = (out / "results.md").read_text()
    assert "| R@20 | nDCG@10 | ms/query |" in table
    assert ("#### mathlib_dev per style: nDCG@10 (theorem level)\n\n| config | latex (n = 1) | lean (n = 2) |\n"
            "|---|---:|---:|\n| bm25-latex | 1.000 | 0.500 |\n") in table


def test_a_bad_styles_file_stops_the_run_with_its_line(corpus):
    tmp, records, queries = corpus
    (tmp / "dev.styles.tsv").write_text("id\tkind\nq1\ttheorem\n")
    result = run("--queries", queries, "--records", records, "--out", tmp / "out", "--no-plots")
    assert result.exit_code == 1
    assert "dev.styles.tsv:1: the header must name an 'id' and a 'style' column" in result.output
