"""Without Ray, --engine ray says what to install (Ray hidden through sys.modules, as txtai's testoptional does)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from theorem_rag.cli import main

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def no_ray(monkeypatch):
    for name in [m for m in sys.modules if m == "ray" or m.startswith("ray.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ray", None)


def test_require_ray_names_the_extra(no_ray):
    from corpus_build.ray_engine import RayUnavailable, require_ray

    with pytest.raises(RayUnavailable, match=r'pip install "theorem-rag\[ray\]"'):
        require_ray()


@pytest.mark.parametrize("args", [
    ["corpus", "parse", str(FIXTURES / "latex" / "paper"), "--out", "{tmp}", "--engine", "ray"],
    ["corpus", "arxiv", "2301.00001", "--out", "{tmp}", "--cache", "{tmp}", "--engine", "ray"],
    ["index", "build", "--records", str(FIXTURES / "integrations"), "--engine", "ray"],
])  # fmt: skip
def test_engine_ray_without_ray_says_what_to_install(no_ray, tmp_path, args):
    result = CliRunner().invoke(main, [a.replace("{tmp}", str(tmp_path)) for a in args])
    assert result.exit_code == 2, result.output
    assert 'the Ray engine needs Ray Data: pip install "theorem-rag[ray]"' in result.output
    assert not (tmp_path / "theorems.jsonl").exists()
