"""A folder of papers with ``MANIFEST.jsonl`` (id, main_file, title, license, arxiv_id): one document each.

Ids are ``<paper id>:<label>`` (or ``<paper id>:<file>#<kind>-<hash>``, see :mod:`corpus_build.adapters.base`);
the url is the arXiv abstract page when known.
"""

from __future__ import annotations

from pathlib import Path

from corpus_build.adapters.base import Adapter
from theorem_rag.record_files import read_json_objects


def read_manifest(path: Path) -> tuple[list[dict], list[tuple[int, str]]]:
    """Manifest entries and ``(line, error)`` for lines that are not JSON objects with an ``id``."""
    objects, bad = read_json_objects(path)
    entries = [d for _, d in objects if d.get("id")]
    bad += [(n, "not an object with an id") for n, d in objects if not d.get("id")]
    return entries, sorted(bad)


def paper_meta(entry: dict) -> dict:
    """Document metadata for a manifest entry."""
    arxiv = entry.get("arxiv_id")
    return {
        "title": entry.get("title", ""),
        "license": entry.get("license", ""),
        "url": f"https://arxiv.org/abs/{arxiv}" if arxiv else entry.get("source_url"),
        "arxiv_id": arxiv,
        "repo_url": entry.get("repo_url"),
        "kind": entry.get("kind"),
        "main_file": entry.get("main_file"),
    }


class PaperAdapter(Adapter):
    """One paper of a manifest folder: source ``papers``, document id the manifest id."""

    source = "papers"

    def __init__(self, tree, paper_id: str, entry: dict) -> None:
        super().__init__(tree, doc_meta=paper_meta(entry))
        self.paper_id = paper_id
        self.main = entry.get("main_file")

    def main_files(self, texts):
        return [self.main] if self.main in texts else super().main_files(texts)

    def doc_id(self, main: str) -> str:
        return self.paper_id

    def id_prefix(self) -> str:
        return self.paper_id
