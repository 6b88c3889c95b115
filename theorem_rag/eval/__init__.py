"""Evaluation: query sets, ranking metrics, a harness comparing retrieval configurations, reports and plots.

>>> from theorem_rag.eval import score_ranking
>>> score_ranking(["a", "b"], {"b"}, ks=(1,))["hit@1"]
0.0
"""

# The registry with every built-in configuration: index-backed ones register on import of index_configs
# (their heavy imports stay inside the factories), so configs itself never imports the module that uses it.
from theorem_rag.eval import configs, index_configs  # noqa: F401
from theorem_rag.eval.harness import EvalResult, Searcher, SetResult, evaluate, pool_sweep
from theorem_rag.eval.metrics import PRIMARY_METRIC, score_ranking
from theorem_rag.eval.queries import Query, QueryFileError, load_queries

__all__ = [
    "EvalResult",
    "PRIMARY_METRIC",
    "Query",
    "QueryFileError",
    "Searcher",
    "SetResult",
    "evaluate",
    "load_queries",
    "pool_sweep",
    "score_ranking",
]
