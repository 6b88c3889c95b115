"""``theorem-rag db ...``: start, stop and inspect the embedded PostgreSQL server; migrate or drop the schema."""

from __future__ import annotations

import json
from pathlib import Path

import click

from theorem_rag.config import Settings


def _settings(data_dir: Path | None, database_url: str | None, table: str | None) -> Settings:
    overrides = {k: v for k, v in {"data_dir": data_dir, "database_url": database_url, "table": table}.items() if v}
    return Settings(**overrides)


def _server(settings: Settings, persistent: bool = False):
    from theorem_rag.db.server import EmbeddedServer

    if settings.database_url:
        raise click.UsageError("THEOREM_RAG_DATABASE_URL points at an external server; start and stop it yourself")
    return EmbeddedServer.for_settings(settings, persistent=persistent)


data_dir_option = click.option("--data-dir", type=click.Path(path_type=Path), envvar="THEOREM_RAG_DATA_DIR",
                               help="Folder of the embedded server's data (default: the user data folder).")  # fmt: skip
url_option = click.option("--database-url", envvar="THEOREM_RAG_DATABASE_URL", help="DSN of an external server.")
table_option = click.option("--table", envvar="THEOREM_RAG_TABLE", help="Table prefix (default: theorems).")


@click.group()
def db() -> None:
    """Manage the database: the embedded server and the schema."""


@db.command()
@data_dir_option
def start(data_dir: Path | None) -> None:
    """Start the embedded server and keep it running until `theorem-rag db stop`."""
    settings = _settings(data_dir, None, None)
    server = _server(settings, persistent=True)
    server.start()
    from theorem_rag.db.server import DEFAULT_DATABASE, ensure_database

    ensure_database(server.dsn("postgres"), DEFAULT_DATABASE)
    click.echo(f"running: {server.dsn(DEFAULT_DATABASE)}")


@db.command()
@data_dir_option
def stop(data_dir: Path | None) -> None:
    """Stop the embedded server (also when other processes still use it)."""
    server = _server(_settings(data_dir, None, None))
    click.echo("stopped" if server.stop() else "not running")


@db.command()
@data_dir_option
@url_option
@table_option
def status(data_dir: Path | None, database_url: str | None, table: str | None) -> None:
    """Show whether the server runs and, when it does, the schema version and row counts."""
    settings = _settings(data_dir, database_url, table)
    info: dict = {}
    if not settings.database_url:
        info = _server(settings).status()
        if not info["running"]:
            click.echo(json.dumps(info, indent=2))
            return
    import psycopg

    from theorem_rag.db.schema import schema_version
    from theorem_rag.db.server import resolve_dsn

    dsn = resolve_dsn(settings)
    with psycopg.connect(dsn) as conn:
        info["schema_version"] = schema_version(conn, settings.table)
    if info["schema_version"]:
        from theorem_rag.db.store import TheoremStore

        with TheoremStore(dsn, table=settings.table) as store:
            info["theorems"] = store.count()
            info["spaces"] = {s.name: {"dim": s.dim, "vectors": store.count_vectors(s.name)} for s in store.spaces()}
            deferred = store.deferred_indexes()
            if deferred:  # a bulk load stopped before building them again: searches work, but slowly
                info["deferred_indexes"] = deferred
                info["hint"] = ("a bulk load deferred these indexes (or the lexicon) and did not build them again: "
                                "theorem-rag db restore-indexes")
    click.echo(json.dumps(info, indent=2))


@db.command("restore-indexes")
@data_dir_option
@url_option
@table_option
@click.option("--maintenance-work-mem", default="1GB", show_default=True, help="Memory for each index build.")
@click.option("--parallel-workers", type=int, help="Extra processes per index build (default: the server's).")
def restore_indexes(data_dir: Path | None, database_url: str | None, table: str | None, maintenance_work_mem: str,
                    parallel_workers: int | None) -> None:  # fmt: skip
    """Build the indexes a bulk load dropped (a load cut off before its end leaves them dropped)."""
    from theorem_rag.db.server import resolve_dsn
    from theorem_rag.db.store import TheoremStore

    settings = _settings(data_dir, database_url, table)
    with TheoremStore(resolve_dsn(settings), table=settings.table) as store:
        built = store.restore_indexes(maintenance_work_mem, parallel_workers)
    click.echo(f"built {', '.join(built)}" if built else "no index was waiting")


@db.command()
@data_dir_option
@url_option
@table_option
def migrate(data_dir: Path | None, database_url: str | None, table: str | None) -> None:
    """Create or upgrade the schema (idempotent; never drops data)."""
    import psycopg

    from theorem_rag.db.schema import migrate as run_migrations
    from theorem_rag.db.server import resolve_dsn

    settings = _settings(data_dir, database_url, table)
    with psycopg.connect(resolve_dsn(settings), autocommit=True) as conn:
        applied = run_migrations(conn, settings.table)
    click.echo(f"applied migrations {applied}" if applied else "schema is up to date")


@db.command()
@data_dir_option
@url_option
@table_option
@click.option("--yes", is_flag=True, help="Really drop every table of this prefix, vectors and slogan cache included.")
def drop(data_dir: Path | None, database_url: str | None, table: str | None, yes: bool) -> None:
    """Drop all tables of the index (statements, vectors, slogan cache, feedback). Needs --yes."""
    if not yes:
        raise click.UsageError("dropping deletes all indexed data and paid-for slogans; pass --yes to confirm")
    import psycopg

    from theorem_rag.db.schema import drop_all
    from theorem_rag.db.server import resolve_dsn

    settings = _settings(data_dir, database_url, table)
    with psycopg.connect(resolve_dsn(settings), autocommit=True) as conn:
        dropped = drop_all(conn, settings.table)
    click.echo(f"dropped {', '.join(dropped)}" if dropped else "nothing to drop")
