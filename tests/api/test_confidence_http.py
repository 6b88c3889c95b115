"""``confident`` in REST responses: a real uvicorn server on loopback over the integration index (real MiniLM)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.db, pytest.mark.models]

NONSENSE = ["asdfghjkl", "recipe for chocolate chip cookies", "weather forecast for tomorrow in Paris"]


def test_a_named_result_is_confident(client):
    body = client.get("/search", params={"q": "Cantor's theorem", "k": 3}).json()
    assert body["results"][0]["id"] == "planetmath:CantorsTheorem"
    assert body["confident"] is True and body["message"] is None
    assert body["confidence"] == body["results"][0]["confidence"] and 0.5 <= body["confidence"] <= 1


@pytest.mark.parametrize("query", NONSENSE)
def test_nonsense_is_not_confident_and_says_so(client, query):
    body = client.post("/search", json={"query": query, "k": 3}).json()
    assert body["confident"] is False and body["message"].startswith("No close match")
    assert body["suggestions"] and all(0 <= r["confidence"] < 0.5 for r in body["results"])


def test_paper_level_responses_carry_confident_too(client):
    body = client.post("/search", json={"query": "asdfghjkl", "k": 2, "level": "paper"}).json()
    assert body["level"] == "paper" and body["confident"] is False
