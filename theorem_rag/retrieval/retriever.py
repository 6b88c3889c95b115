"""``TheoremRetriever``: LlamaIndex retriever over a :class:`~theorem_rag.db.store.TheoremStore`.

Dense search (Hamming pool re-ranked by cosine) and full-text search, fused by reciprocal rank fusion; keyword
queries of at most three words lean on the full-text side. An optional reranker (a LlamaIndex node postprocessor)
reorders the fused candidates inside the retriever, so ``TheoremSearch.search``, ``as_retriever()`` and the agent
tools, which all go through :meth:`TheoremRetriever.search` or ``retrieve``, rank alike.

>>> retriever = TheoremRetriever(store, embed_model, space="minilm_slogan", k=5)   # doctest: +SKIP
>>> [n.node.metadata["name"] for n in retriever.retrieve("Nakayama lemma")]        # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from concurrent.futures import wait
from dataclasses import replace
from typing import Any

try:
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError('TheoremRetriever needs LlamaIndex: pip install "theorem-rag[index]"') from err

from theorem_rag.db.dense import DEFAULT_POOL
from theorem_rag.errors import InputError
from theorem_rag.filters import Filters
from theorem_rag.query import is_short_query, is_statement_query, validate_query
from theorem_rag.query_understanding import QueryPlan, understand
from theorem_rag.query_understanding.lean import is_lean_notation
from theorem_rag.records import Hit, PaperHit
from theorem_rag.retrieval.background import in_background
# fusion_score and matched_share are called through this module's names: experiments patch them here (setattr).
from theorem_rag.retrieval.candidates import LEXICAL_TOP, Found, fusion_score, lowered, matched_share, put_first
from theorem_rag.retrieval.fusion import check_fusion, fuse
from theorem_rag.retrieval.hits import hit_to_node, rerank_hits, with_confidence, without_statement
from theorem_rag.retrieval import options
from theorem_rag.retrieval.options import (
    FORMULA_WEIGHT, LEAN_FORMULA_WEIGHT, RANKING_OPTIONS, RankingOptions, drops_query_space,
)  # fmt: skip
from theorem_rag.retrieval.papers import rank_papers
from theorem_rag.retrieval.premise_head import TEXT_DEPTH, PremiseHead, rerank
from theorem_rag.retrieval.routing import Routing, did_you_mean, route
from theorem_rag.retrieval.statement_words import WORDS_DEPTH, reads_statements, reorder
from theorem_rag.retrieval.store_protocol import Store
from theorem_rag.retrieval.tie_breaks import (
    ABOUT_DEPTH, DEFINITION_DEPTH, FORMULA_DEPTH, NAME_DEPTH, definitions_first, statements_first, tie_breaks,
)  # fmt: skip

# What a retriever ranks for: statements matching the query ("search"), or the results a proof of the query is
# likely to use ("premises": the query embedded as a premise query, no query understanding, the statement itself
# left out).
MODES = ("search", "premises")
# A premise query that is one statement id ("stacks:0D09") stands for that statement's text.
_STATEMENT_ID = re.compile(r"[a-z][a-z0-9_-]*:[^\s$\\{}]+")
# What LlamaIndex's BaseRetriever itself takes; with_options passes them on.
_BASE_OPTIONS = ("callback_manager", "object_map", "objects", "verbose")

__all__ = ["LEXICAL_TOP", "MODES", "TheoremRetriever", "drops_query_space", "fusion_score", "matched_share"]


class TheoremRetriever(BaseRetriever):
    """Retrieve theorems for a query: dense + full-text, fused, as ``NodeWithScore`` best first.

    ``embed_model`` is any LlamaIndex ``BaseEmbedding``; ``space`` names the vector space the query is compared
    with (its model must be the embed model's). ``hybrid=False`` gives the dense ranking alone; ``extra_spaces``
    (same model, other fields, e.g. the LaTeX beside the slogans) add their dense rankings to the fusion.
    ``reranker`` (a ``BaseNodePostprocessor``) reorders the best ``min(3 k, rerank_depth)`` fused candidates
    (at least ``k``) before the cut to ``k``; its own ``top_n`` never caps the result. ``fusion`` says how the
    rankings are fused (:data:`~theorem_rag.retrieval.fusion.FUSIONS`): by reciprocal rank fusion with constant
    ``rrf_k`` alone ("ranks"), or beside the rankings' own scores ("ranks+scores", the default).

    ``mode="premises"`` ranks what a proof of the query (a statement in LaTeX, a goal in words, or a statement id
    such as ``stacks:0D09``, which stands for its text) is likely to use: the query is embedded as a premise query
    (the model's premise instruction, see :meth:`~theorem_rag.embed.Embedder.embed_premise_queries`), query
    understanding is off whatever ``understand`` says, and the statement itself is left out of the results. When
    the index has a fitted premise head (``theorem-rag model premise-head``) and ``premise_head`` is on, the head
    reorders and widens the text ranking with the proof graph (:mod:`~theorem_rag.retrieval.premise_head`).

    ``query_space`` with ``query_embed_model``: a second space of the same field, made by a model adapted to
    queries in words (the shipped ``math-minilm-v4``). A query in words is embedded by that model and compared with
    that space only; a statement-shaped query (:func:`~theorem_rag.query.is_statement_query`, or a statement in Lean
    notation: :func:`~theorem_rag.query_understanding.lean.is_lean_notation`), a premise query and
    any search with ``extra_spaces`` use ``space`` and ``embed_model``, so vectors of two models never meet.
    ``formal_in_base``: the query space holds the informal statements only, and the formal ones (Lean declarations,
    which the adapted model never learned from) are in ``space`` alone: a query in words then also searches ``space``
    for the formal statements, embedded by ``embed_model``, and fuses that ranking beside the query space's.
    ``words_space``: the space of ``embed_model`` over each informal statement's words alone; a query that describes a
    statement in words reads its first candidates there, weighted by ``words_weight`` beside the fused score
    (:mod:`~theorem_rag.retrieval.statement_words`; ``None`` or weight 0: nothing is read).

    The options are ``ranking`` (:class:`RankingOptions`), each of which a keyword argument (``k=5``) changes, and
    read as attributes (``retriever.k``); ``filters`` are the default filters of every search. Any other keyword
    argument goes to LlamaIndex's ``BaseRetriever``.
    """

    def __init__(
        self,
        store: Store,
        embed_model: Any,
        space: str,
        *,
        ranking: RankingOptions | None = None,
        filters: Filters | Mapping[str, Any] | None = None,
        query_space: str | None = None,
        query_embed_model: Any = None,
        formal_in_base: bool = False,
        words_space: str | None = None,
        **kwargs: Any,
    ) -> None:
        ranking = replace(ranking or RankingOptions(), **{n: kwargs.pop(n) for n in RANKING_OPTIONS if n in kwargs})
        k, pool = ranking.k, ranking.pool
        if ranking.mode not in MODES:
            raise InputError(f"unknown retriever mode {ranking.mode!r}; use {' or '.join(MODES)}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1 or (pool is not None and pool < k):
            raise InputError(f"need 1 <= k <= pool, got k={k!r}, pool={pool!r}")
        check_fusion(ranking.fusion)
        self.ranking = ranking
        self.store, self.embed_model, self.space = store, embed_model, space
        self.filters = Filters.from_mapping(filters)
        if query_space is not None and query_embed_model is None:
            raise InputError(f"query_space {query_space!r} needs the query_embed_model that made it")
        self.query_space = query_space if query_space != space else None
        self.query_embed_model = query_embed_model if self.query_space else None
        self.formal_in_base = bool(formal_in_base and self.query_space)
        self._formal: frozenset[str] | None = None
        self.words_space = words_space
        super().__init__(**kwargs)

    def pool_for(self, space: str, k: int | None = None) -> int:
        """The candidate pool of a dense search in ``space`` for ``k`` results (default: this retriever's): the one
        asked for, else the store's default by the space's index kind and size (``dense_walk``); at least ``k``."""
        k = self.k if k is None else k
        if self.pool is not None:
            return max(self.pool, k)
        if hasattr(self.store, "dense_walk"):
            return self.store.dense_walk(space, k=k)[1]
        return max(DEFAULT_POOL["bit"], k)

    def options(self) -> dict[str, Any]:
        """Every option of this retriever (its :class:`RankingOptions`, default filters and query space), as keyword
        arguments of the constructor."""
        return {**vars(self.ranking), "filters": self.filters, "query_space": self.query_space,
                "query_embed_model": self.query_embed_model, "formal_in_base": self.formal_in_base,
                "words_space": self.words_space}  # fmt: skip

    def with_options(self, **overrides: Any) -> TheoremRetriever:
        """A retriever over the same store and space with some options changed and every other one kept;
        ``ranking`` replaces the :class:`RankingOptions` whole.

        >>> retriever.with_options(k=20).extra_spaces == retriever.extra_spaces   # doctest: +SKIP
        True
        """
        unknown = sorted(set(overrides) - {"space", "ranking", *self.options(), *_BASE_OPTIONS})
        if unknown:
            raise InputError(f"unknown retriever option(s) {', '.join(unknown)}; known: {', '.join(self.options())}")
        if drops_query_space(self.space, overrides):
            overrides.update(query_space=None, query_embed_model=None, formal_in_base=False)
        kept = {"space": self.space, "ranking": self.ranking, "filters": self.filters, "query_space": self.query_space,
                "query_embed_model": self.query_embed_model, "formal_in_base": self.formal_in_base,
                "words_space": self.words_space, "callback_manager": self.callback_manager,
                "verbose": self._verbose}  # fmt: skip
        return TheoremRetriever(self.store, self.embed_model, **{**kept, **overrides})

    def plan(self, query: str) -> QueryPlan:
        """The query checked (:func:`~theorem_rag.query.validate_query`) and read once: the :class:`QueryPlan` of
        query understanding when this retriever understands queries, else the query as it stands (a premise query
        always). :meth:`search` takes it in place of the query, so a caller that needs it too reads it only once.

        >>> retriever.plan("CRT").variants   # doctest: +SKIP
        ('Chinese remainder theorem',)
        """
        text = validate_query(query, self.max_query_chars)
        return understand(text) if self.understand and not self.premises else QueryPlan(original=text, text=text)

    def search(self, query: str | QueryPlan, k: int | None = None,
               filters: Filters | Mapping[str, Any] | None = None) -> list[Hit]:  # fmt: skip
        """Hits (with theorem records) for a query string or its :meth:`plan`; ``filters`` replace the retriever's
        default filters."""
        return self._ranked(self._planned(query), None, k or self.k, self._filters(filters))

    def _planned(self, query: str | QueryPlan) -> QueryPlan:
        return query if isinstance(query, QueryPlan) else self.plan(query)

    @property
    def premises(self) -> bool:
        """Whether this retriever ranks premises (``mode="premises"``)."""
        return self.mode == "premises"

    def _premise_query(self, text: str) -> tuple[str, frozenset[str]]:
        """The text a premise query stands for and the ids to leave out: a statement id is its statement's text."""
        if not _STATEMENT_ID.fullmatch(text):
            return text, frozenset()
        found = self.store.get_theorems([text]).get(text)
        if found is None:
            if text.split(":", 1)[0] in self.store.stats().get("sources", {}):
                raise InputError(f"no statement with id {text!r} in the index")
            return text, frozenset()
        return validate_query(found.text, self.max_query_chars), frozenset({found.id})  # an old id: the statement's

    def _filters(self, filters: Filters | Mapping[str, Any] | None) -> Filters:
        """Filters given for one call replace the retriever's default ones."""
        return Filters.from_mapping(filters) if filters is not None else self.filters

    def _ranked(self, plan: QueryPlan, embedding: list[float] | None, k: int, filters: Filters) -> list[Hit]:
        """The final ranking: the fused candidates, reranked when a reranker is set, cut to ``k`` (in premises
        mode, after leaving the statement itself out)."""
        text = plan.original
        exclude: frozenset[str] = frozenset()
        head: PremiseHead | None = None
        if self.premises:
            text, exclude = self._premise_query(text)
            plan = QueryPlan(original=text, text=text)
            embedding = None  # a caller's vector is a search query's, not a premise query's
            head = self._fitted_head()
        depth = k + len(exclude) + 1 if self.premises else k
        if head is not None:
            depth = max(depth, TEXT_DEPTH + len(exclude) + 1)
        if self.reranker is None:
            hits = self._search(plan, embedding, depth, filters)
        else:
            hits = self._search(plan, embedding, max(depth, min(3 * k, self.rerank_depth)), filters)
            hits = rerank_hits(self.reranker, text, hits)
        if self.premises:
            kept = without_statement(hits, text, exclude)
            if head is not None:
                # Statements the proof graph adds are not checked against filters: with filters, only reorder.
                return rerank(self.store, head, hits, kept, k, widen=filters.is_empty)
            hits = kept
        return hits[:k]

    def premise_text_ranking(self, text: str, exclude: frozenset[str] = frozenset(),
                             depth: int = TEXT_DEPTH) -> tuple[list[Hit], list[Hit]]:  # fmt: skip
        """What the premise head starts from: the text ranking of a premise query (the retriever's filters, no head)
        before and after the statement (``exclude``, or the query's own text) is left out."""
        hits = self._search(QueryPlan(original=text, text=text), None, depth + len(exclude) + 1, self.filters)
        return hits, without_statement(hits, text, exclude)

    def _fitted_head(self) -> PremiseHead | None:
        """The index's fitted premise head when this retriever uses one (read per query: a refit shows at once)."""
        if not self.premise_head:
            return None
        stored = getattr(self.store, "premise_head", lambda: None)()
        return PremiseHead.from_dict(stored) if stored else None

    def dense_space(self, text: str) -> tuple[str, Any]:
        """The space a search for ``text`` compares the query with, and the embed model that made it: the query
        space for a query in words when this retriever has one, else its own space (for a statement, in LaTeX or
        in Lean)."""
        statement = is_statement_query(text) or is_lean_notation(text)
        if self.query_space and not self.premises and not self.extra_spaces and not statement:
            return self.query_space, self.query_embed_model
        return self.space, self.embed_model

    def _formal_sources(self) -> frozenset[str]:
        """The index's formal sources, read once per retriever (``formal_in_base`` is fixed when it is made)."""
        if self._formal is None:
            self._formal = self.store.formal_sources()
        return self._formal

    def _admits_formal(self, filters: Filters) -> bool:
        """Whether the index holds formal statements (Lean declarations) and ``filters`` admit some."""
        formal = self._formal_sources()
        return bool(formal) and filters.admits(formal)[1]

    def _embed(self, text: str, model: Any = None) -> list[float]:
        """The query's vector by ``model`` (the retriever's embed model by default); in premises mode a premise
        query's (a plain query's for an embed model without)."""
        model = self.embed_model if model is None else model
        if self.premises:
            embed = getattr(model, "get_premise_embedding", None)
            if embed is not None:
                return embed(text)
        return model.get_query_embedding(text)

    def _search(self, plan: QueryPlan, embedding: list[float] | None, k: int, filters: Filters) -> list[Hit]:
        understanding = self.understand and not self.premises
        text = plan.original
        space, model = self.dense_space(text)
        if plan.text != text or space != self.space:
            embedding = None  # the text searched is not the one the caller embedded, or not with this space's model
        fusing = self.hybrid or bool(self.extra_spaces) or bool(plan.variants)
        depth = max(k, self.depth) if fusing else k
        reading = fusing and understanding and self._reads_statements(text)
        # The base model's vector of a query compared in another space (in words: the query model's), for reading the
        # statements' words: made beside the search instead of after it.
        words_vec = in_background(self._embed, text, self.embed_model) if reading and space != self.space else None
        found = self._gather(plan, embedding, space, model, depth, k, filters, understanding)
        if not fusing:
            hits = self.store.hydrate(found.rankings[0][:k])
            return with_confidence(hits, found.cosine, set(), set(), found.unknown)
        fused = fuse(found.fusion_input(fusion_score), k=self.rrf_k, weights=found.weights, method=self.fusion)
        # A statement named exactly as the query (its name, a recorded alias, or the Lean name the name look-up
        # found) is a look-up: it goes first; so do the statements query understanding routes to (the declarations
        # whose Lean name ends with the query, the paper asked for, the definition asked for).
        exact = found.exact()
        fused, front = put_first(fused, exact, found.routing)
        front_set = set(front)
        # The name tie-break looks at the first NAME_DEPTH places whatever k is, so the first hits do not depend on k.
        # So do the statements' words a query in words reads (the first WORDS_DEPTH, whatever k is) and the about
        # tie-break (the first ABOUT_DEPTH).
        # A query for a notion reorders the Lean declarations among the first DEFINITION_DEPTH whatever k is.
        defining = understanding and plan.notion and self._admits_formal(filters)
        kept = max(k, WORDS_DEPTH if reading else 0, DEFINITION_DEPTH if defining else 0)
        first = max(kept, NAME_DEPTH, ABOUT_DEPTH, FORMULA_DEPTH if plan.formula else 0)
        fused = fused[: first if understanding else k]
        hits = self.store.hydrate(found.hits(fused))
        if understanding:
            hits = tie_breaks(self.store, plan, found.routing, hits, max(kept, ABOUT_DEPTH), front_set, exact)
        if reading:
            # the base model's vector: made beside the search, else the caller's (a server embeds in batches) or the
            # one the base space was searched with (cached)
            vec = words_vec.result() if words_vec is not None else (
                embedding if embedding is not None else self._embed(text, self.embed_model))  # fmt: skip
            hits = self._read_statements(vec, hits, front_set)
        if understanding:
            hits = definitions_first(plan, statements_first(plan, hits, front_set), front_set)[:kept]
        return with_confidence(hits, found.cosine, found.lexical_top(), front_set, found.unknown,
                               found.lexical_scores())

    def _reads_statements(self, text: str) -> bool:
        """Whether a search for ``text`` reads its first candidates' words: a query that describes a statement in
        words, with the index's words space and a weight for it (:mod:`~theorem_rag.retrieval.statement_words`)."""
        return bool(self.words_space and self.words_weight and reads_statements(text))

    def _read_statements(self, vec: Any, hits: list[Hit], front: set[str]) -> list[Hit]:
        """``hits`` with the first :data:`WORDS_DEPTH` reordered by the cosine of ``vec`` (the query's vector by the
        base model) with each statement's own words in the words space."""
        if len(hits) < 2:
            return hits
        ids = [h.theorem_id for h in hits[:WORDS_DEPTH]]
        read = self.store.exact_search(self.words_space, vec, k=len(ids), ids=ids)
        return reorder(hits, {h.theorem_id: h.score for h in read}, front, self.words_weight)

    def _base_cosines(self, informal: list[Hit], base_vec: Any) -> list[float]:
        """The cosines of the informal candidates ``informal`` (another space's) with the base model's vector of the
        query in the base space, where the formal statements are too: what the formal ranking is placed among.
        A declaration counts as the 5th of the mixed ranking when four informal candidates are closer to the query,
        not as the first of its own (benchmarks/results/formal_placed)."""
        if not informal:
            return []
        read = self.store.exact_search(self.space, base_vec, k=len(informal), ids=[h.theorem_id for h in informal])
        return [h.score for h in read]

    def _lexical_weight(self, query: str, space: str, ranking: list[Hit]) -> float:
        """Weight of the full-text ranking of ``query`` in the fusion: (short, long, long against the query space)
        from ``lexical_weights``, a pair giving long queries the same weight in either space; a long query's ranking
        times the share of the query its best statement holds (:func:`matched_share`)."""
        short, long, *adapted = self.lexical_weights
        if is_short_query(query):
            return short
        return (adapted[0] if adapted and space != self.space else long) * matched_share(ranking)

    def _dense(self, space: str, vec: Any, depth: int, filters: Filters) -> list[Hit]:
        """The dense ranking of ``vec`` in ``space``: ``depth`` candidates with this retriever's walk and pool."""
        return self.store.search_dense(space, vec, k=depth, pool=None if self.pool is None else max(self.pool, depth),
                                       filters=filters, ef_search=self.ef_search, iterative_scan=self.iterative_scan)

    def _gather(self, plan: QueryPlan, embedding: list[float] | None, space: str, model: Any, depth: int, k: int,
                filters: Filters, understanding: bool) -> Found:  # fmt: skip
        """The rankings to fuse for ``plan``: per text searched, the dense ranking of each space and (hybrid) the
        full-text one; a formula query's formula ranking; with the query's routing and unknown-word share."""
        found = Found()
        texts = list(plan.texts)
        # With parallel_text the full-text query of each text, a formula query's formula ranking, the routing's
        # look-ups and the count of unknown words run on connections of their own while the texts are embedded and
        # the dense side searched (none needs an embedding), unless the caller pinned one connection for the whole
        # search (servers do, to take one checkout). Looked up one after the other, the routing alone (a definition
        # look-up: 6 ms) came before everything else, and the formula ranking (50 ms at 314,000 statements) and a
        # second text's full-text query (a formula read into words: 18-50 ms) after.
        background = self.parallel_text and not getattr(self.store, "is_pinned", lambda: False)()
        pending = {i: in_background(self.store.search_text, text, k=depth, filters=filters)
                   for i, text in enumerate(texts)} if self.hybrid and background else {}  # fmt: skip
        formula_job = in_background(self.store.search_formula, plan.formula_keys, k=depth, filters=filters) if (
            self.hybrid and plan.formula_keys and background) else None  # fmt: skip
        routing_job = in_background(route, self.store, plan, filters, k) if understanding and background else None
        unknown_job = in_background(self.store.unknown_share, list(texts)) if background else None
        found.routing = Routing() if not understanding or routing_job else route(self.store, plan, filters, k)
        # With the formal statements in the base space alone, each space is searched only where the filters admit
        # some of its statements (an HNSW walk for none goes on through 20,000 tuples to find nothing: 150 ms).
        informal, formal = True, False
        if space == self.query_space and self.formal_in_base:
            informal, formal = filters.admits(self._formal_sources())
        spaces = (space, *self.extra_spaces) if informal else ()
        # the space whose dense ranking the full-text one is weighed against: the base one when it is the only one
        weighed = space if informal else self.space
        i = 0
        try:
            while i < len(texts):
                query = texts[i]
                if spaces:
                    vec = embedding if i == 0 and embedding is not None else self._embed(query, model)
                informal_ranking: list[Hit] = []
                for searched in spaces:
                    ranking = self._dense(searched, vec, depth, filters)
                    if searched == space:
                        found.note_cosines(ranking)
                        informal_ranking = ranking
                    found.add(ranking, 1.0)
                if formal:
                    # The formal statements are in the base space alone: searched there with the base model, and
                    # placed among the informal candidates by their cosines in that space, which both worlds share.
                    base_vec = self._embed(query, self.embed_model)
                    ranking = self._dense(self.space, base_vec, depth, replace(filters, formal=True))
                    found.note_cosines(ranking)
                    # the declarations mathlib does not document hold the places of documented ones only when closer
                    documented = self.store.documented([h.theorem_id for h in ranking])
                    ranking = lowered(ranking, documented, options.UNDOCUMENTED_PENALTY)
                    found.add(ranking, options.FORMAL_WEIGHT, among=self._base_cosines(informal_ranking, base_vec))
                if routing_job is not None:
                    found.routing, routing_job = routing_job.result(), None
                if self.hybrid:
                    if i in pending:
                        lexical = pending.pop(i).result()
                    else:  # searched on this connection, or a close name added below
                        lexical = self.store.search_text(query, k=depth, filters=filters)
                    found.add(lexical, self._lexical_weight(query, weighed, lexical))
                    found.lexical += lexical
                    if i == 0 and understanding and found.routing.did_you_mean is None:
                        found.routing.did_you_mean = did_you_mean(self.store, plan, lexical_empty=not lexical)
                        if found.routing.did_you_mean:
                            texts.append(found.routing.did_you_mean)
                i += 1
        finally:
            # never leave a query running behind a failed call
            wait([job for job in (*pending.values(), formula_job, routing_job, unknown_job) if job is not None])
        if routing_job is not None:  # no text to search
            found.routing = routing_job.result()
        if self.hybrid and plan.formula_keys:
            # A formula query: the statements with the same formulas, beside the formula read as words.
            formula = formula_job.result() if formula_job is not None else self.store.search_formula(
                plan.formula_keys, k=depth, filters=filters)  # fmt: skip
            if formula:
                found.add(formula, (LEAN_FORMULA_WEIGHT if plan.lean else FORMULA_WEIGHT) * formula[0].score)
        # Words of the query that no statement contains (the best of the texts searched): they cannot be matched.
        # Counted beside the search for the query's own texts; again when a close name was searched too.
        found.unknown = unknown_job.result() if unknown_job is not None and len(texts) == len(plan.texts) else (
            self.store.unknown_share(texts))  # fmt: skip
        return found

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        self.store.refresh()  # a long-lived query engine sees what another process changed (as TheoremSearch does)
        plan = self.plan(query_bundle.query_str)
        return [hit_to_node(h) for h in self._ranked(plan, query_bundle.embedding, self.k, self.filters)]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        # psycopg's pool is synchronous; a worker thread keeps the event loop free.
        return await asyncio.to_thread(self._retrieve, query_bundle)

    def search_papers(
        self, query: str | QueryPlan, k: int = 10, per_paper: int = 3, statements: int = 100, filters: Any = None
    ) -> list[PaperHit]:
        """Paper-level search: statements grouped by document, a paper scored by its best few statements.

        ``score = s1 + s2/2 + s3/4 + ...`` over its top ``per_paper`` statement scores: one strong match dominates,
        several good ones break ties between papers. Statements are ranked without the reranker.
        """
        hits = self._search(self._planned(query), None, statements, self._filters(filters))
        return rank_papers(self.store, hits, k, per_paper)


def _option(name: str) -> property:
    return property(lambda self: getattr(self.ranking, name), doc=f"``ranking.{name}`` (read-only; see with_options)")


# The ranking code reads its options as attributes (``self.k``, ``self.fusion``): read-only views of ``ranking``, so
# that ``retriever.depth = 50`` fails instead of leaving ``ranking`` (what with_options passes on) behind.
for _name in RANKING_OPTIONS:
    setattr(TheoremRetriever, _name, _option(_name))
