"""Result cards as HTML: pure functions from records to escaped markup, no Gradio.

A card shows the kind, number and name, the statement (mathematics left as ``$...$`` for KaTeX), the slogan, a
source badge, a link to the source (Stacks tag page, PlanetMath entry, arXiv abstract), a copyable citation and
thumbs up/down buttons. Buttons carry ``data-*`` attributes only; the page's script (``theorem_rag.ui.app``)
turns clicks into feedback and clipboard copies.

>>> t = Theorem(id="stacks:00AC", source="stacks", kind="lemma", body_latex="Let $R$ be local.",
...             doc_id="stacks:algebra", number="10.18.2", url="https://stacks.math.columbia.edu/tag/00AC")
>>> citation(t)
'Stacks Project, Lemma 10.18.2 (Tag 00AC)'
>>> 'data-theorem-id="stacks:00AC"' in hit_card(Hit("stacks:00AC", 0.9, rank=1, theorem=t))
True
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from theorem_rag.records import Document, Hit, PaperHit, Theorem
from theorem_rag.ui.latex_html import statement_html

SOURCE_LABELS = {
    "stacks": "Stacks Project",
    "planetmath": "PlanetMath",
    "openlogic": "Open Logic Project",
    "napkin": "Napkin",
    "hott": "HoTT Book",
    "lebl-ra": "Lebl, Basic Analysis",
}
STATEMENT_CHARS = 1_500


def _attr(value: object) -> str:
    """Escape for a double-quoted attribute; ``$`` too, so KaTeX never pairs delimiters across attributes."""
    return html.escape(str(value), quote=True).replace("$", "&#36;")


def _text(value: object) -> str:
    return html.escape(str(value), quote=False).replace("$", "&#36;")


def _external(url: str) -> str:
    return f'href="{_attr(url)}" target="_blank" rel="noopener noreferrer"'


def _safe_url(url: str | None) -> str | None:
    return url if url and url.lower().startswith(("https://", "http://")) else None


def clean_title(title: str) -> str:
    """A document title without LaTeX line breaks and ties: ``A \\\\ B~C`` -> ``A B C``."""
    return " ".join(title.replace("\\\\", " ").replace("~", " ").split())


def source_label(source: str, document: Document | None = None) -> str:
    """A human name for a source; papers (whose source is the paper id) use the document title when known.

    >>> source_label("stacks")
    'Stacks Project'
    >>> source_label("finkelstein-group-rank")
    'finkelstein-group-rank'
    """
    if source in SOURCE_LABELS:
        return SOURCE_LABELS[source]
    return clean_title(document.title) if document is not None and document.title else source


def _tag(theorem: Theorem) -> str | None:
    if theorem.source != "stacks":
        return None
    tag = (theorem.meta or {}).get("tag") or theorem.id.split(":", 1)[-1]
    return tag if len(tag) == 4 and tag.isalnum() else None


def heading(theorem: Theorem) -> str:
    """``Lemma 10.18.2 (Nakayama)``: kind, number and name as plain text.

    >>> heading(Theorem(id="x", source="s", kind="theorem", body_latex="b", doc_id="d", name="Cantor"))
    'Theorem (Cantor)'
    """
    parts = [theorem.kind.capitalize()]
    if theorem.number:
        parts.append(theorem.number)
    out = " ".join(parts)
    return f"{out} ({theorem.name})" if theorem.name else out


def _authors(document: Document) -> str:
    names = [a.replace("~", " ") for a in document.authors]
    if not names:
        return ""
    return names[0] + (" et al." if len(names) > 2 else f" and {names[1]}" if len(names) == 2 else "")


def citation(theorem: Theorem, document: Document | None = None) -> str:
    """A one-line citation a mathematician can paste: source, statement and where to find it.

    >>> doc = Document(id="p", source="p", title="Rank of groups", authors=("A. B", "C. D", "E. F"), year=2016,
    ...                url="https://arxiv.org/abs/1601.00001")
    >>> citation(Theorem(id="p:lem", source="p", kind="lemma", body_latex="b", doc_id="p", number="3.2"), doc)
    'A. B et al., Rank of groups (2016), Lemma 3.2, https://arxiv.org/abs/1601.00001'
    """
    what = heading(theorem)
    tag = _tag(theorem)
    if tag:
        return f"Stacks Project, {what} (Tag {tag})"
    if theorem.source in SOURCE_LABELS:
        title = f", {clean_title(document.title)}" if document is not None and document.title else ""
        where = f", {theorem.url}" if _safe_url(theorem.url) else ""
        return f"{SOURCE_LABELS[theorem.source]}{title}, {what}{where}"
    if document is not None:
        head = ", ".join(p for p in (_authors(document), clean_title(document.title)) if p)
        year = f" ({document.year})" if document.year else ""
        url = _safe_url(document.url) or _safe_url(theorem.url)
        return f"{head}{year}, {what}" + (f", {url}" if url else "")
    return f"{theorem.source}, {what}" + (f", {theorem.url}" if _safe_url(theorem.url) else "")


def link_label(theorem: Theorem, url: str) -> str:
    """What the source link says: ``Tag 00AC``, ``arXiv`` or ``PlanetMath``."""
    tag = _tag(theorem)
    if tag:
        return f"Tag {tag}"
    if "arxiv.org" in url:
        return "arXiv"
    return SOURCE_LABELS.get(theorem.source, "paper")


# Feather icons (MIT) inline: emoji fonts are often missing on the servers and browsers mathematicians use.
_THUMBS = {
    1: "M14 9V5a3 3 0 0 0-3-3l-4 9v11h11.28a2 2 0 0 0 2-1.7l1.38-9a2 2 0 0 0-2-2.3z"
    "M7 22H4a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2h3",
    -1: "M10 15v4a3 3 0 0 0 3 3l4-9V2H5.72a2 2 0 0 0-2 1.7l-1.38 9a2 2 0 0 0 2 2.3zm7-13h2.67A2.31 2.31 0 0 1 22 4v7"
    "a2.31 2.31 0 0 1-2.33 2H17",
}


def _vote_buttons(kind: str, target: str) -> str:
    return "".join(
        f'<button class="trag-vote" type="button" data-vote="{v}" data-{kind}="{_attr(target)}" title="{label}" '
        f'aria-label="{label}"><svg viewBox="0 0 24 24" width="14" height="14" fill="none" stroke="currentColor" '
        f'stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="{_THUMBS[v]}"/></svg></button>'
        for v, label in ((1, "Good result"), (-1, "Bad result"))
    )


def hit_card(
    hit: Hit, document: Document | None = None, *, number: int | None = None, votes: bool = True, id_prefix: str = "hit"
) -> str:
    """One result card (HTML, one line) with element id ``trag-<id_prefix>-<n>``; ``number`` overrides the rank
    shown (the assistant numbers its sources)."""
    t = hit.theorem
    if t is None:
        return f'<div class="trag-card trag-missing">{_text(hit.theorem_id)}: record not found</div>'
    n = number if number is not None else hit.rank
    url = _safe_url(t.url) or (_safe_url(document.url) if document is not None else None)
    link = f'<a class="trag-link" {_external(url)}>{_text(link_label(t, url))} \u2197</a>' if url else ""
    slogan = f'<div class="trag-slogan">{_text(hit.slogan)}</div>' if hit.slogan else ""
    section = " \u203a ".join(t.section[-2:])
    where = f'<span class="trag-where">{_text(section)}</span>' if section else ""
    ranks = [f"dense #{hit.dense_rank}" if hit.dense_rank else "",
             f"text #{hit.lexical_rank}" if hit.lexical_rank else ""]  # fmt: skip
    score = " \u00b7 ".join(p for p in [confidence_label(hit), *ranks] if p)
    cite = citation(t, document)
    return (
        f'<div class="trag-card" id="trag-{_attr(id_prefix)}-{_attr(n)}" data-theorem-id="{_attr(t.id)}">'
        f'<div class="trag-head"><span class="trag-rank">{_text(n)}</span>'
        f'<span class="trag-kind trag-kind-{_attr(t.kind)}">{_text(heading(t))}</span>'
        f'<span class="trag-badge">{_text(source_label(t.source, document))}</span>{where}{link}</div>'
        f'<div class="trag-statement">{statement_html(t.text, max_chars=STATEMENT_CHARS)}</div>{slogan}'
        f'<div class="trag-foot"><code class="trag-cite">{_text(cite)}</code>'
        f'<button class="trag-copy" type="button" data-copy="{_attr(cite)}" title="Copy citation">Copy</button>'
        f'<span class="trag-id">{_text(t.id)}</span><span class="trag-score">{_text(score)}</span>'
        f'{_vote_buttons("theorem-id", t.id) if votes else ""}</div></div>'
    )


def confidence_label(hit: Hit) -> str:
    """What a card shows as its number: the calibrated confidence, not the fusion score (kept when absent)."""
    return f"confidence {hit.confidence:.2f}" if hit.confidence is not None else f"score {hit.score:.3f}"


def paper_card(paper: PaperHit, *, statements: int = 3) -> str:
    """A paper-level card: the document's title, authors, year and link, then its best matching statements."""
    d = paper.document
    title = d.title if d is not None and d.title else paper.doc_id
    url = _safe_url(d.url) if d is not None else None
    title_html = statement_html(clean_title(title))
    title_html = f"<a {_external(url)}>{title_html}</a>" if url else title_html
    meta = []
    if d is not None:
        meta += [_authors(d), str(d.year) if d.year else "", source_label(d.source, d)]
    meta_html = " \u00b7 ".join(_text(m) for m in meta if m)
    inner = "".join(
        hit_card(h, d, number=i, id_prefix=f"p{paper.rank}") for i, h in enumerate(paper.hits[:statements], 1)
    )
    return (
        f'<div class="trag-paper" data-doc-id="{_attr(paper.doc_id)}"><div class="trag-head">'
        f'<span class="trag-rank">{_text(paper.rank)}</span><span class="trag-title">{title_html}</span></div>'
        f'<div class="trag-meta">{meta_html} \u00b7 {len(paper.hits)} matching statement(s) \u00b7 '
        f"score {paper.score:.3f}</div>{inner}</div>"
    )


def results_html(hits: Sequence[Hit], documents: dict[str, Document] | None = None, *, query: str = "") -> str:
    """The search tab's result list; an empty list says so."""
    if not hits:
        return message_html("No statements matched" + (f" \u201c{query}\u201d" if query else "") + ".", "info")
    docs = documents or {}
    return "".join(hit_card(h, docs.get(h.theorem.doc_id) if h.theorem else None) for h in hits)


def papers_html(papers: Sequence[PaperHit], *, query: str = "") -> str:
    if not papers:
        return message_html("No papers matched" + (f" \u201c{query}\u201d" if query else "") + ".", "info")
    return "".join(paper_card(p) for p in papers)


def sources_html(hits: Sequence[Hit], documents: dict[str, Document] | None = None) -> str:
    """The assistant's numbered sources, [1]..[n], as compact cards the answer's citations link to."""
    if not hits:
        return message_html("No statements retrieved yet.", "info")
    docs = documents or {}
    return "".join(
        hit_card(h, docs.get(h.theorem.doc_id) if h.theorem else None, number=i, id_prefix="src")
        for i, h in enumerate(hits, 1)
    )  # fmt: skip


def message_html(text: str, level: str = "error") -> str:
    """A notice in the results area: ``level`` is ``error``, ``warning`` or ``info``."""
    level = level if level in ("error", "warning", "info") else "error"
    return f'<div class="trag-msg trag-msg-{level}" role="status">{_text(text)}</div>'
