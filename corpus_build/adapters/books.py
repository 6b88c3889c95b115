"""The three books: HoTT, Napkin and Lebl's Basic Analysis; one document each, ids ``<source>:<label>``."""

from __future__ import annotations

from corpus_build.adapters.base import Adapter, Unit
from corpus_build.raw import RawStatement


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
