"""Configurations backed by the PostgreSQL index: dense over LaTeX or slogans, full-text, hybrid, reranked.

They all search the same database (``Settings``: DSN, table, embedding model) and differ only in the vector space
and the fusion, so one run compares them on the same statements and queries.

>>> "hybrid" in __import__("theorem_rag.eval.configs", fromlist=["x"]).available_configs()
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from theorem_rag.errors import InputError
from theorem_rag.eval.configs import EvalContext, RetrieverSearcher, register_config
from theorem_rag.records import Theorem


class EvalIndex:
    """The index as the evaluation sees it: a :class:`~theorem_rag.search.TheoremSearch` per space and fusion.

    Also a ``RecordTarget``: :meth:`add_records` indexes extra statements into every space for one run and
    :meth:`remove_records` deletes them again; ids already in the index are refused, so removal never touches
    the main corpus.
    """

    def __init__(self, settings: Any) -> None:
        from theorem_rag.search import TheoremSearch

        self.settings = settings
        self.base = TheoremSearch.from_settings(settings, reranker=None)
        self._searches: dict[tuple, Any] = {}

    def search(self, field: str, *, hybrid: bool, reranker: Any = None, extra_fields: tuple[str, ...] = (),
               understand: bool | None = None, premise_head: bool = True) -> Any:  # fmt: skip
        """A TheoremSearch over the space of ``field`` (built once per combination), fusing ``extra_fields``.

        Query understanding and the query model's space (queries in words) follow the settings for the hybrid
        configurations (what the CLI, API and app run) and are off for the single-ranking baselines (dense only),
        so those stay what their names say.

        Built by :meth:`TheoremSearch.with_options` from the settings' search, so every other option (pool,
        ef_search, k, max_k, ...) is the one the CLI, the API and the app use.
        """
        from theorem_rag.db.table_names import space_name

        if understand is None:
            understand = hybrid and self.settings.query_understanding
        key = (field, hybrid, reranker is not None, extra_fields, understand, premise_head)
        if key not in self._searches:
            model = self.settings.embed_model
            query_space = {} if hybrid else {"query_space": None, "query_embedder": None}
            self._searches[key] = self.base.with_options(
                space=space_name(model, field), hybrid=hybrid, reranker=reranker,
                extra_spaces=tuple(space_name(model, f) for f in extra_fields), understand=understand,
                premise_head=premise_head, **query_space,
            )  # fmt: skip
        return self._searches[key]

    def add_records(self, theorems: Iterable[Theorem]) -> None:
        from theorem_rag.indexing.ingest import build_index
        from theorem_rag.slogans import OfflineSloganWriter

        theorems = list(theorems)
        clash = self.base.store.get_theorems([t.id for t in theorems])
        if clash:
            raise InputError(f"extra records reuse ids already in the index: {', '.join(sorted(clash)[:5])}")
        for space in self.base.store.spaces():
            # each space with the model that made it (the query model's space with that model); others are skipped
            embedder = self.base.query_embedder if space.name == self.base.query_space else self.base.embedder
            if not space.made_by(embedder.model_name, None):
                continue
            build_index(self.base.store, embedder, theorems, writer=OfflineSloganWriter(),
                        space=space.name, field=space.field, progress=False, build_hnsw=False)  # fmt: skip

    def remove_records(self, ids: Iterable[str]) -> None:
        self.base.store.delete_theorems(list(ids))


def _index(context: EvalContext, name: str) -> EvalIndex:
    return context.require_index(name)


@register_config("dense-latex", "MiniLM (or THEOREM_RAG_EMBED_MODEL) over the LaTeX, HNSW pool + cosine re-rank",
                 needs_index=True)  # fmt: skip
def _dense_latex(settings: Any, context: EvalContext) -> Any:
    return RetrieverSearcher("dense-latex", _index(context, "dense-latex").search("latex", hybrid=False))


@register_config("dense-slogan", "dense over the slogans written by THEOREM_RAG_SLOGAN_WRITER", needs_index=True)
def _dense_slogan(settings: Any, context: EvalContext) -> Any:
    return RetrieverSearcher("dense-slogan", _index(context, "dense-slogan").search("slogan", hybrid=False))


@register_config("hybrid-latex", "dense over LaTeX fused with PostgreSQL full-text search (ranks and scores)",
                 needs_index=True)  # fmt: skip
def _hybrid_latex(settings: Any, context: EvalContext) -> Any:
    return RetrieverSearcher("hybrid-latex", _index(context, "hybrid-latex").search("latex", hybrid=True))


@register_config("hybrid", "dense over slogans fused with PostgreSQL full-text search (ranks and scores): the default",
                 needs_index=True)  # fmt: skip
def _hybrid(settings: Any, context: EvalContext) -> Any:
    return RetrieverSearcher("hybrid", _index(context, "hybrid").search(settings.embed_field, hybrid=True))


@register_config("hybrid-plain", "the default without query understanding (the ranking before it existed)",
                 needs_index=True)  # fmt: skip
def _hybrid_plain(settings: Any, context: EvalContext) -> Any:
    return RetrieverSearcher("hybrid-plain", _index(context, "hybrid-plain").search(settings.embed_field, hybrid=True,
                                                                                   understand=False))  # fmt: skip


@register_config("hybrid-formal", "the default over the formal statements only (Lean declarations, as search "
                 "--formal): what a Lean search engine is compared on", needs_index=True)  # fmt: skip
def _hybrid_formal(settings: Any, context: EvalContext) -> Any:
    from theorem_rag.filters import Filters

    search = _index(context, "hybrid-formal").search(settings.embed_field, hybrid=True)
    return RetrieverSearcher("hybrid-formal", search, filters=Filters(formal=True))


@register_config("hybrid+latex", "the default with the dense ranking over LaTeX fused in too", needs_index=True)
def _hybrid_plus_latex(settings: Any, context: EvalContext) -> Any:
    index = _index(context, "hybrid+latex")
    return RetrieverSearcher("hybrid+latex", index.search("slogan", hybrid=True, extra_fields=("latex",)))


@register_config("hybrid+rerank", "the default plus the reranker named by THEOREM_RAG_RERANKER", needs_index=True)
def _hybrid_rerank(settings: Any, context: EvalContext) -> Any:
    from theorem_rag.retrieval.rerank import build_reranker

    reranker = build_reranker(settings.reranker, api_base=settings.llm_api_base)
    if reranker is None:
        raise InputError("hybrid+rerank needs a reranker: set THEOREM_RAG_RERANKER (cross-encoder:<model> or llm:<model>)")
    return RetrieverSearcher("hybrid+rerank", _index(context, "hybrid+rerank").search(settings.embed_field, hybrid=True,
                                                                                     reranker=reranker))  # fmt: skip


class PremiseSearcher:
    """A ``Searcher`` ranking premises: each query is a statement, answered by
    :meth:`~theorem_rag.search.TheoremSearch.premises_batch` of ``search``."""

    def __init__(self, name: str, search: Any) -> None:
        self.name, self.search = name, search

    def search_batch(self, queries: list[str], k: int) -> list[list[str]]:
        return [[h.theorem_id for h in hits] for hits in self.search.premises_batch(list(queries), k)]


@register_config("premises", "premise search: the statement embedded as a premise query over the slogans, fused with "
                 "full-text search (ranks and scores), no query understanding, the statement itself left out; "
                 "reordered and widened by the index's premise head when one is fitted", needs_index=True)  # fmt: skip
def _premises(settings: Any, context: EvalContext) -> Any:
    index = _index(context, "premises")
    return PremiseSearcher("premises", index.search(settings.embed_field, hybrid=True, understand=False))


@register_config("premises-text", "premise search by text alone: as premises, without the premise head",
                 needs_index=True)  # fmt: skip
def _premises_text(settings: Any, context: EvalContext) -> Any:
    index = _index(context, "premises-text")
    return PremiseSearcher("premises-text", index.search(settings.embed_field, hybrid=True, understand=False,
                                                         premise_head=False))  # fmt: skip


@register_config("premises-dense", "premise search, dense ranking only (the premise-embedded statement over the "
                 "slogans), no premise head", needs_index=True)  # fmt: skip
def _premises_dense(settings: Any, context: EvalContext) -> Any:
    index = _index(context, "premises-dense")
    return PremiseSearcher("premises-dense", index.search(settings.embed_field, hybrid=False, understand=False,
                                                          premise_head=False))  # fmt: skip
