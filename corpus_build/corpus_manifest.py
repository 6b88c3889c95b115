"""What makes each folder of the open corpora: repositories, pinned commits and the files kept (pure: no git).

The manifest (``corpus_build/data/corpora.json``) gives per corpus its license and its repositories: each at a
commit (a full hash, a prefix of one, or ``null`` for the default branch of an archived repository), the folder of
the corpus it fills (``dest``), the repository folder that maps onto it (``root``), and what is kept: glob patterns
(the manifest's ``text_files``, or the corpus' own ``keep``, plus ``also``) or exact ``paths``, and how many files
that makes. Environments named in ``strip`` are cut out of the ``.tex`` files: Stacks' slogans are evaluation
queries, so they must not be in the index. :mod:`corpus_build.fetch` does the fetching.

>>> corpora = load_manifest().corpora
>>> corpora["stacks"].parts[0].repo, corpora["stacks"].strip
('stacks/stacks-project', ('slogan',))
>>> [name for name, spec in corpora.items() if not spec.default]
['mathlib4']
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
MANIFEST = DATA / "corpora.json"
FULL_COMMIT = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True)
class Part:
    """One repository at one commit and what a corpus keeps of it, under ``dest``."""

    repo: str
    commit: str | None
    keep: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    dest: str = ""
    root: str = ""
    files: int | None = None
    license: str = ""

    def pinned(self, commit: str) -> bool:
        """Whether a fetched full hash is the pinned commit (any commit when none is pinned).

        >>> Part("a/b", "4ac4815").pinned("4ac48150" + "0" * 32), Part("a/b", "4ac4815").pinned("f" * 40)
        (True, False)
        """
        return self.commit is None or commit.startswith(self.commit)

    def select(self, repo_paths: Iterable[str]) -> dict[str, str]:
        """The files kept, ``{path in the corpus folder: path in the repository}``, in repository order.

        >>> part = Part("a/b", None, keep=("**/*.tex", "tags/tags"), dest="x", root="src")
        >>> part.select(["src/a.tex", "src/sub/b.tex", "src/tags/tags", "src/b.pdf", "c.tex"])
        {'x/a.tex': 'src/a.tex', 'x/sub/b.tex': 'src/sub/b.tex', 'x/tags/tags': 'src/tags/tags'}
        """
        wanted = set(self.paths)
        prefix = f"{self.root}/" if self.root else ""
        kept = {}
        for path in repo_paths:
            if not path.startswith(prefix):
                continue
            rel = path[len(prefix):]
            if rel in wanted if self.paths else any(path_matches(rel, p) for p in self.keep):
                kept[f"{self.dest}/{rel}" if self.dest else rel] = path
        return kept

    def missing(self, repo_paths: Iterable[str]) -> list[str]:
        """Exact ``paths`` of the manifest that the repository does not hold."""
        prefix = f"{self.root}/" if self.root else ""
        return sorted(set(self.paths) - {p[len(prefix):] for p in repo_paths if p.startswith(prefix)})


@dataclass(frozen=True)
class CorpusSpec:
    """One folder of the corpora: its parts, license, environments stripped and package files written into it."""

    name: str
    license: str
    parts: tuple[Part, ...]
    default: bool = True
    strip: tuple[str, ...] = ()
    write: Mapping[str, Path] = field(default_factory=dict)

    @property
    def files(self) -> int | None:
        """How many files the corpus holds once fetched, when the manifest says for every part."""
        counts = [p.files for p in self.parts]
        return None if None in counts else sum(counts) + len(self.write)


def path_matches(path: str, pattern: str) -> bool:
    """Whether a ``/``-separated path matches a glob where ``*`` stays in one folder and ``**/`` is any folders.

    >>> [path_matches(p, "**/*.tex") for p in ("a.tex", "x/y/a.tex", "a.tex.pdf")]
    [True, True, False]
    >>> path_matches("Mathlib/A/B.lean", "Mathlib/**/*.lean"), path_matches("Archive/B.lean", "Mathlib/**/*.lean")
    (True, False)
    """
    return _match(path.split("/"), pattern.split("/"))


def _match(parts: list[str], pattern: list[str]) -> bool:
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_match(parts[i:], pattern[1:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatchcase(parts[0], pattern[0]) and _match(parts[1:], pattern[1:])


def strip_environments(text: bytes, names: Iterable[str]) -> bytes:
    r"""``text`` without its ``\begin{name}...\end{name}`` blocks; a block on lines of its own goes with its lines.

    >>> tex = b"\\begin{lemma}\n\\label{a}\n\\begin{slogan}\nShort.\n\\end{slogan}\n"
    >>> strip_environments(tex + b"Let $x$.\\begin{slogan}B\\end{slogan}\n", ["slogan"])
    b'\\begin{lemma}\n\\label{a}\nLet $x$.\n'
    """
    for name in names:
        begin, end = (re.escape(rf"\{cmd}{{{name}}}".encode()) for cmd in ("begin", "end"))
        body = rb"(?:(?!%s).)*" % end
        text = re.sub(rb"^[ \t]*%s%s%s[ \t]*\r?\n" % (begin, body, end), b"", text, flags=re.S | re.M)
        text = re.sub(rb"%s%s%s" % (begin, body, end), b"", text, flags=re.S)
    return text


@dataclass(frozen=True)
class Manifest:
    """The corpora of a manifest by name, in its order, and where their repositories live."""

    corpora: dict[str, CorpusSpec]
    base_url: str = "https://github.com"


def load_manifest(path: str | Path | None = None) -> Manifest:
    """Read a manifest (the shipped one by default); ``write`` names files beside it."""
    path = Path(path) if path else MANIFEST
    data = json.loads(path.read_text(encoding="utf-8"))
    corpora = {}
    for c in data["corpora"]:
        keep = tuple(c.get("keep", data.get("text_files", []))) + tuple(c.get("also", []))
        parts = tuple(Part(r["repo"], r.get("commit"), keep=keep, paths=tuple(r.get("paths", ())),
                           dest=r.get("dest", ""), root=r.get("root", ""), files=r.get("files"),
                           license=r.get("license", c.get("license", ""))) for r in c["repos"])  # fmt: skip
        write = {name: path.parent / data_file for name, data_file in c.get("write", {}).items()}
        corpora[c["name"]] = CorpusSpec(c["name"], c.get("license", ""), parts, default=c.get("default", True),
                                        strip=tuple(c.get("strip", ())), write=write)  # fmt: skip
    return Manifest(corpora, data.get("base_url", Manifest.base_url))
