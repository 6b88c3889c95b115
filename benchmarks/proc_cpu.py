"""CPU seconds of processes, read from Linux's /proc: what the load benchmarks account per row.

>>> process_cpu(os.getpid()) >= 0
True
"""

from __future__ import annotations

import os
from pathlib import Path


def _stat(pid: int | str) -> tuple[str, list[str]]:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :].split()


def process_cpu(pid: int | str) -> float:
    """User + system seconds one process has used so far."""
    fields = _stat(pid)[1]
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def postgres_cpu() -> float:
    """User + system seconds of every live postgres process on this machine (a benchmark's server is the only one)."""
    total = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            name, _ = _stat(pid)
            if name.startswith("postgres"):
                total += process_cpu(pid)
        except (OSError, ValueError, IndexError):  # the process ended while it was read
            continue
    return total
