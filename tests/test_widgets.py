"""The notebook widget on the real tiny index: search, render, select; errors shown, not raised."""

from __future__ import annotations

import pytest

from theorem_rag.records import Hit, Theorem
from theorem_rag.widgets import hit_html


def test_hit_html_escapes_text_and_keeps_math() -> None:
    t = Theorem(id="x:1", source="x", kind="lemma", body_latex="If $a<b$ then <script>", doc_id="x",
                name="A & B", url="https://example.org/?a=1&b=2")  # fmt: skip
    out = hit_html(Hit("x:1", 0.5, rank=1, theorem=t, slogan="Order <is> kept."))
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "$a&lt;b$" in out  # MathJax reads the escaped text back as a<b
    assert "A &amp; B" in out and 'href="https://example.org/?a=1&amp;b=2"' in out


@pytest.mark.db
@pytest.mark.models
def test_widget_searches_and_selects(tiny_search) -> None:
    from theorem_rag.widgets import SearchWidget

    w = SearchWidget(tiny_search, sources=["stacks", "planetmath"], k=3)
    hits = w.run("Nakayama's lemma")
    assert 1 <= len(hits) <= 3
    assert w.selected is hits[0]
    assert hits[0].theorem_id in w.results.value
    w.choice.value = len(hits) - 1
    assert w.selected is hits[-1]
    w.query.value = "   "
    w._on_search()  # what the button does: the error is shown in the widget
    assert "empty query" in w.results.value


@pytest.mark.db
@pytest.mark.models
def test_widget_lists_uses_and_used_by(tiny_search) -> None:
    from theorem_rag.widgets import SearchWidget

    w = SearchWidget(tiny_search, k=5)
    assert [h.theorem_id for h in w.run("used-by:stacks:00AC")] == ["stacks:00AD"]
    assert "uses 1" in w.results.value and "used by" not in w.results.value  # 00AD cites one, none cites it
    assert [h.theorem_id for h in w.run("uses:stacks:00AC")] == ["stacks:00AB", "stacks:00AE"]
    assert [h.theorem_id for h in w.run("id:stacks:00AC")] == ["stacks:00AC"]
    assert ">uses 2</span> &middot; <span" in w.results.value and ">used by 1</span>" in w.results.value
