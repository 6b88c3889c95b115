"""Unpacking an arXiv e-print into a folder the parser reads, and reading monthly bulk source archives.

An e-print is a gzipped tarball (a paper with several files), a gzipped single ``.tex``, sometimes a plain tar
or TeX file, or a PDF (no source: nothing to parse). Sizes are capped at every step: the decompressed size, each
member, the members' total and their number; ``../`` members, absolute paths and links are refused
(:func:`corpus_build.sources.extract_tar`).

>>> import gzip, tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> unpack(gzip.compress(b"\\\\documentclass{article}"), d / "p").status
'ok'
>>> sorted(p.name for p in (d / "p").iterdir())
['main.tex']
>>> unpack(b"%PDF-1.4 ...", d / "q").status
'pdf-only'
"""

from __future__ import annotations

import hashlib
import io
import re
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from corpus_build.arxiv.client import sniff
from corpus_build.arxiv.ids import ArxivId, parse_arxiv_id
from corpus_build.sources import FileProblem, extract_tar
from theorem_rag.errors import InputError


@dataclass(frozen=True)
class Limits:
    """Caps on what one e-print may unpack to (defaults fit real papers; a bomb stops at them)."""

    max_eprint_bytes: int = 200 * 1024 * 1024
    max_unpacked_bytes: int = 500 * 1024 * 1024
    max_member_bytes: int = 50 * 1024 * 1024
    max_members: int = 5000


@dataclass
class Unpacked:
    """``status``: ``ok``, ``pdf-only`` or ``failed`` (``reason`` says why); refused members in ``problems``."""

    status: str
    reason: str = ""
    problems: list[FileProblem] = field(default_factory=list)


def gunzip(data: bytes, limit: int) -> bytes:
    """Decompress a gzip body, refusing more than ``limit`` bytes out (ValueError)."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = d.decompress(data, limit + 1)
    if len(out) > limit:
        raise ValueError(f"decompressed size exceeds {limit} bytes")
    if not d.eof:
        raise ValueError("gzip stream ends early (truncated)")
    return out


def unpack(data: bytes, dest: Path, limits: Limits = Limits()) -> Unpacked:
    """Write the source files of one e-print under ``dest`` (created); never raises for a bad e-print."""
    if len(data) > limits.max_eprint_bytes:
        return Unpacked("failed", f"e-print of {len(data)} bytes > limit {limits.max_eprint_bytes}")
    kind = sniff(data)
    if kind == "pdf":
        return Unpacked("pdf-only", "arXiv has only a PDF for this version (no LaTeX source)")
    if kind == "gzip":
        try:
            data = gunzip(data, limits.max_unpacked_bytes)
        except (ValueError, zlib.error) as e:
            return Unpacked("failed", f"cannot decompress the e-print: {e}")
        kind = sniff(data)
        if kind == "pdf":
            return Unpacked("pdf-only", "arXiv has only a PDF for this version (no LaTeX source)")
    dest.mkdir(parents=True, exist_ok=True)
    if kind == "tar":
        problems = extract_tar(io.BytesIO(data), dest, max_member_bytes=limits.max_member_bytes,
                               max_total_bytes=limits.max_unpacked_bytes, max_members=limits.max_members)  # fmt: skip
        return Unpacked("ok", problems=problems)
    if kind == "tex":
        if len(data) > limits.max_member_bytes:
            return Unpacked("failed", f"single file of {len(data)} bytes > limit {limits.max_member_bytes}")
        (dest / "main.tex").write_bytes(data)
        return Unpacked("ok")
    return Unpacked("failed", "e-print is neither LaTeX, a tar archive nor a PDF")


_BULK_NAME = re.compile(r"^arXiv_src_\d{4}_\d{3}\.tar$")


@dataclass(frozen=True)
class BulkEntry:
    """One paper in a bulk archive: its id (no version: bulk archives do not say), its bytes and the member's
    modification time in the tar (which of two archives holds the newer source)."""

    id: ArxivId
    data: bytes
    member: str
    mtime: float = 0.0

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def read_bulk_archive(path: Path, limits: Limits = Limits()) -> Iterator[BulkEntry | FileProblem]:
    """Every paper of an ``arXiv_src_YYMM_NNN.tar``: ``YYMM/<id>.gz`` (tarball or single file) or ``.pdf``.

    Members that are not papers or are too large come back as :class:`FileProblem`; the archive is read as a
    stream, one member at a time, so its size does not matter.
    """
    if not _BULK_NAME.match(path.name):
        raise InputError(f"{path.name}: not a bulk source archive name (arXiv_src_YYMM_NNN.tar)")
    try:
        tf = tarfile.open(path, mode="r|*")
    except (tarfile.TarError, OSError) as e:
        yield FileProblem(path.name, f"not a readable tar archive: {e}")
        return
    with tf:
        try:
            for m in tf:
                if m.isdir():
                    continue
                name = m.name
                if not m.isfile() or ".." in name.split("/") or name.startswith("/"):
                    yield FileProblem(name, "not a regular paper member; refused")
                    continue
                stem = name.rsplit("/", 1)[-1]
                try:
                    aid = parse_arxiv_id(stem)
                except InputError:
                    yield FileProblem(name, "member name is not an arXiv id")
                    continue
                if m.size > limits.max_eprint_bytes:
                    yield FileProblem(name, f"e-print of {m.size} bytes > limit {limits.max_eprint_bytes}")
                    continue
                f = tf.extractfile(m)
                if f is None:
                    yield FileProblem(name, "member cannot be read")
                    continue
                yield BulkEntry(aid, f.read(), name, float(m.mtime or 0))
        except (tarfile.TarError, OSError, EOFError) as e:
            yield FileProblem(path.name, f"corrupt tar archive: {e}")
