"""Lean declarations live in the base model's space alone (issue 56: one space instead of two for mathlib's 279,000
declarations): ``theorem-rag index build`` embeds them there and leaves them out of the query model's space, whose
adapted model learned from LaTeX; a search then keeps that space for queries in words and finds the declarations in
the base space beside it. Real models, a real PostgreSQL, the records of tests/formal_index.py."""

from __future__ import annotations

import uuid

import pytest
from click.testing import CliRunner

from formal_index import LATEX_IDS, LEAN_IDS, write_record_folders

pytestmark = [pytest.mark.db, pytest.mark.models]
BASE_SPACE, QUERY_SPACE = "minilm_l6_v2_slogan", "math_minilm_v4_slogan"


@pytest.fixture(scope="module")
def built(pg_dsn, tmp_path_factory):
    """The records built as the quickstart and scripts/add_mathlib.sh do: the LaTeX statements into both spaces
    (the base model's, then math-minilm-v4's), then the Lean declarations by ``index build``."""
    from theorem_rag.cli import main as cli

    root = tmp_path_factory.mktemp("formal")
    write_record_folders(root)
    table = f"fb_{uuid.uuid4().hex[:8]}"
    env = {"THEOREM_RAG_DATABASE_URL": pg_dsn, "THEOREM_RAG_TABLE": table, "THEOREM_RAG_DATA_DIR": str(root),
           "THEOREM_RAG_EMBED_BACKEND": "torch"}  # fmt: skip
    runner = CliRunner()
    for args in (["--records", str(root / "latex")], ["--records", str(root / "latex"), "--embed-model",
                                                      "math-minilm-v4"], ["--records", str(root / "lean")]):  # fmt: skip
        result = runner.invoke(cli, ["index", "build", *args], env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.output
    return table, root


def _search(pg_dsn, built):
    from theorem_rag.config import Settings
    from theorem_rag.search import TheoremSearch

    table, root = built
    return TheoremSearch.from_settings(Settings(database_url=pg_dsn, table=table, data_dir=root, embed_backend="torch"))


def test_the_lean_declarations_are_in_the_base_space_only(pg_dsn, built):
    search = _search(pg_dsn, built)
    assert sorted(search.store.vector_ids(BASE_SPACE)) == sorted(LATEX_IDS + LEAN_IDS)
    assert sorted(search.store.vector_ids(QUERY_SPACE)) == LATEX_IDS
    assert search.store.count_formal() == len(LEAN_IDS)
    search.close()


def test_queries_in_words_keep_the_query_space_and_reach_the_declarations_in_the_base_space(pg_dsn, built,
                                                                                            monkeypatch):  # fmt: skip
    search = _search(pg_dsn, built)
    assert (search.query_space, search.formal_in_base) == (QUERY_SPACE, True)
    calls = []
    real = search.store.search_dense
    monkeypatch.setattr(search.store, "search_dense", lambda space, vector, *a, **kw: calls.append(
        (space, kw.get("filters"))) or real(space, vector, *a, **kw))  # fmt: skip
    hits = search.search("every prime number is at least two", k=10)
    assert {space for space, _ in calls} == {QUERY_SPACE, BASE_SPACE}
    assert all(f.formal is True for space, f in calls if space == BASE_SPACE)
    ids = [h.theorem_id for h in hits]
    assert "planetmath:PrimesAreAtLeastTwo" in ids and "mathlib:Nat.Prime.two_le" in ids
    # The informal filter leaves the base space out; with the adapted space the search stays as it was.
    calls.clear()
    search.search("every prime number is at least two", k=10, formal=False)
    assert {space for space, _ in calls} == {QUERY_SPACE}
    search.close()


@pytest.mark.parametrize("filters, spaces", [({"formal": True}, {BASE_SPACE}), ({"sources": "mathlib"}, {BASE_SPACE}),
                                             ({"sources": "planetmath"}, {QUERY_SPACE}),
                                             ({"sources": ["planetmath", "mathlib"]}, {QUERY_SPACE, BASE_SPACE})])
def test_a_space_is_searched_only_where_the_filters_admit_its_statements(pg_dsn, built, monkeypatch, filters,
                                                                         spaces):  # fmt: skip
    """The query space holds no declaration: a search for formal statements only leaves it out (a walk for none went
    on through 20,000 tuples, 150 ms on the combined index), and one for LaTeX sources only leaves out the base
    space's formal search; the hits are what the filters admit."""
    search = _search(pg_dsn, built)
    calls = []
    real = search.store.search_dense
    monkeypatch.setattr(search.store, "search_dense", lambda space, vector, *a, **kw: calls.append(space) or real(
        space, vector, *a, **kw))  # fmt: skip
    hits = search.search("every prime number is at least two", k=10, **filters)
    assert set(calls) == spaces
    ids = [h.theorem_id for h in hits]
    assert ("mathlib:Nat.Prime.two_le" in ids) == (BASE_SPACE in spaces)
    assert ("planetmath:PrimesAreAtLeastTwo" in ids) == (QUERY_SPACE in spaces)
    search.close()


def test_a_formal_only_search_weighs_full_text_as_against_the_base_space(pg_dsn, built):
    """Full-text search weighs less beside the adapted model's ranking of a query in words (``lexical_weights``'
    third value) than beside the base model's (its second): a search for declarations only compares the query with
    the base space alone, so its full-text ranking takes the base space's weight."""
    from theorem_rag.filters import Filters
    from theorem_rag.retrieval.candidates import matched_share

    search = _search(pg_dsn, built)
    r = search.retriever
    query = "every prime number is at least two"
    space, model = r.dense_space(query)
    _, long, adapted = r.lexical_weights
    assert space == QUERY_SPACE and adapted < long
    for filters, weight in ((Filters(formal=True), long), (Filters(), adapted)):
        found = r._gather(r.plan(query), None, space, model, 50, 10, filters, True)
        assert found.lexical and found.weights[-1] == pytest.approx(weight * matched_share(found.lexical)), filters
    search.close()


def test_the_declarations_are_placed_among_the_informal_candidates_by_their_cosines_in_the_base_space(pg_dsn, built):
    """The two worlds' dense rankings come from two spaces, but both are in the base one: the formal ranking is fused
    as placed among the informal candidates' cosines there (a declaration behind three closer LaTeX statements
    ranks 4th in it, not 1st), so a query closer to the literature does not get a declaration's vote as strong."""
    from theorem_rag.filters import Filters

    search = _search(pg_dsn, built)
    r = search.retriever
    query = "every prime number is at least two"
    space, model = r.dense_space(query)
    found = r._gather(r.plan(query), None, space, model, 50, 10, Filters(), True)
    (informal, formal), (held_informal, held) = found.rankings[:2], found.among[:2]
    assert formal and all(h.theorem_id.startswith("mathlib:") for h in formal) and not held_informal
    base = search.store.exact_search(BASE_SPACE, r._embed(query, r.embed_model), k=len(informal),
                                     ids=[h.theorem_id for h in informal])  # fmt: skip
    assert sorted(held) == pytest.approx(sorted(h.score for h in base))
    pairs = found.fusion_input()[1]
    assert [x for x, _ in pairs if x is not None] == [h.theorem_id for h in formal]
    first = next(i for i, (x, _) in enumerate(pairs) if x is not None)
    assert first == sum(c > formal[0].score for c in held)  # after the informal candidates closer than it
    search.close()


def test_an_undocumented_declaration_counts_as_further_by_the_penalty(pg_dsn, built, monkeypatch):
    """mathlib documents what it presents to readers: in the declarations' dense ranking one without a docstring
    counts as UNDOCUMENTED_PENALTY further from the query than its cosine (the cosines kept for the confidence)."""
    from theorem_rag.filters import Filters
    from theorem_rag.retrieval import options

    search = _search(pg_dsn, built)
    r = search.retriever
    assert search.store.documented([*LEAN_IDS, *LATEX_IDS, "mathlib:Nope"]) == {"mathlib:Nat.Prime"}
    query = "a prime number is a natural number at least two"
    space, model = r.dense_space(query)
    cosines = {h.theorem_id: h.score for h in search.store.exact_search(
        BASE_SPACE, r._embed(query, r.embed_model), k=len(LEAN_IDS), ids=LEAN_IDS)}  # fmt: skip
    for penalty in (options.UNDOCUMENTED_PENALTY, 0.0, 1.0):
        monkeypatch.setattr(options, "UNDOCUMENTED_PENALTY", penalty)
        found = r._gather(r.plan(query), None, space, model, 50, 10, Filters(formal=True), True)
        formal = found.rankings[0]
        assert {h.theorem_id for h in formal} == set(LEAN_IDS)
        expected = {i: c - (0.0 if i == "mathlib:Nat.Prime" else penalty) for i, c in cosines.items()}
        assert [h.score for h in formal] == pytest.approx([expected[h.theorem_id] for h in formal], abs=1e-5)
        assert [h.score for h in formal] == sorted((h.score for h in formal), reverse=True)
        assert [h.dense_rank for h in formal] == list(range(1, len(formal) + 1))
        assert found.cosine["mathlib:Nat.Prime.two_le"] == pytest.approx(cosines["mathlib:Nat.Prime.two_le"], abs=1e-5)
    assert formal[0].theorem_id == "mathlib:Nat.Prime"  # a penalty of 1 puts the one documented declaration first
    search.close()


def test_a_query_space_missing_informal_statements_is_not_used(pg_dsn, built):
    """A query space that lacks more than the formal statements is still being built: every query searches the
    base space until it is complete, as before. (Last in the file: it takes a vector out of the shared index.)"""
    search = _search(pg_dsn, built)
    with search.store.connection() as conn:
        conn.execute(f'DELETE FROM "{search.store.names.vectors(QUERY_SPACE)}" WHERE theorem_id = %s', [LATEX_IDS[0]])
    again = _search(pg_dsn, built)
    assert again.query_space is None and not again.formal_in_base
    search.close()
    again.close()
