"""The adapter for one arXiv paper: ids ``arxiv:<id>#<label>`` (else kind and printed number), abstract-page urls.

>>> from corpus_build.raw import RawStatement
>>> from corpus_build.sources import SourceTree
>>> a = ArxivAdapter(SourceTree(__import__("pathlib").Path("."), []), ArxivId("2301.01234", 2))
>>> a.theorem_id(RawStatement("thm", "theorem", "x", "fallback", label="t:main"), None, 0)
'arxiv:2301.01234#t:main'
>>> a.theorem_id(RawStatement("thm", "theorem", "x", "fallback", number="3.2"), None, 0)
'arxiv:2301.01234#theorem-3.2'
>>> a.theorem_id(RawStatement("thm", "lemma", "x", "fallback", file="sec/a.tex"), None, 4)
'arxiv:2301.01234#lemma-sec/a.tex-4'
"""

from __future__ import annotations

from corpus_build.adapters.base import Adapter, Unit
from corpus_build.arxiv.atom import ArxivEntry
from corpus_build.arxiv.ids import ArxivId, doc_id
from corpus_build.raw import RawStatement
from corpus_build.sources import SourceTree
from theorem_rag.records import Document


def entry_meta(entry: ArxivEntry | None, aid: ArxivId) -> dict:
    """Document metadata: title, authors, license and url at the top, the arXiv fields in ``meta``."""
    e = entry or ArxivEntry(aid)
    meta = {
        "arxiv_id": aid.base,
        "version": aid.version,
        "primary_category": e.primary_category,
        "categories": list(e.categories),
        "published": e.published,
        "updated": e.updated,
        "journal_ref": e.journal_ref,
        "doi": e.doi,
        "comment": e.comment,
        # index builds delete statements of this document that the new records no longer hold (a new version)
        "replaces_statements": True,
    }
    out = {"title": e.title, "license": e.license, "url": aid.abs_url, **meta}
    if e.authors:
        out["authors"] = tuple(e.authors)
    return out


def empty_document(entry: ArxivEntry | None, aid: ArxivId, status: str, reason: str) -> Document:
    """The document of a version without statements (withdrawn, PDF only, no theorem environments).

    It replaces the paper's earlier document and, owning its statements, makes ``index build`` delete those of
    an earlier version: the index then holds what a fresh build of this version would. ``meta.status`` and
    ``meta.status_reason`` say why it has none.

    >>> d = empty_document(None, ArxivId("2301.01234", 2), "withdrawn", "This paper has been withdrawn")
    >>> d.id, d.meta["version"], d.meta["status"], d.meta["replaces_statements"]
    ('arxiv:2301.01234', 2, 'withdrawn', True)
    """
    meta = entry_meta(entry, aid)
    e = entry or ArxivEntry(aid)
    return Document(id=doc_id(aid), source="arxiv", title=meta.pop("title"), authors=meta.pop("authors", ()),
                    abstract=e.abstract, license=meta.pop("license"), url=meta.pop("url"), year=e.year,
                    meta={**meta, "status": status, "status_reason": reason})  # fmt: skip


class ArxivAdapter(Adapter):
    """One paper: source ``arxiv``, document ``arxiv:<id>``; the version is in the document, not in the ids."""

    source = "arxiv"

    def __init__(self, tree: SourceTree, aid: ArxivId, entry: ArxivEntry | None = None) -> None:
        super().__init__(tree, doc_meta=entry_meta(entry, aid))
        self.aid = aid
        self.entry = entry

    def doc_id(self, main: str) -> str:
        return doc_id(self.aid)

    def label_id(self, label: str, unit: Unit) -> str:
        return f"arxiv:{self.aid.base}#{label}"

    def theorem_id(self, raw: RawStatement, unit: Unit | None, index: int) -> str:
        if raw.label:
            return self.label_id(raw.label, unit)  # type: ignore[arg-type]
        if raw.number:
            return f"arxiv:{self.aid.base}#{raw.kind}-{raw.number}"
        where = raw.file or (unit.main if unit else "main.tex")
        return f"arxiv:{self.aid.base}#{raw.kind}-{where}-{index}"

    def url(self, raw: RawStatement, theorem_id: str, unit: Unit) -> str | None:
        return self.aid.abs_url

    def document(self, unit: Unit):
        from dataclasses import replace

        doc = super().document(unit)
        if self.entry is None:
            return doc
        return replace(doc, year=self.entry.year, abstract=self.entry.abstract or doc.abstract)
