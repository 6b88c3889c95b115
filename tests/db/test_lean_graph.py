"""The proof graph and the LlamaIndex retriever on Lean declarations (tests/fixtures/lean, real index): uses / used by
from the names proofs mention, graph searches, the app's card counts, and nodes that say a declaration is Lean."""

from __future__ import annotations

import pytest

from lean_fixture_index import lean_fixture_search

pytestmark = [pytest.mark.db, pytest.mark.models]

TWO_LE = "mathlib:Fix.Prime.two_le"
USERS = ["mathlib:Fix.Prime.not_in_comments_or_strings", "mathlib:Fix.Prime.one_lt", "mathlib:Fix.Prime.three_le_or",
         "mathlib:two_le_of_prime"]  # fmt: skip


@pytest.fixture(scope="module")
def lean(pg_dsn):
    return lean_fixture_search(pg_dsn)


def test_uses_used_by_and_graph_searches_follow_the_names_proofs_mention(lean):
    nb = lean.neighbours("mathlib:Fix.Prime.one_lt")
    assert (nb.uses, nb.used_by) == (("mathlib:Fix.Prime.two_le",), ("mathlib:opened",))
    assert lean.used_by_counts([TWO_LE, "mathlib:Fix.Prime.pos", "mathlib:Fix.ext", "mathlib:fib"]) == {
        TWO_LE: 4, "mathlib:Fix.Prime.pos": 1, "mathlib:Fix.ext": 1}
    hits, ids = lean.graph_search("used-by", TWO_LE, k=2)
    assert ids == USERS and [h.theorem_id for h in hits] == USERS[:2]


def test_the_apps_card_of_a_lean_declaration_counts_its_uses_and_users(lean):
    from theorem_rag.ui.card_data import card_extras
    from theorem_rag.ui.cards import hit_card

    hit = lean.get_theorem(TWO_LE)
    card = hit_card(hit, extras=card_extras(lean, [hit])[TWO_LE])
    assert ">used by 4</a>" in card and 'data-query="used-by:mathlib:Fix.Prime.two_le"' in card


def test_retriever_nodes_say_a_declaration_is_lean_with_its_name_module_and_docstring(lean):
    nodes = {n.node.id_: n.node for n in lean.as_retriever(k=50).retrieve("every prime is at least two")}
    meta = nodes[TWO_LE].metadata
    assert (meta["language"], meta["full_name"], meta["lean_kind"], meta["module"], meta["docstring"]) == (
        "lean", "Fix.Prime.two_le", "theorem", "Mathlib.Fixture.Prime", "Every prime is at least $2$.")
    assert meta["statement"] == "theorem Fix.Prime.two_le {p : ℕ} (hp : Prime p) : 2 ≤ p"
    assert meta["docs_url"].endswith("/Mathlib/Fixture/Prime.html#Fix.Prime.two_le")
