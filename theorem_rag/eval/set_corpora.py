"""Query sets that bring the sources of their answers: the statements a set asks about are in no index, so they are
parsed and added to the corpus for the evaluation only (as extra records), never indexed for good.

A set ``NAME_dev.jsonl`` (or ``NAME.jsonl``) with a folder ``NAME/`` beside it holding a ``MANIFEST.jsonl`` (papers in
the layout of ``../shared/corpora/papers``) is such a set: ``unseen_dev.jsonl`` and ``unseen/`` stand for a user's own
papers, which the engine has never seen. The folder is parsed once into a cache keyed on its files' names and bytes
and on the parser's code (a changed parser parses it again).

>>> set_corpus_name("/e/unseen_dev.jsonl"), set_corpus_name("/e/research.jsonl")
('unseen', 'research')
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from theorem_rag.eval.queries import query_set_name

MANIFEST = "MANIFEST.jsonl"


def set_corpus_name(query_file: str | Path) -> str:
    """The folder name a query set's own sources would have: the set's name less ``_dev``."""
    return query_set_name(query_file).removesuffix("_dev")


def set_corpus(query_file: str | Path) -> Path | None:
    """The folder of sources beside ``query_file`` whose statements its queries ask about, or None."""
    folder = Path(query_file).parent / set_corpus_name(query_file)
    return folder if (folder / MANIFEST).is_file() else None


def folder_digest(folder: Path, pattern: str = "*") -> str:
    """A digest of the relative path and bytes of every file under ``folder`` whose name matches ``pattern`` (what a
    parse of it depends on)."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob(pattern) if p.is_file()):
        h.update(str(path.relative_to(folder)).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()[:16]


def parser_digest() -> str:
    """A digest of the parser's code (every module of ``corpus_build``): what a parse depends on besides its sources."""
    import corpus_build

    return folder_digest(Path(corpus_build.__file__).parent, "*.py")


def parsed_records(folder: Path, cache_dir: Path, progress: bool = False) -> Path:
    """The records folder of ``folder``'s sources, parsed into ``cache_dir`` on first use and reused while neither a
    file of ``folder`` nor the parser changes. A parse that fails leaves no folder behind, so the next call parses
    again."""
    import shutil
    import tempfile

    from corpus_build.parse import parse_sources
    from corpus_build.units import default_workers

    out = cache_dir / f"{folder.name}-{folder_digest(folder)}-{parser_digest()}"
    if (out / "theorems.jsonl").is_file():
        return out
    cache_dir.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=cache_dir))
    try:
        parse_sources([folder], scratch, progress=progress, workers=default_workers())
        scratch.rename(out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out
