"""The words space (issue 53): ``index build --embed-field statement`` embeds each informal statement's words alone
with the base model; later builds keep it in step (the Lean declarations stay out, as from the query space); a
search in words of six words or more reorders its first candidates by the query's cosine with those words, a
keyword query, a premise search or ``words_weight=0`` do not; an incomplete space is not read. Real models, a real
PostgreSQL, the records of tests/formal_index.py built through the CLI as the quickstart does."""

from __future__ import annotations

import uuid

import pytest
from click.testing import CliRunner

from formal_index import LATEX_IDS, LEAN_IDS, write_record_folders

pytestmark = [pytest.mark.db, pytest.mark.models]
WORDS_SPACE = "minilm_l6_v2_statement"
DESCRIPTION = "every prime number is greater than or equal to two"


@pytest.fixture(scope="module")
def built(pg_dsn, tmp_path_factory):
    """The LaTeX statements into the base space, then into the words space, then the Lean declarations by a plain
    ``index build`` (which the words space follows with the informal statements only: there are none)."""
    from theorem_rag.cli import main as cli

    root = tmp_path_factory.mktemp("words")
    write_record_folders(root)
    table = f"sw_{uuid.uuid4().hex[:8]}"
    env = {"THEOREM_RAG_DATABASE_URL": pg_dsn, "THEOREM_RAG_TABLE": table, "THEOREM_RAG_DATA_DIR": str(root),
           "THEOREM_RAG_EMBED_BACKEND": "torch", "THEOREM_RAG_QUERY_MODEL": ""}  # fmt: skip
    runner = CliRunner()
    for args in (["--records", str(root / "latex")], ["--records", str(root / "latex"), "--embed-field", "statement"],
                 ["--records", str(root / "lean")]):  # fmt: skip
        result = runner.invoke(cli, ["index", "build", *args], env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.output
    return table, root


def _search(pg_dsn, built, **overrides):
    from theorem_rag.config import Settings
    from theorem_rag.search import TheoremSearch

    table, root = built
    return TheoremSearch.from_settings(Settings(database_url=pg_dsn, table=table, data_dir=root, embed_backend="torch",
                                                query_model=""), **overrides)  # fmt: skip


def test_the_words_space_holds_each_informal_statement_read_alone(pg_dsn, built):
    from theorem_rag.embed import embed_text_for

    search = _search(pg_dsn, built)
    assert search.words_space == WORDS_SPACE
    assert sorted(search.store.vector_ids(WORDS_SPACE)) == LATEX_IDS  # the Lean build left it as it was
    assert sorted(search.store.vector_ids("minilm_l6_v2_slogan")) == sorted(LATEX_IDS + LEAN_IDS)
    (theorem,) = search.store.get_theorems([LATEX_IDS[0]]).values()
    text = embed_text_for(theorem, "A slogan.", "statement")
    assert text and "slogan" not in text.lower() and (theorem.name or "@") not in text
    search.close()


def test_a_description_reorders_the_first_candidates_by_their_words(pg_dsn, built, monkeypatch):
    import theorem_rag.query_understanding.plan as plan
    from theorem_rag.retrieval.statement_words import WORDS_DEPTH, reorder

    # The reading alone: a description that states its result also has its definitions put after the others
    # (tests/db/test_query_routing.py), which would reorder the candidates read here once more.
    monkeypatch.setattr(plan, "asserts_a_result", lambda query: False)
    search = _search(pg_dsn, built)
    calls = []
    real = search.store.exact_search
    monkeypatch.setattr(search.store, "exact_search", lambda space, vec, *a, **kw: calls.append(
        (space, kw.get("ids"))) or real(space, vec, *a, **kw))  # fmt: skip
    plain = search.with_options(words_weight=0).search(DESCRIPTION, k=WORDS_DEPTH)
    assert calls == []
    read = search.search(DESCRIPTION, k=WORDS_DEPTH)
    ((space, ids),) = calls
    assert space == WORDS_SPACE and ids == [h.theorem_id for h in plain][:WORDS_DEPTH]
    cosines = {h.theorem_id: h.score for h in real(WORDS_SPACE, search.embedder.embed_query(DESCRIPTION),
                                                 k=len(ids), ids=ids)}  # fmt: skip
    assert 0 < len(cosines) < len(ids)  # the Lean declarations have no words vector: they count at the middle
    expected = reorder(plain, cosines, front={h.theorem_id for h in plain if h.named}, weight=search.ranking.words_weight)
    assert [h.theorem_id for h in read] == [h.theorem_id for h in expected]
    assert [h.rank for h in read] == list(range(1, len(read) + 1))
    # The first 30 are read whatever k is: a candidate from below k may come up.
    assert [h.theorem_id for h in search.search(DESCRIPTION, k=3)] == [h.theorem_id for h in read][:3]
    # A keyword query and premise search read no statement's words.
    calls.clear()
    search.search("prime number", k=5)
    search.premises(r"Let $p$ be a prime number. Then $p \geq 2$ and $p$ has exactly two divisors.", k=5)
    assert calls == []
    search.close()


def test_an_incomplete_words_space_is_not_read(pg_dsn, built, monkeypatch):
    from psycopg import sql

    from theorem_rag.db.store import TheoremStore

    table, _ = built
    with TheoremStore(pg_dsn, table=table) as store:
        gone = LATEX_IDS[0]
        vectors = dict(store.iter_vectors(WORDS_SPACE, [gone]))
        with store.connection() as conn:
            conn.execute(sql.SQL("DELETE FROM {v} WHERE theorem_id = %s").format(
                v=sql.Identifier(store.names.vectors(WORDS_SPACE))), [gone])  # fmt: skip
        try:
            search = _search(pg_dsn, built)
            assert search.words_space is None
            monkeypatch.setattr(search.store, "exact_search", lambda *a, **kw: pytest.fail("an incomplete space read"))
            assert search.search(DESCRIPTION, k=5)
            search.close()
        finally:
            store.write_vectors(WORDS_SPACE, [gone], [vectors[gone]])
