"""Retrieval: filters and rank fusion (pure), the LlamaIndex vector store and retriever over PostgreSQL.

The LlamaIndex classes load lazily, so ``from theorem_rag.retrieval import reciprocal_rank_fusion`` stays light.
"""

from typing import Any

from theorem_rag.filters import Filters
from theorem_rag.retrieval.fusion import reciprocal_rank_fusion
from theorem_rag.query import validate_query

_LAZY = {
    "TheoremRetriever": "theorem_rag.retrieval.retriever",
    "TheoremVectorStore": "theorem_rag.retrieval.vector_store",
}

__all__ = ["Filters", "TheoremRetriever", "TheoremVectorStore", "reciprocal_rank_fusion", "validate_query"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'theorem_rag.retrieval' has no attribute {name!r}")
