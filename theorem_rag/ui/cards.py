"""Result cards as HTML: pure functions from records to escaped markup, no Gradio.

A card shows the kind, number and name, the statement (mathematics left as ``$...$`` for KaTeX, references
resolved), the slogan when it adds something (one line, the rest on a click), the proof collapsed, "uses n ·
used by m" links that run those searches, a source badge and link (Stacks tag page, PlanetMath entry, arXiv
abstract), citations to copy (one line, the source's own ``\\cite`` with its BibTeX entry, Markdown), thumbs
up/down, and the ranking's internals behind "why this result". A Lean declaration's card
(:mod:`theorem_rag.ui.lean_card`) shows its Lean kind and full name, module, statement as code (never as LaTeX),
docstring rendered, links to the source and the documentation, its proof as code, collapsed, and copies its name
and statement. Buttons carry ``data-*`` attributes only; the page's script (``theorem_rag.ui.assets``) turns clicks
into feedback, searches and clipboard copies.

>>> t = Theorem(id="stacks:00AC", source="stacks", kind="lemma", body_latex="Let $R$ be local.",
...             doc_id="stacks:algebra", number="10.18.2", url="https://stacks.math.columbia.edu/tag/00AC")
>>> citation(t)
'Stacks Project, Lemma 10.18.2 (Tag 00AC)'
>>> 'data-theorem-id="stacks:00AC"' in hit_card(Hit("stacks:00AC", 0.9, rank=1, theorem=t))
True
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote

from theorem_rag.records import Document, Hit, PaperHit, Theorem
from theorem_rag.citations import (
    SOURCE_LABELS,
    bibtex,
    citation,
    clean_title,
    heading,
    link,
    markdown,
    source_cite,
    short_authors,
    stacks_tag,
)
from theorem_rag.citations import safe_url as _safe_url
from theorem_rag.ui.latex_html import inline_html, statement_html
from theorem_rag.ui.lean_card import docstring_html, is_lean, lean_code_html, lean_heading_html, lean_links_html

STATEMENT_CHARS = 1_500
PROOF_CHARS = 6_000


def _attr(value: object) -> str:
    """Escape for a double-quoted attribute; ``$`` too, so KaTeX never pairs delimiters across attributes, and line
    breaks, so the page's Markdown renderer never sees a blank line that would end the card's HTML block."""
    return html.escape(str(value), quote=True).replace("$", "&#36;").replace("\n", "&#10;")


def _text(value: object) -> str:
    return html.escape(str(value), quote=False).replace("$", "&#36;")


def _external(url: str) -> str:
    return f'href="{_attr(url)}" target="_blank" rel="noopener noreferrer"'


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


def link_label(theorem: Theorem, url: str) -> str:
    """What the source link says: ``Tag 00AC``, ``arXiv`` or ``PlanetMath``."""
    tag = stacks_tag(theorem)
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


@dataclass(frozen=True)
class CardExtras:
    """What a card shows beyond its record: the resolver for its references, how many statements use it."""

    resolve: Callable[[str], Any] | None = None
    used_by: int | None = None


# TeX internals that plasTeX sometimes writes into an expansion (a macro's definition instead of its result).
_BROKEN_EXPANSION = re.compile(r"\\(?:setbox|advance|global|expandafter|ifstrempty|dimen|csname)\b|\\@ ?ifnextchar|\\def\\")


def display_text(theorem: Theorem) -> str:
    """The statement to show: macros expanded, unless the expansion came out as TeX internals (then as written).

    >>> display_text(Theorem(id="x", source="s", kind="lemma", doc_id="d", body_latex=r"$\\closure{A}$",
    ...                      body_expanded=r"$\\setbox \\z @\\hbox{A}$"))
    '$\\\\closure{A}$'
    """
    if theorem.body_expanded and _BROKEN_EXPANSION.search(theorem.body_expanded):
        return theorem.body_latex
    return theorem.text


def _heading_html(theorem: Theorem, dropped: list[str] | None = None) -> str:
    head = " ".join(p for p in (theorem.kind.capitalize(), theorem.number or "") if p)
    return _text(head) + (f" ({inline_html(theorem.name, dropped)})" if theorem.name else "")


def _section_html(theorem: Theorem, dropped: list[str] | None = None) -> str:
    return " \u203a ".join(inline_html(s, dropped) for s in theorem.section[-2:])


def slogan_line(slogan: str | None, theorem: Theorem) -> str | None:
    """The slogan when it adds something to the card: an LLM's slogan whole; of the offline writer's, only its
    summary (name, label words, kind and section), never its reading of the statement the card shows anyway.

    >>> t = Theorem(id="x", source="s", kind="lemma", body_latex="Let $R$ be a ring.", doc_id="d",
    ...             label="lemma-flat-base-change", section=("Flatness",))
    >>> slogan_line("Flat base change. Lemma on flatness. Let R be a ring.", t)
    'Flat base change. Lemma on flatness.'
    >>> slogan_line("Lemma. Let R be a ring.", replace(t, label=None, section=())) is None
    True
    >>> slogan_line("Base change preserves flatness.", t)
    'Base change preserves flatness.'
    """
    if not slogan:
        return None
    from theorem_rag.slogans.offline import offline_slogan

    head = offline_slogan(replace(theorem, body_latex="", body_expanded=""))
    if slogan.startswith(head) or slogan == offline_slogan(theorem):
        return None if head == f"{theorem.kind.capitalize()}." else head
    return slogan


def _neighbour_links(theorem: Theorem, used_by: int | None) -> str:
    links = []
    uses = len(theorem.proof_refs)
    if uses:
        links.append(f'<a class="trag-nb" href="?q={_attr(quote("uses:" + theorem.id))}" '
                     f'data-query="{_attr("uses:" + theorem.id)}">uses {uses}</a>')  # fmt: skip
    if used_by:
        links.append(f'<a class="trag-nb" href="?q={_attr(quote("used-by:" + theorem.id))}" '
                     f'data-query="{_attr("used-by:" + theorem.id)}">used by {used_by}</a>')  # fmt: skip
    return '<span class="trag-nbs">' + " \u00b7 ".join(links) + "</span>" if links else ""


def _copy_buttons(theorem: Theorem, document: Document | None) -> str:
    latex = f"{source_cite(theorem, document)}\n\n{bibtex(theorem, document)}\n"
    bib = (f'<button class="trag-copy trag-copy-bib" type="button" data-copy="{_attr(latex)}" '
           f'title="Copy \\cite and its BibTeX entry">BibTeX</button>')  # fmt: skip
    md = (f'<button class="trag-copy trag-copy-md" type="button" data-copy="{_attr(markdown(theorem, document))}" '
          f'title="Copy a Markdown link">Markdown</button>')  # fmt: skip
    if is_lean(theorem):  # what a proof needs: the name to `exact`/`apply`, or the statement to restate
        return (f'<button class="trag-copy" type="button" data-copy="{_attr(theorem.name or theorem.id)}" '
                f'title="Copy the full name">Name</button>'
                f'<button class="trag-copy" type="button" data-copy="{_attr(theorem.body_latex)}" '
                f'title="Copy the Lean statement">Statement</button>' + bib + md)  # fmt: skip
    cite = citation(theorem, document)
    return (f'<button class="trag-copy" type="button" data-copy="{_attr(cite)}" title="Copy the citation">Copy</button>'
            + bib + md)  # fmt: skip


def _why(hit: Hit) -> str:
    """The ranking's internals, behind a toggle; a calibrated confidence (when the hit has one) in front."""
    ranks = [f"dense #{hit.dense_rank}" if hit.dense_rank else "",
             f"text #{hit.lexical_rank}" if hit.lexical_rank else ""]  # fmt: skip
    score = " \u00b7 ".join(p for p in [f"fused score {hit.score:.3f}", *ranks] if p)
    confidence = getattr(hit, "confidence", None)  # the calibrated confidence of query understanding, when set
    if isinstance(confidence, float):
        confidence = f"confidence {confidence:.2f}"
    shown = f'<span class="trag-confidence">{_text(confidence)}</span>' if confidence is not None else ""
    return (f'{shown}<details class="trag-why"><summary>why this result</summary>'
            f'<span class="trag-score">{_text(score)}</span></details>')  # fmt: skip


def _latex_parts(t: Theorem, url: str | None, extras: CardExtras) -> tuple[str, str, str, str, str]:
    """``(heading, where, links, statement, proof)`` of a LaTeX statement's card."""
    source_link = f'<a class="trag-link" {_external(url)}>{_text(link_label(t, url))} \u2197</a>' if url else ""
    section = _section_html(t)
    where = f'<span class="trag-where">{section}</span>' if section else ""
    statement = statement_html(display_text(t), max_chars=STATEMENT_CHARS, resolve=extras.resolve, source_url=url)
    proof = ""
    if getattr(t, "proof", ""):
        body = statement_html(t.proof, max_chars=PROOF_CHARS, resolve=extras.resolve, source_url=url)
        proof = (f'<details class="trag-proof"><summary>Proof</summary><div class="trag-proof-body">{body}</div>'
                 f'</details>')  # fmt: skip
    return _heading_html(t), where, source_link, f'<div class="trag-statement">{statement}</div>', proof


def _lean_parts(t: Theorem) -> tuple[str, str, str, str, str]:
    """``(heading, where, links, statement, proof)`` of a Lean declaration's card: the Lean kind and full name, the
    module, links to the source and the documentation, the statement as code with its docstring, the proof (or
    body) as code, collapsed."""
    module = (t.meta or {}).get("module")
    where = f'<span class="trag-where">{_text(module)}</span>' if module else ""
    doc = (t.meta or {}).get("docstring")
    statement = (f'<div class="trag-statement trag-lean-statement">{lean_code_html(t.body_latex, STATEMENT_CHARS)}'
                 f'</div>' + (f'<div class="trag-doc">{docstring_html(doc)}</div>' if doc else ""))  # fmt: skip
    proof = ""
    if t.proof:
        summary = "Proof" if t.kind in ("theorem", "lemma") else "Definition"
        proof = (f'<details class="trag-proof"><summary>{summary}</summary>'
                 f'{lean_code_html(t.proof, PROOF_CHARS)}</details>')  # fmt: skip
    return lean_heading_html(t), where, lean_links_html(t), statement, proof


def hit_card(
    hit: Hit,
    document: Document | None = None,
    *,
    number: int | None = None,
    votes: bool = True,
    id_prefix: str = "hit",
    extras: CardExtras | None = None,
) -> str:
    """One result card (HTML, one line) with element id ``trag-<id_prefix>-<n>``; ``number`` overrides the rank
    shown (the assistant numbers its sources)."""
    t = hit.theorem
    if t is None:
        return f'<div class="trag-card trag-missing">{_text(hit.theorem_id)}: record not found</div>'
    extras = extras or CardExtras()
    n = number if number is not None else hit.rank
    line = slogan_line(hit.slogan, t)
    slogan = f'<div class="trag-slogan" title="Click to show all">{_text(line)}</div>' if line else ""
    parts = _lean_parts(t) if is_lean(t) else _latex_parts(t, link(t, document), extras)
    heading, where, links, statement, proof = parts
    return (
        f'<div class="trag-card" id="trag-{_attr(id_prefix)}-{_attr(n)}" data-theorem-id="{_attr(t.id)}">'
        f'<div class="trag-head"><span class="trag-rank">{_text(n)}</span>'
        f'<span class="trag-kind trag-kind-{_attr(t.kind)}">{heading}</span>'
        f'<span class="trag-badge">{_text(source_label(t.source, document))}</span>{where}{links}</div>'
        f'{statement}{slogan}{proof}'
        f'<div class="trag-foot"><code class="trag-cite">{_text(citation(t, document))}</code>{_copy_buttons(t, document)}'
        f'<span class="trag-id">{_text(t.id)}</span>{_neighbour_links(t, extras.used_by)}{_why(hit)}'
        f'{_vote_buttons("theorem-id", t.id) if votes else ""}</div></div>'
    )


def card_parts(theorem: Theorem, *, resolve: Any = None, dropped: list[str] | None = None) -> tuple[str, str]:
    """``(header, statement)`` HTML as a card shows them in full: what ``theorem-rag corpus lint`` checks."""
    header = f"{_heading_html(theorem, dropped)} {_section_html(theorem, dropped)}"
    return header, statement_html(display_text(theorem), resolve=resolve, source_url=theorem.url, dropped=dropped)


def paper_card(paper: PaperHit, *, statements: int = 3) -> str:
    """A paper-level card: the document's title, authors, year and link, then its best matching statements."""
    d = paper.document
    title = d.title if d is not None and d.title else paper.doc_id
    url = _safe_url(d.url) if d is not None else None
    title_html = statement_html(clean_title(title))
    title_html = f"<a {_external(url)}>{title_html}</a>" if url else title_html
    meta = []
    if d is not None:
        meta += [short_authors(d), str(d.year) if d.year else "", source_label(d.source, d)]
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


def results_html(hits: Sequence[Hit], documents: dict[str, Document] | None = None, *, query: str = "",
                 extras: Mapping[str, CardExtras] | None = None) -> str:  # fmt: skip
    """The search tab's result list; an empty list says so. ``extras`` by theorem id."""
    if not hits:
        return message_html("No statements matched" + (f" \u201c{query}\u201d" if query else "") + ".", "info")
    docs, more = documents or {}, extras or {}
    return "".join(hit_card(h, docs.get(h.theorem.doc_id) if h.theorem else None, extras=more.get(h.theorem_id))
                   for h in hits)  # fmt: skip


def papers_html(papers: Sequence[PaperHit], *, query: str = "") -> str:
    if not papers:
        return message_html("No papers matched" + (f" \u201c{query}\u201d" if query else "") + ".", "info")
    return "".join(paper_card(p) for p in papers)


def sources_html(hits: Sequence[Hit], documents: dict[str, Document] | None = None,
                 extras: Mapping[str, CardExtras] | None = None) -> str:  # fmt: skip
    """The assistant's numbered sources, [1]..[n], as compact cards the answer's citations link to."""
    if not hits:
        return message_html("No statements retrieved yet.", "info")
    docs, more = documents or {}, extras or {}
    return "".join(
        hit_card(h, docs.get(h.theorem.doc_id) if h.theorem else None, number=i, id_prefix="src",
                 extras=more.get(h.theorem_id))
        for i, h in enumerate(hits, 1)
    )  # fmt: skip


def message_html(text: str, level: str = "error") -> str:
    """A notice in the results area: ``level`` is ``error``, ``warning`` or ``info``."""
    level = level if level in ("error", "warning", "info") else "error"
    return f'<div class="trag-msg trag-msg-{level}" role="status">{_text(text)}</div>'
