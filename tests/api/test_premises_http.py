"""``/premises`` over HTTP: a real uvicorn server on loopback, the real index; the search endpoint's admission and
deadline path."""

from __future__ import annotations

import httpx
import pytest

from loopback import serving
from slow_search import SlowSearch

pytestmark = [pytest.mark.db, pytest.mark.models]

CITING = "stacks:00AC"


def test_post_and_get_premises_rank_as_the_library(client, integ):
    search = integ[0]
    expected = [h.theorem_id for h in search.premises(CITING, k=4)]
    r = client.post("/premises", json={"statement": CITING, "k": 4})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["statement"] == CITING and body["k"] == 4
    assert [h["id"] for h in body["results"]] == expected and CITING not in expected
    assert [h["rank"] for h in body["results"]] == [1, 2, 3, 4]
    top = body["results"][0]
    assert top["statement"] and top["id"] in top["citation"]
    got = client.get("/premises", params=[("statement", CITING), ("k", 4)]).json()
    assert [h["id"] for h in got["results"]] == expected
    # Filters as in search; the server's k when none is given.
    r = client.post("/premises", json={"statement": CITING, "kinds": ["definition"], "k": 20})
    assert {h["kind"] for h in r.json()["results"]} == {"definition"}
    assert len(client.post("/premises", json={"statement": CITING}).json()["results"]) == search.k


def test_bad_premise_requests_are_422(client):
    r = client.post("/premises", json={"statement": "stacks:ZZZZ"})
    assert r.status_code == 422
    assert r.json() == {"error": "invalid_request", "message": "no statement with id 'stacks:ZZZZ' in the index"}
    assert client.post("/premises", json={"statement": CITING, "k": 0}).status_code == 422
    assert client.post("/premises", json={"statement": "   "}).status_code == 422
    r = client.post("/premises", json={"query": CITING})
    assert r.status_code == 422 and r.json()["error"] == "invalid_request"


def test_premises_run_under_the_request_deadline(integ):
    import psycopg

    from theorem_rag.api.app import create_app

    slow = SlowSearch(integ[0], slow=("premises",))
    app = create_app(slow, request_timeout=1)
    with serving(app) as url, httpx.Client(base_url=url, timeout=60) as c:
        r = c.post("/premises", json={"statement": CITING})
        assert r.status_code == 503 and r.json()["error"] == "timeout" and r.headers["retry-after"] == "5"
        assert slow.finished.wait(10) and isinstance(slow.errors[0], psycopg.errors.QueryCanceled)
        assert app.state.service.admission.inside == 0  # admitted through the service, and let out
