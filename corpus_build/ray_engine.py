"""Ray, when installed: start or join a cluster, and map a pure function over items with Ray Data.

Local runs call ``ray.init()`` on this machine (``num_cpus`` caps what it uses); with ``RAY_ADDRESS`` set (or
``address=``) the same code joins a cluster. Each item is its own block, so one item that crashes its worker
costs only itself: :func:`ray_map` reports it as an error result and the run goes on.

>>> require_ray() is not None          # doctest: +SKIP
True
"""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

RAY_EXTRA = 'pip install "theorem-rag[ray]"'


class RayUnavailable(ImportError):
    """Ray is not installed: the message says what to install."""


def require_ray() -> Any:
    """The ``ray`` module, or :class:`RayUnavailable` naming the extra."""
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as e:
        raise RayUnavailable(f"the Ray engine needs Ray Data: {RAY_EXTRA}") from e
    return ray


def init_ray(address: str | None = None, *, num_cpus: int | None = None, object_store_mb: int | None = None) -> Any:
    """Connect to ``address`` (or ``RAY_ADDRESS``), else start a local Ray; reuse a running one. Returns ``ray``.

    Progress bars of Ray Data stay off (ours are enough) and the dashboard is not started locally.
    """
    ray = require_ray()
    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS") or None
        kwargs: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
        if address:
            kwargs["address"] = address
        else:
            kwargs["include_dashboard"] = False
            if num_cpus:
                kwargs["num_cpus"] = num_cpus
            if object_store_mb:
                kwargs["object_store_memory"] = object_store_mb * 1024 * 1024
        ray.init(**kwargs)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.max_errored_blocks = -1  # a paper that kills its worker is reported, not fatal
    return ray


@dataclass(frozen=True)
class TaskError:
    """What :func:`ray_map` yields for an item whose task failed: its index and why."""

    index: int
    reason: str


class _Timeout(Exception):
    pass


def _alarm(signum, frame):  # pragma: no cover - runs in a worker
    raise _Timeout()


def _call(fn: Callable[[Any], Any], item: Any, timeout: float | None) -> Any:
    """Run ``fn(item)`` with a wall-clock limit (SIGALRM in the worker's main thread)."""
    if not timeout:
        return fn(item)
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return fn(item)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _row_fn(fn: Callable[[Any], Any], timeout: float | None) -> Callable[[dict], dict]:
    def run(row: dict) -> dict:
        item = pickle.loads(row["item"])
        try:
            out, err = pickle.dumps(_call(fn, item, timeout)), ""
        except _Timeout:
            out, err = b"", f"timed out after {timeout} s"
        except Exception as e:  # noqa: BLE001 - reported per item; the run goes on
            out, err = b"", f"crashed: {type(e).__name__}: {e}"
        return {"index": row["index"], "result": out, "error": err}

    return run


def ray_map(
    fn: Callable[[Any], Any],
    items: Sequence[Any],
    *,
    num_cpus: float = 1,
    memory_mb: int | None = None,
    timeout: float | None = None,
    max_retries: int = 1,
) -> Iterator[tuple[int, Any] | TaskError]:
    """Map ``fn`` (a picklable top-level function) over ``items`` with Ray Data, one item per block.

    Each task reserves ``num_cpus`` and ``memory_mb`` (Ray schedules by them), runs at most ``timeout`` seconds
    and is retried ``max_retries`` times when its worker dies. Yields ``(index, result)`` as results arrive, and
    a :class:`TaskError` for an item that raised, timed out or whose worker died (its block is then missing).
    """
    ray = init_ray()
    if not items:
        return
    rows = [{"index": i, "item": pickle.dumps(x)} for i, x in enumerate(items)]
    ds = ray.data.from_items(rows, override_num_blocks=len(rows))
    opts: dict[str, Any] = {"num_cpus": num_cpus, "max_retries": max_retries}
    if memory_mb:
        opts["memory"] = memory_mb * 1024 * 1024
    seen: set[int] = set()
    for row in ds.map(_row_fn(fn, timeout), **opts).iter_rows():
        i = int(row["index"])
        seen.add(i)
        if row["error"]:
            yield TaskError(i, row["error"])
        else:
            yield i, pickle.loads(row["result"])
    for i in range(len(items)):
        if i not in seen:
            yield TaskError(i, "worker died (out of memory or killed) after retries")
