"""What one search gathers before fusion, and the head of the fused ranking (pure: no store, no model).

:class:`Found` holds the rankings a :class:`~theorem_rag.retrieval.retriever.TheoremRetriever` fuses with their
weights and the evidence beside them (the full-text hits, the best cosines, the query's routing, the share of its
words no statement has); :func:`fusion_score` is the score of a hit the fusion scales and :func:`matched_share` what
a long query's full-text ranking weighs; :func:`put_first` puts the statements a look-up names before the rest of
the fused ranking, and :meth:`Found.hits` turns the fused ids into hits with the ranks the dense and full-text
rankings gave them. The retriever calls :func:`fusion_score` and :func:`matched_share` through its own module's
names, so that an experiment can replace them there.

>>> from theorem_rag.retrieval.routing import Routing
>>> put_first([("a", 0.9), ("b", 0.5), ("c", 0.2)], {"c"}, Routing(promote=["b"]))
([('c', 0.2), ('b', 0.5), ('a', 0.9)], ['c', 'b'])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from theorem_rag.db.lexical_sql import EXACT_NAME_BOOST
from theorem_rag.records import Hit
from theorem_rag.retrieval.routing import PROMOTED, Routing

# A hit among the first this many of a full-text ranking counts as found by full-text search (for confidence).
LEXICAL_TOP = 10


def fusion_score(hit: Hit) -> float:
    """A hit's score as the fusion scales it: a full-text score less the exact-name boost. A statement named as the
    query goes first anyway; left in, the boost (10 on a scale of about 1) made the best score ten times the rest
    and min-max scaling squashed every other candidate's full-text part towards 0.

    >>> fusion_score(Hit("a", EXACT_NAME_BOOST + 0.5, lexical_rank=1)), fusion_score(Hit("b", 0.9, dense_rank=1))
    (0.5, 0.9)
    """
    if hit.lexical_rank is not None and hit.score >= EXACT_NAME_BOOST:
        return hit.score - EXACT_NAME_BOOST
    return hit.score


def matched_share(ranking: list[Hit]) -> float:
    """How much of a long query the best statement of its full-text ranking holds: that statement's score, the share
    of the query's rare words (by IDF) it contains (at most 1); 1 when it is named as the query. A full-text ranking
    whose best match holds a third of the query is a weak witness, and weighs so, as a formula ranking weighs the
    share of the query's formula its best statement has. On every dev set side by side (one index, one run):
    unseen papers MRR@20 0.747 -> 0.753, research 0.798 -> 0.802, the others unchanged
    (benchmarks/experiments/2026-12-06-unseen).

    >>> matched_share([Hit("a", 0.4, lexical_rank=1), Hit("b", 0.3, lexical_rank=2)]), matched_share([])
    (0.4, 1.0)
    """
    if not ranking or ranking[0].score >= EXACT_NAME_BOOST:
        return 1.0
    return min(1.0, max(ranking[0].score, 0.0))


@dataclass
class Found:
    """What one search gathers before fusion: the rankings and their weights, the full-text hits, the best cosine
    per statement in the query's own space, the query's routing and the share of its words no statement has."""

    rankings: list[list[Hit]] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)
    # per ranking, the scores of statements outside it that it is placed among (none for most)
    among: list[list[float]] = field(default_factory=list)
    lexical: list[Hit] = field(default_factory=list)
    cosine: dict[str, float] = field(default_factory=dict)
    routing: Routing = field(default_factory=Routing)
    unknown: float = 0.0

    def note_cosines(self, ranking: list[Hit]) -> None:
        """Keep each statement's best cosine among the dense rankings (for confidence)."""
        for h in ranking:
            self.cosine[h.theorem_id] = max(self.cosine.get(h.theorem_id, -1.0), h.score)

    def add(self, ranking: list[Hit], weight: float, among: list[float] | None = None) -> None:
        """Add a ranking to fuse with ``weight``, placed ``among`` the scores of other statements on its own scale
        (they hold places in its ranks and its score scale, :func:`~theorem_rag.retrieval.fusion.fuse`)."""
        self.rankings.append(ranking)
        self.weights.append(weight)
        self.among.append(list(among or ()))

    def fusion_input(self, score: Callable[[Hit], float] = fusion_score) -> list[list[tuple[str | None, float]]]:
        """The rankings as :func:`~theorem_rag.retrieval.fusion.fuse` reads them: ``(id, score(hit))`` pairs best
        first, with ``(None, score)`` for the places other statements hold.

        >>> found = Found()
        >>> found.add([Hit("d", 0.6, dense_rank=1), Hit("e", 0.4, dense_rank=2)], 1.0, among=[0.7, 0.5])
        >>> found.fusion_input()
        [[(None, 0.7), ('d', 0.6), (None, 0.5), ('e', 0.4)]]
        """
        out: list[list[tuple[str | None, float]]] = []
        for ranking, among in zip(self.rankings, self.among):
            pairs: list[tuple[str | None, float]] = [(h.theorem_id, score(h)) for h in ranking]
            if among:
                pairs = sorted([*pairs, *((None, s) for s in among)], key=lambda pair: -pair[1])
            out.append(pairs)
        return out

    def exact(self) -> set[str]:
        """The statements named exactly as the query: its name or a recorded alias (the full-text ranking's
        exact-name boost), or the Lean name the name look-up found."""
        return {h.theorem_id for h in self.lexical if h.score >= EXACT_NAME_BOOST} | set(self.routing.named)

    def hits(self, fused: list[tuple[str, float]]) -> list[Hit]:
        """The fused (id, score) pairs as hits ranked from 1, each with its rank in the first dense ranking and in
        the first full-text ranking that has it."""
        d_rank = {h.theorem_id: h.dense_rank for h in self.rankings[0]}
        l_rank: dict[str, int | None] = {}
        for h in self.lexical:
            l_rank.setdefault(h.theorem_id, h.lexical_rank)
        return [
            Hit(tid, score, rank=i, dense_rank=d_rank.get(tid), lexical_rank=l_rank.get(tid))
            for i, (tid, score) in enumerate(fused, 1)
        ]

    def lexical_top(self) -> set[str]:
        """The statements among the first :data:`LEXICAL_TOP` of a full-text ranking."""
        return {h.theorem_id for h in self.lexical if (h.lexical_rank or 99) <= LEXICAL_TOP}

    def lexical_scores(self) -> dict[str, float]:
        """Each statement's best full-text score."""
        lexical: dict[str, float] = {}
        for h in self.lexical:
            lexical[h.theorem_id] = max(lexical.get(h.theorem_id, h.score), h.score)
        return lexical


def lowered(ranking: list[Hit], kept: set[str], by: float) -> list[Hit]:
    """A dense ``ranking`` with the scores of the hits outside ``kept`` lowered ``by``, ranked again (ties in the
    order they had), dense ranks from 1.

    >>> [(h.theorem_id, h.dense_rank) for h in lowered([Hit("a", 0.7), Hit("b", 0.66), Hit("c", 0.6)], {"b"}, 0.05)]
    [('b', 1), ('a', 2), ('c', 3)]
    """
    scored = [h if h.theorem_id in kept else replace(h, score=h.score - by) for h in ranking]
    ordered = sorted(scored, key=lambda h: -h.score)
    return [replace(h, dense_rank=i) for i, h in enumerate(ordered, 1)]


def put_first(fused: list[tuple[str, float]], exact: set[str],
              routing: Routing) -> tuple[list[tuple[str, float]], list[str]]:  # fmt: skip
    """The fused ranking with the statements a look-up names first, and those statements in order: the ones named
    exactly as the query (``exact``, in the fused order), then those the routing names, those whose name ends with
    the query, the routed ones (the paper asked for; a Lean module's in the fused order), the best
    :data:`~theorem_rag.retrieval.routing.PROMOTED` definitions of the term asked for and the declarations it names.
    One the fusion missed gets the best fused score."""
    scores = dict(fused)
    top = max(scores.values(), default=0.0)
    # Names ending with the query, a Lean module's declarations and definitions of the term asked for (the best of
    # them): by the fused ranking (candidates it missed last, in the look-up's order).
    position = {x: i for i, (x, _) in enumerate(fused)}
    name_ends, modules, promoted = (in_order(ids, position) for ids in (routing.name_ends, routing.modules,
                                                                        routing.promote))  # fmt: skip
    front = list(dict.fromkeys([*(x for x, _ in fused if x in exact), *routing.named, *name_ends, *routing.front,
                                *modules, *promoted[:PROMOTED], *routing.lean_types]))  # fmt: skip
    return [(x, scores.get(x, top)) for x in front] + [x for x in fused if x[0] not in set(front)], front


def in_order(ids: list[str], position: Mapping[str, int]) -> list[str]:
    """``ids`` in the order of a ranking (``position``: id -> place), those it lacks last in their own order.

    >>> in_order(["c", "a", "b"], {"a": 0, "b": 1})
    ['a', 'b', 'c']
    """
    return sorted(ids, key=lambda x: (position.get(x, len(position)), ids.index(x)))
