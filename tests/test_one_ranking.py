"""One construction path: ``search()``, ``as_retriever()``, the function tool and the query-engine tool rank alike,
reranker and fused extra spaces included, and a reranker never caps k."""

from __future__ import annotations

import re

import pytest

pytestmark = [pytest.mark.db, pytest.mark.models]

QUERY = "every finite group of prime order is cyclic"


def by_id_reranker(top_n: int):
    """A deterministic reranker (a LlamaIndex postprocessor): ids in reverse alphabetical order, keeping top_n."""
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.schema import NodeWithScore

    class ById(BaseNodePostprocessor):
        top_n: int = 10

        def _postprocess_nodes(self, nodes, query_bundle=None):
            ranked = sorted(nodes, key=lambda n: n.node.node_id, reverse=True)[: self.top_n]
            return [NodeWithScore(node=n.node, score=1.0 / i) for i, n in enumerate(ranked, 1)]

    return ById(top_n=top_n)


def rankings(search, query: str, k: int) -> dict[str, list[str]]:
    """The ids each consumer gets for one query, best first."""
    from llama_index.core.llms import MockLLM

    from theorem_rag.tools import theorem_query_engine_tool, theorem_search_tool

    tool_text = theorem_search_tool(search).call(query=query, k=k).content
    engine = theorem_query_engine_tool(search, llm=MockLLM(), k=k).call(input=query).raw_output
    return {
        "search": [h.theorem_id for h in search.search(query, k)],
        "as_retriever": [n.node.node_id for n in search.as_retriever(k=k).retrieve(query)],
        "function_tool": re.findall(r"^\d+\. \[([^\]]+)\]", tool_text, flags=re.M),
        "query_engine_tool": [n.node.node_id for n in engine.source_nodes],
    }


@pytest.mark.parametrize("reranked", [False, True], ids=["fused", "fused+reranked"])
def test_every_consumer_ranks_alike(tiny_search, reranked):
    search = tiny_search.with_options(extra_spaces=(tiny_search.space,),
                                      reranker=by_id_reranker(top_n=3) if reranked else None)  # fmt: skip
    got = rankings(search, QUERY, k=7)
    assert len(got["search"]) == 7
    assert all(ids == got["search"] for ids in got.values()), got
    if reranked:
        assert got["search"] == sorted(got["search"], reverse=True)


def test_a_reranker_built_with_top_n_10_still_returns_k_20(tiny_search):
    plain = tiny_search.with_options(max_k=50)
    search = plain.with_options(reranker=by_id_reranker(top_n=10))
    hits = search.search(QUERY, k=20)
    candidates = [h.theorem_id for h in plain.search(QUERY, k=50)]  # depth: min(3 k, max_k) = 50
    assert [h.theorem_id for h in hits] == sorted(candidates, reverse=True)[:20]
    assert [h.rank for h in hits] == list(range(1, 21))
    assert all(h.theorem is not None and h.slogan for h in hits)
