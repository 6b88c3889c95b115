"""Loopback helpers for tests that run servers: the one free-port helper, waiting for a port, uvicorn in a thread."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


def free_port() -> int:
    """A loopback TCP port nothing listens on now (bound, read, released): for a server to bind or a client to miss."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(proc: subprocess.Popen, port: int, what: str, timeout: float = 300) -> None:
    """Wait until the server subprocess ``proc`` listens on ``port``; fail with its stderr if it exits first."""
    deadline = time.monotonic() + timeout
    while True:
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        assert time.monotonic() < deadline, f"{what} did not start"
        time.sleep(0.2)


def assert_kept_alive(port: int, path: str, idle: float) -> None:
    """One raw connection, two ``GET path`` requests ``idle`` seconds apart: the server answers both, so it kept the
    connection open while it was idle. httpx drops an idle connection after 5 s; a server that closes one at 5 s
    too (uvicorn's default) races the client's next request on it, which then fails as a dropped connection."""
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        for i in range(2):
            if i:
                time.sleep(idle)
            s.sendall(request)
            head, _, body = s.recv(65536).partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 "), f"request {i + 1} after {idle if i else 0} s idle: {head!r}"
            fields = dict(h.split(b":", 1) for h in head.split(b"\r\n")[1:])
            length = int(next(v for k, v in fields.items() if k.lower() == b"content-length"))
            while len(body) < length:
                body += s.recv(65536)


@contextmanager
def serving(app, *, lifespan: str = "off", **options) -> Iterator[str]:
    """Run the ASGI ``app`` with uvicorn in a thread on a free loopback port; yield its base URL; stop it after.

    ``lifespan="on"`` for apps that start work in their lifespan (the MCP server's session manager); ``options``
    are more ``uvicorn.Config`` arguments (the trusted proxies of ``uvicorn_proxy_options``).
    """
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning", lifespan=lifespan,
                            **options)  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        thread.join(10)
