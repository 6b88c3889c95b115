"""Names the docstring examples of ``theorem_rag`` and ``corpus_build`` use without defining them (pytest's
``doctest_namespace``).

``search`` stands in for a :class:`~theorem_rag.search.TheoremSearch` over an empty index: the examples that only
build something over a search (the MCP server and its tool list, a LlamaIndex tool) run with it, offline. Examples
that search for real carry ``# doctest: +SKIP``; tests/test_doctest_signatures.py checks their calls against the
current signatures instead.
"""

from __future__ import annotations

from typing import Any

import pytest


class EmptySearch:
    """A search with the defaults of ``Settings`` (k 10, max_k 100) over an index without statements."""

    k, max_k = 10, 100

    def search(self, query: str, k: int | None = None, **filters: Any) -> list:
        return []

    def premises(self, statement: str, k: int | None = None, **filters: Any) -> list:
        return []


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace: dict[str, Any]) -> None:
    doctest_namespace["search"] = EmptySearch()
