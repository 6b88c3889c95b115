"""The four books: HoTT, Napkin, Lebl's Basic Analysis and the CRing Project; one document each, ids
``<source>:<label>``."""

from __future__ import annotations

from corpus_build.adapters.base import Adapter, Unit
from corpus_build.corpus_manifest import load_manifest
from corpus_build.raw import RawStatement
from corpus_build.sources import SourceTree


class HottAdapter(Adapter):
    """The HoTT book (``main.tex``; the ``hott-*.tex`` files only set page options around it)."""

    source = "hott"
    license = "CC-BY-SA-3.0"
    mains_override = ("main.tex",)

    def main_files(self, texts):
        return ["main.tex"] if "main.tex" in texts else super().main_files(texts)


class NapkinAdapter(Adapter):
    """Evan Chen's Napkin (``Napkin.tex``)."""

    source = "napkin"
    license = "CC-BY-SA-4.0"

    def main_files(self, texts):
        return ["Napkin.tex"] if "Napkin.tex" in texts else super().main_files(texts)


class LeblAdapter(Adapter):
    """Lebl's Basic Analysis I-II (``realanal12.tex`` holds both volumes); ``slides/`` statements are marked."""

    source = "lebl-ra"
    license = "CC-BY-SA-4.0"

    def main_files(self, texts):
        return ["realanal12.tex"] if "realanal12.tex" in texts else super().main_files(texts)

    def theorem_id(self, raw: RawStatement, unit: Unit, index: int) -> str:
        tid = super().theorem_id(raw, unit, index)
        # Slide labels may repeat the book's; unlabelled ids already carry the slides/ path.
        return f"{self.source}:slides/{raw.label}" if raw.label and self.is_slides(unit) else tid

    @staticmethod
    def is_slides(unit: Unit) -> bool:
        return unit.main.startswith("slides/")

    def meta(self, raw: RawStatement, unit: Unit) -> dict:
        return {"slides": True} if self.is_slides(unit) else {}


class CRingAdapter(Adapter):
    """The CRing Project (``CRing.tex``, which inputs ``other/*.tex`` and the chapters; one of them,
    ``chapters/completelocal.tex``, is absent upstream and noted in the report). A statement's url is its file and
    line in the repository at the commit the corpus manifest pins, which the document keeps in ``meta.commit``."""

    source = "cring"
    license = "GFDL-1.2"

    def __init__(self, tree: SourceTree, source: str | None = None, doc_meta: dict | None = None) -> None:
        super().__init__(tree, source, doc_meta)
        manifest = load_manifest()
        part = manifest.corpora["cring"].parts[0]
        repo_url = f"{manifest.base_url}/{part.repo}"
        self.blob_url = f"{repo_url}/blob/{part.commit}"
        self.doc_meta = {"title": "The CRing Project", "url": repo_url, "commit": part.commit, **self.doc_meta}

    def main_files(self, texts):
        return ["CRing.tex"] if "CRing.tex" in texts else super().main_files(texts)

    def url(self, raw: RawStatement, theorem_id: str, unit: Unit) -> str | None:
        return f"{self.blob_url}/{raw.file or unit.main}" + (f"#L{raw.line}" if raw.line else "")
