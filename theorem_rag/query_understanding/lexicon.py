"""The data files of query understanding, read once: curated and corpus-mined acronyms, the FR/DE/ES glossary.

Files live in ``data/`` beside this module (tab-separated, ``#`` comments); each documents its own format.

>>> expansions("CRT")
('Chinese remainder theorem',)
>>> glossary()["de"]["zwischenwertsatz"]
'intermediate value theorem'
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from theorem_rag.query_understanding.text import fold_accents

DATA = Path(__file__).parent / "data"


def _rows(name: str) -> list[list[str]]:
    path = DATA / name
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append(line.split("\t"))
    return rows


@lru_cache(maxsize=1)
def acronyms() -> dict[str, tuple[str, ...]]:
    """Acronym (as written) -> expansions: the curated file first, then the ones mined from the corpora."""
    table: dict[str, list[str]] = {}
    for name in ("acronyms.tsv", "acronyms_mined.tsv"):
        for row in _rows(name):
            if len(row) < 2:
                continue
            for expansion in row[1].split("|"):
                expansion = expansion.strip()
                if expansion and expansion.lower() not in {e.lower() for e in table.get(row[0], [])}:
                    table.setdefault(row[0].strip(), []).append(expansion)
    return {k: tuple(v) for k, v in table.items()}


def expansions(token: str) -> tuple[str, ...]:
    """The expansions of one query token: exact spelling first; an all-lower-case token also as upper case when
    it is at least three letters long ("crt" -> CRT), never a two-letter one ("ac" is too often a plain word)."""
    table = acronyms()
    if token in table:
        return table[token]
    if token.islower() and len(token) >= 3 and token.upper() in table:
        return table[token.upper()]
    return ()


@lru_cache(maxsize=1)
def glossary() -> dict[str, dict[str, str]]:
    """Language -> folded lower-case foreign word or phrase -> English (empty: dropped)."""
    table: dict[str, dict[str, str]] = {}
    for row in _rows("glossary.tsv"):
        lang = row[0].rstrip("*")
        table.setdefault(lang, {})[fold_accents(row[1]).lower()] = row[2] if len(row) > 2 else ""
    return table


# Words that show a query is in another language: the glossary's kinds of results that differ from the English
# word ("theoreme", "Satz", "teorema"), plus a few function words that English never uses but in names.
FUNCTION_MARKERS = {"fr": {"du", "des", "les"}, "de": {"von", "der", "und"}, "es": {"del", "los", "el"}}


@lru_cache(maxsize=1)
def markers() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {lang: set(words) for lang, words in FUNCTION_MARKERS.items()}
    for row in _rows("glossary.tsv"):
        foreign = fold_accents(row[1]).lower()
        if row[0].endswith("*") and foreign != (row[2] if len(row) > 2 else "").lower():
            out.setdefault(row[0].rstrip("*"), set()).add(foreign)
    return {k: frozenset(v) for k, v in out.items()}
