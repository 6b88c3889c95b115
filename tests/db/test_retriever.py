"""TheoremRetriever and TheoremVectorStore (LlamaIndex) over the real store, with a tiny digest embedding."""

import asyncio

import pytest


from llama_index.core.schema import NodeWithScore, TextNode  # noqa: E402
from llama_index.core.vector_stores.types import (  # noqa: E402
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryMode,
)

from theorem_rag.retrieval.retriever import TheoremRetriever  # noqa: E402
from theorem_rag.retrieval.vector_store import TheoremVectorStore, metadata_filters_to_filters  # noqa: E402
from theorem_rag.db.table_names import space_name  # noqa: E402
from theorem_rag.filters import Filters  # noqa: E402

from db_helpers import SLOGANS, THEOREMS, load, make_embedding, text_vector, theorem_vectors  # noqa: E402

pytestmark = pytest.mark.db


def test_dense_only_retrieval_returns_nodes_with_metadata(store):
    load(store)
    retriever = TheoremRetriever(store, make_embedding(), space="toy", k=3, pool=6, hybrid=False)
    # The digest embedding of a slogan is that statement's stored vector, so it must come first.
    nodes = retriever.retrieve(SLOGANS["napkin:yoneda"])
    assert isinstance(nodes[0], NodeWithScore) and nodes[0].node.node_id == "napkin:yoneda"
    assert nodes[0].score == pytest.approx(1.0, abs=1e-5)
    meta = nodes[0].node.metadata
    assert meta["name"] == "Yoneda lemma" and meta["source"] == "napkin" and meta["doc_id"] == "napkin:ch1"
    assert meta["slogan"] == SLOGANS["napkin:yoneda"] and meta["kind"] == "theorem"
    assert "fully faithful" in meta["statement"]


def test_hybrid_brings_keyword_query_to_the_top(store):
    load(store)
    dense_only = TheoremRetriever(store, make_embedding(), space="toy", k=6, pool=6, hybrid=False)
    hybrid = TheoremRetriever(store, make_embedding(), space="toy", k=6, pool=6, hybrid=True)
    # The digest embedding knows nothing about words: only the full-text side can find "Nakayama".
    q = "Nakayama"
    ranked = [n.node.node_id for n in hybrid.retrieve(q)]
    assert ranked[0] == "stacks:00DV"
    dense_rank = [n.node.node_id for n in dense_only.retrieve(q)].index("stacks:00DV")
    assert ranked.index("stacks:00DV") <= dense_rank
    hit = hybrid.search(q)[0]
    assert hit.lexical_rank == 1 and hit.dense_rank is not None


def test_query_validation_and_filters(store):
    load(store)
    r = TheoremRetriever(store, make_embedding(), space="toy", k=3, pool=6)
    before = [n.node.node_id for n in r.retrieve("cyclic")]
    # Only the two cyclic statements match the word, so fusion puts them above any dense-only match.
    assert len(before) == 3 and set(before[:2]) == {"paper:1:thm1", "paper:1:lem2"}
    with pytest.raises(ValueError, match="empty query"):
        r.retrieve("   ")
    with pytest.raises(ValueError, match="limit is 20000"):
        r.retrieve("x" * 100_000)
    with pytest.raises(ValueError, match="unknown filter field"):
        TheoremRetriever(store, make_embedding(), space="toy", filters={"colour": "red"})
    got = r.search("cyclic group", k=6, filters={"source": "arxiv"})
    assert {h.theorem_id for h in got} == {"paper:1:thm1", "paper:1:lem2"}
    assert [n.node.node_id for n in r.retrieve("cyclic")] == before  # still serving after bad input


def test_async_retrieve(store):
    load(store)
    r = TheoremRetriever(store, make_embedding(), space="toy", k=2, pool=6)
    nodes = asyncio.run(r.aretrieve("Yoneda lemma"))
    assert nodes[0].node.node_id == "napkin:yoneda"


def test_search_papers_groups_by_document(store):
    load(store)
    r = TheoremRetriever(store, make_embedding(), space="toy", k=5, pool=6)
    papers = r.search_papers("cyclic", k=2)
    assert papers[0].doc_id == "paper:1" and papers[0].document.title == "On finite groups"
    assert {h.theorem_id for h in papers[0].hits} == {"paper:1:thm1", "paper:1:lem2"}
    assert [p.rank for p in papers] == list(range(1, len(papers) + 1))


def test_vector_store_add_query_delete(store):
    store.vector_space("toy", 8)
    vs = TheoremVectorStore.from_store(store, space="toy", pool=10)
    nodes = []
    for t in THEOREMS:
        node = TextNode(id_=t.id, text=t.body_latex, metadata={"source": t.source, "kind": t.kind, "doc_id": t.doc_id,
                                                               "name": t.name or "", "slogan": SLOGANS[t.id]})  # fmt: skip
        node.embedding = text_vector(SLOGANS[t.id]).tolist()
        nodes.append(node)
    assert vs.add(nodes) == [t.id for t in THEOREMS]
    q = VectorStoreQuery(query_embedding=theorem_vectors()[2].tolist(), similarity_top_k=2)
    res = vs.query(q)
    assert res.ids[0] == "paper:1:thm1" and res.similarities[0] == pytest.approx(1.0, abs=1e-5)
    f = MetadataFilters(filters=[MetadataFilter(key="source", value="napkin")])
    res = vs.query(VectorStoreQuery(query_embedding=theorem_vectors()[2].tolist(), similarity_top_k=5, filters=f))
    assert set(res.ids) == {"napkin:yoneda", "napkin:lagrange"}
    vs.delete("napkin:ch1")
    assert store.count() == 4
    with pytest.raises(ValueError, match="not supported"):
        vs.query(VectorStoreQuery(query_embedding=[1.0] * 8, mode=VectorStoreQueryMode.HYBRID))


def test_vector_store_add_with_full_record_keeps_the_record(store):
    load(store)
    t = THEOREMS[0]
    node = TextNode(id_=t.id, text=SLOGANS[t.id], metadata={"record": t.to_dict(), "slogan": SLOGANS[t.id]})
    node.embedding = text_vector("another text").tolist()
    vs = TheoremVectorStore.from_store(store, space="toy")
    vs.add([node])
    assert store.get_theorems([t.id])[t.id] == t  # the embedded text (a slogan) did not replace the statement
    assert vs.query(VectorStoreQuery(query_embedding=node.embedding, similarity_top_k=1)).ids == [t.id]


def test_vector_store_node_ids_rank_those_nodes_and_return_k_of_them(store):
    """``node_ids`` names the candidates: the k nearest of them come back, even when none is in the index's top k
    (the ids used to filter the top k afterwards, returning fewer than k, often none)."""
    import numpy as np

    load(store)
    vs = TheoremVectorStore.from_store(store, space="toy", pool=10)
    q = theorem_vectors()[2]
    cosine = {t.id: float(np.dot(q, v) / (np.linalg.norm(q) * np.linalg.norm(v)))
              for t, v in zip(THEOREMS, theorem_vectors())}  # fmt: skip
    far = sorted(cosine, key=cosine.get)[:3]  # the three farthest statements: not in the top 2 of the whole index
    res = vs.query(VectorStoreQuery(query_embedding=q.tolist(), similarity_top_k=2, node_ids=far))
    assert res.ids == sorted(far, key=lambda i: -cosine[i])[:2]
    assert res.similarities == pytest.approx([cosine[i] for i in res.ids], abs=1e-5)
    f = MetadataFilters(filters=[MetadataFilter(key="source", value="napkin")])
    res = vs.query(VectorStoreQuery(query_embedding=q.tolist(), similarity_top_k=5, node_ids=far, filters=f))
    assert sorted(res.ids) == sorted(i for i in far if i.startswith("napkin:"))


def test_metadata_filters_mapping():
    F, Op = MetadataFilter, FilterOperator
    got = metadata_filters_to_filters(MetadataFilters(filters=[
        F(key="kind", value=["lemma", "theorem"], operator=Op.IN), F(key="year", value=2000, operator=Op.GT),
        F(key="year", value=2010, operator=Op.LTE), F(key="paper", value="p"),
    ]))  # fmt: skip
    assert got == Filters(kind=("lemma", "theorem"), doc_id=("p",), year_min=2001, year_max=2010)
    with pytest.raises(ValueError, match="unsupported filter 'author'"):
        metadata_filters_to_filters(MetadataFilters(filters=[F(key="author", value="x")]))
    with pytest.raises(ValueError, match="unsupported filter 'source' '!='"):
        metadata_filters_to_filters(MetadataFilters(filters=[F(key="source", value="x", operator=Op.NE)]))
    with pytest.raises(ValueError, match="AND"):
        metadata_filters_to_filters(MetadataFilters(filters=[F(key="source", value="x")], condition="or"))


def test_with_options_changes_only_what_it_is_given(store, pg_dsn):
    from theorem_rag.config import Settings
    from theorem_rag.search import TheoremSearch

    load(store)
    settings = Settings(database_url=pg_dsn, table=store.names.prefix, k=2, max_k=40, candidate_pool=50,
                        hybrid=False, fusion_fields="latex")  # fmt: skip
    search = TheoremSearch.from_settings(settings)
    r = search.retriever
    assert (r.k, r.pool, r.hybrid, r.extra_spaces, r.rerank_depth) == (2, 50, False, (space_name(settings.embed_model, "latex"),), 40)
    wider = search.as_retriever(k=5, filters={"source": "stacks"})
    assert wider.options() == {**r.options(), "k": 5, "filters": Filters(source=("stacks",))}
    with pytest.raises(ValueError, match="unknown retriever option"):
        search.as_retriever(top_k=5)
    search.close()


def test_exact_name_or_alias_goes_first(store):
    load(store)
    hybrid = TheoremRetriever(store, make_embedding(), space="toy", k=6, pool=6, hybrid=True)
    # "index theorem" is a recorded alternative name (meta synonyms) of napkin:lagrange: a look-up by name wins
    # whatever the dense side ranks first.
    assert hybrid.search("Index Theorem")[0].theorem_id == "napkin:lagrange"
    assert hybrid.search("Yoneda lemma")[0].theorem_id == "napkin:yoneda"
    extra = TheoremRetriever(store, make_embedding(), space="toy", k=6, pool=6, hybrid=False, extra_spaces=["toy"])
    assert len(extra.search("anything")) == 6  # another space's ranking joins the fusion


@pytest.mark.parametrize("parallel", [True, False])
def test_full_text_query_runs_while_the_query_is_embedded(store, parallel):
    """With parallel_text the full-text search starts before the embedding is done (it needs none); the embedding
    here waits until it sees that search running, so without the overlap it would time out."""
    import threading

    from db_helpers import DIM

    load(store)
    started = threading.Event()
    search_text = store.search_text

    def watched_search_text(*args, **kwargs):
        started.set()
        return search_text(*args, **kwargs)

    store.search_text = watched_search_text  # the real method, with a flag raised when it is entered
    embed = make_embedding(DIM)
    overlapped: list[bool] = []
    real = embed.get_query_embedding

    def get_query_embedding(query):
        overlapped.append(started.wait(timeout=2 if parallel else 0.2))
        return real(query)

    object.__setattr__(embed, "get_query_embedding", get_query_embedding)
    retriever = TheoremRetriever(store, embed, space="toy", k=3, pool=6, parallel_text=parallel)
    hits = retriever.search("Nakayama lemma")
    assert overlapped == [parallel]
    assert hits[0].theorem_id == "stacks:00DV"
    assert hits == TheoremRetriever(store, make_embedding(DIM), space="toy", k=3, pool=6, parallel_text=not parallel).search("Nakayama lemma")


def test_every_text_and_the_formula_ranking_start_before_the_first_embedding(store):
    """A formula query searches the formula as typed and read into words, and ranks by formula keys: each full-text
    query and the formula ranking start beside the embedding of the first text (the embedding waits until it has
    seen them all start), and the hits are those of the same search run on one connection."""
    import threading

    from db_helpers import DIM

    load(store)
    query = "$a^{p-1} \\equiv 1 \\pmod p$"
    started, lock, all_started = [], threading.Lock(), threading.Event()
    retriever = TheoremRetriever(store, make_embedding(DIM), space="toy", k=3, pool=6)
    plan = retriever.plan(query)
    assert len(plan.texts) == 2 and plan.formula_keys
    expected = len(plan.texts) + 1

    def watched(name, method):
        def run(*args, **kwargs):
            with lock:
                started.append(name)
                if len(started) == expected:
                    all_started.set()
            return method(*args, **kwargs)

        return run

    store.search_text = watched("text", store.search_text)
    store.search_formula = watched("formula", store.search_formula)
    embed = make_embedding(DIM)
    waited: list[bool] = []
    real = embed.get_query_embedding

    def get_query_embedding(text):
        waited.append(all_started.wait(timeout=2))
        return real(text)

    object.__setattr__(embed, "get_query_embedding", get_query_embedding)
    hits = TheoremRetriever(store, embed, space="toy", k=3, pool=6).search(query)
    assert waited[0] and sorted(started) == ["formula", "text", "text"]
    assert hits == TheoremRetriever(store, make_embedding(DIM), space="toy", k=3, pool=6, parallel_text=False).search(query)
