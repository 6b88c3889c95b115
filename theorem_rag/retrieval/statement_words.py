"""A reader of the statement: the first candidates of a query in words reordered by how close the query is to each
statement's own words.

The dense spaces embed slogans that open with a statement's name, the words of its label and its section; a query
written from a paper's statement the engine has never seen is often beaten at place 2-3 by a statement with a
better name (the same theorem in PlanetMath) or a neighbour of the same section. The *words space* holds one vector
per statement of its body alone, read into words (``embed_field="statement"``, the base model): a query of at least
:data:`MIN_PROSE_WORDS` words is compared with the first :data:`WORDS_DEPTH` candidates there, and those candidates
are ordered by their fused score plus ``weight`` times that cosine, each scaled to [0, 1] among them. The statements
a look-up puts first keep their places. Short queries (names, keywords) are left alone: there the name is the
point. A candidate without a vector in the space (a Lean declaration: the space holds the informal statements)
counts at the middle of the others.

The words are read to the model's own limit (256 tokens for MiniLM; :data:`theorem_rag.embed.FIELD_MAX_TOKENS`).
What it moved on the dev sets, side by side on one index, and what was tried on the way:
``benchmarks/experiments/2026-12-07-statement-words/README.md``.

>>> from theorem_rag.records import Hit
>>> hits = [Hit("named", 9.0), Hit("a", 1.0), Hit("b", 0.9), Hit("c", 0.1)]
>>> [h.theorem_id for h in reorder(hits, {"a": 0.2, "b": 0.9, "c": 0.5}, front={"named"}, weight=0.3)]
['named', 'b', 'a', 'c']
>>> [h.rank for h in reorder(hits, {"a": 0.2, "b": 0.9, "c": 0.5}, front={"named"}, weight=0.3)]
[1, 2, 3, 4]
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import replace

from theorem_rag.query_understanding.math_text import MATH_SPANS
from theorem_rag.records import Hit

WORDS_FIELD = "statement"
# The candidates compared with the query's words, and the weight of that cosine beside the fused score (both scaled
# to [0, 1] among them). Offline on the dev sets: 10, 20 and 30 candidates gained alike on the unseen papers, 30 most
# on the research queries; weight 0.2 gained 0.013 on the unseen papers, 0.3 0.014, 0.5 lost on the probes.
WORDS_DEPTH = 30
WORDS_WEIGHT = 0.3
# Queries with fewer words are names, keywords or formulas: counted as query tokens (a formula's letters and TeX
# commands too), the formula probes lost 5 firsts of 168; counting words outside formulas, none.
MIN_PROSE_WORDS = 6
_WORD = re.compile(r"^[^\W\d_]{2,}(?:['’-][^\W\d_]+)*[.,;:?!]?$")


def words_outside_math(query: str) -> int:
    """The words of ``query`` outside its TeX math (``math_text.MATH_SPANS``): the tokens between spaces made of two
    or more letters, a hyphenated or accented word one word (``phi(n)``, ``1/n^2``, ``\\sum`` are not words).

    ``math_text.prose_words``, which decides whether a query is a formula to read into words, counts runs of ASCII
    letters instead (``Cantor-Schroeder-Bernstein`` three words, ``théorème`` two); each gate was tuned with its own
    count, and they disagree on 61 of the 4,560 dev queries at six words.

    >>> words_outside_math(r"$x^n + y^n = z^n$ has no solutions for $n > 2$"), words_outside_math("sum 1/n^2 = pi^2/6")
    (4, 1)
    """
    return sum(1 for token in MATH_SPANS.sub(" ", query).split() if _WORD.match(token))


def reads_statements(query: str) -> bool:
    """Whether ``query`` describes a statement in words (:data:`MIN_PROSE_WORDS` of them or more) rather than naming
    it or writing its formula.

    >>> reads_statements("Zorn lemma"), reads_statements("every finite group of prime order is cyclic")
    (False, True)
    >>> reads_statements(r"$\\sum_{n=1}^\\infty \\frac{1}{n^2} = \\frac{\\pi^2}{6}$")
    False
    """
    return words_outside_math(query) >= MIN_PROSE_WORDS


def _scaled(values: list[float]) -> list[float]:
    lo, hi = min(values), max(values)
    return [(v - lo) / ((hi - lo) or 1.0) for v in values]


def reorder(hits: list[Hit], cosines: Mapping[str, float], front: Collection[str], weight: float = WORDS_WEIGHT,
            depth: int = WORDS_DEPTH) -> list[Hit]:  # fmt: skip
    """``hits`` with the first ``depth`` after the leading ``front`` ones ordered by scaled score plus ``weight`` times
    scaled cosine (``cosines``: of the query with each statement's words); ``front`` statements among them first.
    Ranks are numbered from 1 again; scores are left as the fusion gave them."""
    start = 0
    while start < len(hits) and hits[start].theorem_id in front:
        start += 1
    head = hits[start:depth]
    known = [cosines[h.theorem_id] for h in head if h.theorem_id in cosines]
    if len(head) < 2 or not known:
        return hits
    middle = (min(known) + max(known)) / 2
    prior = _scaled([h.score for h in head])
    read = _scaled([cosines.get(h.theorem_id, middle) for h in head])
    order = sorted(range(len(head)), key=lambda j: (head[j].theorem_id not in front, -(prior[j] + weight * read[j])))
    ranked = hits[:start] + [head[j] for j in order] + hits[depth:]
    return [replace(h, rank=i) for i, h in enumerate(ranked, 1)]
