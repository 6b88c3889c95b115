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


def extract_tar(
    archive: Path | IO[bytes],
    dest: Path,
    *,
    max_member_bytes: int,
    max_total_bytes: int | None = None,
    max_members: int | None = None,
) -> list[FileProblem]:
    """Extract the regular files of ``archive`` (a path or an open binary file) into ``dest``; every refused
    member is returned as a problem.

    Never writes outside ``dest``: each member path is checked part by part, links are not created. Past
    ``max_members`` members or ``max_total_bytes`` bytes written, the rest is refused (a tar bomb stops there).
    """
    problems: list[FileProblem] = []
    total = 0
    name_of = archive.name if isinstance(archive, Path) else "archive"
    dest = dest.resolve()
    try:
        tf = tarfile.open(archive) if isinstance(archive, Path) else tarfile.open(fileobj=archive)
    except (tarfile.TarError, OSError, EOFError) as e:
        return [FileProblem(name_of, f"not a readable tar archive: {e}")]
    with tf:
        try:
            members = tf.getmembers()
        except (tarfile.TarError, OSError, EOFError) as e:
            return [FileProblem(name_of, f"corrupt tar archive: {e}")]
        if max_members is not None and len(members) > max_members:
            problems.append(FileProblem(name_of, f"{len(members)} members > limit {max_members}; the rest refused"))
            members = members[:max_members]
        for m in members:
            name = m.name
            parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
            if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
                problems.append(FileProblem(name, "tar member has an absolute path; refused"))
                continue
            if ".." in parts:
                problems.append(FileProblem(name, "tar member path escapes the target folder (..); refused"))
                continue
            if m.issym() or m.islnk():
                problems.append(FileProblem(name, f"tar member is a link (to {m.linkname}); refused"))
                continue
            if m.isdir() or not parts:
                continue
            if not m.isfile():
                problems.append(FileProblem(name, "tar member is not a regular file; refused"))
                continue
            if not all(_SAFE.match(p) for p in parts):
                problems.append(FileProblem(name, "tar member name has unusual characters; refused"))
                continue
            if m.size > max_member_bytes:
                problems.append(FileProblem(name, f"file too large: {m.size} bytes > limit {max_member_bytes}"))
                continue
            if max_total_bytes is not None and total + m.size > max_total_bytes:
                problems.append(FileProblem(name, f"archive exceeds {max_total_bytes} bytes in all; refused"))
                continue
            total += m.size
            target = dest.joinpath(*parts)
            if not target.resolve().is_relative_to(dest):
                problems.append(FileProblem(name, "tar member resolves outside the target folder; refused"))
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            src = tf.extractfile(m)
            if src is None:
                problems.append(FileProblem(name, "tar member cannot be read"))
                continue
            with src, open(target, "wb") as out:
                out.write(src.read(max_member_bytes + 1))
    return problems


def is_tar(path: Path) -> bool:
    """Whether ``path`` names a tar archive (by suffix: ``.tar``, ``.tar.gz``, ``.tgz``, ``.tar.bz2``, ``.tar.xz``)."""
    return path.name.endswith((".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz"))


def detect_corpus(root: Path) -> str:
    """Which known corpus a folder is, by its marker files; ``paper`` for anything else.

    >>> import tempfile, pathlib
    >>> detect_corpus(pathlib.Path(tempfile.mkdtemp()))
    'paper'
    """
    if (root / "tags" / "tags").is_file() and (root / "preamble.tex").is_file():
        return "stacks"
    if (root / "MANIFEST.jsonl").is_file():
        return "papers"
    if (root / "open-logic-envs.sty").is_file():
        return "openlogic"
    if (root / "Napkin.tex").is_file():
        return "napkin"
    if (root / "hott-online.tex").is_file() and (root / "macros.tex").is_file():
        return "hott"
    if (root / "realanal.tex").is_file() and (root / "slides").is_dir():
        return "lebl-ra"
    subs = [p for p in root.iterdir() if p.is_dir()] if root.is_dir() else []
    probe = [f for s in subs[:8] for f in sorted(s.glob("*.tex"))[:1]] + sorted(root.glob("*.tex"))[:1]
    if probe and all("\\pmcanonicalname" in f.read_text(errors="replace")[:4000] for f in probe):
        return "planetmath"
    return "paper"
