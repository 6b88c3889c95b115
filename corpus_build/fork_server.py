"""A fork server: a single-threaded helper process that runs jobs for a process that must not fork itself.

A process with other threads (a Ray worker, a process whose progress bar runs a monitor thread) must not fork: a
lock another thread holds at the fork stays held in the child, which may then wait for it forever. It can still
start a helper by fork + exec (what ``subprocess`` does, safe from any thread). The helper imports what the jobs
need once and calls a named function for each job in its own single-threaded process, where that function may fork
(``corpus_build.plastex_child._run_forked`` does: plasTeX imported once, each document parsed in a fork).

Messages are length-prefixed pickles on the helper's stdin and stdout, one job at a time per client. The helper
ends when its stdin closes, that is when its client ends.

>>> server = ForkServer("os:getpid")
>>> server.call(timeout=30) != os.getpid()
True
>>> server.close()
"""

from __future__ import annotations

import atexit
import importlib
import os
import pickle
import select
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child_env() -> dict[str, str]:
    """This process's environment with the project's root first on ``PYTHONPATH``: a child interpreter imports
    ``corpus_build`` from the same tree, installed or not."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (_ROOT, os.environ.get("PYTHONPATH")) if p))


class ServerLost(RuntimeError):
    """The helper died or gave no answer in time; it has been stopped, and the next call starts a new one."""


def _send(fd: int, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(len(data).to_bytes(8, "big") + data)
    while view:
        view = view[os.write(fd, view) :]


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes:
    chunks = []
    while n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("no answer in time")
        data = os.read(fd, min(n, 1 << 20))
        if not data:
            raise EOFError("the other end closed the pipe")
        chunks.append(data)
        n -= len(data)
    return b"".join(chunks)


def _receive(fd: int, deadline: float | None = None) -> Any:
    size = int.from_bytes(_read_exact(fd, 8, deadline), "big")
    return pickle.loads(_read_exact(fd, size, deadline))


class ForkServer:
    """Calls ``target`` (``"module:function"``) in a helper process started on first use, after importing the
    ``preload`` modules there. Thread-safe (one call at a time); a process forked from the client starts its own."""

    def __init__(self, target: str, preload: Sequence[str] = ()) -> None:
        self.target, self.preload = target, tuple(preload)
        self._proc: subprocess.Popen | None = None
        self._owner = 0  # the pid that started _proc
        self._lock = threading.Lock()
        atexit.register(self.close)

    @property
    def pid(self) -> int | None:
        """The helper's pid while it runs."""
        proc = self._proc
        return proc.pid if proc is not None and self._owner == os.getpid() and proc.poll() is None else None

    def call(self, *args: Any, timeout: float) -> Any:
        """``target(*args)`` in the helper; its exception is raised here. No answer within ``timeout`` seconds, or
        a helper that died, is :class:`ServerLost`."""
        with self._lock:
            proc = self._running()
            try:
                _send(proc.stdin.fileno(), args)
                status, value = _receive(proc.stdout.fileno(), time.monotonic() + timeout)
            except (OSError, EOFError, TimeoutError) as exc:
                self._stop()
                raise ServerLost(f"the fork server for {self.target} stopped answering: {exc}") from exc
        if status == "raise":
            raise value
        return value

    def close(self) -> None:
        """Stop the helper (closing its stdin ends it)."""
        with self._lock:
            self._stop()

    def _running(self) -> subprocess.Popen:
        if self._proc is not None and self._owner == os.getpid() and self._proc.poll() is None:
            return self._proc
        self._stop()  # a dead helper; in a fork of the client, the parent's helper is only forgotten
        self._proc = subprocess.Popen([sys.executable, "-m", "corpus_build.fork_server", self.target, *self.preload],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      env=child_env())  # fmt: skip
        self._owner = os.getpid()
        return self._proc

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or self._owner != os.getpid():
            return
        proc.stdin.close()
        try:
            proc.wait(2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def _main(argv: Sequence[str]) -> None:
    """The helper: import the preload modules, then answer each job read on stdin until stdin closes."""
    requests, replies = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)  # what a job prints goes nowhere, not into the replies
    module, name = argv[0].split(":")
    function = getattr(importlib.import_module(module), name)
    for preload in argv[1:]:
        importlib.import_module(preload)
    while True:
        try:
            args = _receive(requests)
        except EOFError:
            return
        try:
            reply: tuple[str, Any] = ("ok", function(*args))
        except Exception as exc:  # noqa: BLE001 - raised again in the client
            reply = ("raise", exc)
        try:
            _send(replies, reply)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            _send(replies, ("raise", RuntimeError(f"{type(exc).__name__}: {exc}")))


if __name__ == "__main__":
    _main(sys.argv[1:])
