"""The panel rule: a configuration fails when any set's own primary metric falls by more than the tolerance."""

from theorem_rag.eval.panel import TOLERANCE, panel_drops, panel_markdown, primary_of


def scores(research, probes, slogans):
    return {"research_dev": {"mrr@20": research, "hit@20": 0.5}, "dev_probes": {"hit@1": probes, "hit@20": 0.9},
            "stacks_slogans_dev": {"hit@20": slogans, "mrr@20": 0.1}}


def test_each_set_is_judged_by_its_own_primary_metric():
    assert [primary_of(s) for s in ("stacks_slogans_dev", "planetmath_synonyms", "stacks_proof_refs", "dev_probes",
                                    "research_dev")] == ["hit@20", "hit@1", "recall@20", "hit@1", "mrr@20"]


def test_the_mathlib_set_is_judged_by_ndcg_at_10_and_a_run_without_it_shows_a_dash():
    assert primary_of("mathlib_dev") == "ndcg@10"
    text = panel_markdown({"a": {"mathlib_dev": {"ndcg@10": 0.25, "hit@20": 0.5}, "research_dev": {"mrr@20": 0.5}},
                           "b": {"mathlib_dev": {"hit@20": 0.5}, "research_dev": {"mrr@20": 0.75}}})
    assert text.splitlines()[0] == "| config | mathlib_dev nDCG@10 | research_dev MRR@20 |"
    assert text.splitlines()[2:] == ["| a | 0.250 | 0.500 |", "| b | - | 0.750 |"]


def test_a_drop_beyond_the_tolerance_fails_and_one_within_it_passes():
    panel = {"old": scores(0.68, 0.83, 0.81), "new": scores(0.82, 0.83 - TOLERANCE, 0.79)}
    drops = panel_drops(panel, "old", "new")
    assert [(d.query_set, d.metric, d.baseline, d.candidate) for d in drops] == [
        ("stacks_slogans_dev", "hit@20", 0.81, 0.79)]
    # a secondary metric falling does not count; the research set rising does not make up for another's fall
    panel["new"]["research_dev"]["hit@20"] = 0.1
    assert [d.query_set for d in panel_drops(panel, "old", "new")] == ["stacks_slogans_dev"]
    assert panel_drops(panel, "old", "old") == []


def test_markdown_lists_primary_metrics_per_set():
    text = panel_markdown({"a": scores(0.5, 0.25, 1.0)})
    assert text.splitlines()[0] == "| config | research_dev MRR@20 | dev_probes Hit@1 | stacks_slogans_dev Hit@20 |"
    assert text.splitlines()[2] == "| a | 0.500 | 0.250 | 1.000 |"



def test_a_set_only_one_side_scored_fails_the_rule_out_loud():
    """A set the candidate did not score, or one only the candidate scored, fails the rule: nothing shows it held."""
    new = scores(0.68, 0.83, 0.81)
    del new["dev_probes"]
    new["planetmath_synonyms"] = {"hit@1": 0.95}
    drops = panel_drops({"old": scores(0.68, 0.83, 0.81), "new": new}, "old", "new")
    assert [(d.query_set, d.metric, d.baseline, d.candidate, d.change) for d in drops] == [
        ("dev_probes", "hit@1", 0.83, None, None), ("planetmath_synonyms", "hit@1", None, 0.95, None)]
    assert [str(d) for d in drops] == ["dev_probes hit@1 0.830 -> not scored",
                                       "planetmath_synonyms hit@1 not scored -> 0.950"]
    # scored without its primary metric (cut-offs short of 20): not scored either
    del new["research_dev"]["mrr@20"]
    assert [str(d) for d in panel_drops({"old": scores(0.68, 0.83, 0.81), "new": new}, "old", "new")][0] == (
        "research_dev mrr@20 0.680 -> not scored")
