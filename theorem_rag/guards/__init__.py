"""Guards for the network servers (REST and MCP over HTTP): the shared API key and per-client rate limits.

Plain ASGI middleware and pure helpers, below ``api`` and ``mcp_server`` so that both use the same ones:
:mod:`theorem_rag.guards.apikey` (key check, loopback rule) and :mod:`theorem_rag.guards.ratelimit` (token
buckets, 429 with ``Retry-After``).
"""
