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


LEAN = Theorem(id="mathlib:Nat.Prime.two_le", source="mathlib", kind="theorem", doc_id="mathlib-module:M",
               body_latex="theorem Nat.Prime.two_le {p : ℕ} (hp : p.Prime) : 2 ≤ p", name="Nat.Prime.two_le",
               url="https://github.com/leanprover-community/mathlib4/blob/54df8a3/M.lean#L9", proof="hp.two_le'",
               proof_refs=("mathlib:Nat.Prime.two_le'",),
               meta={"language": "lean", "lean_kind": "theorem", "module": "Mathlib.Data.Nat.Prime.Defs",
                     "docstring": "A prime is at least $2$.", "docs_url": "https://docs.example/M.html#x"})  # fmt: skip


def test_a_lean_declaration_says_it_is_lean_with_its_name_statement_module_and_links():
    out = HitOut.from_hit(Hit(LEAN.id, 1.0, rank=1, theorem=LEAN))
    assert out.language == "lean" and out.statement == LEAN.body_latex
    assert out.lean.model_dump() == {
        "full_name": "Nat.Prime.two_le", "kind": "theorem", "statement": LEAN.body_latex,
        "module": "Mathlib.Data.Nat.Prime.Defs", "docstring": "A prime is at least $2$.", "source_url": LEAN.url,
        "docs_url": "https://docs.example/M.html#x"}  # fmt: skip
    full = TheoremOut.from_record(Hit(LEAN.id, 1.0, rank=1, theorem=LEAN))
    assert (full.language, full.lean.full_name, full.proof, full.uses) == (
        "lean", "Nat.Prime.two_le", "hp.two_le'", ["mathlib:Nat.Prime.two_le'"])
    latex = HitOut.from_hit(Hit("stacks:00DV", 1.0, rank=1, theorem=T))
    assert (latex.language, latex.lean) == ("latex", None)
    assert "lean" in HitOut.model_json_schema()["properties"]["language"]["enum"]
