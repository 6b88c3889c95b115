"""Premise search (``mode="premises"``): the premise-embedded statement over the slogans fused with full-text
search, query understanding off, the statement itself left out, filters as in search; on the 51 real statements
of tests/fixtures/integrations."""

from __future__ import annotations

import json

import numpy as np
import pytest

from theorem_rag.embed import MODEL_SETTINGS_FILE, Embedder
from theorem_rag.errors import InputError

pytestmark = [pytest.mark.db, pytest.mark.models]

CITING = "stacks:00AC"  # "Let $R$ be a local ring. Then $R$ has a unique maximal ideal." cites 00AB and 00AE


def ids(hits):
    return [h.theorem_id for h in hits]


def test_a_statement_id_stands_for_its_text_and_is_left_out(tiny_search):
    text = tiny_search.get_theorem(CITING).theorem.text
    by_id = tiny_search.premises(CITING, k=10)
    by_text = tiny_search.premises(text, k=10)
    assert CITING not in ids(by_id) and len(by_id) == 10
    assert ids(by_id) == ids(by_text)  # the text alone: the statement is left out by its text
    assert [h.rank for h in by_id] == list(range(1, 11))
    # Search mode ranks the statement itself first for its own text.
    assert ids(tiny_search.search(text, k=1)) == [CITING]
    # The rest of the ranking is the plain fused ranking with the statement removed.
    plain = tiny_search.premise_retriever().with_options(mode="search")
    assert ids(by_id) == [i for i in ids(plain.search(text, k=11)) if i != CITING]


def test_premises_batch_is_premises_per_statement(tiny_search):
    goals = [CITING, "every finite group of prime order is cyclic"]
    assert [ids(h) for h in tiny_search.premises_batch(goals, k=4)] == [ids(tiny_search.premises(g, k=4)) for g in goals]


def test_the_dense_side_embeds_the_premise_query(tiny_search):
    """The dense ranking is that of ``"<premise instruction> <statement>"``, not of the statement alone."""
    store, space = tiny_search.store, tiny_search.space
    text = tiny_search.get_theorem(CITING).theorem.text
    instructed = tiny_search.__class__(store, Embedder(premise_instruction="premises:"), space=space, k=5, max_k=50,
                                       hybrid=False)  # fmt: skip
    expected_vec = instructed.embedder.embed_queries([f"premises: {text}"])[0]
    expected = [h.theorem_id for h in store.search_dense(space, expected_vec.tolist(), k=20) if h.theorem_id != CITING]
    plain_vec = instructed.embedder.embed_queries([text])[0]
    plain = [h.theorem_id for h in store.search_dense(space, plain_vec.tolist(), k=20) if h.theorem_id != CITING]
    assert expected != plain  # the instruction moves the ranking, so the assertion below can fail
    assert ids(instructed.premises(CITING, k=15)) == expected[:15]
    assert ids(instructed.search(text, k=16))[1:] != expected[:15]  # search mode embeds the plain query


def test_query_understanding_is_off(tiny_search, monkeypatch):
    import theorem_rag.retrieval.retriever as retriever_module

    def refuse(text):
        raise AssertionError("query understanding ran in premises mode")

    monkeypatch.setattr(retriever_module, "understand", refuse)
    assert len(tiny_search.premises("Nakayama's lemma", k=3)) == 3
    assert tiny_search.premise_retriever().with_options(understand=True).search("Nakayama's lemma", k=3)
    with pytest.raises(AssertionError, match="query understanding ran"):
        tiny_search.search("Nakayama's lemma", k=3)


def test_filters_apply(tiny_search):
    from integrations_index import records

    definitions = sorted(t.id for t in records()[0] if t.kind == "definition")
    assert len(definitions) == 3
    assert sorted(ids(tiny_search.premises(CITING, k=50, kinds=["definition"]))) == definitions
    assert ids(tiny_search.premises(CITING, k=50, sources=["planetmath"])) == ids(
        tiny_search.premises(CITING, k=50, sources="planetmath"))
    assert {h.theorem.source for h in tiny_search.premises(CITING, k=50, sources=["planetmath"])} == {"planetmath"}


def test_bad_input_is_an_input_error(tiny_search):
    with pytest.raises(InputError, match="no statement with id 'stacks:ZZZZ'"):
        tiny_search.premises("stacks:ZZZZ")
    with pytest.raises(InputError, match="k must be"):
        tiny_search.premises(CITING, k=0)
    with pytest.raises(InputError, match="empty"):
        tiny_search.premises("   ")
    with pytest.raises(InputError, match="unknown retriever mode 'proofs'"):
        tiny_search.as_retriever(mode="proofs")
    # A goal that merely looks like an id of an unknown source is a goal.
    assert len(tiny_search.premises("f:X->Y", k=2)) == 2


def test_mode_is_an_option_of_the_one_retriever(tiny_search):
    search = tiny_search.with_options(extra_spaces=(tiny_search.space,))
    retriever = search.as_retriever(mode="premises")
    assert retriever.options()["mode"] == "premises"
    assert retriever.extra_spaces == (tiny_search.space,)  # every other option kept
    assert retriever.with_options(k=3).mode == "premises"
    assert [n.node.node_id for n in search.premise_retriever().with_options(k=6).retrieve(CITING)] == ids(
        search.premises(CITING, k=6))


def test_premise_instruction_comes_from_the_model_folder(tmp_path):
    assert Embedder(str(tmp_path)).premise_instruction == ""
    (tmp_path / MODEL_SETTINGS_FILE).write_text(json.dumps({"premise_instruction": "premises:"}))
    assert Embedder(str(tmp_path)).premise_instruction == "premises:"
    assert Embedder(str(tmp_path), premise_instruction="").premise_instruction == ""  # given: the file is not read
    (tmp_path / MODEL_SETTINGS_FILE).write_text(json.dumps({"premise_instruction": 3}))
    with pytest.raises(InputError, match="must be a string"):
        _ = Embedder(str(tmp_path)).premise_instruction
    assert Embedder().premise_instruction == ""  # the bundled base model has none


def test_query_instruction_comes_from_the_model_folder_unless_given(tmp_path):
    assert Embedder(str(tmp_path)).query_instruction == ""
    (tmp_path / MODEL_SETTINGS_FILE).write_text(json.dumps({"query_instruction": "query:", "premise_instruction": ""}))
    assert Embedder(str(tmp_path)).query_instruction == "query:"
    assert Embedder(str(tmp_path), query_instruction="").query_instruction == ""  # given: the file is not read
    assert Embedder(str(tmp_path), query_instruction="find:").query_instruction == "find:"
    (tmp_path / MODEL_SETTINGS_FILE).write_text(json.dumps({"query_instruction": ["query:"]}))
    with pytest.raises(InputError, match="query_instruction .* must be a string"):
        _ = Embedder(str(tmp_path)).query_instruction
    assert Embedder().query_instruction == ""


def test_premise_queries_are_cached_apart_from_search_queries():
    e = Embedder(premise_instruction="premises:")
    text = "Let $R$ be a local ring. Then $R$ has a unique maximal ideal."
    premise, query = e.embed_premise_queries([text])[0], e.embed_queries([text])[0]
    assert not np.allclose(premise, query, atol=1e-3)
    assert np.allclose(premise, e.embed_queries([f"premises: {text}"])[0], atol=1e-6)
    assert np.allclose(e.embed_premise_queries([text])[0], premise)  # from the cache, not the search query's
    fallback = Embedder(query_instruction="query:")
    assert np.allclose(fallback.embed_premise_queries([text])[0], fallback.embed_queries([text])[0], atol=1e-6)
