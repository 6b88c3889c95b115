"""The harness end to end on hand-written searchers, plus the candidate-pool sweep and the reports."""

import json

import pytest

from theorem_rag.eval.harness import EvalResult, evaluate, pool_sweep
from theorem_rag.eval.queries import Query
from theorem_rag.eval.report import markdown_report, sweep_markdown, write_report

DOC_OF = {"t1": "p", "t2": "p", "t3": "q", "t4": "r", "self": "q"}


class Fixed:
    """Returns a fixed ranking per query text, cut at k, and records the depths it was asked for."""

    def __init__(self, name, rankings):
        self.name, self.rankings, self.asked = name, rankings, []

    def search_batch(self, queries, k):
        self.asked.append((list(queries), k))
        return [self.rankings.get(q, [])[:k] for q in queries]


def test_evaluate_per_set_per_level():
    queries = [Query("a", "qa", ("t3",)), Query("b", "qb", ("t4",)), Query("c", "qc", ("t1",))]
    searcher = Fixed("s", {"qa": ["t1", "t3"], "qb": ["t1", "t2", "t3", "t4"], "qc": []})
    r = evaluate({"dev": queries}, {"s": searcher}, DOC_OF, ks=(1, 2))
    th, pa = r.results["s"]["dev"].theorem, r.results["s"]["dev"].paper
    # theorem ranks: a -> 2, b -> 4, c -> none
    assert th["hit@1"] == 0.0 and th["hit@2"] == pytest.approx(1 / 3) and th["mrr@2"] == pytest.approx(1 / 6)
    # paper ranks: a -> [p, q]: 2; b -> [p, q, r]: 3; c -> none
    assert pa["hit@2"] == pytest.approx(1 / 3) and pa["mrr@2"] == pytest.approx(1 / 6)
    assert r.results["s"]["dev"].n == 3
    ranks = [(q.query_id, q.rank, q.paper_rank) for q in r.per_query]
    assert ranks == [("a", 2, 2), ("b", None, None), ("c", None, None)]
    assert r.score("s", "dev", "theorem", "hit@2") == pytest.approx(1 / 3)


def test_exclude_asks_for_more_so_the_list_is_not_shortened():
    # The relevant statement is the 3rd result; excluding the query's own statement must still find it at k = 2.
    queries = [Query("x", "own", ("t3",), exclude=("self",)), Query("y", "plain", ("t1",))]
    searcher = Fixed("s", {"own": ["self", "t1", "t3"], "plain": ["t1"]})
    r = evaluate({"dev": queries}, {"s": searcher}, DOC_OF, ks=(1, 2))
    assert sorted(k for _, k in searcher.asked) == [2, 3]
    assert r.per_query[0].rank == 2
    assert r.results["s"]["dev"].theorem["hit@2"] == 1.0


def test_missing_relevant_counted_and_reported():
    queries = [Query("a", "q", ("gone",)), Query("b", "q", ("t1", "gone")), Query("c", "q", ("t1",))]
    r = evaluate({"dev": queries}, {"s": Fixed("s", {"q": ["t1"]})}, DOC_OF, ks=(1,))
    res = r.results["s"]["dev"]
    assert (res.n_missing, res.n_unanswerable) == (2, 1)
    assert res.theorem["hit@1"] == pytest.approx(2 / 3)
    assert res.theorem["recall@1"] == pytest.approx((0 + 0.5 + 1) / 3)
    assert "2 with relevant ids missing from the corpus (1 with none present" in markdown_report(r)


def test_configs_side_by_side_and_json():
    queries = {"one": [Query("a", "q", ("t1",))], "two": [Query("b", "q", ("t2",))]}
    searchers = {"good": Fixed("good", {"q": ["t1", "t2"]}), "bad": Fixed("bad", {"q": ["t4"]})}
    r = evaluate(queries, searchers, DOC_OF, ks=(1, 20))
    assert r.configs == ["good", "bad"] and r.query_sets == ["one", "two"]
    assert r.score("good", "two", metric="mrr@20") == 0.5 and r.score("bad", "one") == 0.0
    data = json.loads(json.dumps(r.to_json(per_query=True)))
    assert data["primary_metric"] == "hit@20"
    assert data["results"]["good"]["one"]["theorem"]["hit@1"] == 1.0
    assert len(data["per_query"]) == 4
    assert "per_query" not in r.to_json()


def test_searcher_returning_wrong_count_is_an_error():
    class Broken:
        name = "broken"

        def search_batch(self, queries, k):
            return []

    with pytest.raises(ValueError, match="returned 0 rankings for 1 queries"):
        evaluate({"dev": [Query("a", "q", ("t1",))]}, {"broken": Broken()}, DOC_OF)
    with pytest.raises(ValueError, match="no searcher"):
        evaluate({"dev": []}, {}, DOC_OF)
    with pytest.raises(ValueError, match="without queries: dev"):
        evaluate({"dev": []}, {"broken": Broken()}, DOC_OF)


def test_markdown_table_and_files(tmp_path):
    r = evaluate({"dev": [Query("a", "q", ("t1",))]}, {"s": Fixed("s", {"q": ["t1"]})}, DOC_OF, ks=(1, 5))
    md = markdown_report(r)
    lines = md.splitlines()
    assert lines[0] == "### dev (n = 1)"
    assert lines[2].startswith("| config | level | Hit@1 | Hit@5 | MRR@1 | MRR@5 | R@1 | R@5 | ms/query |")
    assert lines[4].startswith("| s | theorem | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 |")
    assert lines[5].startswith("| s | paper | 1.000 |")
    paths = write_report(r, tmp_path / "out")
    assert paths["markdown"].read_text() == md
    assert json.loads(paths["json"].read_text())["results"]["s"]["dev"]["n"] == 1
    assert isinstance(r, EvalResult)


def test_pool_sweep_against_exact():
    class Pool:
        def __init__(self, pool):
            self.name, self.pool = f"pool-{pool}", pool

        def search_batch(self, queries, k):
            # A small pool only sees the first candidates of the true order, so its top k is partly wrong.
            return [(["a", "b", "c", "d"][: self.pool] + ["x", "y", "z"])[:k] for _ in queries]

    rows = pool_sweep(Pool, [1, 2, 4], Pool(4), ["q1", "q2"], k=3)
    assert [(r.pool, r.overlap) for r in rows] == [(1, pytest.approx(1 / 3)), (2, pytest.approx(2 / 3)), (4, 1.0)]
    assert sweep_markdown(rows).splitlines()[0] == "| candidate pool | overlap@3 with exact | ms/query |"
    with pytest.raises(ValueError):
        pool_sweep(Pool, [1], Pool(4), [])
