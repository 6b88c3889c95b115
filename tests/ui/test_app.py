"""The app's handlers on a real TheoremSearch (the session's embedded PostgreSQL, the bundled MiniLM model).

No browser here (see test_browser.py): the handlers are called as Gradio calls them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from loopback import free_port
from theorem_rag.ui.app import Handlers, create_app
from theorem_rag.chat_backends import LiteLLMChat

pytestmark = [pytest.mark.db, pytest.mark.models]


def _feedback(search, **where):
    cond = " AND ".join(f"{k} = %s" for k in where)
    with search.store.connection() as conn:
        return conn.execute(
            f'SELECT query, theorem_id, vote FROM "{search.store.names.feedback}" WHERE {cond}', list(where.values())
        ).fetchall()


@pytest.fixture
def handlers(tiny_search):
    return Handlers(tiny_search, LiteLLMChat("openai/gpt-4o-mini", f"http://127.0.0.1:{free_port()}/v1",
                                             timeout=5, max_retries=0))  # fmt: skip


def test_search_renders_cards_for_real_hits(handlers, tiny_search):
    body, status, query = handlers.run_search("a local ring has a unique maximal ideal", "Theorems", 5)
    assert query == "a local ring has a unique maximal ideal" and status.startswith("5 statements in ")
    expected = [h.theorem_id for h in tiny_search.search(query, 5)]
    assert [body.split('data-theorem-id="', 1)[1].split('"', 1)[0]] == expected[:1]
    assert all(f'data-theorem-id="{tid}"' in body for tid in expected)


def test_a_search_and_its_assessment_read_the_query_once(handlers, monkeypatch):
    import theorem_rag.query_understanding as query_understanding
    import theorem_rag.retrieval.retriever as retriever

    understand, reads = query_understanding.understand, []

    def counted(query: str):
        reads.append(query)
        return understand(query)

    monkeypatch.setattr(retriever, "understand", counted)  # the search's plan
    monkeypatch.setattr(query_understanding, "understand", counted)  # what assess reads when given no plan
    for level in ("Theorems", "Papers"):
        body, _, _ = handlers.run_search("rank of a finite group", level, 3)
        assert "data-theorem-id=" in body or "paper" in body, body[:200]
    assert reads == ["rank of a finite group"] * 2


def test_filters_and_paper_level(handlers):
    body, _, _ = handlers.run_search("rank", "Theorems", 10, sources=["planetmath"])
    assert 'data-theorem-id="planetmath' in body and 'data-theorem-id="stacks:' not in body
    body, status, _ = handlers.run_search("rank of a finite group", "Papers", 3)
    assert 'class="trag-paper"' in body and "papers in" in status


def test_bad_input_becomes_a_message(handlers):
    body, status, _ = handlers.run_search("   ")
    assert "trag-msg-warning" in body and status == ""
    body, _, _ = handlers.run_search("ring", "Theorems", 10, kinds=["lemma"], papers=None, sources=None)
    assert "trag-card" in body
    body, _, _ = handlers.run_search("x" * 30_000)
    assert "trag-msg-error" in body


def test_votes_are_stored_with_their_query(handlers, tiny_search):
    payload = json.dumps({"theorem_id": "stacks:00AC", "vote": -1, "where": "search"})
    assert "stored" in handlers.vote(payload, "unique maximal ideal", "")
    assert ("unique maximal ideal", "stacks:00AC", -1) in _feedback(tiny_search, theorem_id="stacks:00AC")
    assert "not stored" in handlers.vote(payload, "", "")
    assert handlers.vote("{not json", "q", "") == "Could not read that vote."
    assert handlers.vote("[1]", "q", "") == "Could not read that vote."
    assert "vote must be +1 or -1" in handlers.vote(json.dumps({"theorem_id": "stacks:00AC", "vote": 5}), "q", "")


def test_answer_votes_are_stored_with_the_answer_text(handlers, tiny_search):
    history = [{"role": "user", "content": "q"}, {"role": "assistant", "content": 'By <a href="#x">[1]</a> yes'}]
    assert "stored" in handlers.vote_answer(1, False, history, "is it local?")
    with tiny_search.store.connection() as conn:
        rows = conn.execute(
            f'SELECT answer, vote FROM "{tiny_search.store.names.feedback}" WHERE query = %s', ["is it local?"]
        ).fetchall()
    assert rows == [("By [1] yes", -1)]
    assert handlers.vote_answer(1, None, history, "is it local?") == ""  # a like taken back stores nothing


def test_unreachable_llm_shows_a_message_after_the_searches(handlers):
    turns = list(handlers.chat_turn("What is a local ring?", []))
    history, sources, status, question = turns[-1]
    assert question == "What is a local ring?"
    assert any((m.get("metadata") or {}).get("title", "").startswith("Searched") for m in history)
    assert "trag-card" in sources
    assert history[-1]["role"] == "assistant" and "\u26a0" in history[-1]["content"]
    assert "openai/gpt-4o-mini failed" in history[-1]["content"]


class OneReplyChat:
    """Stands in for the LLM (an external service): plans nothing, answers with one fixed reply."""

    label, is_small_offline, supports_prefix = "scripted", False, False

    def __init__(self, reply: str) -> None:
        self.reply, self.prompts = reply, []

    def stream(self, messages, *, max_tokens=512, temperature=0.2, prefix="", cancelled=None):
        self.prompts.append(messages)
        yield "ANSWER" if len(self.prompts) == 1 else self.reply


def test_a_proof_request_shows_the_premise_search_and_the_premises_given(tiny_search):
    goal = "a local ring has a unique maximal ideal"
    chat = OneReplyChat("By [1], done.")
    history = list(Handlers(tiny_search, chat).chat_turn(f"Prove that {goal}", []))[-1][0]
    titles = [(m.get("metadata") or {}).get("title", "") for m in history]
    assert titles[1].startswith(f"Premise search for \u201c{goal}\u201d")
    assert titles[2].startswith(f"Searched \u201cProve that {goal}\u201d")
    premises = [h.theorem_id for h in tiny_search.premises(goal)][:8]  # the assistant keeps at most 8 sources
    expected = ", ".join(f"[{n}] <code>{i}</code>" for n, i in enumerate(premises, 1))
    assert history[-1]["content"].endswith(f"Premises given for the proof: {expected}")
    assert "premises a proof of the goal" in chat.prompts[-1][0]["content"]


def test_create_app_builds_blocks(tiny_search):
    demo = create_app(tiny_search, LiteLLMChat("openai/gpt-4o-mini"))
    assert type(demo).__name__ == "Blocks"


def test_importing_the_ui_loads_no_gradio():
    code = "import sys, theorem_rag.ui.app, theorem_rag.cli.serve; print('gradio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_missing_gradio_names_the_extra(tiny_search, monkeypatch):
    monkeypatch.setitem(sys.modules, "gradio", None)
    with pytest.raises(ImportError, match=r'theorem-rag\[app\]'):
        create_app(tiny_search, LiteLLMChat("openai/gpt-4o-mini"))


def test_index_not_built_and_database_down_show_messages(store, tiny_search):
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.search import TheoremSearch

    empty = Handlers(TheoremSearch(store, tiny_search.embedder, space=tiny_search.space), None)
    body, _, _ = empty.run_search("local ring")
    assert "trag-msg-error" in body and "index build" in body
    turns = list(empty.chat_turn("local ring?", []))
    assert "index build" in turns[-1][0][-1]["content"]

    down = TheoremStore(f"postgresql://127.0.0.1:{free_port()}/none", timeout=1)
    body, _, _ = Handlers(TheoremSearch(down, tiny_search.embedder, space=tiny_search.space), None).run_search("x")
    assert "trag-msg-error" in body


def test_serve_command_help():
    from click.testing import CliRunner

    from theorem_rag.cli.serve import serve

    result = CliRunner().invoke(serve, ["--help"])
    assert result.exit_code == 0 and "--chat-model" in result.output and "127.0.0.1" in result.output
