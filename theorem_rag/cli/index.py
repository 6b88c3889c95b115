"""``theorem-rag index build`` and ``theorem-rag search``: records into the index, queries out of it."""

from __future__ import annotations

import json
from pathlib import Path

import click

from theorem_rag.config import Settings


def settings_from(**flags: object) -> Settings:
    """Settings from the environment with the CLI flags that were given (None means: not given) on top."""
    return Settings(**{k: v for k, v in flags.items() if v is not None})


db_options = [
    click.option("--database-url", envvar="THEOREM_RAG_DATABASE_URL", help="DSN of an external PostgreSQL."),
    click.option("--table", envvar="THEOREM_RAG_TABLE", help="Table prefix (default: theorems)."),
    click.option("--data-dir", type=click.Path(path_type=Path), envvar="THEOREM_RAG_DATA_DIR",
                 help="Folder of the embedded server's data."),  # fmt: skip
    click.option("--embed-model", envvar="THEOREM_RAG_EMBED_MODEL", help="sentence-transformers model name or path."),
    click.option("--embed-field", type=click.Choice(["slogan", "latex", "both", "statement"]),
                 envvar="THEOREM_RAG_EMBED_FIELD",
                 help="What is embedded ('statement': each statement's words alone, the words space a search in words "
                      "reads its first candidates in; later builds keep it in step)."),  # fmt: skip
]


def with_db_options(fn):
    for option in reversed(db_options):
        fn = option(fn)
    return fn


@click.group()
def index() -> None:
    """Build and inspect the search index."""


@index.command()
@click.option("--records", "records_dirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=(Path("data/records"),), show_default=True,
              help="Folder written by `theorem-rag corpus parse`; repeat for several.")  # fmt: skip
@click.option("--jsonl", "jsonl_files", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Extra theorem records as JSON Lines (your own extractions).")
@click.option("--source", "sources", multiple=True, help="Index only these sources.")
@click.option("--limit", type=click.IntRange(min=1), help="Index at most this many statements (for a quick try).")
@click.option("--slogan-writer", envvar="THEOREM_RAG_SLOGAN_WRITER", help="'offline' or a litellm model name.")
@click.option("--embed-backend", type=click.Choice(["auto", "torch", "onnx-int8"]), envvar="THEOREM_RAG_EMBED_BACKEND",
              help="What runs the model: torch, or its int8 ONNX export (built once under the data folder); auto "
                   "(default): the backend the space was built with, onnx-int8 for a new space.")
@click.option("--reembed", is_flag=True,
              help="Delete the space's vectors and embed every statement again (to change the backend or model).")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help='One process, or Ray Data (pip install "theorem-rag[ray]"; RAY_ADDRESS joins a cluster).')
@click.option("--ray-batch-size", type=click.IntRange(min=1), default=512, show_default=True,
              help="Ray: statements per batch (each batch is committed on its own).")  # fmt: skip
@click.option("--embed-actors", type=click.IntRange(min=1), default=1, show_default=True,
              help="Ray: embedding actors (each loads the model once; one GPU each when the cluster has GPUs).")
@click.option("--slogan-tasks", type=click.IntRange(min=1), default=1, show_default=True,
              help="Ray: slogan actors; LLM requests in flight stay under THEOREM_RAG_LLM_CONCURRENCY in all.")
@with_db_options
def build(records_dirs, jsonl_files, sources, limit, slogan_writer, embed_backend, reembed, engine, ray_batch_size,
          embed_actors, slogan_tasks, database_url, table, data_dir, embed_model, embed_field) -> None:  # fmt: skip
    """Upsert records, write slogans, embed and build the HNSW index (incremental: reruns do only what changed)."""
    from theorem_rag.indexing.ingest import build_index, informal_part
    from theorem_rag.record_files import read_records
    from theorem_rag.db.table_names import space_name
    from theorem_rag.errors import InputError
    from theorem_rag.search import TheoremSearch
    from theorem_rag.slogans import build_slogan_writer

    s = settings_from(database_url=database_url, table=table, data_dir=data_dir, embed_model=embed_model,
                      embed_field=embed_field, slogan_writer=slogan_writer, embed_backend=embed_backend)  # fmt: skip
    theorems, documents = [], []
    try:
        found = [read_records(folder) for folder in records_dirs]
    except InputError as e:
        raise click.ClickException(str(e)) from e
    for path in jsonl_files:
        found.append(read_records(path, strict=False))
        for rejected in found[-1].rejected:
            click.echo(f"{path.parent / rejected.path}:{rejected.line}: skipped: {rejected.reason}", err=True)
    for records in found:
        theorems += records.theorems
        documents += records.documents
    if sources:
        theorems = [t for t in theorems if t.source in sources]
        documents = [d for d in documents if d.source in sources]
    if limit:
        theorems = theorems[:limit]
    if not theorems and (limit or not documents):
        raise click.UsageError("no theorem records to index" if limit else
                               "no statements and no documents in the records: nothing to index")
    if not theorems:  # documents that hold no statement now: what the index holds of them goes (both engines)
        _prune_only(s, documents)
        return
    if engine == "ray":
        _require_ray()  # before the database is opened
    search = TheoremSearch.from_settings(s)
    if engine == "ray":
        # The same spaces as the local build below: the query model's space and the words space follow the records.
        following = _following_spaces(s, search)
        search.close()
        _build_on_ray(s, theorems, documents, limit, reembed, ray_batch_size, embed_actors, slogan_tasks, following)
        return
    writer = build_slogan_writer(s.slogan_writer, api_base=s.llm_api_base, context=s.slogan_context,
                                 concurrency=s.llm_concurrency, max_retries=s.llm_max_retries,
                                 rpm=s.llm_requests_per_minute)  # fmt: skip
    try:
        report = build_index(search.store, search.embedder, theorems, documents, writer=writer,
                             space=space_name(s.embed_model, s.embed_field), field=s.embed_field,
                             reembed=reembed, prune=not limit, dense_index=s.dense_index)  # fmt: skip
    except InputError as e:
        raise click.ClickException(str(e)) from e
    click.echo(report.summary())
    # The query model's space (queries in words search it) and the words space, once built, follow the records too,
    # or they would miss the new ones; they hold the informal statements, the formal ones are in the base space alone
    # (ingest.informal_part).
    informal, informal_documents = informal_part(theorems, documents)
    if not informal and not informal_documents:
        return
    for space, embedder, field in _following_spaces(s, search):
        try:
            report = build_index(search.store, embedder, informal, informal_documents, writer=writer, space=space,
                                 field=field, reembed=reembed, prune=not limit, dense_index=s.dense_index)  # fmt: skip
        except InputError as e:
            raise click.ClickException(str(e)) from e
        click.echo(report.summary())


def _following_spaces(s: Settings, search) -> list[tuple[str, object, str]]:
    """(space, embedder, field) of the spaces a build of the settings' space keeps in step: the query model's space,
    and the words space of the embed model once it was built (`index build --embed-field statement`)."""
    from theorem_rag.db.table_names import space_name
    from theorem_rag.retrieval.statement_words import WORDS_FIELD

    spaces = [(search.query_space, search.query_embedder, s.embed_field)] if search.query_space else []
    words = space_name(s.embed_model, WORDS_FIELD)
    if s.embed_field != WORDS_FIELD and words in {sp.name for sp in search.store.spaces()}:
        spaces.append((words, search.embedder, WORDS_FIELD))
    return spaces


def _prune_only(s: Settings, documents: list) -> None:
    """The build of records without statements (every paper withdrawn, every statement of a file deleted): the
    statements the index holds for their documents are removed, and the command says how many."""
    from theorem_rag.db.server import resolve_dsn
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.indexing.ingest import prune_documents

    with TheoremStore(resolve_dsn(s), table=s.table) as store:
        report = prune_documents(store, documents)
    names = ", ".join(d.id for d in documents[:5]) + (f" and {len(documents) - 5} more" if len(documents) > 5 else "")
    click.echo(f"no statements in the records, {report.documents} documents without statements ({names}): "
               f"{report.removed} statements stored for them removed, with their vectors in every space")


def _require_ray() -> None:
    from corpus_build.ray_engine import RayUnavailable, require_ray

    try:
        require_ray()
    except RayUnavailable as e:
        raise click.UsageError(str(e)) from e


def _build_on_ray(s, theorems, documents, limit, reembed, batch_size, embed_actors, slogan_tasks, following) -> None:
    """The build on Ray of the settings' space and of the spaces that follow it (``following``: (space, embedder,
    field) of :func:`_following_spaces`, with the informal statements only), as the local build does."""
    from theorem_rag.db.server import resolve_dsn
    from theorem_rag.db.table_names import space_name
    from theorem_rag.embed import max_tokens_for
    from theorem_rag.errors import InputError
    from theorem_rag.indexing.ingest import informal_part
    from theorem_rag.indexing.ray_build import RayBuildOptions, build_index_ray

    writer = {"spec": s.slogan_writer, "api_base": s.llm_api_base, "context": s.slogan_context,
              "concurrency": s.llm_concurrency, "max_retries": s.llm_max_retries, "rpm": s.llm_requests_per_minute}
    options = RayBuildOptions(batch_size=batch_size, embed_actors=embed_actors, slogan_tasks=slogan_tasks)
    spaces = [(space_name(s.embed_model, s.embed_field), s.embed_model, s.embed_backend, (theorems, documents),
               s.embed_field)]
    spaces += [(space, embedder.model_name, embedder.backend, informal_part(theorems, documents), field)
               for space, embedder, field in following]
    for space, model, backend, (records, docs), field in spaces:
        if not records and not docs:
            continue
        try:
            report = build_index_ray(resolve_dsn(s), records, docs, space=space, table=s.table,
                                     field=field, embed_model=model, doc_instruction=s.doc_instruction,
                                     embed_max_tokens=max_tokens_for(field, s.embed_max_tokens),
                                     embed_batch_size=s.embed_batch_size,
                                     embed_backend=backend, onnx_cache_dir=str(Path(s.data_dir) / "onnx"),
                                     writer=writer, options=options, prune=not limit, reembed=reembed,
                                     dense_index=s.dense_index)  # fmt: skip
        except InputError as e:
            raise click.ClickException(str(e)) from e
        click.echo(report.summary())


@index.command()
@with_db_options
def stats(database_url, table, data_dir, embed_model, embed_field) -> None:
    """Counts by source and index state, as JSON."""
    from theorem_rag.search import TheoremSearch

    s = settings_from(database_url=database_url, table=table, data_dir=data_dir, embed_model=embed_model,
                      embed_field=embed_field)  # fmt: skip
    click.echo(json.dumps(TheoremSearch.from_settings(s).stats(), indent=2, default=str))


@index.command("delete-source")
@click.argument("source")
@click.option("--yes", is_flag=True, help="Confirm the deletion.")
@with_db_options
def delete_source(source, yes, database_url, table, data_dir, embed_model, embed_field) -> None:
    """Delete every statement of SOURCE (and its vectors) from the index."""
    from theorem_rag.db.server import resolve_dsn
    from theorem_rag.db.store import TheoremStore

    if not yes:
        raise click.UsageError(f"this deletes every statement of {source!r}; add --yes to confirm")
    s = settings_from(database_url=database_url, table=table, data_dir=data_dir)
    n = TheoremStore(resolve_dsn(s), table=s.table).delete_source(source)
    click.echo(f"deleted {n} statements of {source}")
