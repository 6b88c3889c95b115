"""A fixture arXiv on loopback: the Atom export API and e-prints, built by the tests, with a request log.

Each e-print id maps to a behaviour: bytes to serve, ``404``, ``503`` once (with ``Retry-After``), or a body cut
short once (``Content-Length`` promises more than is sent). Every request is logged with its monotonic time,
path, query and User-Agent, so tests assert spacing and paging from the log, never by sleeping.
"""

from __future__ import annotations

import gzip
import io
import tarfile
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from corpus_build.arxiv.atom import atom_feed
from loopback import free_port

PREAMBLE = r"\documentclass{article}\newtheorem{thm}{Theorem}[section]\newtheorem{lem}[thm]{Lemma}"


def paper_tex(*statements: str, title: str = "A paper") -> bytes:
    body = "\n".join(statements)
    return (f"{PREAMBLE}\\title{{{title}}}\\begin{{document}}\\section{{One}}\n{body}\n\\end{{document}}\n").encode()


def tarball(files: dict[str, bytes]) -> bytes:
    """A gzipped tarball of ``files`` (names as given, ``../`` included if a test asks for it)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def gz(data: bytes) -> bytes:
    return gzip.compress(data)


@dataclass
class Logged:
    t: float
    path: str
    query: dict
    agent: str
    status: int


@dataclass
class FixtureArxiv:
    """What the server serves; tests fill ``entries`` (listing order) and ``eprints`` (versioned id -> behaviour)."""

    entries: list[dict] = field(default_factory=list)
    eprints: dict[str, object] = field(default_factory=dict)
    fail_listing_at: set[int] = field(default_factory=set)
    empty_listing_at: set[int] = field(default_factory=set)
    log: list[Logged] = field(default_factory=list)
    retry_after: int = 1
    _once: set[str] = field(default_factory=set)

    def requests(self, prefix: str) -> list[Logged]:
        return [r for r in self.log if r.path.startswith(prefix)]

    def clear(self) -> None:
        self.log.clear()


def _handler(arxiv: FixtureArxiv):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def _send(self, status: int, body: bytes, ctype: str = "application/octet-stream", headers=None,
                  cut: int | None = None) -> None:  # fmt: skip
            url = urllib.parse.urlparse(self.path)
            arxiv.log.append(Logged(time.monotonic(), url.path, urllib.parse.parse_qs(url.query),
                                    self.headers.get("User-Agent", ""), status))  # fmt: skip
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body if cut is None else body[:cut])
            if cut is not None:
                self.close_connection = True

        def do_GET(self) -> None:
            url = urllib.parse.urlparse(self.path)
            q = urllib.parse.parse_qs(url.query)
            if url.path == "/api/query":
                start, n = int(q.get("start", ["0"])[0]), int(q.get("max_results", ["10"])[0])
                if "id_list" in q:
                    wanted = q["id_list"][0].split(",")
                    rows = []
                    for w in wanted:
                        base, _, v = w.partition("v")
                        match = [e for e in arxiv.entries if e["id"].partition("v")[0] == base]
                        if match:
                            rows.append({**match[-1], "id": f"{base}v{v}"} if v else match[-1])
                    return self._send(200, atom_feed(rows).encode(), "application/atom+xml")
                if start in arxiv.fail_listing_at:
                    return self._send(500, b"listing broke", "text/plain")
                page = [] if start in arxiv.empty_listing_at else arxiv.entries[start : start + n]
                return self._send(200, atom_feed(page, total=len(arxiv.entries), start=start).encode(),
                                  "application/atom+xml")  # fmt: skip
            if url.path.startswith("/e-print/"):
                key = url.path[len("/e-print/") :]
                what = arxiv.eprints.get(key, 404)
                if what == 404:
                    return self._send(404, b"not found", "text/plain")
                if isinstance(what, tuple) and what[0] == "503-once" and key not in arxiv._once:
                    arxiv._once.add(key)
                    return self._send(503, b"busy", "text/plain", {"Retry-After": str(arxiv.retry_after)})
                if isinstance(what, tuple) and what[0] == "cut-once" and key not in arxiv._once:
                    arxiv._once.add(key)
                    return self._send(200, what[1], cut=len(what[1]) // 2)
                body = what[1] if isinstance(what, tuple) else what
                return self._send(200, body)
            return self._send(404, b"no route", "text/plain")

    return Handler


@contextmanager
def fixture_arxiv(arxiv: FixtureArxiv) -> Iterator[str]:
    """Serve ``arxiv`` on a free loopback port; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), _handler(arxiv))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
