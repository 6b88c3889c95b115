"""Parsing on a process pool gives the same records, byte for byte, as one process; the pool really runs.

The fixture sources mix a Stacks tree (several chapters: several documents), PlanetMath entries (read by the
adapter itself, not the pool), a paper with a macro file, and a theorem JSON Lines file, in that order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from corpus_build import units
from corpus_build.extract import plastex_available
from corpus_build.parse import parse_sources
from corpus_build.theorems import DEFAULT_ENVS
from corpus_build.units import UnitJob, parse_unit, run_units
from theorem_rag.cli import main
from theorem_rag.errors import InputError

OUTPUTS = ("theorems.jsonl", "documents.jsonl")


def _sources(fixtures: Path) -> list[Path]:
    return [fixtures / "stacks", fixtures / "planetmath", fixtures / "paper", fixtures / "theorems.jsonl"]


def _outputs(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in OUTPUTS}


@pytest.fixture
def pools(monkeypatch) -> list[int]:
    """The worker counts of every process pool :func:`run_units` starts during the test."""
    started: list[int] = []

    class Recording(units.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            started.append(kwargs["max_workers"])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(units, "ProcessPoolExecutor", Recording)
    return started


def test_two_workers_write_the_same_records_as_one(fixtures: Path, tmp_path: Path, pools: list[int]):
    one = parse_sources(_sources(fixtures), tmp_path / "one", use_plastex=False, progress=False, workers=1)
    assert pools == []
    two = parse_sources(_sources(fixtures), tmp_path / "two", use_plastex=False, progress=False, workers=2)
    assert pools == [2]
    assert _outputs(tmp_path / "one") == _outputs(tmp_path / "two")
    ids = [json.loads(line)["id"] for line in (tmp_path / "one" / "theorems.jsonl").read_text().splitlines()]
    assert len(ids) == 15 and ids[0] == "stacks:00AB" and ids[-1] == "mine:1"
    assert [s.records_kept for s in one.sources] == [s.records_kept for s in two.sources] == [5, 3, 6, 1]
    assert [dict(s.found_by_parser) for s in one.sources] == [dict(s.found_by_parser) for s in two.sources]


def test_the_pool_hands_results_back_in_job_order(pools: list[int]):
    # Longer texts are submitted first, so the pool sees the jobs in reverse; the results come back in order.
    jobs = [UnitJob("\\begin{lemma}" + "Lemma about sets. " * (i + 1) + "\\end{lemma}", DEFAULT_ENVS, {}, {},
                    use_plastex=False) for i in range(6)]  # fmt: skip
    results = run_units(jobs, workers=2, progress=False)
    assert pools == [2]
    assert [r.statements[0].body.count("sets.") for r in results] == [1, 2, 3, 4, 5, 6]
    assert [r.statements[0].body for r in results] == [parse_unit(j).statements[0].body for j in jobs]


def test_bad_worker_counts_are_input_errors():
    with pytest.raises(InputError, match="workers must be a positive integer"):
        run_units([], workers=0)


def test_cli_parse_takes_workers(fixtures: Path, tmp_path: Path):
    args = ["corpus", "parse", str(fixtures / "stacks"), str(fixtures / "paper"), "--no-plastex", "--quiet"]
    res = CliRunner().invoke(main, args + ["--out", str(tmp_path / "a"), "--workers", "2"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, args + ["--out", str(tmp_path / "b"), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert _outputs(tmp_path / "a") == _outputs(tmp_path / "b")
    res = CliRunner().invoke(main, args + ["--out", str(tmp_path / "c"), "--workers", "0"])
    assert res.exit_code == 2 and "--workers" in res.output


@pytest.mark.slow
def test_plastex_records_are_the_same_on_two_workers(fixtures: Path, tmp_path: Path):
    assert plastex_available(), 'plasTeX path missing: pip install "theorem-rag[corpus]"'
    srcs = [fixtures / "stacks", fixtures / "paper"]
    one = parse_sources(srcs, tmp_path / "one", progress=False, workers=1)
    parse_sources(srcs, tmp_path / "two", progress=False, workers=2)
    assert _outputs(tmp_path / "one") == _outputs(tmp_path / "two")
    assert one.sources[1].found_by_parser["plastex"] == 6


def test_records_carry_the_formula_keys_the_workers_computed(fixtures: Path, tmp_path: Path):
    """Each parsed statement's formula keys are computed in the worker that parsed its document and carried by its
    record, stamped with its text: what loading would compute, so it need not."""
    from theorem_rag.formula_keys import formula_keys, stamp
    from theorem_rag.record_files import read_records

    job = UnitJob(r"\begin{document}\begin{lemma}If $x \ge 0$ then $x^2 \ge 0$.\end{lemma}\end{document}",
                  DEFAULT_ENVS, {}, {}, use_plastex=False)  # fmt: skip
    (s,) = parse_unit(job).statements
    assert s.formula_keys == (stamp(s.text), tuple(formula_keys(s.text))) and "c:ge" in s.formula_keys[1]
    parse_sources(_sources(fixtures), tmp_path / "out", use_plastex=False, progress=False, workers=2)
    records = read_records(tmp_path / "out" / "theorems.jsonl").theorems
    assert len(records) == 15
    for t in records:  # the JSON Lines source's record carried none: it has them when written to the index
        if t.source != "mine":
            assert t.formula_keys == (stamp(t.text), tuple(formula_keys(t.text))), t.id
    assert any(t.formula_keys[1] for t in records if t.formula_keys)
