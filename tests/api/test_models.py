"""The wire models shared by the REST API, the MCP server and the tools: pure, hand-written records."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from theorem_rag.filters import Filters
from theorem_rag.wire import HitOut, PaperHitOut, SearchRequest, TheoremOut, citation
from theorem_rag.records import Document, Hit, PaperHit, Theorem

T = Theorem(id="stacks:00DV", source="stacks", kind="lemma", number="10.20.1", name="Nakayama's lemma",
            body_latex="Let $R$ be a ring.", doc_id="stacks:algebra", label="lemma-NAK", section=("Nakayama",),
            proof_refs=("stacks:00DU",), url="https://stacks.math.columbia.edu/tag/00DV")  # fmt: skip


def test_citation_uses_what_the_record_has():
    assert citation(T) == ("Lemma 10.20.1 (Nakayama's lemma) [stacks:00DV], stacks:algebra, "
                           "https://stacks.math.columbia.edu/tag/00DV")  # fmt: skip
    bare = Theorem(id="p:3", source="p", kind="definition", body_latex="x", doc_id="p")
    assert citation(bare, "A paper") == "Definition [p:3], A paper"


def test_hit_out_and_theorem_out():
    hit = Hit("stacks:00DV", 0.123456789, rank=2, theorem=T, slogan="Nakayama.")
    out = HitOut.from_hit(hit)
    assert (out.id, out.rank, out.score, out.statement, out.slogan, out.url) == (
        "stacks:00DV", 2, 0.123457, "Let $R$ be a ring.", "Nakayama.", T.url)
    full = TheoremOut.from_record(hit)
    assert full.proof_refs == ["stacks:00DU"] and full.section == ["Nakayama"] and full.label == "lemma-NAK"
    with pytest.raises(ValueError, match="no theorem record"):
        HitOut.from_hit(Hit("x", 1.0))


def test_paper_hit_out_keeps_hits_with_records():
    doc = Document(id="stacks:algebra", source="stacks", title="Commutative Algebra", year=2020)
    p = PaperHit("stacks:algebra", 1.5, rank=1, document=doc, hits=(Hit("stacks:00DV", 1.0, 1, theorem=T), Hit("gone", 0.5)))
    out = PaperHitOut.from_paper_hit(p)
    assert (out.title, out.year, [h.id for h in out.hits]) == ("Commutative Algebra", 2020, ["stacks:00DV"])
    assert PaperHitOut.from_paper_hit(PaperHit("orphan", 1.0, 1)).title == ""


def test_search_request_rejects_unknown_fields_and_maps_filters():
    req = SearchRequest(query="ring", sources=["stacks"], year_min=2000, categories=["math.AG", "hep-th"])
    assert req.filters() == Filters(source=("stacks",), year_min=2000, category=("hep-th", "math.AG"))
    for bad in ("math AG", "", "math."):
        with pytest.raises(ValidationError, match="arXiv categories such as 'math.AG'"):
            SearchRequest(query="ring", categories=[bad])
    with pytest.raises(ValidationError, match="Extra inputs"):
        SearchRequest(query="ring", source="stacks")
    with pytest.raises(ValidationError):
        SearchRequest(query="ring", level="section")
