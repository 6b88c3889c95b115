"""``theorem-rag corpus arxiv``: papers by id, by category and date range, or from bulk archives, into records.

Three steps, each resumable: (1) metadata (the Atom API, paged, with the paging state on disk), (2) sources
(downloaded once into a :class:`~corpus_build.arxiv.client.SourceCache` by id and version), (3) parsing (one
:func:`~corpus_build.arxiv.papers.parse_paper` per paper, in this process or mapped by an engine). The records
merge into ``out``: a paper parsed again (a new version) replaces all of its earlier records there, and the
document says so (``meta.replaces_statements``) so that ``index build`` removes statements the new version lost. A
version without statements (withdrawn, PDF only, no theorem environments) replaces them too: its document has
none (``meta.status`` says why). State kept between runs is written atomically (:mod:`corpus_build.arxiv.state`).

>>> ingest_arxiv(ids=["2301.01234"], out_dir="data/arxiv", cache_dir="data/arxiv-cache")   # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from corpus_build.arxiv.atom import ArxivEntry, listing_query
from corpus_build.arxiv.client import ArxivClient, CachedSource, FetchError, SourceCache
from corpus_build.arxiv.eprint import BulkEntry, Limits, read_bulk_archive
from corpus_build.arxiv.ids import ArxivId, doc_id, parse_arxiv_id
from corpus_build.arxiv.papers import PaperResult, PaperTask, parse_paper
from corpus_build.arxiv.state import Listing, MetadataCache
from corpus_build.report import Report, SourceReport
from corpus_build.writer import write_outputs
from theorem_rag.errors import InputError
from theorem_rag.record_files import read_records
from theorem_rag.records import Document, Theorem

ID_BATCH = 50  # ids per id_list request: short URLs, few requests


def list_category(client: ArxivClient, state_dir: Path, category: str, date_from: str, date_to: str, *,
                  page_size: int = 100, max_papers: int | None = None, rep: SourceReport | None = None,
                  progress: bool = False) -> list[ArxivEntry]:  # fmt: skip
    """Every paper of a category submitted in a date range, page by page, resuming from the state on disk."""
    listing = Listing.load(state_dir, listing_query(category, date_from, date_to))
    if listing.recovered and rep is not None:
        rep.notes.append({"path": "listing", "note": listing.recovered})
    bar = _bar(progress, "listing", listing.total)
    while not listing.done and (max_papers is None or listing.next_start < max_papers):
        try:
            feed = client.query(search_query=listing.query, start=listing.next_start, max_results=page_size)
        except (FetchError, ValueError) as e:
            if rep is not None:
                rep.fail(f"listing start={listing.next_start}", f"listing page failed: {e}")
            break
        if feed.errors and rep is not None:
            for err in feed.errors:
                rep.fail(f"listing start={listing.next_start}", f"arXiv API error: {err}")
        if not feed.entries:
            if feed.total <= listing.next_start:  # the end (or nothing matches): the listing is complete
                listing.save_page([], listing.next_start, listing.next_start)
            elif rep is not None:  # the API returns an empty page now and then: stop here, a rerun resumes
                rep.fail(f"listing start={listing.next_start}", "empty page before the end; run again to resume")
            break
        listing.save_page(feed.entries, listing.next_start + len(feed.entries), feed.total)
        if bar is not None:
            bar.total = feed.total
            bar.update(len(feed.entries))
    if bar is not None:
        bar.close()
    return listing.entries[:max_papers] if max_papers else listing.entries


def lookup_ids(client: ArxivClient, ids: list[ArxivId], rep: SourceReport, meta_dir: Path | None = None
               ) -> list[ArxivEntry]:  # fmt: skip
    """Metadata of the given ids (latest version where none is given); unknown ids go to the report.

    With ``meta_dir``, metadata of an id given with its version is kept there and not asked for again (a version
    never changes); an id without version is always looked up, since a newer version may have appeared.
    """
    found: dict[ArxivId, ArxivEntry] = {}
    ask: list[ArxivId] = []
    cache = MetadataCache(meta_dir) if meta_dir is not None else None
    for a in ids:
        cached = cache.get(a) if cache is not None else None
        if cached is not None:
            found[a] = cached
        else:
            ask.append(a)
    if cache is not None:
        rep.notes += [{"path": "metadata", "note": note} for note in cache.recovered]
    for i in range(0, len(ask), ID_BATCH):
        batch = ask[i : i + ID_BATCH]
        try:
            feed = client.query(id_list=[a.versioned for a in batch], max_results=len(batch))
        except (FetchError, ValueError) as e:
            for a in batch:
                rep.fail(a.versioned, f"failed: metadata request failed: {e}")
            continue
        by_base = {e.id.base: e for e in feed.entries}
        for a in batch:
            e = by_base.get(a.base)
            if e is None:
                rep.fail(a.versioned, "failed: not found in the arXiv API")
                continue
            e = e if a.version is None else _with_version(e, a.version)
            found[a] = e
            if cache is not None:
                cache.put(e)
    return [found[a] for a in ids if a in found]


def _with_version(e: ArxivEntry, version: int) -> ArxivEntry:
    from dataclasses import replace

    return replace(e, id=e.id.with_version(version))


def read_metadata(path: Path) -> dict[str, ArxivEntry]:
    """Metadata for bulk archives: JSON Lines of :class:`ArxivEntry` fields or arXiv's Kaggle snapshot rows
    (``categories`` space separated, ``authors`` one string, ``journal-ref``, ``versions``)."""
    out: dict[str, ArxivEntry] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            cats = d.get("categories") or []
            cats = cats.split() if isinstance(cats, str) else list(cats)
            authors = d.get("authors") or []
            if isinstance(authors, str):
                authors = [a.strip() for a in authors.replace(" and ", ",").split(",") if a.strip()]
            versions = d.get("versions") or []
            published = d.get("published") or ""
            if not published and versions:
                from email.utils import parsedate_to_datetime

                published = parsedate_to_datetime(versions[0]["created"]).strftime("%Y-%m-%dT%H:%M:%SZ")
            e = ArxivEntry(id=parse_arxiv_id(str(d["id"])), title=d.get("title", "").strip(), authors=tuple(authors),
                           abstract=" ".join(d.get("abstract", "").split()), primary_category=d.get("primary_category") or (cats[0] if cats else ""),
                           categories=tuple(cats), published=published, updated=d.get("updated") or d.get("update_date", ""),
                           license=d.get("license") or "", journal_ref=d.get("journal_ref") or d.get("journal-ref") or "",
                           doi=d.get("doi") or "", comment=d.get("comment") or d.get("comments") or "")  # fmt: skip
        except (KeyError, ValueError, TypeError, InputError) as err:
            raise InputError(f"{path}:{n}: not a metadata row: {err}") from err
        out[e.id.base] = e
    return out


def _bar(progress: bool, desc: str, total: int | None):
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="paper", leave=False)


def fetch_sources(client: ArxivClient, cache: SourceCache, entries: list[ArxivEntry], rep: SourceReport, *,
                  progress: bool = False) -> list[tuple[ArxivEntry, str]]:  # fmt: skip
    """Cached e-print paths for the entries, downloading what the cache lacks; failed papers go to the report and
    are left out; a withdrawn version comes with no path (:func:`parse_paper` makes its document)."""
    out = []
    bar = _bar(progress, "sources", len(entries))
    for e in entries:
        if bar is not None:
            bar.update(1)
        if e.withdrawn:
            out.append((e, ""))
            continue
        gone = cache.missing(e.id)
        if gone:
            rep.fail(e.id.versioned, f"failed: download failed: {gone} (remembered; delete its .missing file to retry)")
            continue
        if not cache.has(e.id):
            try:
                cache.put(e.id, client.eprint(e.id))
            except FetchError as err:
                if err.status == 404:
                    cache.mark_missing(e.id, str(err))
                rep.fail(e.id.versioned, f"failed: download failed: {err}")
                continue
        info = cache.info(e.id)
        out.append((e, str(info.path)))  # type: ignore[union-attr]
    if bar is not None:
        bar.close()
    return out


def bulk_sources(archives: Iterable[Path], cache: SourceCache, metadata: dict[str, ArxivEntry], rep: SourceReport,
                 limits: Limits) -> list[tuple[ArxivEntry, str]]:  # fmt: skip
    """Cache every paper of the bulk archives and list each paper once (the newest source seen wins).

    Bulk archives do not say which version they hold: a source is cached as ``unversioned`` (unless the member's
    name has a version) and replaced when an archive holds other bytes for it whose member is not older
    (:func:`cache_bulk_source`). A withdrawn version (by the metadata) comes with no path.
    """
    out: dict[str, tuple[ArxivEntry, str]] = {}
    for path in archives:
        if not path.is_file():
            rep.fail(str(path), "no such bulk archive")
            continue
        for item in read_bulk_archive(path, limits):
            if not isinstance(item, BulkEntry):
                rep.fail(f"{path.name}:{item.path}", item.reason)
                continue
            e = metadata.get(item.id.base) or ArxivEntry(item.id)
            key = ArxivId(item.id.base, item.id.version)
            entry = e if e.id.version == key.version else ArxivEntry(key, **_fields(e))
            out[key.base] = (entry, "" if e.withdrawn else str(cache_bulk_source(cache, key, item).path))
    return list(out.values())


def cache_bulk_source(cache: SourceCache, key: ArxivId, item: BulkEntry) -> CachedSource:
    """The cached source of a bulk member, replacing an unversioned one that holds other bytes unless this member
    is older (by its time in the tar) than the one cached: a newer archive brings the newer version."""
    have = cache.info(key)
    if have is not None and (key.version or have.sha256 == item.sha256 or item.mtime < have.mtime):
        return have
    return cache.put(key, item.data, mtime=item.mtime)


def _fields(e: ArxivEntry) -> dict:
    d = e.to_dict()
    del d["id"]
    return {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}


Mapper = Callable[[list[PaperTask]], Iterator[PaperResult]]


def local_map(tasks: list[PaperTask]) -> Iterator[PaperResult]:
    """Parse the papers one after the other in this process."""
    return (parse_paper(t) for t in tasks)


def ingest_arxiv(
    out_dir: str | os.PathLike,
    cache_dir: str | os.PathLike,
    *,
    ids: Iterable[str] = (),
    category: str | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    archives: Iterable[str | os.PathLike] = (),
    metadata: str | os.PathLike | None = None,
    client: ArxivClient | None = None,
    max_papers: int | None = None,
    use_plastex: bool = True,
    limits: Limits = Limits(),
    mapper: Mapper = local_map,
    fmt: str = "jsonl",
    progress: bool = True,
) -> Report:
    """Fetch (or read), cache and parse papers; merge their records into ``out_dir``; return the report.

    Exactly one way of naming papers is used per call: ``ids``, ``category`` with ``date_from``/``date_to``, or
    ``archives``. A paper that fails at any step is named in the report with the reason; none stops the run.
    """
    ids, archives = list(ids), [Path(a) for a in archives]
    ways = sum(bool(x) for x in (ids, category, archives))
    if ways != 1:
        raise InputError("name papers one way: ids, a category with a date range, or bulk archives")
    if category and not (date_from and date_to):
        raise InputError("a category listing needs --from and --to dates (YYYY-MM-DD)")
    import time

    t0 = time.perf_counter()
    out, cache = Path(out_dir), SourceCache(Path(cache_dir) / "sources")
    out.mkdir(parents=True, exist_ok=True)
    rep = SourceReport("arxiv", str(cache_dir), "arxiv")
    rep.source = "arxiv"
    client = client or ArxivClient()
    if archives:
        meta = read_metadata(Path(metadata)) if metadata else {}
        papers = bulk_sources(archives, cache, meta, rep, limits)
    else:
        if ids:
            wanted = [parse_arxiv_id(i) for i in dict.fromkeys(ids)]
            entries = lookup_ids(client, wanted, rep, Path(cache_dir) / "metadata")
        else:
            entries = list_category(client, Path(cache_dir) / "listings", category, date_from, date_to,  # type: ignore[arg-type]
                                    max_papers=max_papers, rep=rep, progress=progress)  # fmt: skip
        papers = fetch_sources(client, cache, entries[:max_papers] if max_papers else entries, rep, progress=progress)
    tasks = [PaperTask(e.to_dict(), path, use_plastex=use_plastex, limits=limits.__dict__) for e, path in papers]
    theorems, documents = [], []
    bar = _bar(progress, "parse", len(tasks))
    for res in mapper(tasks):
        if bar is not None:
            bar.update(1)
        _account(res, rep)
        theorems += [Theorem.from_dict(t) for t in res.theorems]
        if res.document:
            documents.append(Document.from_dict(res.document))
    if bar is not None:
        bar.close()
    theorems, documents = merge_records(out, theorems, documents)
    report = Report([rep], plastex_available=use_plastex)
    report.seconds = time.perf_counter() - t0
    rep.seconds = round(report.seconds, 2)
    write_outputs(out, theorems, documents, report, fmt)
    return report


def _account(res: PaperResult, rep: SourceReport) -> None:
    rep.documents += res.status == "ok"
    rep.statements_found += len(res.theorems)
    rep.records_kept += len(res.theorems)
    rep.files_seen += 1
    for k, v in res.dropped.items():
        rep.dropped[k] += v
    for t in res.theorems:
        rep.kept_by_parser[t["parser"]] += 1
        rep.kept_by_kind[t["kind"]] += 1
    for p in res.problems:
        rep.notes.append({"path": f"{res.id}/{p['path']}", "note": p["reason"]})
    if res.status == "no-theorems":
        rep.without_statements.append(res.id)
        rep.fail(res.id, f"no theorems: {res.reason}")
    elif res.status != "ok":
        rep.fail(res.id, f"{res.status}: {res.reason}")
    else:
        rep.files_read += 1


def merge_records(out: Path, theorems: list[Theorem], documents: list[Document]) -> tuple[list[Theorem], list[Document]]:
    """This run's records plus those already in ``out`` for papers this run did not parse (a paper parsed
    again replaces all its earlier records)."""
    have = [p for p in (out / "theorems.jsonl", out / "theorems.parquet") if p.is_file()]
    if not have:
        return theorems, documents
    old = read_records(out, strict=False)
    fresh = {t.doc_id for t in theorems} | {d.id for d in documents}
    keep_t = [t for t in old.theorems if t.doc_id not in fresh]
    keep_d = [d for d in old.documents if d.id not in fresh]
    return keep_t + theorems, keep_d + documents


__all__ = ["ingest_arxiv", "list_category", "lookup_ids", "fetch_sources", "bulk_sources", "doc_id", "local_map"]
