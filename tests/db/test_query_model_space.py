"""The query model's space: a query in words is embedded by math-minilm-v4 and compared with its space only; a
statement-shaped query and premise search stay with the base model; the server embeds each query with the model
the search will compare it with. Real models, a real PostgreSQL, 51 real statements (tests/fixtures/integrations)."""

from __future__ import annotations

import anyio
import numpy as np
import pytest

pytestmark = [pytest.mark.db, pytest.mark.models]

WORDS = "Nakayama lemma for finite modules"
STATEMENT = (r"Let $R$ be a ring, $I$ an ideal contained in the Jacobson radical of $R$ and $M$ a finite $R$-module. "
             r"If $IM = M$ then $M = 0$.")
BASE_SPACE, QUERY_SPACE = "minilm_l6_v2_slogan", "math_minilm_v4_slogan"


@pytest.fixture(scope="module")
def embedders():
    from theorem_rag.config import ADAPTED_MODEL
    from theorem_rag.embed import Embedder

    return Embedder(backend="torch"), Embedder(ADAPTED_MODEL, backend="torch")


@pytest.fixture(scope="module")
def two_spaces(pg_dsn, embedders):
    """A table prefix whose index has both spaces, complete, built by ``build_index`` as the CLI does."""
    import uuid

    from integrations_index import records
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.indexing.ingest import build_index
    from theorem_rag.slogans.offline import OfflineSloganWriter

    table = f"qs_{uuid.uuid4().hex[:8]}"
    store = TheoremStore(pg_dsn, table=table)
    theorems, documents = records()
    for embedder, space in zip(embedders, (BASE_SPACE, QUERY_SPACE), strict=True):
        build_index(store, embedder, theorems, documents, writer=OfflineSloganWriter(), space=space, progress=False)
    store.close()
    return table


def _search(pg_dsn, table, tmp_path, space=None, **settings):
    from theorem_rag.config import Settings
    from theorem_rag.search import TheoremSearch

    overrides = {"space": space} if space else {}
    return TheoremSearch.from_settings(Settings(database_url=pg_dsn, table=table, data_dir=tmp_path,
                                                embed_backend="torch", **settings), **overrides)  # fmt: skip


class _Spy:
    """Records the space and query vector of every dense search of a store."""

    def __init__(self, store, monkeypatch) -> None:
        self.calls: list[tuple[str, np.ndarray]] = []
        real = store.search_dense

        def search_dense(space, vector, *args, **kwargs):
            self.calls.append((space, np.asarray(vector, dtype=np.float32)))
            return real(space, vector, *args, **kwargs)

        monkeypatch.setattr(store, "search_dense", search_dense)

    def spaces(self) -> set[str]:
        found = {space for space, _ in self.calls}
        self.calls.clear()
        return found


def test_queries_in_words_search_the_query_space_with_its_own_model(pg_dsn, two_spaces, embedders, tmp_path,
                                                                    monkeypatch):  # fmt: skip
    base, adapted = embedders
    search = _search(pg_dsn, two_spaces, tmp_path)
    assert (search.space, search.query_space) == (BASE_SPACE, QUERY_SPACE)
    spy = _Spy(search.store, monkeypatch)

    hits = search.search(WORDS, 5)
    assert hits and {space for space, _ in spy.calls} == {QUERY_SPACE}
    vector = spy.calls[0][1]
    assert np.allclose(vector, adapted.embed_query(WORDS), atol=1e-5)  # the adapted model's vector ...
    assert not np.allclose(vector, base.embed_query(WORDS), atol=1e-2)  # ... not the base model's
    spy.calls.clear()

    assert search.search(STATEMENT, 5) and spy.spaces() == {BASE_SPACE}
    assert search.premises(STATEMENT, 5) is not None and spy.spaces() == {BASE_SPACE}
    assert search.query_embedder_for(WORDS) is search.query_embedder
    assert search.query_embedder_for(STATEMENT) is search.embedder
    search.close()


def test_one_space_for_every_query_when_asked_or_when_the_search_fuses_another_space(pg_dsn, two_spaces, tmp_path,
                                                                                     monkeypatch):  # fmt: skip
    one = _search(pg_dsn, two_spaces, tmp_path, query_model="")
    assert one.query_space is None
    spy = _Spy(one.store, monkeypatch)
    one.search(WORDS, 5)
    assert spy.spaces() == {BASE_SPACE}

    both = _search(pg_dsn, two_spaces, tmp_path)
    other = both.with_options(space=QUERY_SPACE)  # the query space stands in for the search's own space only
    assert other.query_space is None and other.retriever.query_space is None
    assert both.retriever.with_options(space=QUERY_SPACE).query_space is None
    assert both.with_options(k=3).query_space == QUERY_SPACE
    pinned = _search(pg_dsn, two_spaces, tmp_path, space=QUERY_SPACE)  # a space given by the caller is searched
    assert pinned.space == QUERY_SPACE and pinned.query_space is None
    pinned.close()
    one.close()
    both.close()


def test_full_text_weighs_less_beside_the_query_space_for_long_queries_only(pg_dsn, two_spaces, tmp_path, monkeypatch):
    """A long query in words fuses the full-text ranking at LEXICAL_WEIGHT_LONG_ADAPTED beside the adapted model's
    space; a keyword query, a statement and any query of a search without the query space keep their weights. A long
    query's weight is multiplied by the share of the query its best full-text statement holds (matched_share)."""
    from theorem_rag.retrieval import options as o
    from theorem_rag.retrieval import retriever as r

    seen: list[tuple[list[float], list]] = []
    real = r.fuse

    def fusion(rankings, k, weights, method):
        seen.append((list(weights), [list(ranking) for ranking in rankings]))
        return real(rankings, k=k, weights=weights, method=method)

    monkeypatch.setattr(r, "fuse", fusion)
    long_words = "a finite module equal to its product with the Jacobson radical vanishes"

    def lexical_weight(search, query):
        """The fusion's weight of the query's full-text ranking (its second) and its best score (None: no match)."""
        search.search(query, k=5)
        weights, rankings = seen.pop()
        return weights[1], rankings[1][0][1] if rankings[1] else None

    routed = _search(pg_dsn, two_spaces, tmp_path)
    weight, best = lexical_weight(routed, long_words)
    assert weight == pytest.approx(o.LEXICAL_WEIGHT_LONG_ADAPTED * min(1.0, best))
    assert o.LEXICAL_WEIGHT_LONG_ADAPTED < o.LEXICAL_WEIGHT_LONG
    weight, best = lexical_weight(routed, STATEMENT)
    assert weight == pytest.approx(o.LEXICAL_WEIGHT_LONG * min(1.0, best))
    assert lexical_weight(routed, "Nakayama lemma")[0] == o.LEXICAL_WEIGHT_SHORT
    one = _search(pg_dsn, two_spaces, tmp_path, query_model="")
    weight, best = lexical_weight(one, long_words)
    assert weight == pytest.approx(o.LEXICAL_WEIGHT_LONG * min(1.0, best))
    routed.close()
    one.close()


def test_an_incomplete_query_space_is_not_searched(pg_dsn, embedders, tmp_path, caplog):
    import uuid

    from integrations_index import records
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.indexing.ingest import build_index
    from theorem_rag.slogans.offline import OfflineSloganWriter

    table = f"qp_{uuid.uuid4().hex[:8]}"
    store = TheoremStore(pg_dsn, table=table)
    theorems, documents = records()
    build_index(store, embedders[0], theorems, documents, writer=OfflineSloganWriter(), space=BASE_SPACE,
                progress=False)  # fmt: skip
    build_index(store, embedders[1], theorems[:10], documents, writer=OfflineSloganWriter(), space=QUERY_SPACE,
                progress=False, prune=False)  # fmt: skip
    store.close()
    search = _search(pg_dsn, table, tmp_path)
    assert search.query_space is None
    search.close()
    assert "has 10 of the 51 vectors" in caplog.text and "--embed-model math-minilm-v4" in caplog.text


def test_the_server_embeds_each_query_with_the_model_it_is_compared_with(pg_dsn, two_spaces, tmp_path):
    from theorem_rag.serving.batching import QueryBatcher, with_query_batching
    from theorem_rag.serving.service import SearchService

    search = with_query_batching(_search(pg_dsn, two_spaces, tmp_path))
    assert isinstance(search.embedder, QueryBatcher) and isinstance(search.query_embedder, QueryBatcher)
    service = SearchService(search, slots=2, queue=4)

    hits, _ = anyio.run(lambda: service.search_assessed(WORDS, 5))
    assert hits and (search.query_embedder.calls, search.embedder.calls) == (1, 0)
    hits, _ = anyio.run(lambda: service.search_assessed(STATEMENT, 5))
    assert hits and (search.query_embedder.calls, search.embedder.calls) == (1, 1)
    # the same queries again: answered from each model's own cache, no model call
    anyio.run(lambda: service.search_assessed(WORDS, 5))
    anyio.run(lambda: service.search_assessed(STATEMENT, 5))
    assert (search.query_embedder.calls, search.embedder.calls) == (1, 1)
    assert search.query_embedder.cache_hits >= 1 and search.embedder.cache_hits >= 1
    assert search.with_options(k=3).query_embedder is search.query_embedder  # a derived search keeps the batcher
    search.close()


def test_a_vector_provided_for_one_batcher_is_not_taken_by_another(embedders):
    from theorem_rag.serving.batching import QueryBatcher, provided

    base, adapted = QueryBatcher(embedders[0], cache_size=0), QueryBatcher(embedders[1], cache_size=0)
    mine = np.full(384, 0.5, dtype=np.float32)
    with provided({WORDS: mine}, by=base):
        assert np.array_equal(base.embed_queries([WORDS])[0], mine) and base.calls == 0
        theirs = adapted.embed_queries([WORDS])[0]
    assert adapted.calls == 1 and np.allclose(theirs, embedders[1].embed_query(WORDS), atol=1e-5)


def test_without_the_adapted_package_every_query_searches_the_base_space(pg_dsn, two_spaces, tmp_path, monkeypatch,
                                                                        caplog):  # fmt: skip
    import sys

    monkeypatch.setitem(sys.modules, "theorem_rag_math_minilm", None)
    search = _search(pg_dsn, two_spaces, tmp_path)
    assert search.query_space is None and search.search(WORDS, 3)
    search.close()
    assert "pip install ./packages/theorem-rag-math-minilm" in caplog.text and "THEOREM_RAG_QUERY_MODEL=''" in caplog.text
