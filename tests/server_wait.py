"""Wait for a server subprocess to listen on a loopback port (or fail with its stderr)."""

from __future__ import annotations

import socket
import subprocess
import time


def wait_for_port(proc: subprocess.Popen, port: int, what: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while True:
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        assert time.monotonic() < deadline, f"{what} did not start"
        time.sleep(0.2)
