"""The REST API: ``create_app(search, api_key=None)`` builds the FastAPI app (needs ``theorem-rag[api]``).

The wire models live in :mod:`theorem_rag.wire` (pure pydantic, shared with the MCP server and the
LlamaIndex tools); FastAPI loads only when the app is built.
"""

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from theorem_rag.api.app import create_app

        return create_app
    raise AttributeError(f"module 'theorem_rag.api' has no attribute {name!r}")
