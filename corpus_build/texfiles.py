"""Reading LaTeX files safely and stitching a document together: comments, ``\\input`` trees, main files.

>>> strip_comments(r"a 50\\% cut % a comment")
'a 50\\\\% cut '
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024
TEX_SUFFIXES = (".tex", ".ltx", ".sty", ".cls")


class BadFile(ValueError):
    """A file that cannot be read as LaTeX (binary, too large, unreadable); the message is the report's reason."""


def read_tex(path: Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> tuple[str, str | None]:
    """Read a LaTeX file as text; returns ``(text, note)`` where ``note`` says when bytes were not UTF-8.

    Raises :class:`BadFile` for a file over ``max_bytes`` or one that looks binary.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.tex"; _ = p.write_bytes(b"caf\\xe9")
    >>> read_tex(p)
    ('café', 'not UTF-8; decoded as cp1252')
    """
    try:
        size = path.stat().st_size
    except OSError as e:
        raise BadFile(f"cannot stat: {e.strerror or e}") from e
    if size > max_bytes:
        raise BadFile(f"file too large: {size} bytes > limit {max_bytes}")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise BadFile(f"cannot read: {e.strerror or e}") from e
    head = data[:8192]
    if b"\x00" in head or (head and sum(b < 9 or 13 < b < 32 for b in head) > len(head) // 20):
        raise BadFile("binary content (NUL or control bytes), not LaTeX")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "not UTF-8; decoded as cp1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "not UTF-8; decoded as latin-1"


_VERB = re.compile(r"\\verb\*?([^a-zA-Z\s])")


def strip_comments(text: str) -> str:
    """Drop ``%`` comments, keeping ``\\%``, ``%`` inside ``\\verb`` and every newline (so line numbers hold)."""
    out = []
    for line in text.split("\n"):
        if "%" not in line:
            out.append(line)
            continue
        i, n, cut = 0, len(line), None
        while i < n:
            c = line[i]
            if c == "\\":
                m = _VERB.match(line, i)
                if m:
                    end = line.find(m.group(1), m.end())
                    i = n if end < 0 else end + 1
                    continue
                i += 2
                continue
            if c == "%":
                cut = i
                break
            i += 1
        out.append(line if cut is None else line[:cut])
    return "\n".join(out)


_INCLUDE = re.compile(
    r"\\(?:input|include|subfile)\*?\s*\{(?P<file>[^{}]+)\}"
    r"|\\(?:sub)?(?:import|includefrom)\*?\s*\{(?P<dir>[^{}]*)\}\s*\{(?P<ifile>[^{}]+)\}"
    r"|\\input\s+(?P<bare>[A-Za-z0-9_./-]+)"
)


def _target(m: re.Match) -> str:
    return m.group("file") or m.group("ifile") or m.group("bare")


_BEGIN_DOC = re.compile(r"\\begin\s*\{document\}")
_DOCCLASS = re.compile(r"\\documentclass\b")


@dataclass
class LineMap:
    """Maps a line of a flattened document back to ``(file, line)`` in the source tree."""

    starts: list[int] = field(default_factory=list)
    spans: list[tuple[str, int]] = field(default_factory=list)

    def add(self, flat_line: int, file: str, file_line: int) -> None:
        self.starts.append(flat_line)
        self.spans.append((file, file_line))

    def locate(self, flat_line: int) -> tuple[str | None, int | None]:
        """``(file, line)`` for 1-based ``flat_line``."""
        k = bisect.bisect_right(self.starts, flat_line) - 1
        if k < 0:
            return None, None
        file, first = self.spans[k]
        return file, first + flat_line - self.starts[k]


@dataclass
class Flattened:
    """A document with its includes resolved: the text, the files it read, and what could not be read."""

    text: str
    files: list[str]
    line_map: LineMap
    problems: list[tuple[str, str]] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)


def _candidates(name: str, here: Path, root: Path) -> list[Path]:
    name = name.strip().strip('"')
    out = []
    for base in (here, root):
        p = base / name
        out += [p, p.with_name(p.name + ".tex")] if p.suffix not in TEX_SUFFIXES else [p]
    return out


def flatten(main: Path, root: Path, *, max_bytes: int = DEFAULT_MAX_FILE_BYTES, max_depth: int = 20) -> Flattened:
    """Resolve ``\\input``/``\\include``/``\\subfile``/``\\import`` from ``main``, strip comments, map lines back.

    Includes that would leave ``root``, cycles and missing files are recorded in ``problems``, never followed.
    Raises :class:`BadFile` when ``main`` itself cannot be read.
    """
    root = root.resolve()
    pieces: list[str] = []
    lmap = LineMap()
    flat = Flattened("", [], lmap)
    line_no = [1]

    def emit(chunk: str, rel: str, first_line: int) -> None:
        if not chunk:
            return
        lmap.add(line_no[0], rel, first_line)
        pieces.append(chunk)
        line_no[0] += chunk.count("\n")

    def visit(path: Path, stack: tuple[Path, ...], depth: int) -> None:
        rel = path.relative_to(root).as_posix()
        text, note = read_tex(path, max_bytes)
        if note:
            flat.notes.append((rel, note))
        flat.files.append(rel)
        text = strip_comments(text)
        pos, line = 0, 1
        for m in _INCLUDE.finditer(text):
            before = text[pos : m.start()]
            emit(before, rel, line)
            line += before.count("\n")
            target = _target(m)
            here = path.parent / m.group("dir") if m.group("dir") else path.parent
            found = next((c for c in _candidates(target, here, root) if c.is_file()), None)
            if found is None:
                if not target.endswith((".bbl", ".toc")):
                    flat.problems.append((rel, f"included file not found: {target}"))
            else:
                real = found.resolve()
                if not real.is_relative_to(root):
                    flat.problems.append((rel, f"include leaves the source folder: {target}"))
                elif real in stack:
                    flat.problems.append((rel, f"include cycle: {target}"))
                elif depth >= max_depth:
                    flat.problems.append((rel, f"includes nested deeper than {max_depth}: {target}"))
                elif real.suffix in (".sty", ".cls"):
                    pass
                else:
                    try:
                        visit(real, stack + (real,), depth + 1)
                    except BadFile as e:
                        flat.problems.append((real.relative_to(root).as_posix(), str(e)))
            tail = text[m.start() : m.end()]
            emit("\n" * tail.count("\n"), rel, line)
            line += tail.count("\n")
            pos = m.end()
        emit(text[pos:], rel, line)
        if not text.endswith("\n"):
            emit("\n", rel, line + text[pos:].count("\n"))

    real_main = main.resolve()
    visit(real_main, (real_main,), 0)
    flat.text = "".join(pieces)
    return flat


def included_names(text: str) -> list[str]:
    """The file names a LaTeX text includes, as written (comments already stripped)."""
    return [_target(m) for m in _INCLUDE.finditer(text)]


def find_main_files(texts: dict[str, str], prefer: tuple[str, ...] = ("main.tex",)) -> list[str]:
    """Main files of a folder: those with ``\\begin{document}`` that no other file includes.

    ``texts`` maps a relative path to its comment-stripped text. A preferred name wins when present.

    >>> find_main_files({"main.tex": r"\\documentclass{article}\\begin{document}\\input{a}", "a.tex": "x"})
    ['main.tex']
    """
    included: set[str] = set()
    for rel, text in texts.items():
        base = Path(rel).parent
        for name in included_names(text):
            p = (base / name.strip()).as_posix()
            included |= {p, p + ".tex", name.strip(), name.strip() + ".tex"}
    mains = [r for r, t in texts.items() if _BEGIN_DOC.search(t) and r not in included]
    for name in prefer:
        if name in mains:
            return [name]
    with_class = [r for r in mains if _DOCCLASS.search(texts[r])]
    return sorted(with_class or mains)
