"""Only user mistakes (InputError) are 422s; any other ValueError is a bug: a 500 without its text, and a log line."""

from __future__ import annotations

import logging

import pytest

from integrations_index import BuggySearch

pytestmark = [pytest.mark.db, pytest.mark.models]

SECRET = BuggySearch.SECRET


def test_a_plain_value_error_is_a_logged_500_and_input_errors_stay_422(integ, caplog):
    import httpx

    from loopback import serving
    from theorem_rag.api.app import create_app

    caplog.set_level(logging.ERROR, logger="theorem_rag.api")
    with serving(create_app(BuggySearch(integ[0]))) as url, httpx.Client(base_url=url, timeout=120) as c:
        r = c.post("/search", json={"query": "ring", "k": 3})
        assert (r.status_code, r.json()["error"]) == (500, "internal_error") and SECRET not in r.text
        assert r.headers["server-timing"].startswith("app;dur=")  # the timing wraps the catch-all too
        bad = c.post("/search", json={"query": "ring", "level": "paper", "k": 0})  # InputError from the real search
        assert (bad.status_code, bad.json()["error"]) == (422, "invalid_request") and "k must be" in bad.text
    logged = [rec for rec in caplog.records if rec.name == "theorem_rag.api"]
    assert [rec.getMessage() for rec in logged] == ["unhandled error on POST /search"]
    assert logged[0].exc_info[0] is ValueError and SECRET in str(logged[0].exc_info[1])
