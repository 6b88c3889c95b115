"""The ``theorem-rag`` command line: thin commands that build keyword arguments and call the library.

Each command group lives in its own module; flags override ``THEOREM_RAG_*`` environment variables.
"""

from __future__ import annotations

import os

import click

# Offline by default: no weights or cost maps are fetched at run time.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Idle OpenMP threads spinning in torch starve llama.cpp and the database on small machines.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@click.group()
@click.version_option(package_name="theorem-rag")
def main() -> None:
    """Semantic search over theorems: parse LaTeX, index slogans in PostgreSQL + pgvector, search, evaluate."""


from theorem_rag.cli.corpus import corpus  # noqa: E402
from theorem_rag.cli.db import db  # noqa: E402
from theorem_rag.cli.eval import eval_command  # noqa: E402
from theorem_rag.cli.index import index  # noqa: E402
from theorem_rag.cli.model import model  # noqa: E402
from theorem_rag.cli.search import search  # noqa: E402
from theorem_rag.cli.serve import serve  # noqa: E402
from theorem_rag.cli.serve_api import api, mcp  # noqa: E402

for command in (corpus, db, index, model, search, eval_command, serve, api, mcp):
    main.add_command(command)
