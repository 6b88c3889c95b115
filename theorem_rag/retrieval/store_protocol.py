"""``Store``: what retrieval and search read from the store, as a ``typing.Protocol`` (no driver imported).

:class:`~theorem_rag.db.store.TheoremStore` is the one implementation; the retriever, routing, tie-breaks, the
premise head and :class:`~theorem_rag.search.TheoremSearch` are typed with this protocol, so a reader (or a type
checker) follows a search from the retriever into the store's methods, and a test double needs only these.
Three optional methods are read through ``getattr`` by the retriever and are not part of it: ``dense_walk``,
``premise_head`` and ``is_pinned``.

>>> from theorem_rag.db.store import TheoremStore                               # doctest: +SKIP
>>> store: Store = TheoremStore("dbname=theorem_rag")                           # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from theorem_rag.filters import Filters
from theorem_rag.records import Document, Hit, Theorem

if TYPE_CHECKING:
    from theorem_rag.db.proof_graph import OutlineRow
    from theorem_rag.db.vectors import VectorSpace


class Store(Protocol):
    """The store's methods a search reads: the three rankings, records by id, look-ups for query understanding,
    the proof graph, and what :class:`~theorem_rag.search.TheoremSearch` adds (spaces, neighbours, feedback)."""

    # The rankings.
    def search_dense(self, space: str, qvec: Any, k: int = 10, pool: int | None = None,
                     filters: Filters | dict | None = None, ef_search: int | None = None,
                     iterative_scan: str = "relaxed_order") -> list[Hit]: ...  # fmt: skip

    def exact_search(self, space: str, qvec: Any, k: int = 10, filters: Filters | dict | None = None,
                     ids: Sequence[str] | None = None) -> list[Hit]: ...  # fmt: skip

    def search_text(self, query: str, k: int = 10, filters: Filters | dict | None = None) -> list[Hit]: ...

    def search_formula(self, keys: Sequence[str], k: int = 10, filters: Filters | dict | None = None) -> list[Hit]: ...

    def unknown_share(self, texts: list[str]) -> float: ...

    # Records by id, and the change marker.
    def hydrate(self, hits: Sequence[Hit]) -> list[Hit]: ...

    def get_theorems(self, ids: Sequence[str]) -> dict[str, Theorem]: ...

    def get_documents(self, ids: Sequence[str]) -> dict[str, Document]: ...

    def get_document(self, doc_id: str) -> Document | None: ...

    def theorems_of(self, doc_id: str, limit: int = 500) -> list[Theorem]: ...

    def theorems_by_labels(self, source: str, labels: Sequence[str]) -> list[Theorem]: ...

    def stats(self, space: str | None = None) -> dict: ...

    def refresh(self) -> int: ...

    # Look-ups of query understanding (routing, "did you mean").
    def definitions_named(self, term: str, *, exact: bool = True, k: int = 10, filters: Any = None) -> list[str]: ...

    def names_ending(self, suffixes: Sequence[str], *, k: int = 10, filters: Any = None) -> list[tuple[str, str]]: ...

    def document_title_index(self) -> dict[str, str]: ...

    def documents_by_identifier(self, arxiv_id: str | None = None, doi: str | None = None) -> list[str]: ...

    def similar_names(self, text: str, k: int = 3, threshold: float = 0.45) -> list[tuple[str, float]]: ...

    # The proof graph (premise search, neighbours) and the premise head.
    def outline(self, doc_id: str, limit: int = 5000) -> list[OutlineRow]: ...

    def citations_of(self, ids: Sequence[str]) -> list[tuple[str, str]]: ...

    def citing_statements(self) -> list[str]: ...

    def used_by(self, theorem_id: str, limit: int = 500) -> list[str]: ...

    def used_by_counts(self, ids: Sequence[str]) -> dict[str, int]: ...

    def documented(self, ids: Sequence[str]) -> set[str]: ...

    def save_premise_head(self, head: dict[str, Any] | None) -> None: ...

    # Vector spaces, feedback, and closing.
    def space(self, name: str) -> VectorSpace: ...

    def spaces(self) -> list[VectorSpace]: ...

    def count_vectors(self, space: str) -> int: ...

    def count_formal(self) -> int: ...

    def formal_sources(self) -> frozenset[str]: ...

    def record_feedback(self, query: str, vote: int, theorem_id: str | None = None, answer_id: str | None = None,
                        comment: str | None = "", answer: str | None = None) -> int: ...  # fmt: skip

    def close(self) -> None: ...
