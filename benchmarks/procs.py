"""CPU seconds and memory of processes, read from Linux's /proc: what the load and scale benchmarks account (CPU per
row or per request, peak memory of the database's processes per step).

>>> process_cpu(os.getpid()) >= 0
True
"""

from __future__ import annotations

import os
import threading
from pathlib import Path


def _stat(pid: int | str) -> tuple[str, list[str]]:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :].split()


def process_cpu(pid: int | str) -> float:
    """User + system seconds one process has used so far."""
    return _cpu(_stat(pid)[1])


def _live(pids) -> dict[int | str, tuple[str, list[str]]]:
    """Name and stat fields of each of ``pids`` still alive (one that ends while it is read is left out)."""
    out = {}
    for pid in pids:
        try:
            out[pid] = _stat(pid)
        except (OSError, ValueError, IndexError):
            continue
    return out


def _cpu(fields: list[str]) -> float:
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def postgres_cpu() -> float:
    """User + system seconds of every live postgres process on this machine (a benchmark's server is the only one)."""
    return sum(_cpu(fields) for name, fields in _live(filter(str.isdigit, os.listdir("/proc"))).values()
               if name.startswith("postgres"))  # fmt: skip


def tree_cpu(pid: int) -> float:
    """User + system seconds of a process and its live descendants (a server and its workers)."""
    return sum(_cpu(fields) for _, fields in _live(process_tree(pid)).values())


def _status_kb(pid: int, key: str, path: str = "status") -> int:
    try:
        with open(f"/proc/{pid}/{path}") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return 0


def process_tree(root: int) -> list[int]:
    """``root`` and all its descendants (the postmaster and its backends, workers, parallel helpers)."""
    children: dict[int, list[int]] = {}
    for entry, (_, fields) in _live(filter(str.isdigit, os.listdir("/proc"))).items():
        children.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


class MemorySampler(threading.Thread):
    """Samples the RSS and PSS sums of a process tree and this process's RSS; keeps the peak of each per step."""

    def __init__(self, root_pid: int, interval: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.root_pid, self.interval = root_pid, interval
        self.step = "start"
        self.peaks: dict[str, dict[str, float]] = {}
        self._halt = threading.Event()

    def sample(self) -> None:
        pids = process_tree(self.root_pid)
        rss = sum(_status_kb(p, "VmRSS:") for p in pids) / 1024
        pss = sum(_status_kb(p, "Pss:", "smaps_rollup") for p in pids) / 1024
        py = _status_kb(os.getpid(), "VmRSS:") / 1024
        peak = self.peaks.setdefault(self.step, {"pg_rss_mb": 0.0, "pg_pss_mb": 0.0, "python_rss_mb": 0.0, "pg_procs": 0})
        peak["pg_rss_mb"] = max(peak["pg_rss_mb"], rss)
        peak["pg_pss_mb"] = max(peak["pg_pss_mb"], pss)
        peak["python_rss_mb"] = max(peak["python_rss_mb"], py)
        peak["pg_procs"] = max(peak["pg_procs"], len(pids))

    def run(self) -> None:
        while not self._halt.wait(self.interval):
            self.sample()

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=5)
        self.sample()

    def overall(self) -> dict[str, float]:
        keys = ("pg_rss_mb", "pg_pss_mb", "python_rss_mb")
        return {k: max((p[k] for p in self.peaks.values()), default=0.0) for k in keys}
