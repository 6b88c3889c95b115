"""The Stacks Project: one document per chapter; ids ``stacks:<TAG>`` through ``tags/tags``.

A label ``lemma-foo`` in ``algebra.tex`` is ``algebra-lemma-foo`` in ``tags/tags``; a reference may also be
written with its chapter prefix already.
"""

from __future__ import annotations

import re
from functools import cached_property

from corpus_build.adapters.base import Adapter, Unit, relpath_stem
from corpus_build.sources import inside_file
from corpus_build.raw import RawStatement

URL = "https://stacks.math.columbia.edu/tag/{}"


def read_tags(text: str) -> dict[str, str]:
    """``full_label -> TAG`` from the ``tags/tags`` file (``TAG,full_label`` lines, ``#`` comments).

    >>> read_tags("# c\\n00FN,algebra-lemma-foo\\n")
    {'algebra-lemma-foo': '00FN'}
    """
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or "," not in line:
            continue
        tag, full = line.strip().split(",", 1)
        out[full] = tag
    return out


def read_chapter_numbers(text: str) -> dict[str, int]:
    r"""``chapter file stem -> chapter number`` from ``chapters.tex``, the book's list of chapters in order.

    Each chapter is an ``\item \hyperref[<stem>-section-phantom]{Title}`` of an enumerate; each part's
    enumerate continues the count with ``\setcounter{enumi}{n}``, as LaTeX numbers the items.

    >>> read_chapter_numbers(r"\begin{enumerate}\item \hyperref[sets-section-phantom]{Sets}\end{enumerate}"
    ...     r"\begin{enumerate}\setcounter{enumi}{9}\item \hyperref[algebra-section-phantom]{Algebra}\end{enumerate}")
    {'sets': 1, 'algebra': 10}
    """
    out: dict[str, int] = {}
    n = 0
    pattern = r"\\begin\s*\{enumerate\}|\\setcounter\s*\{enumi\}\s*\{(\d+)\}|\\item\s*\\hyperref\[([\w-]+?)-section-phantom\]"
    for m in re.finditer(pattern, text):
        if m.group(1):
            n = int(m.group(1))
        elif m.group(2):
            n += 1
            out.setdefault(m.group(2), n)
        else:
            n = 0
    return out


class StacksAdapter(Adapter):
    """Stacks chapters; tagged statements get ``stacks:<TAG>`` and a url, untagged ones ``stacks:<full label>``."""

    source = "stacks"
    license = "GFDL-1.2"

    @cached_property
    def tags(self) -> dict[str, str]:
        p = self.tree.root / "tags" / "tags"
        if not inside_file(self.tree.root, p):  # a link out of the source is not followed
            return {}
        return read_tags(p.read_text(encoding="utf-8", errors="replace"))

    @cached_property
    def chapters(self) -> dict[str, int]:
        p = self.tree.root / "chapters.tex"
        if not inside_file(self.tree.root, p):
            return {}
        return read_chapter_numbers(p.read_text(encoding="utf-8", errors="replace"))

    def main_files(self, texts: dict[str, str]) -> list[str]:
        return [m for m in super().main_files(texts) if m not in ("book.tex", "preamble.tex")]

    def number(self, raw: RawStatement, unit: Unit) -> str | None:
        """``<chapter>.<section>.<n>`` as the book prints it (Lemma 10.20.1 is Tag 00DV, Nakayama's lemma).

        Each chapter file is a document of its own, so the parsers number ``<section>.<n>``; the chapter's
        number is its place in ``chapters.tex``. A file that is not a chapter of the book gets no number; without
        ``chapters.tex`` (a few chapters on their own) the file's own numbers stay.
        """
        if not self.chapters:
            return raw.number
        chapter = self.chapters.get(relpath_stem(unit.main))
        return f"{chapter}.{raw.number}" if chapter and raw.number else None

    def doc_id(self, main: str) -> str:
        return f"stacks:{relpath_stem(main)}"

    def full_label(self, label: str, unit: Unit) -> str:
        return label if label in self.tags else f"{relpath_stem(unit.main)}-{label}"

    def label_id(self, label: str, unit: Unit) -> str:
        full = self.full_label(label, unit)
        return f"stacks:{self.tags.get(full, full)}"

    def url(self, raw: RawStatement, theorem_id: str, unit: Unit) -> str | None:
        tag = theorem_id.split(":", 1)[1]
        return URL.format(tag) if raw.label and self.full_label(raw.label, unit) in self.tags else None

    def meta(self, raw: RawStatement, unit: Unit) -> dict:
        m = {"chapter": relpath_stem(unit.main)}
        if raw.label:
            full = self.full_label(raw.label, unit)
            m["full_label"] = full
            if full in self.tags:
                m["tag"] = self.tags[full]
        return m
