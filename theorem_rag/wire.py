"""The wire schema shared by the REST API, the MCP server and the LlamaIndex tools: pydantic models, pure.

Every result carries what an agent needs to cite it: the stable ``id``, the statement, its slogan, a ``url``
where the source has one, and a one-line ``citation``.

>>> from theorem_rag.records import Hit, Theorem
>>> t = Theorem(id="stacks:00DV", source="stacks", kind="lemma", number="10.20.1", name="Nakayama's lemma",
...             body_latex="Let $R$ be a ring.", doc_id="stacks:algebra", url="https://stacks.math.columbia.edu/tag/00DV")
>>> HitOut.from_hit(Hit("stacks:00DV", 0.9, rank=1, theorem=t, slogan="Nakayama.")).citation
"Lemma 10.20.1 (Nakayama's lemma) [stacks:00DV], stacks:algebra, https://stacks.math.columbia.edu/tag/00DV"
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema

from theorem_rag.citations import bibtex, markdown, source_cite
from theorem_rag.filters import CATEGORY_PATTERN, KEYWORD_FIELDS, Filters, check_category
from theorem_rag.citations import reference as citation
from theorem_rag.records import Document, Hit, Neighbours, PaperHit, Theorem

Level = Literal["theorem", "paper"]
# One arXiv category (primary or cross-list of the statement's document): 'math.AG', 'cs.LO', 'hep-th', 'math-ph'.
# Checked by the library's own rule (a readable message, 422 in REST), published as a pattern in the JSON schema.
Category = Annotated[str, AfterValidator(check_category),
                     WithJsonSchema({"type": "string", "pattern": CATEGORY_PATTERN, "examples": ["math.AG", "hep-th"]})]
CATEGORIES_DESCRIPTION = ("Only statements of arXiv papers listed in any of these categories (primary or cross-list), "
                          "e.g. ['math.AG', 'hep-th'].")  # fmt: skip
FORMAL_DESCRIPTION = ("true: only formal statements (Lean 4 declarations, e.g. mathlib); false: only informal ones "
                      "(LaTeX); unset: both.")  # fmt: skip


class FilterFields(BaseModel):
    """The optional filters every request shares, and their keyword form for the library."""

    model_config = ConfigDict(extra="forbid")

    sources: list[str] | None = Field(None, description="Only these sources, e.g. ['stacks', 'planetmath'].")
    kinds: list[str] | None = Field(None, description="Only these kinds, e.g. ['theorem', 'lemma'].")
    papers: list[str] | None = Field(None, description="Only statements of these document ids.")
    year_min: int | None = Field(None, description="Only documents from this year on.")
    year_max: int | None = Field(None, description="Only documents up to this year.")
    categories: list[Category] | None = Field(None, description=CATEGORIES_DESCRIPTION)
    formal: bool | None = Field(None, description=FORMAL_DESCRIPTION)

    def filters(self) -> Filters:
        """The request's :class:`~theorem_rag.filters.Filters`, as :meth:`TheoremSearch.search` and
        :meth:`TheoremSearch.premises` take them (an :class:`~theorem_rag.errors.InputError` if they are not)."""
        return Filters.from_keywords(self.model_dump(include=set(KEYWORD_FIELDS)))


class SearchRequest(FilterFields):
    """A search: a query, how many results, theorem or paper level, and optional filters."""

    query: str = Field(description="What to look for: words, a plain-English statement or LaTeX.")
    k: int | None = Field(None, description="Number of results (default: the server's k; at most max_k).")
    level: Level = Field("theorem", description="'theorem' ranks statements; 'paper' ranks documents.")


class PremisesRequest(FilterFields):
    """A premise search: a statement (or goal, or statement id), how many results, and optional filters."""

    statement: str = Field(description="The statement to prove: LaTeX, a goal in words, or a statement id such as "
                           "'stacks:0D09' (then its text is used and it is left out of the results).")
    k: int | None = Field(None, description="Number of results (default: the server's k; at most max_k).")


Language = Literal["latex", "lean"]


class LeanOut(BaseModel):
    """A Lean 4 declaration as a proof uses it: its full name, its statement as Lean text, where it is."""

    full_name: str = Field(description="The full name to `exact`, `apply` or `rw` with, e.g. 'Nat.Prime.two_le'.")
    kind: str = Field(description="The Lean kind: theorem, lemma, def, abbrev, instance, structure, class, ...")
    statement: str = Field(description="The declaration's header in Lean (binders and type, with the variables it "
                           "uses; no ':= proof'), to restate it in a proof, e.g. with `have`.")
    module: str = Field("", description="The module that declares it, to import, e.g. 'Mathlib.Data.Nat.Prime.Defs'.")
    docstring: str = Field("", description="Its docstring (Markdown with `code` and $LaTeX$), if any.")
    source_url: str | None = Field(None, description="The source at the pinned commit and line.")
    docs_url: str | None = Field(None, description="Its page in the library's documentation.")

    @classmethod
    def from_theorem(cls, t: Theorem) -> LeanOut | None:
        """The Lean view of a record, or None for a statement that is not a Lean declaration."""
        meta = t.meta or {}
        if meta.get("language") != "lean":
            return None
        return cls(full_name=t.name or t.id.split(":", 1)[-1], kind=meta.get("lean_kind") or t.kind,
                   statement=t.body_latex, module=meta.get("module") or "", docstring=meta.get("docstring") or "",
                   source_url=t.url, docs_url=meta.get("docs_url"))  # fmt: skip


class HitOut(BaseModel):
    """One ranked statement, citable by ``id``: mathematics in LaTeX, or a Lean 4 declaration (``language``
    ``'lean'``, its name and Lean statement in ``lean``)."""

    id: str
    rank: int
    score: float
    kind: str
    number: str | None = None
    name: str | None = None
    source: str
    doc_id: str
    url: str | None = None
    slogan: str | None = None
    statement: str = Field(description="The statement as written in the source: LaTeX, or for a Lean declaration "
                           "its Lean header without ':= proof'.")
    language: Language = Field("latex", description="'lean' for a Lean 4 declaration (formal mathematics; see "
                               "`lean`), 'latex' for a statement written in LaTeX.")
    lean: LeanOut | None = Field(None, description="For a Lean declaration: its full name, Lean kind, statement, "
                                 "module, docstring and links.")
    citation: str
    confidence: float | None = Field(
        None, description="Calibrated confidence (0..1) that this statement is what was asked for; show this, not "
        "score (the ranking's internal fusion value).")

    @classmethod
    def from_hit(cls, hit: Hit) -> HitOut:
        t = hit.theorem
        if t is None:
            raise ValueError(f"hit {hit.theorem_id!r} has no theorem record")
        confidence = None if hit.confidence is None else round(float(hit.confidence), 4)
        lean = LeanOut.from_theorem(t)
        return cls(id=t.id, rank=hit.rank, score=round(float(hit.score), 6), kind=t.kind, number=t.number,
                   name=t.name, source=t.source, doc_id=t.doc_id, url=t.url, slogan=hit.slogan,
                   statement=t.body_latex, language="lean" if lean else "latex", lean=lean, citation=citation(t),
                   confidence=confidence)  # fmt: skip


class DocumentOut(BaseModel):
    """A paper, book chapter or encyclopedia entry."""

    id: str
    source: str
    title: str = ""
    authors: list[str] = []
    year: int | None = None
    url: str | None = None
    license: str = ""
    abstract: str = ""

    @classmethod
    def from_document(cls, d: Document) -> DocumentOut:
        return cls(id=d.id, source=d.source, title=d.title, authors=list(d.authors), year=d.year, url=d.url,
                   license=d.license, abstract=d.abstract)  # fmt: skip


class PaperHitOut(BaseModel):
    """One ranked document with its best matching statements."""

    id: str
    rank: int
    score: float
    title: str = ""
    year: int | None = None
    url: str | None = None
    hits: list[HitOut]

    @classmethod
    def from_paper_hit(cls, p: PaperHit) -> PaperHitOut:
        d = p.document
        return cls(id=p.doc_id, rank=p.rank, score=round(float(p.score), 6), title=d.title if d else "",
                   year=d.year if d else None, url=d.url if d else None,
                   hits=[HitOut.from_hit(h) for h in p.hits if h.theorem is not None])  # fmt: skip


class SearchResponse(BaseModel):
    """Results of a search, best first; ``results`` at theorem level, ``papers`` at paper level."""

    query: str
    level: Level
    k: int
    results: list[HitOut] = []
    papers: list[PaperHitOut] = []
    confident: bool = Field(False, description="True when the first result is a close match (its calibrated "
                            "confidence reaches the threshold); False means nothing matches well.")
    confidence: float = Field(0.0, description="Calibrated confidence (0..1) of the first result.")
    message: str | None = Field(None, description="Said plainly when nothing matches well.")
    suggestions: list[str] = Field([], description="What to try instead (a close name, other wording).")

    @classmethod
    def from_results(cls, query: str, level: Level, k: int, found: Sequence[Hit] | Sequence[PaperHit],
                     assessment: Any) -> SearchResponse:  # fmt: skip
        """The answer to a search, the REST API's and the MCP tool's alike: its statements (papers at paper level)
        with the fields of their ``Assessment`` (``TheoremSearch.assess``)."""
        found_out = ({"papers": [PaperHitOut.from_paper_hit(p) for p in found]} if level == "paper"
                     else {"results": [HitOut.from_hit(h) for h in found]})  # fmt: skip
        return cls(query=query, level=level, k=k, **found_out, confident=assessment.confident,
                   confidence=assessment.confidence, message=assessment.message,
                   suggestions=list(assessment.suggestions))  # fmt: skip


class PremisesResponse(BaseModel):
    """What a proof of ``statement`` is likely to use, best first (the statement itself is never among them)."""

    statement: str
    k: int
    results: list[HitOut] = []

    @classmethod
    def from_hits(cls, statement: str, k: int, hits: Sequence[Hit]) -> PremisesResponse:
        return cls(statement=statement, k=k, results=[HitOut.from_hit(h) for h in hits])


class TheoremOut(HitOut):
    """The full record of one statement."""

    label: str | None = None
    section: list[str] = []
    proof_refs: list[str] = []
    text: str = Field("", description="The statement with the source's macros expanded, when the parser could.")
    proof: str = Field("", description="The proof that follows the statement in the source (LaTeX; Lean for a Lean "
                       "declaration, or its body), if any.")
    uses: list[str] = Field([], description="Ids of the statements its proof cites (a Lean declaration: the "
                            "declarations its proof or body names).")
    used_by: list[str] = Field([], description="Ids of the statements whose proofs cite it (or name it, in Lean).")
    cite: str = Field("", description="The source's own LaTeX citation, e.g. \\cite[Tag 00DV]{stacks-project}.")
    bibtex: str = Field("", description="The BibTeX entry that `cite` needs.")
    markdown: str = Field("", description="The citation as a Markdown link.")

    @classmethod
    def from_record(cls, hit: Hit, neighbours: Neighbours | None = None, document: Document | None = None) -> TheoremOut:
        t = hit.theorem
        base = HitOut.from_hit(hit).model_dump()
        nb = neighbours or Neighbours(t.id, uses=t.proof_refs)
        return cls(**base, label=t.label, section=list(t.section), proof_refs=list(t.proof_refs), text=t.text,
                   proof=t.proof, uses=list(nb.uses), used_by=list(nb.used_by), cite=source_cite(t, document),
                   bibtex=bibtex(t, document), markdown=markdown(t, document))  # fmt: skip


class PaperOut(DocumentOut):
    """A document with its statements in source order (at most ``limit``)."""

    theorems: list[TheoremSummary] = []

    @classmethod
    def from_page(cls, document: Document, theorems: Sequence[Theorem]) -> PaperOut:
        return cls(**DocumentOut.from_document(document).model_dump(),
                   theorems=[TheoremSummary.from_theorem(t) for t in theorems])  # fmt: skip


class TheoremSummary(BaseModel):
    """A statement as listed under its document."""

    id: str
    kind: str
    number: str | None = None
    name: str | None = None
    url: str | None = None
    statement: str

    @classmethod
    def from_theorem(cls, t: Theorem) -> TheoremSummary:
        return cls(id=t.id, kind=t.kind, number=t.number, name=t.name, url=t.url, statement=t.body_latex)


class ErrorOut(BaseModel):
    """Every error response: a stable machine code and a message for humans."""

    error: str
    message: str
    details: list[dict[str, Any]] | None = None


PaperOut.model_rebuild()
