"""The MCP server: ``build_server(search)`` returns an ``MCPServer`` (needs ``theorem-rag[api]``).

Named ``mcp_server`` so that ``import mcp`` keeps meaning the SDK.
"""

from typing import Any

__all__ = ["build_server"]


def __getattr__(name: str) -> Any:
    if name == "build_server":
        from theorem_rag.mcp_server.server import build_server

        return build_server
    raise AttributeError(f"module 'theorem_rag.mcp_server' has no attribute {name!r}")
