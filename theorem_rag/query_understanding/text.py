"""Small text rules applied to every query, pure: accents folded, repeated words collapsed.

>>> fold_accents("théorème de Gödel, Čech")
'theoreme de Godel, Cech'
>>> collapse_repeats("lemma lemma Nakayama nakayama")
'lemma Nakayama'
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"\S+")
# Letters that NFKD does not split into a base letter and a mark.
_SPECIAL = str.maketrans({"ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l",
                          "Ł": "L", "đ": "d", "ı": "i", "’": "'", "‘": "'"})  # fmt: skip


def fold_accents(text: str) -> str:
    """Strip diacritics (é -> e, ü -> u, ß -> ss) so accented and plain spellings meet; other characters stay."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_SPECIAL))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def collapse_repeats(text: str) -> str:
    """Drop a word that repeats the word just before it (case-insensitive): "heine heine borel" -> "heine borel".

    Only neighbours: a word used twice in a real sentence ("a group of order p in a group") stays.
    """
    out: list[str] = []
    for word in _WORD.findall(text):
        if out and _key(out[-1]) == _key(word) and _key(word):
            continue
        out.append(word)
    return " ".join(out)


def _key(word: str) -> str:
    return re.sub(r"[^\w]", "", word.lower())


def normalize_spaces(text: str) -> str:
    return " ".join(text.split())
