"""The assistant's loop and citation checks (pure, fast).

``ScriptedChat`` stands in for the LLM (an external service), replying from a script; searching is a plain
function over hand-written records, as ``TheoremSearch.search`` is in the app.
"""

from __future__ import annotations

import pytest

from theorem_rag.records import Hit, Theorem
from theorem_rag.ui.assistant import (
    SMALL_MODEL_PREFIX, Assistant, find_citations, link_citations, parse_search_requests,
)  # fmt: skip
from theorem_rag.chat_backends import ChatError


def _hit(tid: str, rank: int = 1) -> Hit:
    t = Theorem(id=tid, source="stacks", kind="lemma", body_latex=f"Statement {tid} with $x$.", doc_id="d")
    return Hit(tid, 1.0 / rank, rank=rank, theorem=t)


CORPUS = {
    "local ring": [_hit("s:1"), _hit("s:2", 2)],
    "maximal ideal": [_hit("s:2"), _hit("s:3", 2)],
    "jacobson radical": [_hit("s:4")],
}


def fake_search(query: str) -> list[Hit]:
    return [h for key, hits in CORPUS.items() if key in query.lower() for h in hits]


class ScriptedChat:
    label = "scripted"

    def __init__(self, replies, *, small=False, fail=False):
        self.replies, self.is_small_offline, self.supports_prefix, self.fail = list(replies), small, small, fail
        self.prompts = []

    def stream(self, messages, *, max_tokens=512, temperature=0.2, prefix="", cancelled=None):
        self.prompts.append((messages, prefix))
        reply = self.replies.pop(0)
        for word in reply.split(" "):
            yield word + " "
        if self.fail:
            raise ChatError("the model timed out")


def test_citation_forms():
    assert find_citations("[1] [2,3] [4 - 6] [7; 8] [x] [10000]") == [1, 2, 3, 4, 5, 6, 7, 8]


def test_valid_citations_link_and_invalid_ones_are_marked_never_linked():
    sources = [_hit("s:1"), _hit("s:2")]
    html, valid, invalid = link_citations("By [2] and [1, 9], also [0].", sources)
    assert valid == [2, 1] and invalid == [9, 0]
    assert html.count("<a ") == 2 and 'title="s:2"' in html and 'href="#trag-src-2"' in html
    assert "[9?]" in html and "[0?]" in html and 'href="#trag-src-9"' not in html


def test_answer_text_is_escaped():
    html, _, _ = link_citations('<img src=x onerror="alert(1)"> [1]', [_hit("s:1")])
    assert "<img" not in html and "&lt;img" in html


def test_parse_search_requests():
    reply = "SEARCH: maximal ideal\n- search: `Jacobson radical`\nSEARCH: maximal ideal\nSEARCH: third"
    assert parse_search_requests(reply) == ["maximal ideal", "Jacobson radical"]
    assert parse_search_requests("ANSWER") == []


def test_capable_model_searches_again_then_answers_with_checked_citations():
    chat = ScriptedChat(["SEARCH: maximal ideal", "SEARCH: Jacobson radical", "By [1] and [3], yes [5]."])
    events = list(Assistant(fake_search, chat, max_rounds=3).run("Is a local ring special?"))
    steps = [e.step.query for e in events if e.kind == "search"]
    assert steps == ["Is a local ring special?", "maximal ideal", "Jacobson radical"]
    answer = events[-1].answer
    assert [h.theorem_id for h in answer.sources] == ["s:1", "s:2", "s:3", "s:4"]
    assert answer.cited == [1, 3] and answer.invalid == [5] and answer.cited_ids == ["s:1", "s:3"]
    assert "[1] Lemma (Stacks Project): Statement s:1" in chat.prompts[-1][0][0]["content"]


def test_rounds_are_bounded():
    chat = ScriptedChat(["SEARCH: maximal ideal", "Done [1]."])
    events = list(Assistant(fake_search, chat, max_rounds=2).run("local ring?"))
    assert [e.step.query for e in events if e.kind == "search"] == ["local ring?", "maximal ideal"]
    assert len(chat.prompts) == 2  # one plan, one answer: no plan after the last round


def test_small_model_searches_once_and_starts_at_the_best_match():
    chat = ScriptedChat(["a local ring has one maximal ideal."], small=True)
    events = list(Assistant(fake_search, chat).run("local ring"))
    assert sum(e.kind == "search" for e in events) == 1
    assert chat.prompts[0][1] == SMALL_MODEL_PREFIX
    answer = events[-1].answer
    assert answer.text.startswith(SMALL_MODEL_PREFIX) and answer.cited_ids == ["s:1"]


def test_no_sources_means_no_anchor_and_nothing_linked():
    chat = ScriptedChat(["Nothing found, see [1]."], small=True)
    answer = list(Assistant(fake_search, chat).run("topology"))[-1].answer
    assert answer.sources == [] and answer.cited == [] and answer.invalid == [1]
    assert chat.prompts[0][1] == ""


def test_model_failure_keeps_the_partial_answer_and_reports_it():
    chat = ScriptedChat(["By [1] partial"], fail=True)
    answer = list(Assistant(fake_search, chat, max_rounds=1).run("local ring"))[-1].answer
    assert answer.error == "the model timed out" and answer.cited == [1] and answer.text.startswith("By [1]")


def test_empty_question_is_refused():
    with pytest.raises(ValueError):
        list(Assistant(fake_search, ScriptedChat([])).run("  "))


PREMISES = {"every local ring has one maximal ideal": [_hit("s:3"), _hit("s:4", 2)]}


def fake_premises(goal: str) -> list[Hit]:
    return list(PREMISES.get(goal, []))


def test_a_proof_request_starts_with_a_premise_search_and_the_answer_names_the_premises():
    chat = ScriptedChat(["ANSWER", "By [1] and [3]."])
    assistant = Assistant(fake_search, chat, max_rounds=2, premises=fake_premises)
    events = list(assistant.run("Prove that every local ring has one maximal ideal"))
    steps = [(e.step.kind, e.step.query) for e in events if e.kind == "search"]
    assert steps == [("premises", "every local ring has one maximal ideal"),
                     ("search", "Prove that every local ring has one maximal ideal")]  # fmt: skip
    answer = events[-1].answer
    assert [h.theorem_id for h in answer.sources] == ["s:3", "s:4", "s:1", "s:2"]
    assert answer.premises == ["s:3", "s:4"] and answer.cited_ids == ["s:3", "s:1"]
    system = chat.prompts[-1][0][0]["content"]
    assert "premises a proof of the goal is likely to use" in system
    assert "[1] Lemma (Stacks Project): Statement s:3" in system


def test_a_small_model_gets_the_premises_alone():
    chat = ScriptedChat(["done."], small=True)
    events = list(Assistant(fake_search, chat, premises=fake_premises).run(
        "Give a proof that every local ring has one maximal ideal"))
    assert [(e.step.kind, e.step.query) for e in events if e.kind == "search"] == [
        ("premises", "every local ring has one maximal ideal")]
    assert events[-1].answer.premises == ["s:3", "s:4"]


def test_other_questions_and_assistants_without_premise_search_only_search():
    def refuse(goal):
        raise AssertionError("premise search for a question that asks for no proof")

    chat = ScriptedChat(["ANSWER", "Yes [1]."])
    events = list(Assistant(fake_search, chat, max_rounds=2, premises=refuse).run("Is a local ring special?"))
    assert [e.step.kind for e in events if e.kind == "search"] == ["search"]
    assert events[-1].answer.premises == []
    assert "premises a proof" not in chat.prompts[-1][0][0]["content"]
    chat = ScriptedChat(["ANSWER", "Yes [1]."])
    events = list(Assistant(fake_search, chat, max_rounds=2).run("Prove that every local ring has one maximal ideal"))
    assert [e.step.kind for e in events if e.kind == "search"] == ["search"]
