"""Serving under load, shared by the REST API and the MCP server (below both, so neither imports the other).

:mod:`~theorem_rag.serving.service` (``SearchService``: the one path a served search takes),
:mod:`~theorem_rag.serving.admission` (bounded running and waiting searches; beyond them, 503 at once),
:mod:`~theorem_rag.serving.batching` (query embeddings in shared model calls, with an LRU cache) and
:mod:`~theorem_rag.serving.deadline` (a deadline per request; past it, its PostgreSQL queries are cancelled).
Needs anyio (installed with ``theorem-rag[api]``).
"""
