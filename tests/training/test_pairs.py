"""Pair mining for the adapted embedder: the proof-reference split rule, evaluation queries never trained on,
hard negatives from the same section, deduplication, and the ``theorem-rag model pairs`` command."""

from __future__ import annotations

import hashlib
import json

import pytest
from click.testing import CliRunner

from theorem_rag.records import Document, Theorem
from theorem_rag.training.pairs import PREMISE_INSTRUCTION, EvalExclusions, in_training_split, mine_pairs

BODY = "Let $R$ be a ring and $M$ a finite module over $R$. Then $M$ is finitely presented when $R$ is Noetherian."


def thm(tid: str, *, name=None, label=None, section=("Modules",), refs=(), doc="d1", meta=None, kind="lemma"):
    return Theorem(id=tid, source="x", kind=kind, doc_id=doc, body_latex=BODY + f" ({tid})", name=name, label=label,
                   section=section, proof_refs=refs, meta=meta or {})


def test_split_rule_is_the_issue_formula():
    for sid in ("x:0", "x:1", "stacks:0D09", "planetmath:Bijection"):
        assert in_training_split(sid) == (int(hashlib.sha1(sid.encode()).hexdigest(), 16) % 10 < 8)
    # x:0 hashes to 8 (outside), x:1 to 7 (inside)
    assert not in_training_split("x:0") and in_training_split("x:1")


def test_proof_pairs_only_from_citing_statements_of_the_training_split(tmp_path):
    (tmp_path / "stacks_proof_refs.jsonl").write_text(json.dumps(
        {"id": "refs-x3", "query": "something else entirely", "relevant": ["x:9"], "exclude": ["x:3"]}) + "\n")
    cited = [thm("x:9"), thm("x:10")]
    citing = [thm("x:0", refs=("x:9",)),   # hash 8: outside the split
              thm("x:1", refs=("x:9", "x:10")),  # hash 7: trains
              thm("x:3", refs=("x:10",))]  # hash 0 but a dev query: never trains
    pairs = mine_pairs(cited + citing, exclusions=EvalExclusions.from_dir(tmp_path), kinds=("proof",)).pairs
    assert sorted((p.anchor_id, p.positive_id) for p in pairs) == [("x:1", "x:10"), ("x:1", "x:9")]
    assert all(p.anchor.startswith(PREMISE_INSTRUCTION + " ") for p in pairs)
    # without an instruction the anchor is the citing statement as ordinary search would embed it
    plain = mine_pairs(cited + citing, exclusions=EvalExclusions.from_dir(tmp_path), kinds=("proof",),
                       proof_instruction="").pairs
    assert sorted(p.anchor for p in plain) == [" ".join(citing[1].text.split())] * 2


def test_evaluation_queries_never_become_anchors(tmp_path):
    (tmp_path / "synonyms.jsonl").write_text(
        json.dumps({"id": "syn-1", "query": "1-1 Correspondence", "relevant": ["x:2"]}) + "\n"
        + json.dumps({"id": "s-2", "query": "Nakayama's lemma", "relevant": ["x:5"]}) + "\n")
    theorems = [
        thm("x:2", name="bijection", meta={"synonyms": ["1-1  correspondence", "one-to-one correspondence"]}),
        thm("x:5", name="nakayama's   LEMMA"),
        thm("x:6", name="Krull's theorem"),
    ]
    pairs = mine_pairs(theorems, exclusions=EvalExclusions.from_dir(tmp_path)).pairs
    anchors = sorted(p.anchor for p in pairs if p.kind in ("name", "synonym"))
    assert anchors == ["Krull's theorem", "bijection", "one-to-one correspondence"]
    # without the exclusions both would be mined: the test can fail
    unfiltered = {p.anchor for p in mine_pairs(theorems).pairs}
    assert {"1-1 correspondence", "nakayama's LEMMA"} <= unfiltered


def test_hard_negative_comes_from_the_same_section_then_the_same_document():
    theorems = [thm("x:1", name="A", section=("S1",)), thm("x:2", name="B", section=("S1",)),
                thm("x:3", name="C", section=("S2",)), thm("x:4", name="D", section=("S9",), doc="other")]
    pairs = {p.anchor_id: p for p in mine_pairs(theorems, kinds=("name",)).pairs}
    by_body = {t.id: mine_pairs([t], kinds=("name",)).pairs[0].positive for t in theorems}
    assert pairs["x:1"].negative == by_body["x:2"] and pairs["x:2"].negative == by_body["x:1"]
    assert pairs["x:3"].negative in (by_body["x:1"], by_body["x:2"])  # alone in S2: same document
    assert all(p.negative != p.positive for p in pairs.values())


def test_duplicates_and_short_statements_are_dropped_and_counted():
    theorems = [thm("x:1", name="Flat base change", meta={"defines": ["flat base change", "base change"]}),
                Theorem(id="x:2", source="x", kind="lemma", doc_id="d1", body_latex="$x$", name="Tiny")]
    result = mine_pairs(theorems, kinds=("name", "defines"))
    assert sorted((p.kind, p.anchor) for p in result.pairs) == [("defines", "base change"),
                                                                ("name", "Flat base change")]
    assert result.dropped == {"defines: duplicate": 1, "name: too short": 1}
    assert "| name | 1 |" in result.report() and "| **all** | **2** |" in result.report()


def test_paper_titles_pair_with_their_theorems_only():
    theorems = [thm("p:1", doc="paper", kind="theorem"), thm("p:2", doc="paper", kind="lemma")]
    docs = [Document(id="paper", source="papers", title="A foundation for synthetic geometry")]
    pairs = mine_pairs(theorems, docs, kinds=("paper",)).pairs
    assert [(p.anchor, p.positive_id) for p in pairs] == [("A foundation for synthetic geometry", "p:1")]


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown pair kinds"):
        mine_pairs([thm("x:1")], kinds=("names",))


def test_model_pairs_command_reports_counts_and_needs_the_eval_folder(tmp_path):
    from theorem_rag.cli import main

    records = tmp_path / "records"
    records.mkdir()
    rows = [thm("x:1", name="Flat base change"), thm("x:2", label="lemma-open-immersion")]
    (records / "theorems.jsonl").write_text("".join(json.dumps(t.to_dict()) + "\n" for t in rows))
    (tmp_path / "eval").mkdir()
    runner = CliRunner()
    missing = runner.invoke(main, ["model", "pairs", "--records", str(records)])
    assert missing.exit_code == 2 and "--eval-dir" in missing.output
    out = tmp_path / "pairs.jsonl"
    done = runner.invoke(main, ["model", "pairs", "--records", str(records), "--eval-dir", str(tmp_path / "eval"),
                                "--out", str(out)])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "| name | 1 |" in done.output and "| label | 1 |" in done.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["anchor"] for r in rows) == ["Flat base change", "open immersion (modules)"]


@pytest.mark.parametrize("flag, prefix", [([], PREMISE_INSTRUCTION + " "), (["--proof-instruction", ""], "")])
def test_model_pairs_command_passes_the_proof_instruction(tmp_path, flag, prefix):
    from theorem_rag.cli import main

    records = tmp_path / "records"
    records.mkdir()
    rows = [thm("x:9"), thm("x:1", refs=("x:9",))]  # x:1 is in the training split
    (records / "theorems.jsonl").write_text("".join(json.dumps(t.to_dict()) + "\n" for t in rows))
    (tmp_path / "eval").mkdir()
    out = tmp_path / "pairs.jsonl"
    done = CliRunner().invoke(main, ["model", "pairs", "--records", str(records), "--eval-dir", str(tmp_path / "eval"),
                                     "--kind", "proof", *flag, "--out", str(out)])  # fmt: skip
    assert done.exit_code == 0, done.output
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["anchor"] == prefix + " ".join(rows[1].text.split())


def test_query_instruction_goes_before_every_anchor_but_a_proof_one(tmp_path):
    (tmp_path / "synonyms.jsonl").write_text(json.dumps({"id": "s-1", "query": "Nakayama's lemma",
                                                         "relevant": ["x:5"]}) + "\n")
    theorems = [thm("x:9", name="Krull's theorem", meta={"synonyms": ["Krull dimension theorem"]}),
                thm("x:5", name="Nakayama's lemma"), thm("x:1", refs=("x:9",))]  # x:1 is in the training split
    pairs = mine_pairs(theorems, exclusions=EvalExclusions.from_dir(tmp_path), kinds=("name", "synonym", "proof"),
                       query_instruction="query:").pairs  # fmt: skip
    assert sorted((p.kind, p.anchor) for p in pairs if p.kind != "proof") == [
        ("name", "query: Krull's theorem"), ("synonym", "query: Krull dimension theorem")]
    # the evaluation query is still recognised under the instruction; a proof anchor keeps the premise one only
    (proof,) = [p for p in pairs if p.kind == "proof"]
    assert proof.anchor == f"{PREMISE_INSTRUCTION} " + " ".join(theorems[2].text.split())


def test_model_pairs_command_passes_the_query_instruction(tmp_path):
    from theorem_rag.cli import main

    records = tmp_path / "records"
    records.mkdir()
    (records / "theorems.jsonl").write_text(json.dumps(thm("x:1", name="Flat base change").to_dict()) + "\n")
    (tmp_path / "eval").mkdir()
    out = tmp_path / "pairs.jsonl"
    done = CliRunner().invoke(main, ["model", "pairs", "--records", str(records), "--eval-dir", str(tmp_path / "eval"),
                                     "--query-instruction", " query: ", "--out", str(out)])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert [json.loads(line)["anchor"] for line in out.read_text().splitlines()] == ["query: Flat base change"]


def test_an_excluded_source_lends_no_anchor_positive_or_negative(tmp_path):
    """``--exclude-source papers``: the model never sees that source's statements, as it never sees a user's arXiv."""
    from dataclasses import replace

    from theorem_rag.cli import main

    records = tmp_path / "records"
    records.mkdir()
    rows = [thm("x:1", name="Flat base change"), thm("x:2", name="Open immersion lemma"),
            replace(thm("p:1", name="Entropic Freiman-Ruzsa", doc="paper"), source="papers"),
            replace(thm("p:2", label="lemma-entropy-step", doc="paper"), source="papers")]
    (records / "theorems.jsonl").write_text("".join(json.dumps(t.to_dict()) + "\n" for t in rows))
    (tmp_path / "eval").mkdir()
    out = tmp_path / "pairs.jsonl"
    args = ["model", "pairs", "--records", str(records), "--eval-dir", str(tmp_path / "eval"), "--out", str(out)]
    done = CliRunner().invoke(main, [*args, "--exclude-source", "papers"])
    assert done.exit_code == 0, done.output
    pairs = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(p["anchor_id"] for p in pairs) == ["x:1", "x:2"]
    assert not any("(p:" in p["positive"] + p["negative"] for p in pairs)
    # without the flag the papers lend pairs; an unknown source is an error that names it
    assert CliRunner().invoke(main, args).exit_code == 0
    assert {json.loads(line)["anchor_id"] for line in out.read_text().splitlines()} >= {"p:1", "p:2"}
    typo = CliRunner().invoke(main, [*args, "--exclude-source", "paper"])
    assert typo.exit_code == 2 and "no statement of source(s) paper" in typo.output
