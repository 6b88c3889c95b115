"""Ids of unlabelled statements follow the statement, not its place: edits elsewhere in a file never move them.

The toy corpus (tests/toy_corpus.py) has three unlabelled exercises, a labelled theorem and an unlabelled lemma; the
edit deletes the first exercise, renames the label, swaps the other two exercises and rewrites the lemma.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

import corpus_build.adapters.base as adapter_base
from corpus_build.parse import parse_sources
from theorem_rag.cli import main
from toy_corpus import write_toy


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "theorems.jsonl").open()]


def _parse(src: Path, out: Path) -> list[dict]:
    parse_sources([src], out, use_plastex=False, progress=False)
    return _records(out)


def test_unlabelled_ids_do_not_move_when_other_statements_change(tmp_path):
    before = _parse(write_toy(tmp_path / "v1", edited=False), tmp_path / "out1")
    after = _parse(write_toy(tmp_path / "v2", edited=True), tmp_path / "out2")
    old = {r["body_latex"]: r["id"] for r in before}
    new = {r["body_latex"]: r["id"] for r in after}
    unchanged = ("Show that the ring $\\mathbb{Z}/6$ has zero divisors.", "Show that a finite integral domain is a field.")
    for body in unchanged:
        assert new[body] == old[body]
        assert re.fullmatch(r"toy:main\.tex#exercise-[0-9a-f]{8}", new[body])
    assert len(set(old.values())) == len(before) == 5 and len(set(new.values())) == len(after) == 4
    # the renamed label and the rewritten lemma are other statements now: no id of the first parse is reused
    lemma = "Every maximal ideal of a commutative ring is a prime ideal."
    assert new["Every principal ideal domain is a unique factorisation domain."] == "toy:thm:pid-ufd"
    assert new[lemma] not in old.values() and re.fullmatch(r"toy:main\.tex#lemma-[0-9a-f]{8}", new[lemma])


def test_the_positional_id_each_statement_had_is_kept_as_legacy_id(tmp_path):
    after = _parse(write_toy(tmp_path / "v2", edited=True), tmp_path / "out")
    legacy = {r["body_latex"][:20]: r["meta"].get("legacy_id") for r in after}
    assert legacy == {
        "Show that a finite i": "toy:main.tex#0",
        "Show that the ring $": "toy:main.tex#1",
        "Every principal idea": None,  # labelled: its id never was positional
        "Every maximal ideal ": "toy:main.tex#3",
    }


def test_ids_whose_hashes_collide_get_a_counter_in_document_order(tmp_path, monkeypatch):
    monkeypatch.setattr(adapter_base, "statement_key", lambda kind, body: f"{kind}-00000000")
    after = _parse(write_toy(tmp_path / "v1", edited=False), tmp_path / "out")
    assert [r["id"] for r in after] == [
        "toy:main.tex#exercise-00000000", "toy:main.tex#exercise-00000000#2", "toy:main.tex#exercise-00000000#3",
        "toy:thm:old", "toy:main.tex#lemma-00000000",
    ]  # fmt: skip


def test_eval_resolves_query_sets_written_against_positional_ids(tmp_path):
    out = tmp_path / "records"
    _parse(write_toy(tmp_path / "v1", edited=False), out)
    queries = tmp_path / "old_ids.jsonl"
    queries.write_text(json.dumps({"id": "q1", "query": "finite integral domain is a field",
                                   "relevant": ["toy:main.tex#2"]}) + "\n")  # fmt: skip
    res = CliRunner().invoke(main, ["eval", "--records", str(out), "--queries", str(queries), "--config", "bm25-latex",
                                    "--no-plots", "--out", str(tmp_path / "eval")])  # fmt: skip
    assert res.exit_code == 0, res.output
    result = json.loads((tmp_path / "eval" / "results.json").read_text())
    scored = result["results"]["bm25-latex"]["old_ids"]
    assert (scored["n_missing"], scored["theorem"]["hit@1"]) == (0, 1.0)
