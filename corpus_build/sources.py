"""Turning a SOURCE argument (folder, ``.tar``/``.tar.gz``, single ``.tex``, ``.jsonl``) into a safe file list.

Tarballs are extracted into a private temporary folder, member by member, refusing paths that escape it
(``..``, absolute paths), links and device files; folders are walked with symlink loops detected by
resolved path. Everything refused is a :class:`FileProblem`, named in the parse report.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "main.tex").write_text("x")
>>> tree = walk_tree(d); tree.files, tree.problems
(['main.tex'], [])
"""

from __future__ import annotations

import os
import re
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from corpus_build.texfiles import TEX_SUFFIXES


@dataclass(frozen=True)
class FileProblem:
    """A file that yields nothing, and why."""

    path: str
    reason: str


@dataclass
class SourceTree:
    """A folder of LaTeX files: ``root`` and the ``.tex``/``.sty``/``.cls`` files under it, relative paths."""

    root: Path
    files: list[str]
    problems: list[FileProblem] = field(default_factory=list)
    other_files: int = 0
    label: str = ""


def walk_tree(root: Path, *, label: str = "") -> SourceTree:
    """List the LaTeX files under ``root``, following symlinks only inside it and never twice."""
    root = root.resolve()
    tree = SourceTree(root, [], label=label or root.name)
    seen_dirs: set[Path] = set()

    def rel(p: Path) -> str:
        return p.relative_to(root).as_posix() if p.is_relative_to(root) else str(p)

    stack = [root]
    while stack:
        d = stack.pop()
        real = d.resolve()
        if real in seen_dirs:
            tree.problems.append(FileProblem(rel(d), "symlink loop: folder already visited"))
            continue
        if not real.is_relative_to(root):
            tree.problems.append(FileProblem(rel(d), "symlink points outside the source folder"))
            continue
        seen_dirs.add(real)
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError as e:
            tree.problems.append(FileProblem(rel(d), f"cannot list folder: {e.strerror or e}"))
            continue
        for e in entries:
            p = Path(e.path)
            try:
                is_dir, is_file = e.is_dir(follow_symlinks=True), e.is_file(follow_symlinks=True)
            except OSError as err:
                tree.problems.append(FileProblem(rel(p), f"symlink loop or unreadable entry: {err.strerror or err}"))
                continue
            if is_dir:
                stack.append(p)
                continue
            if not is_file:
                if e.is_symlink():
                    tree.problems.append(FileProblem(rel(p), "broken symlink or symlink loop"))
                continue
            if p.suffix.lower() not in TEX_SUFFIXES:
                tree.other_files += 1
                continue
            if e.is_symlink() and not p.resolve().is_relative_to(root):
                tree.problems.append(FileProblem(rel(p), "symlink points outside the source folder"))
                continue
            tree.files.append(rel(p))
    tree.files.sort()
    return tree


_SAFE = re.compile(r"^[\w.+@=,~ -]+$")


DEFAULT_MAX_MEMBERS = 20_000
DEFAULT_MAX_TOTAL_BYTES = 1 << 30  # 1 GiB written per archive


def extract_tar(
    archive: Path | IO[bytes],
    dest: Path,
    *,
    max_member_bytes: int,
    max_members: int = DEFAULT_MAX_MEMBERS,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
) -> list[FileProblem]:
    """Extract the regular files of ``archive`` (a path, or an open binary file such as an arXiv e-print in
    memory) into ``dest``; every refused member is returned as a problem.

    Never writes outside ``dest``: each member path is checked part by part, links are not created. Bounded: at
    most ``max_members`` members are read (the archive's index is streamed, never loaded whole), no file over
    ``max_member_bytes`` and no more than ``max_total_bytes`` in all are written; past a cap the rest of the
    archive is skipped and one problem says so.
    """
    problems: list[FileProblem] = []
    dest = dest.resolve()
    name_of = archive.name if isinstance(archive, Path) else "archive"
    try:
        tf = tarfile.open(archive) if isinstance(archive, Path) else tarfile.open(fileobj=archive, mode="r:*")
    except (tarfile.TarError, OSError, EOFError) as e:
        return [FileProblem(name_of, f"not a readable tar archive: {e}")]
    written = 0
    with tf:
        try:
            for count, m in enumerate(tf, start=1):
                if count > max_members:
                    problems.append(FileProblem(
                        name_of, f"archive has more than {max_members} members; the rest is skipped"))
                    break
                if m.isfile() and written + m.size > max_total_bytes:
                    problems.append(FileProblem(
                        name_of,
                        f"archive expands to more than {max_total_bytes} bytes; the rest is skipped from {m.name}"))
                    break
                problem = _extract_member(tf, m, dest, max_member_bytes)
                if problem is None:
                    written += m.size if m.isfile() else 0
                elif problem.reason:
                    problems.append(problem)
        except (tarfile.TarError, OSError, EOFError) as e:
            problems.append(FileProblem(name_of, f"corrupt tar archive: {e}"))
    return problems


def _extract_member(tf: tarfile.TarFile, m: tarfile.TarInfo, dest: Path, max_member_bytes: int) -> FileProblem | None:
    """Write one member under ``dest``; ``None`` when written, a problem when refused (empty reason: a folder)."""
    name = m.name
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return FileProblem(name, "tar member has an absolute path; refused")
    if ".." in parts:
        return FileProblem(name, "tar member path escapes the target folder (..); refused")
    if m.issym() or m.islnk():
        return FileProblem(name, f"tar member is a link (to {m.linkname}); refused")
    if m.isdir() or not parts:
        return FileProblem(name, "")
    if not m.isfile():
        return FileProblem(name, "tar member is not a regular file; refused")
    if not all(_SAFE.match(p) for p in parts):
        return FileProblem(name, "tar member name has unusual characters; refused")
    if m.size > max_member_bytes:
        return FileProblem(name, f"file too large: {m.size} bytes > limit {max_member_bytes}")
    target = dest.joinpath(*parts)
    if not target.resolve().is_relative_to(dest):
        return FileProblem(name, "tar member resolves outside the target folder; refused")
    target.parent.mkdir(parents=True, exist_ok=True)
    src = tf.extractfile(m)
    if src is None:
        return FileProblem(name, "tar member cannot be read")
    with src, open(target, "wb") as out:
        out.write(src.read(max_member_bytes + 1))
    return None


def is_tar(path: Path) -> bool:
    """Whether ``path`` names a tar archive (by suffix: ``.tar``, ``.tar.gz``, ``.tgz``, ``.tar.bz2``, ``.tar.xz``)."""
    return path.name.endswith((".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz"))


def inside_file(root: Path, path: Path) -> bool:
    """Whether ``path`` is a file whose real path (symlinks followed) lies in ``root``: the only files of a source
    anything reads, so that a link in a source cannot make it read a file of the machine.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "a.tex").write_text("x")
    >>> (d / "b.tex").symlink_to("/etc/hostname")
    >>> inside_file(d, d / "a.tex"), inside_file(d, d / "b.tex"), inside_file(d, d / "none.tex")
    (True, False, False)
    """
    return path.is_file() and path.resolve().is_relative_to(root.resolve())


def detect_corpus(root: Path) -> str:
    """Which known corpus a folder is, by its marker files (inside it: :func:`inside_file`); ``paper`` for anything
    else.

    >>> import tempfile, pathlib
    >>> detect_corpus(pathlib.Path(tempfile.mkdtemp()))
    'paper'
    """
    def has(*parts: str) -> bool:
        return inside_file(root, root.joinpath(*parts))

    if has("tags", "tags") and has("preamble.tex"):
        return "stacks"
    if has("MANIFEST.jsonl"):
        return "papers"
    if has("open-logic-envs.sty"):
        return "openlogic"
    if has("Napkin.tex"):
        return "napkin"
    if has("hott-online.tex") and has("macros.tex"):
        return "hott"
    if has("realanal.tex") and (root / "slides").is_dir():
        return "lebl-ra"
    if has("CRing.tex") and has("other", "theoremdef.tex"):
        return "cring"
    subs = [p for p in root.iterdir() if p.is_dir()] if root.is_dir() else []
    probe = [f for s in subs[:8] for f in sorted(s.glob("*.tex"))[:1]] + sorted(root.glob("*.tex"))[:1]
    probe = [f for f in probe if inside_file(root, f)]
    if probe and all("\\pmcanonicalname" in f.read_text(errors="replace")[:4000] for f in probe):
        return "planetmath"
    return "paper"
