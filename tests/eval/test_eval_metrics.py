"""Metric functions on hand-computed cases: ties, duplicates, empty results, exclude, paper level, missing ids."""

import math

import pytest

from theorem_rag.eval import metrics as m

KS = (1, 2, 5)


def test_single_relevant_hand_computed():
    s = m.score_ranking(["a", "b", "c", "d", "e"], {"c"}, ks=KS)
    assert s == {
        "hit@1": 0.0, "mrr@1": 0.0, "recall@1": 0.0,
        "hit@2": 0.0, "mrr@2": 0.0, "recall@2": 0.0,
        "hit@5": 1.0, "mrr@5": pytest.approx(1 / 3), "recall@5": 1.0,
    }


def test_multi_relevant_recall_and_mrr_use_first_hit():
    s = m.score_ranking(["a", "b", "c", "d"], {"b", "d", "z"}, ks=(1, 2, 4))
    assert (s["recall@1"], s["recall@2"], s["recall@4"]) == (0.0, pytest.approx(1 / 3), pytest.approx(2 / 3))
    assert s["mrr@4"] == 0.5 and s["hit@2"] == 1.0


def test_duplicates_count_once_at_first_occurrence():
    # Without deduplication b would sit at position 4 and miss the cut at 2.
    s = m.score_ranking(["a", "a", "a", "b"], {"b"}, ks=(2,))
    assert s == {"hit@2": 1.0, "mrr@2": 0.5, "recall@2": 1.0}
    # A relevant id repeated in the ranking is found once: recall stays 1/2, not 2/2.
    assert m.score_ranking(["b", "b"], {"b", "c"}, ks=(2,))["recall@2"] == 0.5


def test_ties_are_the_order_given():
    # Two results with equal scores: the harness scores the order the searcher chose, so both orders differ.
    assert m.score_ranking(["a", "b"], {"a"}, ks=(1,))["hit@1"] == 1.0
    assert m.score_ranking(["b", "a"], {"a"}, ks=(1,))["hit@1"] == 0.0


def test_empty_ranking_scores_zero_everywhere():
    s = m.score_ranking([], {"a"}, ks=KS)
    assert set(s) == {f"{x}@{k}" for x in m.METRICS for k in KS}
    assert all(v == 0.0 for v in s.values())


def test_exclude_is_dropped_before_cutting():
    s = m.score_ranking(["q", "x", "a"], {"a"}, ks=(2,), exclude={"q"})
    assert s == {"hit@2": 1.0, "mrr@2": 0.5, "recall@2": 1.0}
    # Without exclude the same ranking misses at 2.
    assert m.score_ranking(["q", "x", "a"], {"a"}, ks=(2,))["hit@2"] == 0.0


def test_relevant_that_is_excluded_does_not_count():
    s = m.score_ranking(["a", "b"], {"a", "b"}, ks=(1,), exclude={"a"})
    assert s == {"hit@1": 1.0, "mrr@1": 1.0, "recall@1": 1.0}


def test_clean_ranking_keeps_first_positions():
    assert m.clean_ranking(["a", "x", "b", "a", "c", "b"], exclude={"x"}) == ["a", "b", "c"]


def test_paper_level_dedupes_documents_and_skips_unknown():
    doc_of = {"t1": "p", "t2": "p", "t3": "q", "t4": "r"}
    papers = m.paper_ranking(["t1", "t2", "unknown", "t3", "t4"], doc_of)
    assert papers == ["p", "q", "r"]
    gold = m.relevant_papers(["t4"], doc_of)
    assert gold == {"r"}
    s = m.score_ranking(papers, gold, ks=(2, 3))
    assert (s["hit@2"], s["hit@3"], s["mrr@3"]) == (0.0, 1.0, pytest.approx(1 / 3))


def test_paper_level_exclude_and_explicit_papers():
    doc_of = {"q": "own", "t1": "p"}
    assert m.paper_ranking(["q", "t1"], doc_of, exclude={"q"}) == ["p"]
    assert m.relevant_papers(["t1"], doc_of, explicit=("z",)) == {"z"}


def test_missing_relevant_is_a_miss_and_is_reported():
    corpus = {"a", "b"}
    assert m.missing_relevant(["a", "gone"], corpus) == ["gone"]
    # Half the relevant set is absent: recall cannot exceed 1/2 whatever the ranking.
    assert m.score_ranking(["a", "b"], {"a", "gone"}, ks=(2,))["recall@2"] == 0.5
    assert m.relevant_papers(["gone"], {"a": "p"}) == set()
    assert m.score_ranking(["p"], set(), ks=(1,)) == {"hit@1": 0.0, "mrr@1": 0.0, "recall@1": 0.0}


def test_mean_scores_and_primary_metric():
    rows = [{"hit@1": 1.0, "mrr@1": 1.0}, {"hit@1": 0.0, "mrr@1": 0.0}, {"hit@1": 1.0, "mrr@1": 0.5}]
    assert m.mean_scores(rows) == {"hit@1": pytest.approx(2 / 3), "mrr@1": 0.5}
    assert m.mean_scores([]) == {}
    assert m.primary_metric((1, 5, 10, 20)) == "hit@20" == m.PRIMARY_METRIC
    assert m.primary_metric((1, 3)) == "hit@3"


@pytest.mark.parametrize("ks", [(), (0,), (5, -1)])
def test_bad_cutoffs_raise(ks):
    with pytest.raises(ValueError, match="ks must be positive"):
        m.score_ranking(["a"], {"a"}, ks=ks)


def test_overlap_with_exact():
    assert m.overlap_at_k(["a", "b", "c"], ["a", "c", "d"], 3) == pytest.approx(2 / 3)
    assert m.overlap_at_k(["a", "a", "c"], ["a", "c"], 2) == 1.0
    assert m.overlap_at_k([], [], 5) == 1.0


def test_ndcg_at_10_hand_computed():
    """DCG sums 1 / log2(i + 1) over the relevant ids at positions i <= 10; the ideal ranking puts min(|relevant|,
    10) relevant ids first. log2(2) = 1, log2(4) = 2, log2(8) = 3."""
    assert m.ndcg_at_k(["b", "x", "a"], {"a", "b"}, 10) == pytest.approx((1 + 1 / 2) / (1 + 1 / math.log2(3)))
    assert m.ndcg_at_k(["x", "y", "a"], {"a"}, 10) == pytest.approx(1 / 2)
    assert m.ndcg_at_k(["x"] * 6 + ["a"], {"a"}, 10) == pytest.approx(1 / 3)
    # relevant at rank 11: outside the cut
    assert m.ndcg_at_k([f"x{i}" for i in range(10)] + ["a"], {"a"}, 10) == 0.0
    # more relevant ids than k: the ideal ranking is k relevant ids, so ten relevant in ten places is perfect
    twelve = {f"r{i}" for i in range(12)}
    assert m.ndcg_at_k(sorted(twelve), twelve, 10) == pytest.approx(1.0)
    # a relevant id the ranking lacks (not in the corpus) stays in the ideal ranking
    assert m.ndcg_at_k(["a"], {"a", "gone"}, 10) == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert m.ndcg_at_k(["a"], set(), 10) == 0.0


def test_ndcg_is_scored_at_10_when_10_is_a_cutoff_after_duplicates_and_excludes_are_dropped():
    s = m.score_ranking(["q", "a", "a", "x", "b"], {"b", "q"}, ks=(1, 10), exclude={"q"})
    assert s["ndcg@10"] == pytest.approx(1 / 2)  # cleaned: a, x, b; q excluded from the relevant set too
    assert set(s) == {"hit@1", "mrr@1", "recall@1", "hit@10", "mrr@10", "recall@10", "ndcg@10"}
    assert "ndcg@5" not in m.score_ranking(["b"], {"b"}, ks=(5,))
    assert m.metric_names((5, 10))[-1] == "ndcg@10" and m.metric_label("ndcg@10") == "nDCG@10"
