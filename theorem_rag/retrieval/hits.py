"""What a ranking becomes once ranked: hits with their evidence and confidence, hits without the statement a premise
query is, hits as LlamaIndex nodes (:class:`~theorem_rag.retrieval.retriever.TheoremRetriever` and the vector
store adapter both hand nodes out), and hits reordered by a reranker that takes nodes."""

from __future__ import annotations

from dataclasses import replace

try:
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError('theorem_rag.retrieval needs LlamaIndex: pip install "theorem-rag[index]"') from err

from theorem_rag.records import Hit
from theorem_rag.retrieval.confidence import hit_confidence, leads
from theorem_rag.wire import LeanOut


def with_confidence(hits: list[Hit], cosine: dict[str, float], lexical_top: set[str], named: set[str],
                     unknown: float = 0.0, lexical: dict[str, float] | None = None) -> list[Hit]:  # fmt: skip
    """The hits with their evidence and calibrated confidence (a hit outside the dense ranking gets its lowest
    cosine; ``unknown`` is the share of the query's words no statement contains). ``cosine`` and ``lexical`` (the
    full-text scores) hold every candidate of the two rankings: a hit's leads are measured against them."""
    floor = min(cosine.values(), default=0.0)
    ids = [h.theorem_id for h in hits]
    dense_leads = leads(ids, cosine, missing=floor)
    lexical_leads = leads(ids, lexical or {})
    out = []
    for h in hits:
        cos, is_named = cosine.get(h.theorem_id, floor), h.theorem_id in named
        d_lead, l_lead = dense_leads[h.theorem_id], lexical_leads[h.theorem_id]
        conf = hit_confidence(cos, h.theorem_id in lexical_top, is_named, unknown=unknown, dense_lead=d_lead,
                              lexical_lead=l_lead)  # fmt: skip
        out.append(replace(h, cosine=round(cos, 6), named=is_named, unknown=round(unknown, 4), confidence=conf,
                           dense_lead=round(d_lead, 4), lexical_lead=round(l_lead, 4)))  # fmt: skip
    return out


def hit_to_node(hit: Hit) -> NodeWithScore:
    """A ``NodeWithScore`` whose ``TextNode`` carries the statement and the theorem's metadata; ``language`` says
    whether it is a Lean declaration (``lean``, with its full name, Lean kind, module, docstring and documentation
    link; the statement is its Lean header) or a statement in LaTeX (``latex``)."""
    t = hit.theorem
    if t is None:
        raise ValueError(f"hit {hit.theorem_id!r} has no theorem record; hydrate it first")
    metadata = {
        "id": t.id, "statement": t.text, "slogan": hit.slogan or "", "kind": t.kind, "number": t.number or "",
        "name": t.name or "", "source": t.source, "doc_id": t.doc_id, "url": t.url or "",
        "dense_rank": hit.dense_rank, "lexical_rank": hit.lexical_rank, "confidence": hit.confidence,
    }  # fmt: skip
    lean = LeanOut.from_theorem(t)
    metadata["language"] = "lean" if lean else "latex"
    if lean is not None:
        metadata.update(full_name=lean.full_name, lean_kind=lean.kind, module=lean.module, docstring=lean.docstring,
                        docs_url=lean.docs_url or "")  # fmt: skip
    text = f"{hit.slogan}\n\n{t.text}" if hit.slogan else t.text
    node = TextNode(id_=t.id, text=text, metadata=metadata, excluded_embed_metadata_keys=list(metadata))
    return NodeWithScore(node=node, score=hit.score)


def rerank_hits(reranker: BaseNodePostprocessor, text: str, hits: list[Hit]) -> list[Hit]:
    """``hits`` in the order ``reranker`` (a LlamaIndex ``BaseNodePostprocessor``) gives them for the query
    ``text``, with its scores and ranks from 1: every one of them, whatever the reranker's own ``top_n``."""
    nodes = [hit_to_node(h) for h in hits]
    if getattr(reranker, "top_n", len(nodes)) < len(nodes):
        # The cut to k happens in the retriever: a reranker built with a smaller top_n must not cap the result. A
        # copy per call (not a change to the shared one, which other threads use); loaded first, so the copy
        # shares the model instead of loading its own.
        if callable(getattr(reranker, "load", None)):
            reranker.load()
        reranker = reranker.model_copy(update={"top_n": len(nodes)})
    by_id = {h.theorem_id: h for h in hits}
    ranked = reranker.postprocess_nodes(nodes, query_bundle=QueryBundle(text))
    return [
        replace(by_id[n.node.node_id], score=float(n.score or 0.0), rank=i) for i, n in enumerate(ranked, 1)
    ]

def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def without_statement(hits: list[Hit], text: str, exclude: frozenset[str]) -> list[Hit]:
    """The hits but the statement a premise query is: ids in ``exclude`` and statements whose text (as written or
    macro-expanded, whitespace aside) is the query; ranks renumbered from 1.

    >>> from theorem_rag.records import Theorem
    >>> t = lambda i, body: Theorem(id=i, source="s", kind="lemma", doc_id="d", body_latex=body)
    >>> hits = [Hit("a", 0.9, rank=1, theorem=t("a", "$x = y$")), Hit("b", 0.8, rank=2, theorem=t("b", "$y$")),
    ...         Hit("c", 0.7, rank=3, theorem=t("c", "$z$"))]
    >>> [(h.theorem_id, h.rank) for h in without_statement(hits, " $x  =  y$ ", frozenset({"c"}))]
    [('b', 1)]
    """
    kept = [
        h for h in hits
        if h.theorem_id not in exclude
        and not (h.theorem is not None and (_same_text(h.theorem.body_latex, text) or _same_text(h.theorem.text, text)))
    ]  # fmt: skip
    return [replace(h, rank=i) for i, h in enumerate(kept, 1)]
