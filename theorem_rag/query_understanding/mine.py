"""Acronyms mined from the corpora themselves, pure: read the records, write ``data/acronyms_mined.tsv``.

Three places say what an acronym stands for:

- an acronym in parentheses right after the words it abbreviates: "Chinese remainder theorem (CRT)";
- a label whose last part is the initials of the statement's name: ``thm:mvt`` on "Mean value theorem";
- a recorded alternative name (PlanetMath's ``\\pmsynonym``) written in capitals: CRT for the entry's title.

>>> from theorem_rag.records import Theorem
>>> t = Theorem(id="x:1", source="x", kind="theorem", doc_id="x", name="Mean value theorem", label="thm:mvt",
...             body_latex="By the Chinese remainder theorem (CRT) we have ...")
>>> sorted(mine_acronyms([t]).items())
[('CRT', {'Chinese remainder theorem'}), ('MVT', {'Mean value theorem'})]

Run ``python -m theorem_rag.query_understanding.mine RECORDS_DIR`` after a corpus changes.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from theorem_rag.records import Theorem

_PAREN = re.compile(r"((?:[A-Za-z][\w'-]*\s+){1,8})\(([A-Z][A-Za-z]{1,5})\)")
_SMALL = {"of", "the", "and", "for", "on", "in", "a", "an", "with", "to"}
_CAPS = re.compile(r"^[A-Z][A-Z0-9]{1,5}$")


def _initials(words: list[str]) -> str:
    return "".join(part[0] for w in words for part in w.split("-") if part)


def expansion_before(words: list[str], acronym: str) -> str | None:
    """The shortest run of words ending the list whose initials spell the acronym (small words may be skipped).

    >>> expansion_before("we use the axiom of choice".split(), "AC")
    'axiom of choice'
    >>> expansion_before("is a nice result".split(), "CRT") is None
    True
    """
    letters = acronym.lower()
    for n in range(2, min(len(words), len(letters) + 4) + 1):
        run = words[-n:]
        if run[0].lower() in _SMALL or run[0][0].lower() != letters[0]:
            continue
        full = _initials(run).lower()
        core = _initials([w for w in run if w.lower() not in _SMALL]).lower()
        if letters in (full, core):
            return " ".join(run)
    return None


def mine_acronyms(theorems: Iterable[Theorem]) -> dict[str, set[str]]:
    """Acronym -> expansions found in the records (see the module docstring)."""
    found: dict[str, set[str]] = {}
    for t in theorems:
        for text in (t.name or "", t.body_latex):
            for m in _PAREN.finditer(text):
                expansion = expansion_before(m.group(1).split(), m.group(2))
                if expansion:
                    found.setdefault(m.group(2), set()).add(expansion)
        if t.name and t.label:
            tail = re.split(r"[:\-_.]", t.label)[-1]
            words = [w for w in re.findall(r"[A-Za-z][\w'-]*", t.name)]
            if 2 <= len(tail) <= 5 and tail.isalpha() and words and expansion_before(words, tail.upper()) == " ".join(words):
                found.setdefault(tail.upper(), set()).add(t.name)
        for synonym in t.meta.get("synonyms", []) if isinstance(t.meta, dict) else []:
            if isinstance(synonym, str) and _CAPS.match(synonym) and t.name:
                words = t.name.split()
                if expansion_before(words, synonym) == t.name:
                    found.setdefault(synonym, set()).add(t.name)
    # An expansion with math or macros in it ("$ACA_0$") is notation, not words to search.
    return {a: {e for e in es if not re.search(r"[$\\{}]", e)} for a, es in found.items()
            if a.isalpha() and any(not re.search(r"[$\\{}]", e) for e in es)}


def write_mined(found: dict[str, set[str]], path: Path, min_count: int = 1) -> int:
    """Write the TSV (acronym, expansions joined by ``|``, "mined"); returns the number of acronyms written."""
    lines = ["# Acronyms mined from the corpora by theorem_rag.query_understanding.mine (do not edit by hand).",
             "# Format as acronyms.tsv: ACRONYM <TAB> expansion [| another] <TAB> where it was found."]  # fmt: skip
    n = 0
    for acronym in sorted(found):
        counts = Counter(e.lower() for e in found[acronym])
        expansions = sorted({e for e in found[acronym]}, key=lambda e: (-counts[e.lower()], e))
        unique = list(dict.fromkeys(e for e in expansions if counts[e.lower()] >= min_count))[:3]
        if unique:
            lines.append(f"{acronym}\t{' | '.join(unique)}\tmined")
            n += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return n


def main(argv: list[str] | None = None) -> None:
    from theorem_rag.record_files import read_records

    args = argv if argv is not None else sys.argv[1:]
    if not args:
        raise SystemExit("usage: python -m theorem_rag.query_understanding.mine RECORDS_DIR [OUT.tsv]")
    out = Path(args[1]) if len(args) > 1 else Path(__file__).parent / "data" / "acronyms_mined.tsv"
    found = mine_acronyms(read_records(Path(args[0])).theorems)
    print(f"{write_mined(found, out)} acronyms written to {out}")


if __name__ == "__main__":
    main()
