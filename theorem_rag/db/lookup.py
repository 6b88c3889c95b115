"""Look-ups query understanding needs from the store: definitions by name, papers by identifier or title, and
names close to a misspelt one. A mixin of :class:`~theorem_rag.db.store.TheoremStore`; SQL in ``lookup_sql``.

>>> store.definitions_named("metric space", exact=True)          # doctest: +SKIP
['planetmath:MetricSpace']
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from theorem_rag.db import lookup_sql
from theorem_rag.db.connection import StorePart
from theorem_rag.filters import Filters
from theorem_rag.query_understanding.intent import title_index


class LookupOps(StorePart):
    """Look-ups of definitions, papers and close names."""

    _titles: dict[str, str] | None = None
    _titles_lock = threading.Lock()

    def definitions_named(self, term: str, *, exact: bool = True, k: int = 10, filters: Any = None) -> list[str]:
        """Ids of definitions named ``term`` (or its plural, or with it as a recorded alias); see ``lookup_sql``."""
        query, params = lookup_sql.definitions_named(self.names, term, exact=exact, filters=Filters.from_mapping(filters), k=k)
        with self.connection() as conn:
            return [r[0] for r in conn.execute(query, params).fetchall()]

    def names_ending(self, suffixes: Sequence[str], *, k: int = 10, filters: Any = None) -> list[tuple[str, str]]:
        """(id, name) of statements named as one of ``suffixes`` or whose name ends with one after a dot, case aside
        (``two_le``: ``Nat.Prime.two_le``); named exactly first, then fewer components; see ``lookup_sql``."""
        if not suffixes:
            return []
        query, params = lookup_sql.names_ending(self.names, suffixes, filters=Filters.from_mapping(filters), k=k)
        with self.connection() as conn:
            return [(r[0], r[1]) for r in conn.execute(query, params).fetchall()]

    def documents_by_identifier(self, arxiv_id: str | None = None, doi: str | None = None) -> list[str]:
        """Ids of documents recorded with this arXiv id or DOI."""
        if not arxiv_id and not doi:
            return []
        query, params = lookup_sql.documents_by_identifier(self.names, arxiv_id, doi)
        with self.connection() as conn:
            return [r[0] for r in conn.execute(query, params).fetchall()]

    def document_titles(self) -> list[tuple[str, str]]:
        """(id, title) of documents with titles of three words or more, read from the database."""
        query, params = lookup_sql.document_titles(self.names)
        with self.connection() as conn:
            return [(r[0], r[1]) for r in conn.execute(query, params).fetchall()]

    def document_title_index(self) -> dict[str, str]:
        """Title keys to document ids (:func:`~theorem_rag.query_understanding.intent.title_index`), read once per store:
        titles change only with a rebuild, and a stale index only misses a title route."""
        with self._titles_lock:
            if self._titles is None:
                self._titles = title_index(self.document_titles())
            return self._titles

    def similar_names(self, text: str, k: int = 3, threshold: float = 0.45) -> list[tuple[str, float]]:
        """Statement names closest to ``text`` by trigram similarity, best first, as (name, similarity)."""
        query, params = lookup_sql.similar_names(self.names, text, k, threshold)
        with self.connection() as conn:
            return [(r[0], float(r[1])) for r in conn.execute(query, params).fetchall()]

    def unknown_share(self, texts: list[str]) -> float:
        """The smallest share, over ``texts`` (a query and the variants searched for it), of full-text words that
        no statement contains; 0.0 when no text has a word full-text search indexes (nothing to judge by)."""
        if not texts:
            return 0.0
        query, params = lookup_sql.unknown_words(self.names, texts)
        with self.connection() as conn:
            rows = conn.execute(query, params).fetchall()
        return min((int(r[2]) / int(r[1]) for r in rows if r[1]), default=0.0)
