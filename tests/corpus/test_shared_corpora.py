"""Full-corpus checks on /work/shared (marked slow): counts near the README and eval ids covered."""

import json
import shutil

import pytest

from corpus_build.parse import parse_sources
from shared_data import shared_dir

SHARED = shared_dir()
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    if not (SHARED / "corpora" / "stacks").is_dir():
        pytest.fail(f"the shared corpora are missing: expected {SHARED}/corpora (or set THEOREM_RAG_SHARED)")
    out = tmp_path_factory.mktemp("shared")
    report = parse_sources([SHARED / "corpora" / c for c in ("stacks", "planetmath")], out, use_plastex=False,
                           progress=False)
    recs = [json.loads(x) for x in (out / "theorems.jsonl").open()]
    return report, recs


def _eval_ids(name: str) -> list[str]:
    return [r for q in map(json.loads, (SHARED / "eval" / name).open()) for r in q["relevant"]]


def test_counts_near_readme(records):
    report, recs = records
    tagged = sum(1 for r in recs if r["source"] == "stacks" and "tag" in r["meta"])
    entries = sum(1 for r in recs if r["source"] == "planetmath")
    assert tagged >= 16000 and entries >= 3800
    assert all(not s.failed for s in report.sources)


@pytest.mark.parametrize("name", ["stacks_slogans_dev.jsonl", "stacks_proof_refs.jsonl", "planetmath_synonyms.jsonl"])
def test_eval_ids_are_covered(records, name):
    ids = {r["id"] for r in records[1]}
    wanted = _eval_ids(name)
    assert sum(w in ids for w in wanted) / len(wanted) >= 0.99


def test_research_dev_ids_resolve_on_the_papers(tmp_path):
    """The research set names 20 unlabelled statements by their old positional ids: each resolves to a record."""
    from theorem_rag.eval.queries import legacy_aliases, load_queries, resolve_ids
    from theorem_rag.record_files import read_records

    parse_sources([SHARED / "corpora" / "papers"], tmp_path, use_plastex=False, progress=False)
    theorems = read_records(tmp_path).theorems
    queries = load_queries(SHARED / "eval" / "research_dev.jsonl")
    resolved = resolve_ids(queries, legacy_aliases(theorems))
    ids = {t.id for t in theorems}
    assert [r for q in resolved for r in q.relevant if r not in ids] == []
    assert sum(a != b for q, r in zip(queries, resolved) for a, b in zip(q.relevant, r.relevant)) == 20


def test_every_planetmath_synonym_id_is_an_entry_and_no_id_of_the_first_six_areas_moved(tmp_path):
    """The synonym set was written when six areas were indexed (03, 11, 15, 20, 26, 54): every id it names is a
    record of all sixty, and every id those six areas give alone names the same file among all sixty."""
    pm = SHARED / "corpora" / "planetmath"
    six = tmp_path / "planetmath"
    for area in sorted(pm.iterdir()):
        if area.name[:2] in ("03", "11", "15", "20", "26", "54"):
            shutil.copytree(area, six / area.name)
    files = {}
    for name, src in (("six", six), ("all", pm)):
        parse_sources([src], tmp_path / name, use_plastex=False, progress=False)
        files[name] = {r["id"]: r["file"] for r in map(json.loads, (tmp_path / name / "theorems.jsonl").open())}
    assert [i for i in _eval_ids("planetmath_synonyms.jsonl") if i not in files["all"]] == []
    assert len(files["six"]) > 3800
    assert {i: f for i, f in files["six"].items() if files["all"].get(i) != f} == {}
