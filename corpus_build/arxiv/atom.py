"""The arXiv Atom export API: query URLs and feed parsing into :class:`ArxivEntry` metadata, pure.

>>> feed = parse_feed(EXAMPLE_FEED)
>>> feed.total, [e.id.versioned for e in feed.entries]
(1, ['2301.01234v2'])
>>> e = feed.entries[0]
>>> e.title, e.authors, e.primary_category, e.categories, e.year, e.doi
('Flat maps', ('A. Author', 'B. Author'), 'math.AG', ('math.AG', 'math.AC'), 2023, '10.1000/x')
>>> listing_query("math.AG", "2023-01-01", "2023-01-31")
'cat:math.AG AND submittedDate:[202301010000 TO 202301312359]'
"""

from __future__ import annotations

import re
import urllib.parse
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from datetime import date

from corpus_build.arxiv.ids import ArxivId, parse_arxiv_id
from corpus_build.arxiv.withdrawal import says_withdrawn
from theorem_rag.errors import InputError

NS = {
    "a": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "os": "http://a9.com/-/spec/opensearch/1.1/",
}
_CATEGORY = re.compile(r"^[a-z-]+(\.[A-Za-z-]+)?$")


@dataclass(frozen=True)
class ArxivEntry:
    """Metadata of one paper version, as the Atom API (or a bulk metadata file) gives it."""

    id: ArxivId
    title: str = ""
    authors: tuple[str, ...] = ()
    abstract: str = ""
    primary_category: str = ""
    categories: tuple[str, ...] = ()
    published: str = ""
    updated: str = ""
    license: str = ""
    journal_ref: str = ""
    doi: str = ""
    comment: str = ""

    @property
    def year(self) -> int | None:
        """The year of first submission."""
        return int(self.published[:4]) if self.published[:4].isdigit() else None

    @property
    def withdrawn(self) -> bool:
        """Whether this version is a withdrawal notice (its comment, or its abstract's first sentence, says the
        paper was withdrawn; :mod:`corpus_build.arxiv.withdrawal`): arXiv keeps the listing, not the source."""
        return says_withdrawn(self.comment) or says_withdrawn(self.abstract, first_only=True)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["id"] = self.id.versioned
        return d

    @classmethod
    def from_dict(cls, d: dict) -> ArxivEntry:
        names = set(cls.__dataclass_fields__)
        kw = {k: v for k, v in d.items() if k in names}
        kw["id"] = parse_arxiv_id(d["id"])
        for k in ("authors", "categories"):
            kw[k] = tuple(kw.get(k) or ())
        return cls(**kw)


@dataclass
class Feed:
    """One page of a listing: the entries and the paging numbers from OpenSearch."""

    entries: list[ArxivEntry] = field(default_factory=list)
    total: int = 0
    start: int = 0
    per_page: int = 0
    errors: list[str] = field(default_factory=list)


def _text(node: ET.Element | None) -> str:
    return re.sub(r"\s+", " ", node.text or "").strip() if node is not None else ""


def _entry(node: ET.Element) -> ArxivEntry:
    raw_id = _text(node.find("a:id", NS))
    primary = node.find("arxiv:primary_category", NS)
    cats = tuple(dict.fromkeys(c.get("term", "") for c in node.findall("a:category", NS) if c.get("term")))
    lic = _text(node.find("arxiv:license", NS)) or _text(node.find("a:rights", NS))
    for link in node.findall("a:link", NS):
        if link.get("rel") == "license":
            lic = lic or link.get("href", "")
    return ArxivEntry(
        id=parse_arxiv_id(raw_id),
        title=_text(node.find("a:title", NS)),
        authors=tuple(_text(a.find("a:name", NS)) for a in node.findall("a:author", NS)),
        abstract=_text(node.find("a:summary", NS)),
        primary_category=primary.get("term", "") if primary is not None else (cats[0] if cats else ""),
        categories=cats,
        published=_text(node.find("a:published", NS)),
        updated=_text(node.find("a:updated", NS)),
        license=lic,
        journal_ref=_text(node.find("arxiv:journal_ref", NS)),
        doi=_text(node.find("arxiv:doi", NS)),
        comment=_text(node.find("arxiv:comment", NS)),
    )


def parse_feed(xml: str | bytes) -> Feed:
    """Parse an Atom page; an API error entry (arXiv answers bad queries with one) lands in ``errors``.

    Malformed XML is a ValueError: the caller retries or reports the page.
    """
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as e:
        raise ValueError(f"not an Atom feed: {e}") from e
    feed = Feed()
    num = lambda tag: int(_text(root.find(f"os:{tag}", NS)) or 0)  # noqa: E731
    feed.total, feed.start, feed.per_page = num("totalResults"), num("startIndex"), num("itemsPerPage")
    for node in root.findall("a:entry", NS):
        raw_id = _text(node.find("a:id", NS))
        if "/api/errors" in raw_id:
            feed.errors.append(_text(node.find("a:summary", NS)) or raw_id)
            continue
        try:
            feed.entries.append(_entry(node))
        except InputError as e:
            feed.errors.append(str(e))
    return feed


def _day(value: str | date, end: bool) -> str:
    try:
        d = value if isinstance(value, date) else date.fromisoformat(str(value))
    except ValueError as e:
        raise InputError(f"not a date (YYYY-MM-DD): {value!r}") from e
    return d.strftime("%Y%m%d") + ("2359" if end else "0000")


def listing_query(category: str, date_from: str | date, date_to: str | date) -> str:
    """The ``search_query`` for papers of ``category`` submitted between two days (both included)."""
    if not _CATEGORY.match(category or ""):
        raise InputError(f"not an arXiv category: {category!r} (e.g. math.AG or math)")
    lo, hi = _day(date_from, False), _day(date_to, True)
    if lo > hi:
        raise InputError(f"date range is empty: {date_from} is after {date_to}")
    return f"cat:{category} AND submittedDate:[{lo} TO {hi}]"


def query_url(api_url: str, *, search_query: str = "", id_list: list[str] | None = None, start: int = 0,
              max_results: int = 100) -> str:  # fmt: skip
    """The export API URL of one page, oldest first so that paging is stable while new papers arrive.

    >>> query_url("http://x/api/query", id_list=["2301.01234"])
    'http://x/api/query?id_list=2301.01234&start=0&max_results=100'
    """
    params: dict[str, str | int] = {}
    if search_query:
        params.update(search_query=search_query, sortBy="submittedDate", sortOrder="ascending")
    if id_list:
        params["id_list"] = ",".join(id_list)
    params.update(start=start, max_results=max_results)
    return f"{api_url}?{urllib.parse.urlencode(params)}"


def atom_feed(entries: list[dict], total: int | None = None, start: int = 0) -> str:
    """An Atom page with these entries (keys of :class:`ArxivEntry`): what tests and the doc example serve."""
    def esc(s: str) -> str:
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")

    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
           'xmlns:arxiv="http://arxiv.org/schemas/atom">',
           f"<opensearch:totalResults>{len(entries) if total is None else total}</opensearch:totalResults>",
           f"<opensearch:startIndex>{start}</opensearch:startIndex>",
           f"<opensearch:itemsPerPage>{len(entries)}</opensearch:itemsPerPage>"]  # fmt: skip
    for e in entries:
        cats = e.get("categories") or [e.get("primary_category", "math.AG")]
        out += ["<entry>", f"<id>http://arxiv.org/abs/{e['id']}</id>",
                f"<published>{e.get('published', '2023-01-02T00:00:00Z')}</published>",
                f"<updated>{e.get('updated', e.get('published', '2023-01-02T00:00:00Z'))}</updated>",
                f"<title>{esc(e.get('title', ''))}</title>", f"<summary>{esc(e.get('abstract', ''))}</summary>"]  # fmt: skip
        out += [f"<author><name>{esc(a)}</name></author>" for a in e.get("authors", ())]
        for tag in ("comment", "journal_ref", "doi", "license"):
            if e.get(tag):
                out.append(f"<arxiv:{tag}>{esc(e[tag])}</arxiv:{tag}>")
        out.append(f'<arxiv:primary_category term="{e.get("primary_category", cats[0])}"/>')
        out += [f'<category term="{c}"/>' for c in cats]
        out.append("</entry>")
    out.append("</feed>")
    return "\n".join(out)


EXAMPLE_FEED = atom_feed([{"id": "2301.01234v2", "title": "Flat  maps", "authors": ["A. Author", "B. Author"],
                           "primary_category": "math.AG", "categories": ["math.AG", "math.AC"],
                           "published": "2023-01-03T10:00:00Z", "doi": "10.1000/x"}])  # fmt: skip
