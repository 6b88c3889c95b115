"""How a :class:`~theorem_rag.retrieval.retriever.TheoremRetriever` ranks: the fusion's weights and depth, and
:class:`RankingOptions`, every ranking option as one value that ``TheoremSearch``, ``with_options`` and
``as_retriever`` pass on whole, and whether options changed to another space leave the query space behind
(:func:`drops_query_space`).

>>> RankingOptions().depth == FUSION_DEPTH, "lexical_weights" in RANKING_OPTIONS
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from theorem_rag.retrieval.statement_words import WORDS_WEIGHT

if TYPE_CHECKING:
    from llama_index.core.postprocessor.types import BaseNodePostprocessor

# Weight of the full-text ranking in the fusion (dense weight 1): keyword queries ("Zorn lemma") are where slogan
# embeddings are weakest and names/terms match exactly. Long queries are scored by the IDF of their rare words, as
# good as the base model's dense side on the dev sets (benchmarks/results/), so they weigh the same; against the
# adapted model's space (a long query in words, routed to the query space) the dense side is the better one and the
# full-text ranking weighs less: on the 80 dev Stacks slogans MRR@20 0.575 at 1.0, 0.585 at 0.5, 0.586 at 0.3, 0.557
# without it; at 0.3 no dev figure falls by more than 0.006 (benchmarks/results/lexical_weight/).
LEXICAL_WEIGHT_SHORT = 1.5
LEXICAL_WEIGHT_LONG = 1.0
LEXICAL_WEIGHT_LONG_ADAPTED = 0.3
# Weight of the formula ranking (statements sharing the query's formulas) in the fusion of a formula query, times
# the share of the query's formula its best statement has.
FORMULA_WEIGHT = 5.0
# The same for a query in Lean notation, whose words the declarations' slogans already read closely: on mathlib_dev
# with --formal, Lean-notation queries nDCG@10 0.651 without a formula ranking, 0.467 at 5, 0.665 at 1
# (benchmarks/results/lean_formula_keys/).
LEAN_FORMULA_WEIGHT = 1.0
# Weight of the dense ranking of the formal statements (Lean declarations) that a query in words gets from the base
# model's space when the query model's space holds the informal ones only (TheoremRetriever.formal_in_base). On the
# combined index (mathlib beside the LaTeX corpora), 100 queries a set: 1.0 gives mathlib_dev nDCG@10 0.220 and the
# Stacks slogans Hit@20 0.738; 0.3 gives 0.134 and 0.800 (as without mathlib); searching the whole base space
# instead of its formal part 0.164 and 0.775 (benchmarks/results/mathlib_build/). A search that wants no Lean
# declarations says so: the informal filter (formal=False) leaves this ranking out.
FORMAL_WEIGHT = 1.0
# How much closer than its cosine says a Lean declaration without a docstring must be to hold the place of a
# documented one, in that dense ranking: mathlib documents what it presents to readers (28% of its 279,000
# declarations; 95% of mathlib_dev's answers, 35% of the declarations that crowded out Stacks slogans' answers);
# the rest are mostly lemmas of an API. On the combined index, every set side by side in one run, 0.05 moved
# `--formal` mathlib_dev nDCG@10 0.462 -> 0.471, the mixed search 0.323 -> 0.331 and the Stacks slogans' Hit@20
# 0.750 -> 0.762, no set lower; 0.1 cost Lean-notation queries (benchmarks/results/documented/).
UNDOCUMENTED_PENALTY = 0.05
# Candidates each ranking brings to the fusion (at least k). The scores' part of the fusion scales each ranking over
# its own candidates: at 100 instead of 50, on every dev set side by side on one index, research queries MRR@20
# 0.818 -> 0.825 (Hit@20 0.964 -> 0.973) and proof references Recall@20 0.360 -> 0.366, the others unchanged; at 150
# the Stacks slogans lose 0.012 Hit@20 (benchmarks/experiments/2026-12-06-research-panel, section 8).
FUSION_DEPTH = 100


@dataclass(frozen=True)
class RankingOptions:
    """How a ``TheoremRetriever`` ranks, as one value: ``TheoremSearch``, ``TheoremRetriever.with_options`` and
    ``as_retriever`` pass it on whole and change only what they are given. What each option does is in
    ``TheoremRetriever``'s docstring; a retriever checks them when it is built.

    >>> RankingOptions(k=5, extra_spaces=["minilm_latex"]).extra_spaces
    ('minilm_latex',)
    """

    k: int = 10
    pool: int | None = None
    ef_search: int | None = None
    iterative_scan: str = "relaxed_order"
    hybrid: bool = True
    rrf_k: int = 60
    fusion: str = "ranks+scores"
    max_query_chars: int = 20_000
    depth: int = FUSION_DEPTH
    lexical_weights: tuple[float, ...] = (LEXICAL_WEIGHT_SHORT, LEXICAL_WEIGHT_LONG, LEXICAL_WEIGHT_LONG_ADAPTED)
    extra_spaces: tuple[str, ...] = ()
    reranker: BaseNodePostprocessor | None = None
    rerank_depth: int = 100
    understand: bool = True
    parallel_text: bool = True
    mode: str = "search"
    premise_head: bool = True
    words_weight: float = WORDS_WEIGHT

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra_spaces", tuple(self.extra_spaces))
        object.__setattr__(self, "lexical_weights", tuple(self.lexical_weights))


RANKING_OPTIONS = tuple(f.name for f in fields(RankingOptions))


def drops_query_space(space: str, overrides: Mapping[str, Any]) -> bool:
    """Whether a search over ``space`` derived with ``overrides`` drops its query space: a query space stands in for
    its search's own space only, so a search over another space has none unless the overrides name one.

    >>> drops_query_space("minilm_slogan", {"space": "minilm_latex"}), drops_query_space("minilm_slogan", {"k": 5})
    (True, False)
    """
    return overrides.get("space", space) != space and "query_space" not in overrides
