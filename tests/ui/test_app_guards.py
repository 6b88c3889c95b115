"""The web app guarded like the REST API, on a real launched app on loopback (uvicorn in a thread, the session's
PostgreSQL, the bundled MiniLM): the bind rule, the key on a login page, per-client rate limits on the app's actions
(the client from X-Forwarded-For only on a trusted proxy's connections), the body cap, the request deadline that
cancels its query, the statement timeout, and feedback of bounded size.

The app is driven over Gradio's HTTP API (``POST /gradio_api/call/<name>``, then the event's stream), as any
client that reaches it could; the LLM is a scripted stand-in (an external service).
"""

from __future__ import annotations

import json
import uuid
from contextlib import contextmanager

import httpx
import pytest
from click.testing import CliRunner

from loopback import free_port
from slow_search import SlowSearch

pytestmark = [pytest.mark.db, pytest.mark.models]

QUERY = "a local ring has a unique maximal ideal"


class ScriptedChat:
    """Stands in for the LLM: answers every prompt with one fixed reply."""

    label, is_small_offline, supports_prefix = "scripted", False, False

    def stream(self, messages, *, max_tokens=512, temperature=0.2, prefix="", cancelled=None):
        yield "By [1], yes."


@contextmanager
def launched(search, *, request_timeout: float = 30, **guards):
    from theorem_rag.serving.service import SearchService
    from theorem_rag.ui.app import create_app
    from theorem_rag.ui.server import AppGuards, launch

    service = SearchService(search, slots=2, queue=4, max_wait=30, request_timeout=request_timeout)
    demo = create_app(search, ScriptedChat(), service=service)
    running = launch(demo, port=free_port(), guards=AppGuards(**guards), block=False)
    try:
        yield running.url.rstrip("/")
    finally:
        running.close()


def _client(url: str, address: str = "127.0.0.1", **kw) -> httpx.Client:
    # The whole of 127.0.0.0/8 is loopback: a second source address is a second client.
    return httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address=address), timeout=120, **kw)


def call(client: httpx.Client, name: str, data: list, headers: dict | None = None) -> httpx.Response | list:
    """Run the app's event ``name`` over Gradio's HTTP API: the refusal, or the event's final outputs."""
    r = client.post(f"/gradio_api/call/{name}", json={"data": data}, headers=headers or {})
    if r.status_code != 200:
        return r
    event = r.json()["event_id"]
    with client.stream("GET", f"/gradio_api/call/{name}/{event}", headers=headers or {}) as stream:
        kind, last = None, None
        for line in stream.iter_lines():
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: ") and kind in ("complete", "generating", "error"):
                last = (kind, json.loads(line.removeprefix("data: ")))
    assert last is not None and last[0] == "complete", last
    return last[1]


def _text(message: dict) -> str:
    """The text of a chat message as Gradio sends it: a string, or a list of parts ``{"type": "text", "text"}``."""
    content = message["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def search_data(query: str = QUERY, k: int = 3) -> list:
    """The search's inputs as the page sends them: query, level, k, sources, kinds, papers, categories, statements."""
    return [query, "Theorems", k, [], [], "", "", "All"]


def test_serve_refuses_a_public_host_without_a_key_unless_a_proxy_checks_access(monkeypatch):
    from theorem_rag.cli.serve import serve

    monkeypatch.delenv("THEOREM_RAG_API_KEY", raising=False)
    r = CliRunner().invoke(serve, ["--host", "0.0.0.0", "--port", "9"])
    assert r.exit_code == 1 and "the web app would listen on 0.0.0.0 without an API key" in r.output
    assert "--auth-by-proxy" in r.output
    # With --auth-by-proxy the bind rule passes; the malformed proxy list is the next check, still before any model.
    r = CliRunner().invoke(serve, ["--host", "0.0.0.0", "--auth-by-proxy", "--forwarded-allow-ips", "nope"])
    assert r.exit_code == 1 and "--forwarded-allow-ips takes IP addresses" in r.output
    help_text = CliRunner().invoke(serve, ["--help"]).output
    for flag in ("--rate-limit", "--rate-burst", "--request-timeout", "--forwarded-allow-ips", "--auth-by-proxy",
                 "--max-body-bytes"):  # fmt: skip
        assert flag in help_text


def test_launch_refuses_a_public_host_without_a_key(tiny_search):
    from theorem_rag.ui.app import create_app
    from theorem_rag.ui.server import AppGuards, launch

    with pytest.raises(ValueError, match="the web app would listen on 0.0.0.0 without an API key"):
        launch(create_app(tiny_search, ScriptedChat()), host="0.0.0.0", port=free_port(), guards=AppGuards(),
               block=False)  # fmt: skip


def test_the_key_is_asked_for_on_a_login_page(tiny_search):
    with launched(tiny_search, api_key="k3y-" + uuid.uuid4().hex) as url, _client(url) as c:
        key = c.get("/config").status_code  # the app's configuration is not served before login
        assert key == 401
        refused = call(c, "search", search_data())
        assert isinstance(refused, httpx.Response) and refused.status_code == 401
        assert c.post("/login", data={"username": "anyone", "password": "guess"}).status_code == 400
        assert call(c, "search", search_data()).status_code == 401
    with launched(tiny_search, api_key="k3y") as url, _client(url) as c:
        assert c.post("/login", data={"username": "anyone", "password": "k3y"}).status_code == 200
        body, status, _ = call(c, "search", search_data())
        assert 'data-theorem-id="' in body and status.startswith("3 statements in ")


def test_rate_limit_per_client_counts_actions_not_page_loads(tiny_search):
    with launched(tiny_search, rate_limit_per_minute=1, rate_limit_burst=2) as url:
        with _client(url) as a, _client(url, "127.0.0.2") as b:
            assert ['data-theorem-id="' in call(a, "search", search_data())[0] for _ in range(2)] == [True, True]
            refused = call(a, "search", search_data())
            assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
            assert 1 <= int(refused.headers["retry-after"]) <= 60
            assert call(a, "ask", ["What is a local ring?", []]).status_code == 429  # the LLM too
            assert a.get("/").status_code == 200  # reading the page is not an action
            assert 'data-theorem-id="' in call(b, "search", search_data())[0]  # another client, its own bucket


def test_forwarded_client_counts_only_from_a_trusted_proxy(tiny_search):
    def fwd(address: str) -> dict:
        return {"X-Forwarded-For": address}

    def ok(client, address):
        r = client.post("/gradio_api/call/search", json={"data": search_data()}, headers=fwd(address))
        return r.status_code

    with launched(tiny_search, rate_limit_per_minute=1, rate_limit_burst=1, forwarded_allow_ips="127.0.0.1") as url:
        with _client(url) as proxy, _client(url, "127.0.0.2") as stranger:
            # From the trusted proxy: each forwarded client has its own bucket.
            assert [ok(proxy, "203.0.113.1"), ok(proxy, "203.0.113.2"), ok(proxy, "203.0.113.1")] == [200, 200, 429]
            # From anyone else the header is ignored: a made-up address does not buy a fresh bucket.
            assert [ok(stranger, "203.0.113.3"), ok(stranger, "203.0.113.4")] == [200, 429]
    with launched(tiny_search, rate_limit_per_minute=1, rate_limit_burst=1, forwarded_allow_ips="") as url:
        with _client(url) as proxy:
            assert [ok(proxy, "203.0.113.1"), ok(proxy, "203.0.113.2")] == [200, 429]  # no proxy trusted


def test_a_body_over_the_cap_is_refused(tiny_search):
    with launched(tiny_search, max_body_bytes=64 * 1024) as url, _client(url) as c:
        history = [{"role": "user", "content": "x" * 70_000}]
        r = c.post("/gradio_api/call/ask", json={"data": ["What is a local ring?", history]})
        assert r.status_code == 413 and r.json()["error"] == "payload_too_large"
        answer = call(c, "ask", ["What is a local ring?", []])[0][-1]
        assert answer["role"] == "assistant" and _text(answer).startswith("By ")


def _active(search, marker: str) -> list:
    with search.store.connection() as conn:
        return conn.execute("SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE %s "
                            "AND pid <> pg_backend_pid()", [f"%{marker}%"]).fetchall()  # fmt: skip


def test_a_search_past_its_deadline_is_stopped_and_its_query_cancelled(tiny_search):
    import psycopg

    slow = SlowSearch(tiny_search, slow=("search", "results"))  # the app searches with results (f1fc01e)
    with launched(slow, request_timeout=1) as url, _client(url) as c:
        body, status, _ = call(c, "search", search_data())  # the third output, a State, stays on the server
        assert "took longer than 1 s and was stopped" in body and status == ""
        assert slow.finished.wait(10), "the abandoned search is still running"
        assert len(slow.errors) == 1 and isinstance(slow.errors[0], psycopg.errors.QueryCanceled)
        assert _active(tiny_search, slow.marker) == []
    slow = SlowSearch(tiny_search, slow=("search", "results"))  # the app searches with results (f1fc01e)
    with launched(slow, request_timeout=1) as url, _client(url) as c:
        chat, _, status, _ = call(c, "ask", ["What is a local ring?", []])  # the assistant's search step too
        assert "took longer than 1 s" in status and _text(chat[-1]).startswith("\u26a0 The assistant stopped")
        assert slow.finished.wait(10) and isinstance(slow.errors[0], psycopg.errors.QueryCanceled)


def test_the_app_pool_has_the_request_timeout_as_statement_timeout(pg_dsn, tiny_search):
    from theorem_rag.config import Settings
    from theorem_rag.ui.app import build_app

    settings = Settings(database_url=pg_dsn, table=tiny_search.store.names.prefix, request_timeout=7,
                        chat_model="openai/gpt-4o-mini", query_model="")  # fmt: skip
    demo, search, _ = build_app(settings, warm=False)
    try:
        with search.store.connection() as conn:
            assert conn.execute("SHOW statement_timeout").fetchone()[0] == "7s"
    finally:
        demo.close()
        search.close()


def test_feedback_of_any_size_is_refused(tiny_search):
    from theorem_rag.errors import InputError
    from theorem_rag.ui.app import Handlers

    h = Handlers(tiny_search, ScriptedChat())
    history = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "y" * 100_000}]
    assert h.vote_answer(1, True, history, "is it local?").startswith("Feedback not stored: ")
    payload = json.dumps({"theorem_id": "stacks:" + "0" * 5000, "vote": 1, "where": "search"})
    assert h.vote(payload, "unique maximal ideal", "").startswith("Vote not stored: ")
    assert h.vote(json.dumps({"theorem_id": "stacks:00AC", "vote": 1}), "q" * 30_000, "").startswith("Vote not stored")
    with pytest.raises(InputError, match="comment"):
        tiny_search.store.record_feedback("q", 1, theorem_id="stacks:00AC", comment="c" * 5000)
