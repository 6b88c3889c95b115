"""A polite arXiv HTTP client: one request every ``interval`` seconds, a User-Agent with a contact address,
``Retry-After`` honoured, truncated bodies detected and retried; e-prints cached on disk by id and version.

Only the standard library is used (``urllib``): the ingestion runs where only the corpus extra is installed.

>>> c = ArxivClient(contact="me@example.org", interval=0.0)
>>> c.user_agent.startswith("theorem-rag/") and "mailto:me@example.org" in c.user_agent
True
"""

from __future__ import annotations

import email.utils
import hashlib
import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path

from corpus_build.arxiv.atom import Feed, parse_feed, query_url
from corpus_build.arxiv.ids import ArxivId
from corpus_build.arxiv.state import DamagedState, read_json, write_durable
from theorem_rag.errors import InputError

DEFAULT_API_URL = "https://export.arxiv.org/api/query"
DEFAULT_EPRINT_URL = "https://export.arxiv.org/e-print"


class FetchError(RuntimeError):
    """A request that failed for good (after retries); ``status`` is the HTTP status when there was one."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes
    content_type: str


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta seconds or an HTTP date.

    >>> retry_after_seconds("7"), retry_after_seconds(None), retry_after_seconds("soon")
    (7.0, None, None)
    """
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def sniff(data: bytes) -> str:
    """What an e-print body is: ``gzip``, ``tar``, ``pdf``, ``tex`` (plain text) or ``unknown``.

    >>> sniff(b"\\x1f\\x8b..."), sniff(b"%PDF-1.5"), sniff(b"\\\\documentclass{article}")
    ('gzip', 'pdf', 'tex')
    """
    if data[:2] == b"\x1f\x8b":
        return "gzip"
    if data[:5] == b"%PDF-":
        return "pdf"
    if len(data) > 262 and data[257:262] == b"ustar":
        return "tar"
    head = data[:4096]
    if head and b"\x00" not in head:
        return "tex"
    return "unknown"


def check_complete(data: bytes) -> None:
    """Raise ValueError when a gzip body is cut short (a truncated download the server did not announce)."""
    if sniff(data) != "gzip":
        return
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        for i in range(0, len(data), 1 << 20):
            d.decompress(data[i : i + (1 << 20)], 1 << 16)
            while d.unconsumed_tail:
                d.decompress(d.unconsumed_tail, 1 << 16)
    except zlib.error as e:
        raise ValueError(f"corrupt gzip stream: {e}") from e
    if not d.eof:
        raise ValueError("gzip stream ends early (truncated download)")


class ArxivClient:
    """HTTP access to the export API and e-prints, spaced ``interval`` seconds apart (arXiv asks for 3).

    ``contact`` goes into the User-Agent (arXiv asks automated clients to say who they are). A 429/503 with
    ``Retry-After`` waits that long (at most ``max_wait``) and retries, up to ``retries`` times; a connection
    error or a short body also retries; a 404 fails at once.
    """

    def __init__(
        self,
        *,
        contact: str = "",
        api_url: str = DEFAULT_API_URL,
        eprint_url: str = DEFAULT_EPRINT_URL,
        interval: float = 3.0,
        retries: int = 3,
        max_wait: float = 300.0,
        timeout: float = 60.0,
    ) -> None:
        if interval < 0 or retries < 0 or max_wait < 0:
            raise InputError("interval, retries and max_wait must not be negative")
        self.contact = contact
        self.api_url = api_url.rstrip("?")
        self.eprint_url = eprint_url.rstrip("/")
        self.interval = interval
        self.retries = retries
        self.max_wait = max_wait
        self.timeout = timeout
        self.requests = 0
        self._next = 0.0
        self._lock = threading.Lock()

    @property
    def user_agent(self) -> str:
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("theorem-rag")
        except PackageNotFoundError:
            v = "dev"
        who = f" (mailto:{self.contact})" if self.contact else ""
        return f"theorem-rag/{v}{who}"

    def _wait_turn(self, extra: float = 0.0) -> None:
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + max(self.interval, extra)
        if start > now:
            time.sleep(start - now)

    def get(self, url: str) -> Response:
        """GET with spacing, retries and truncation checks; returns a 2xx response or raises FetchError."""
        last = ""
        wait = 0.0
        for attempt in range(self.retries + 1):
            if wait:
                with self._lock:
                    self._next = max(self._next, time.monotonic() + wait)
            self._wait_turn()
            wait = 0.0
            self.requests += 1
            req = urllib.request.Request(url, headers={"User-Agent": self.user_agent, "Accept-Encoding": "identity"})
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as r:
                    body = r.read()
                    expected = r.headers.get("Content-Length")
                    if expected is not None and expected.isdigit() and len(body) != int(expected):
                        raise http.client.IncompleteRead(body, int(expected) - len(body))
                    check_complete(body)
                    return Response(r.status, body, r.headers.get("Content-Type", ""))
            except urllib.error.HTTPError as e:
                if e.code in (429, 500, 502, 503, 504):
                    after = retry_after_seconds(e.headers.get("Retry-After"))
                    wait = min(self.max_wait, after if after is not None else self.interval * 2 ** attempt)
                    last = f"HTTP {e.code}"
                    continue
                raise FetchError(f"HTTP {e.code} for {url}", e.code) from e
            except (http.client.IncompleteRead, ValueError) as e:
                last = f"truncated download: {e}"
            except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
                last = f"connection failed: {getattr(e, 'reason', e)}"
        raise FetchError(f"{last} for {url} (after {self.retries + 1} tries)")

    def query(self, *, search_query: str = "", id_list: list[str] | None = None, start: int = 0,
              max_results: int = 100) -> Feed:  # fmt: skip
        """One page of the export API."""
        url = query_url(self.api_url, search_query=search_query, id_list=id_list, start=start, max_results=max_results)
        resp = self.get(url)
        return parse_feed(resp.body)

    def eprint(self, aid: ArxivId) -> bytes:
        """The source of one paper version as served (gzip, tar, PDF or plain TeX bytes)."""
        return self.get(f"{self.eprint_url}/{aid.versioned}").body


class SourceCache:
    """E-prints on disk, by id and version: ``<root>/<id key>/v<N>.eprint`` with a ``.json`` written last.

    A source whose ``.json`` exists is complete (both files are replaced whole, the body first:
    :func:`~corpus_build.arxiv.state.write_durable`), so an interrupted run leaves at most a stray temporary file
    and the rerun downloads only what is missing; a damaged ``.json`` counts as missing.

    >>> import tempfile
    >>> c = SourceCache(tempfile.mkdtemp()); aid = ArxivId("2301.01234", 2)
    >>> c.has(aid), c.put(aid, b"%PDF-1.4 x").kind, c.has(aid), c.read(aid)[:4]
    (False, 'pdf', True, b'%PDF')
    """

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)

    def _paths(self, aid: ArxivId) -> tuple[Path, Path]:
        tag = f"v{aid.version}" if aid.version else "unversioned"
        folder = self.root / aid.key
        return folder / f"{tag}.eprint", folder / f"{tag}.json"

    def has(self, aid: ArxivId) -> bool:
        return self.info(aid) is not None

    def info(self, aid: ArxivId) -> CachedSource | None:
        body, meta = self._paths(aid)
        if not body.is_file():
            return None
        try:
            d = read_json(meta)
            if d is None:
                return None
            return CachedSource(aid, body, d["kind"], d["bytes"], d["sha256"], d.get("mtime", 0.0))
        except (DamagedState, KeyError):
            return None  # written by a run killed mid-write (before writes were atomic): fetched again

    def mark_missing(self, aid: ArxivId, reason: str) -> None:
        """Remember that arXiv has no source for this version (HTTP 404), so a rerun does not ask again."""
        write_durable(self._paths(aid)[1].with_suffix(".missing"), reason)

    def missing(self, aid: ArxivId) -> str | None:
        """The remembered reason this version has no source, if any (delete the ``.missing`` file to retry)."""
        path = self._paths(aid)[1].with_suffix(".missing")
        return path.read_text() if path.is_file() else None

    def read(self, aid: ArxivId) -> bytes:
        return self._paths(aid)[0].read_bytes()

    def put(self, aid: ArxivId, data: bytes, *, mtime: float = 0.0) -> CachedSource:
        """Cache ``data`` (``mtime``: when a bulk archive's member was made, to tell the newer of two apart)."""
        body, meta = self._paths(aid)
        write_durable(body, data)
        kind = sniff(data)
        if kind == "gzip":
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, 4096)
            kind = {"tar": "tar.gz", "pdf": "pdf.gz"}.get(sniff(head), "tex.gz")
        src = CachedSource(aid, body, kind, len(data), hashlib.sha256(data).hexdigest(), mtime)
        write_durable(meta, json.dumps({"kind": src.kind, "bytes": src.size, "sha256": src.sha256, "mtime": mtime}))
        return src


@dataclass(frozen=True)
class CachedSource:
    """A complete source on disk: ``kind`` is ``tar.gz``, ``tex.gz``, ``tar``, ``tex``, ``pdf`` or ``unknown``."""

    id: ArxivId
    path: Path
    kind: str
    size: int
    sha256: str
    mtime: float = 0.0
