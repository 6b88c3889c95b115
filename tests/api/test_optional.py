"""Optional dependencies: ``import theorem_rag`` stays light, and a missing extra names what to install."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_import_theorem_rag_loads_no_server_stack():
    r = _run(
        "import sys, theorem_rag, theorem_rag.api, theorem_rag.mcp_server, theorem_rag.wire\n"
        "heavy = [m for m in ('fastapi', 'uvicorn', 'starlette', 'mcp', 'torch', 'llama_index') if m in sys.modules]\n"
        "print(heavy)"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "hidden, statement, extra",
    [
        ("fastapi", "from theorem_rag.api import create_app", "theorem-rag[api]"),
        ("mcp", "from theorem_rag.mcp_server import build_server", "theorem-rag[api]"),
        ("llama_index", "from theorem_rag.tools import theorem_search_tool; theorem_search_tool(None)", "theorem-rag[index]"),
    ],
)
def test_missing_extra_names_the_install_command(hidden, statement, extra):
    r = _run(f"import sys; sys.modules[{hidden!r}] = None\n{statement}")
    assert r.returncode != 0
    assert "ImportError" in r.stderr and f'pip install "{extra}"' in r.stderr, r.stderr[-1500:]
