"""``theorem-rag api`` and ``theorem-rag mcp``: flags, and the API started on the embedded defaults."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from loopback import assert_kept_alive, free_port, wait_for_port
from theorem_rag.cli.serve_api import api, mcp


def test_help_lists_the_flags():
    out = CliRunner().invoke(api, ["--help"]).output
    for flag in ("--host", "--port", "--search-threads", "--max-body-bytes", "--torch-threads", "--table",
                 "--batch-queries", "--search-queue", "--queue-wait", "--query-cache", "--workers",
                 "--keep-alive"):  # fmt: skip
        assert flag in out
    assert "THEOREM_RAG_API_KEY" in out and "--api-key" not in out
    out = CliRunner().invoke(mcp, ["--help"]).output
    assert "--transport [stdio|http]" in out and "--port" in out and "--keep-alive" in out


def test_mcp_help_lists_every_tool_the_server_serves():
    import asyncio
    from types import SimpleNamespace

    from theorem_rag.mcp_server.server import build_server

    # The tools are registered without touching the search: a stand-in with its two defaults is enough.
    tools = [t.name for t in asyncio.run(build_server(SimpleNamespace(k=10, max_k=100)).list_tools())]
    assert "find_premises" in tools and len(tools) == 4
    words = " ".join(CliRunner().invoke(mcp, ["--help"]).output.split())  # click wraps the help text
    assert [t for t in tools if t not in words] == []


def test_guard_flags_are_listed():
    api_help = CliRunner().invoke(api, ["--help"]).output
    for flag in ("--request-timeout", "--rate-limit", "--rate-burst"):
        assert flag in api_help
    mcp_help = CliRunner().invoke(mcp, ["--help"]).output
    assert "--rate-limit" in mcp_help and "--rate-burst" in mcp_help and "--request-timeout" not in mcp_help


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.10.20"])
def test_mcp_over_http_refuses_to_listen_beyond_loopback_without_a_key(host, monkeypatch):
    monkeypatch.delenv("THEOREM_RAG_API_KEY", raising=False)
    r = CliRunner().invoke(mcp, ["--transport", "http", "--host", host, "--port", "9"])
    assert r.exit_code == 1
    assert f"the MCP server would listen on {host} without an API key" in r.output
    assert "set THEOREM_RAG_API_KEY" in r.output


@pytest.mark.parametrize("command", ["api", "mcp"])
def test_a_public_host_without_a_key_is_refused_unless_a_proxy_checks_access(command, monkeypatch):
    monkeypatch.delenv("THEOREM_RAG_API_KEY", raising=False)
    cli, what, extra = {"api": (api, "the REST API", []), "mcp": (mcp, "the MCP server", ["--transport", "http"])}[command]
    r = CliRunner().invoke(cli, [*extra, "--host", "0.0.0.0", "--port", "9"])
    assert r.exit_code == 1 and f"{what} would listen on 0.0.0.0 without an API key" in r.output
    assert "--auth-by-proxy" in r.output
    # --auth-by-proxy passes the bind rule: the next check (a malformed proxy list) refuses, still before any model.
    r = CliRunner().invoke(cli, [*extra, "--host", "0.0.0.0", "--auth-by-proxy", "--forwarded-allow-ips", "nope"])
    assert r.exit_code == 1 and "--forwarded-allow-ips takes IP addresses or networks" in r.output
    assert "--forwarded-allow-ips" in CliRunner().invoke(cli, ["--help"]).output


def test_bad_flags_are_usage_errors():
    r = CliRunner().invoke(mcp, ["--transport", "sse"])
    assert r.exit_code == 2 and "'sse' is not one of" in r.output
    r = CliRunner().invoke(api, ["--port", "0"])
    assert r.exit_code == 2
    r = CliRunner().invoke(api, ["--request-timeout", "-1"])
    assert r.exit_code == 2 and "-1" in r.output
    r = CliRunner().invoke(mcp, ["--rate-burst", "0"])
    assert r.exit_code == 2 and "0" in r.output


@pytest.mark.db
@pytest.mark.models
@pytest.mark.slow
def test_api_on_the_embedded_defaults_says_to_build_the_index(pg_server, tmp_path):
    """No DSN given: the server uses the embedded PostgreSQL under THEOREM_RAG_DATA_DIR (the session's server)."""
    import httpx

    port = free_port()
    env = {**os.environ, "THEOREM_RAG_DATA_DIR": str(pg_server.data_dir.parent), "THEOREM_RAG_TABLE": "cli_empty",
           "HF_HUB_OFFLINE": "1", "THEOREM_RAG_API_KEY": "k3y"}  # fmt: skip
    env.pop("THEOREM_RAG_DATABASE_URL", None)
    env.pop("THEOREM_RAG_KEEP_ALIVE", None)  # the default is checked
    proc = subprocess.Popen([sys.executable, "-c", "from theorem_rag.cli import main; main()", "api",
                             "--port", str(port), "--log-level", "warning"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)  # fmt: skip
    try:
        wait_for_port(proc, port, "the API")
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as c:
            assert c.get("/search", params={"q": "ring"}).status_code == 401
            r = c.get("/search", params={"q": "ring"}, headers={"X-API-Key": "k3y"})
            assert r.status_code == 503 and r.json()["error"] == "index_not_built"
            assert "theorem-rag index build" in r.json()["message"]
        assert_kept_alive(port, "/health", idle=6.0)
    finally:
        proc.terminate()
        proc.wait(30)
    assert "k3y" not in proc.stderr.read().decode()


@pytest.mark.db
@pytest.mark.models
@pytest.mark.slow
def test_api_rate_limits_the_forwarded_client_only_from_a_trusted_proxy(pg_server):
    """`theorem-rag api --forwarded-allow-ips 127.0.0.2`: X-Forwarded-For names the client on the trusted proxy's
    connections (each forwarded client its own bucket), and is ignored from any other address, loopback's 127.0.0.1
    included (which uvicorn alone would trust)."""
    import httpx

    port = free_port()
    env = {**os.environ, "THEOREM_RAG_DATA_DIR": str(pg_server.data_dir.parent), "THEOREM_RAG_TABLE": "cli_proxy",
           "HF_HUB_OFFLINE": "1"}  # fmt: skip
    for name in ("THEOREM_RAG_DATABASE_URL", "THEOREM_RAG_API_KEY"):
        env.pop(name, None)
    proc = subprocess.Popen([sys.executable, "-c", "from theorem_rag.cli import main; main()", "api", "--port",
                             str(port), "--log-level", "warning", "--rate-limit", "1", "--rate-burst", "1",
                             "--forwarded-allow-ips", "127.0.0.2"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)  # fmt: skip

    def status(client: httpx.Client, forwarded_for: str) -> int:
        return client.get("/search", params={"q": "ring"}, headers={"X-Forwarded-For": forwarded_for}).status_code

    try:
        wait_for_port(proc, port, "the API")
        url = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=url, timeout=60) as stranger, httpx.Client(
                base_url=url, timeout=60, transport=httpx.HTTPTransport(local_address="127.0.0.2")) as proxy:  # fmt: skip
            # 503: no index under this table; what matters is that the request was let through (not 429).
            assert [status(proxy, "203.0.113.1"), status(proxy, "203.0.113.2"), status(proxy, "203.0.113.1")] == [
                503, 503, 429]  # fmt: skip
            assert [status(stranger, "203.0.113.3"), status(stranger, "203.0.113.4")] == [503, 429]
    finally:
        proc.terminate()
        proc.wait(30)


def _children(pid: int) -> list[str]:
    """Command lines of the live child processes of ``pid`` (Linux /proc)."""
    from pathlib import Path

    kids = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        kids += (task / "children").read_text().split()
    out = []
    for kid in kids:
        try:
            out.append(Path(f"/proc/{kid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            pass
    return out


@pytest.mark.db
@pytest.mark.models
@pytest.mark.slow
def test_api_with_two_worker_processes(integ, pg_dsn):
    """`theorem-rag api --workers 2`: two processes on one port over the same database, each answering searches."""
    import httpx
    from concurrent.futures import ThreadPoolExecutor

    port = free_port()
    # Generous queue wait and deadline: this checks that both processes answer, not how fast (a loaded CI machine
    # would otherwise turn slow answers into 503s).
    env = {**os.environ, "THEOREM_RAG_DATABASE_URL": pg_dsn, "THEOREM_RAG_TABLE": integ[1], "HF_HUB_OFFLINE": "1",
           "THEOREM_RAG_QUEUE_WAIT": "240", "THEOREM_RAG_REQUEST_TIMEOUT": "240"}
    proc = subprocess.Popen([sys.executable, "-c", "from theorem_rag.cli import main; main()", "api", "--port",
                             str(port), "--log-level", "warning", "--workers", "2", "--search-threads", "2"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        wait_for_port(proc, port, "the API")
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=300) as c, ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda _: c.get("/search", params={"q": "bijection", "k": 1}), range(16)))
            assert [r.status_code for r in answers] == [200] * 16, answers[0].text
            assert [r.json()["results"][0]["id"] for r in answers] == ["planetmath:Bijection"] * 16
            workers = [cmd for cmd in _children(proc.pid) if "multiprocessing.spawn" in cmd]
            assert len(workers) == 2
    finally:
        proc.terminate()
        proc.wait(60)
