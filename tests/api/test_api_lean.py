"""Lean declarations through the REST API (a real uvicorn server on loopback): the record of a declaration says it is
Lean, with its full name, Lean statement, docstring, module and links, and its uses / used by."""

from __future__ import annotations

import pytest

from lean_fixture_index import lean_fixture_search
from loopback import serving

pytestmark = [pytest.mark.db, pytest.mark.models]


@pytest.fixture(scope="module")
def client(pg_dsn):
    import httpx

    from theorem_rag.api.app import create_app

    with serving(create_app(lean_fixture_search(pg_dsn))) as url, httpx.Client(base_url=url, timeout=120) as c:
        yield c


def test_search_and_record_of_a_lean_declaration(client):
    r = client.get("/search", params={"q": "two is prime", "k": 50})
    assert r.status_code == 200, r.text
    hit = next(h for h in r.json()["results"] if h["id"] == "mathlib:prime_two")
    assert (hit["language"], hit["statement"], hit["lean"]["full_name"]) == (
        "lean", "theorem prime_two : Prime 2", "prime_two")
    r = client.get("/theorems/mathlib:Fix.Prime.one_lt")
    assert r.status_code == 200, r.text
    t = r.json()
    assert t["language"] == "lean" and t["proof"] == "Prime.two_le hp"
    assert t["lean"] == {
        "full_name": "Fix.Prime.one_lt", "kind": "theorem", "module": "Mathlib.Fixture.Prime", "docstring": "",
        "statement": "theorem Fix.Prime.one_lt {p : ℕ} (hp : Prime p) : 1 < p",
        "source_url": "https://github.com/leanprover-community/mathlib4/blob/54df8a3/Mathlib/Fixture/Prime.lean#L31",
        "docs_url": "https://leanprover-community.github.io/mathlib4_docs/Mathlib/Fixture/Prime.html#Fix.Prime.one_lt",
    }  # fmt: skip
    assert (t["uses"], t["used_by"]) == (["mathlib:Fix.Prime.two_le"], ["mathlib:opened"])
