"""Named retrieval configurations: ``name -> factory(settings, context) -> Searcher``.

The harness compares configurations side by side on the same corpus and queries. ``bm25-latex`` and
``bm25-text`` run from the records alone. Index-backed configurations (``dense-latex``, ``dense-slogan``,
``hybrid``, ``hybrid+rerank``) are registered where the index lives, with :func:`register_config`, and take the
index from ``context.index``; wrap a retriever in :class:`RetrieverSearcher`:

    @register_config("dense-slogan", "dense search over slogans", needs_index=True)
    def dense_slogan(settings, context):
        return RetrieverSearcher("dense-slogan", context.require_index("dense-slogan").retriever(hybrid=False))

>>> "bm25-latex" in available_configs()
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from theorem_rag.errors import InputError
from theorem_rag.records import Document, Hit, Theorem

Factory = Callable[[Any, "EvalContext"], Any]


class UnknownConfigError(InputError):
    """A configuration name nobody registered; the message lists the ones available."""


@dataclass
class EvalContext:
    """What factories build from: the corpus records and, for index-backed configurations, the index object."""

    theorems: list[Theorem]
    documents: dict[str, Document] = field(default_factory=dict)
    index: Any = None

    @property
    def doc_of(self) -> dict[str, str]:
        return {t.id: t.doc_id for t in self.theorems}

    def require_index(self, config: str) -> Any:
        if self.index is None:
            raise RuntimeError(
                f"configuration {config!r} needs the PostgreSQL index, but the evaluation was started without one"
            )
        return self.index


@dataclass(frozen=True)
class ConfigSpec:
    name: str
    factory: Factory
    description: str
    needs_index: bool = False


_REGISTRY: dict[str, ConfigSpec] = {}


def register_config(name: str, description: str, needs_index: bool = False) -> Callable[[Factory], Factory]:
    """Decorator registering ``factory(settings, context) -> Searcher`` under ``name`` (re-registering replaces)."""

    def decorate(factory: Factory) -> Factory:
        _REGISTRY[name] = ConfigSpec(name, factory, description, needs_index)
        return factory

    return decorate


def available_configs() -> list[str]:
    return sorted(_REGISTRY)


def config_spec(name: str) -> ConfigSpec:
    """The registered spec, or :class:`UnknownConfigError` naming every available configuration."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownConfigError(
            f"unknown configuration {name!r}; available: {', '.join(available_configs())}"
        ) from None


def build_searcher(name: str, settings: Any, context: EvalContext) -> Any:
    """Build the searcher a configuration names.

    >>> from theorem_rag.records import Theorem
    >>> ctx = EvalContext([Theorem(id="a", source="s", kind="lemma", body_latex="Zorn's lemma", doc_id="d")])
    >>> build_searcher("bm25-latex", None, ctx).search_batch(["zorn"], 3)
    [['a']]
    """
    return config_spec(name).factory(settings, context)


@register_config("bm25-latex", "BM25 (bm25s) over each statement's name and LaTeX as written")
def _bm25_latex(settings: Any, context: EvalContext) -> Any:
    from theorem_rag.eval.bm25 import BM25Searcher

    return BM25Searcher(context.theorems, field="latex", name="bm25-latex")


@register_config("bm25-text", "BM25 (bm25s) over each statement's name and macro-expanded LaTeX")
def _bm25_text(settings: Any, context: EvalContext) -> Any:
    from theorem_rag.eval.bm25 import BM25Searcher

    return BM25Searcher(context.theorems, field="text", name="bm25-text")


class RetrieverSearcher:
    """Adapts a retriever returning :class:`Hit` lists (or ids) to ``Searcher``.

    The retriever needs ``search_batch(queries, k, **kw)`` or else ``search(query, k, **kw)``, called per query.

    >>> class R:
    ...     def search_batch(self, queries, k): return [[Hit("t1", 0.9), Hit("t2", 0.5)][:k] for _ in queries]
    >>> RetrieverSearcher("dense", R()).search_batch(["q"], 1)
    [['t1']]
    """

    def __init__(self, name: str, retriever: Any, **search_kwargs: Any) -> None:
        self.name = name
        self.retriever = retriever
        self.search_kwargs = search_kwargs

    def search_batch(self, queries: list[str], k: int) -> list[list[str]]:
        if hasattr(self.retriever, "search_batch"):
            batches = self.retriever.search_batch(list(queries), k, **self.search_kwargs)
        else:
            batches = [self.retriever.search(q, k, **self.search_kwargs) for q in queries]
        return [[h.theorem_id if isinstance(h, Hit) else str(h) for h in hits] for hits in batches]


@runtime_checkable
class RecordTarget(Protocol):
    """Something extra statements can be added to for one run and removed from afterwards (a searcher, an index)."""

    def add_records(self, theorems: Iterable[Theorem]) -> None: ...

    def remove_records(self, ids: Iterable[str]) -> None: ...


@contextmanager
def extra_records(targets: Iterable[Any], theorems: Sequence[Theorem]) -> Iterator[list[Any]]:
    """Add ``theorems`` to every target that supports it, and remove them on exit, even after an error.

    Targets must refuse ids they already hold, so that removing afterwards cannot touch the main corpus.
    Yields the targets that took the records.
    """
    added: list[Any] = []
    ids = [t.id for t in theorems]
    try:
        for target in targets:
            if theorems and isinstance(target, RecordTarget):
                target.add_records(theorems)
                added.append(target)
        yield added
    finally:
        for target in reversed(added):
            target.remove_records(ids)


def load_context(records_dir: str | Path) -> EvalContext:
    """The corpus of a records folder (``theorems.jsonl`` or ``.parquet``, optional documents), read strictly by
    :func:`theorem_rag.record_files.read_records`: a bad row is an error naming its file and line."""
    from theorem_rag.record_files import read_records

    records = read_records(records_dir)
    return EvalContext(theorems=records.theorems, documents={d.id: d for d in records.documents})


def merge_doc_of(base: Mapping[str, str], extra: Iterable[Theorem]) -> dict[str, str]:
    """``base`` plus the documents of ``extra`` statements."""
    out = dict(base)
    out.update((t.id, t.doc_id) for t in extra)
    return out
