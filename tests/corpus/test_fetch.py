"""``theorem-rag corpus fetch``: the corpora from local bare repositories over ``file://`` (never the network), laid
out as ``../shared/corpora``; reruns, failures and the quickstart's fallback when ``../shared`` is absent."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from corpus_build.corpus_manifest import DATA, load_manifest
from corpus_build.fetch import STAMP, FetchError, fetch_corpora
from corpus_mirror import ALGEBRA_STRIPPED, files_under, make_mirror, make_repo, write_manifest
from shared_data import shared_dir
from theorem_rag.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEFAULTS = ["stacks", "planetmath", "openlogic", "napkin", "hott", "lebl-ra", "cring", "papers"]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    root = tmp_path_factory.mktemp("pristine")
    folder, commits = make_mirror(root)
    return folder, commits, write_manifest(root / "manifest", commits)


@pytest.fixture
def mirror(pristine, tmp_path: Path):
    """A copy of the mirror folder the test may change, each repository's commits and the manifest pinning them."""
    folder, commits, manifest = pristine
    shutil.copytree(manifest.parent, tmp_path / "manifest")
    return shutil.copytree(folder, tmp_path / "mirror"), commits, tmp_path / "manifest" / manifest.name


def fetch(mirror, into: Path, names=None):
    folder, _, manifest = mirror
    return fetch_corpora(names, into, mirror=str(folder), manifest=load_manifest(manifest))


def test_fetch_lays_out_the_corpora_as_the_shared_folder_does(mirror, tmp_path: Path):
    into = tmp_path / "corpora"
    fetched = fetch(mirror, into)
    assert [f.name for f in fetched] == DEFAULTS and {f.status for f in fetched} == {"fetched"}
    assert sorted(p.name for p in into.iterdir()) == sorted(DEFAULTS)  # no staging folder left, no mathlib
    # Stacks at the pinned (short) commit, not the later one; no PDF, script or Makefile; the slogan stripped.
    assert files_under(into / "stacks") == {STAMP, "preamble.tex", "algebra.tex", "tags/tags", "COPYING",
                                            "scripts/LICENSE"}  # fmt: skip
    assert (into / "stacks" / "algebra.tex").read_text() == ALGEBRA_STRIPPED
    stamp = json.loads((into / "stacks" / STAMP).read_text())
    assert stamp["files"] == 5 and stamp["repos"][0]["commit"] == mirror[1]["stacks/stacks-project"][0]
    assert files_under(into / "planetmath") == {STAMP} | {f"{area}/{name}" for area, entry in (
        ("05_Combinatorics", "05C15-FourColorTheorem.tex"), ("57_Manifolds_and_cell_complexes",
                                                             "57M27-JonesPolynomial.tex"))
        for name in (entry, "LICENSE", "README.md")}  # fmt: skip
    assert files_under(into / "lebl-ra") == {STAMP, "realanal.tex", "ch-real-nums.tex", "slides/sup.tex", "LICENSE.md"}
    # Papers: a repository-relative folder, a folder of the repository made the paper's root, and the manifest.
    assert files_under(into / "papers") == {STAMP, "MANIFEST.jsonl", "sag-foundations/foundations/main.tex",
                                            "sag-foundations/foundations/intro.tex", "sag-foundations/util/zariski.cls",
                                            "seymour-regular-matroids-paper/main.tex",
                                            "seymour-regular-matroids-paper/src/10 introduction.tex"}  # fmt: skip
    assert (into / "papers" / "MANIFEST.jsonl").read_text() == (mirror[2].parent / "papers.jsonl").read_text()


def test_a_second_run_fetches_nothing_and_a_damaged_corpus_is_fetched_again(mirror, tmp_path: Path):
    into = tmp_path / "corpora"
    fetch(mirror, into)
    away = mirror[0].rename(tmp_path / "away")  # no repository to reach: a rerun must not need one
    assert {f.status for f in fetch(mirror, into)} == {"present"}

    (into / "hott" / "basics.tex").unlink()  # the folder no longer counts what its stamp says: fetched again,
    with pytest.raises(FetchError, match="HoTT/book"):  # and while that fails, the folder stays as it was
        fetch(mirror, into, ["hott"])
    assert files_under(into / "hott") == {STAMP, "hott-online.tex", "macros.tex", "README.md"}
    away.rename(mirror[0])
    assert [f.status for f in fetch(mirror, into, ["hott"])] == ["fetched"]
    assert files_under(into / "hott") == {STAMP, "hott-online.tex", "macros.tex", "basics.tex", "README.md"}
    assert sorted(p.name for p in into.iterdir()) == sorted(DEFAULTS)


def test_a_failing_repository_leaves_nothing_half_written_and_a_rerun_resumes(mirror, tmp_path: Path):
    folder, commits, manifest = mirror
    data = json.loads(manifest.read_text())
    planetmath = next(c for c in data["corpora"] if c["name"] == "planetmath")
    planetmath["repos"].append({"repo": "planetmath/60_Probability_theory", "commit": None,
                                "dest": "60_Probability_theory", "files": 3})  # fmt: skip
    manifest.write_text(json.dumps(data))
    into = tmp_path / "corpora"
    with pytest.raises(FetchError) as failure:
        fetch(mirror, into)
    message = str(failure.value)
    assert "planetmath/60_Probability_theory" in message and "run the command again" in message
    assert sorted(p.name for p in into.iterdir()) == ["stacks"]  # finished and kept; nothing of planetmath

    make_repo(folder, "planetmath/60_Probability_theory", [{"60A99-Probability.tex": "\\pmcanonicalname{P}\n",
                                                             "LICENSE": "x\n", "README.md": "x\n"}])  # fmt: skip
    statuses = {f.name: f.status for f in fetch(mirror, into)}
    assert statuses["stacks"] == "present" and statuses["planetmath"] == "fetched"
    assert "60_Probability_theory/60A99-Probability.tex" in files_under(into / "planetmath")


@pytest.mark.parametrize("change, error", [
    ({"commit": "0000000"}, "commit 0000000 is not on the default branch"),
    ({"files": 6}, "5 files kept at .*, the manifest expects 6"),
])  # fmt: skip
def test_a_commit_or_file_count_the_manifest_does_not_expect_is_an_error(mirror, tmp_path: Path, change, error):
    data = json.loads(mirror[2].read_text())
    data["corpora"][0]["repos"][0].update(change)
    mirror[2].write_text(json.dumps(data))
    with pytest.raises(FetchError, match=error):
        fetch(mirror, tmp_path / "corpora", ["stacks"])
    assert list((tmp_path / "corpora").iterdir()) == []


def test_a_folder_that_was_not_fetched_is_left_alone(mirror, tmp_path: Path):
    own = tmp_path / "corpora" / "napkin" / "notes.tex"
    own.parent.mkdir(parents=True)
    own.write_text("mine")
    with pytest.raises(FetchError, match="was not fetched by theorem-rag"):
        fetch(mirror, tmp_path / "corpora", ["napkin"])
    assert files_under(own.parent) == {"notes.tex"}


def test_mathlib_is_fetched_only_when_named(mirror, tmp_path: Path):
    into = tmp_path / "corpora"
    fetch(mirror, into, ["napkin"])
    fetch(mirror, into)
    assert not (into / "mathlib4").exists()
    assert [f.name for f in fetch(mirror, into, ["mathlib4"])] == ["mathlib4"]
    assert files_under(into / "mathlib4") == {STAMP, "Mathlib/Algebra/Group.lean", "Mathlib/Order/README.md",
                                              "docs/100.yaml", "LICENSE"}  # fmt: skip


def test_locate_or_fetch_prefers_the_override_then_the_shared_folder(mirror, tmp_path: Path):
    shared = tmp_path / "shared" / "corpora"
    for name in DEFAULTS:
        (shared / name).mkdir(parents=True)
    into = tmp_path / "data" / "corpora"
    args = ["corpus", "locate-or-fetch", *DEFAULTS, "--shared", str(shared), "--into", str(into), "--mirror",
            str(mirror[0]), "--manifest", str(mirror[2])]  # fmt: skip
    runner = CliRunner()
    assert runner.invoke(main, args, env={"THEOREM_RAG_CORPORA": None}).stdout.strip() == str(shared)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert runner.invoke(main, args, env={"THEOREM_RAG_CORPORA": str(elsewhere)}).stdout.strip() == str(elsewhere)
    assert not into.exists()


@pytest.mark.slow
def test_the_quickstart_fetches_the_corpora_when_shared_is_absent(mirror, tmp_path: Path):
    """The README's first command, ``bash scripts/quickstart.sh``, in a checkout with no ``../shared``: its corpus
    step fetches every corpus from the local mirror into the data directory and its parse makes records of each.
    Setup and the index, model and search steps are stand-ins that record their arguments: the first search comes
    right after the base model's space holds Stacks, on what parse, index and search need; the rest of the setup
    comes last, llama-cpp-python built for it in the background."""
    repo = tmp_path / "checkout"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "quickstart.sh", repo / "scripts" / "quickstart.sh")
    (repo / "scripts" / "setup.sh").write_text('echo "setup $*${PIP_FIND_LINKS:+ from $PIP_FIND_LINKS}" >> "$STEPS"\n')
    trag = repo / ".venv" / "bin" / "theorem-rag"
    trag.parent.mkdir(parents=True)
    trag.write_text('#!/usr/bin/env bash\nif [ "$1" = corpus ]; then exec "$PYTHON" -c '
                    '"from theorem_rag.cli import main; main()" "$@"; fi\necho "$*" >> "$STEPS"\n')  # fmt: skip
    trag.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("THEOREM_RAG_CORPORA", "THEOREM_RAG_EVAL_DIR")}
    env.update(PYTHON=sys.executable, STEPS=str(tmp_path / "steps.log"), PYTHONPATH=str(ROOT),
               THEOREM_RAG_DATA_DIR=str(tmp_path / "data"), THEOREM_RAG_CORPUS_MIRROR=str(mirror[0]),
               THEOREM_RAG_CORPUS_MANIFEST=str(mirror[2]), THEOREM_RAG_NO_PLASTEX="1",
               PIP_FIND_LINKS="/given/wheels")  # fmt: skip
    assert not (tmp_path / "shared").exists()
    proc = subprocess.run(["bash", str(repo / "scripts" / "quickstart.sh")], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sorted(p.name for p in (tmp_path / "data" / "corpora").iterdir()) == sorted(DEFAULTS)
    records = [json.loads(line) for line in (repo / "data" / "records" / "theorems.jsonl").open()]
    assert {r["source"] for r in records} == set(DEFAULTS)
    assert "stacks:0001" in {r["id"] for r in records}
    first = "search a local ring has a unique maximal ideal -k 5"
    steps = (tmp_path / "steps.log").read_text().splitlines()
    # llama-cpp-python's wheel is built in the background from the start, into the folder the last setup reads
    background = [s for s in steps if s.startswith("setup --wheels ")]
    assert len(background) == 1, steps
    wheels = background[0].removeprefix("setup --wheels ").removesuffix(" from /given/wheels")
    assert steps[-1] == f"setup  from {wheels} /given/wheels", steps
    assert [s for s in steps[:-1] if s not in background] == [
        "setup corpus,index from /given/wheels", "index build --records data/records --source stacks", first,
        "index build --records data/records", "index build --records data/records --embed-model math-minilm-v4",
        "index build --records data/records --embed-field statement", "model premise-head --no-eval-exclusion",
        first, "search 1-1 correspondence -k 3"]  # fmt: skip
    assert re.search(r"^first search after \d+m\d\ds$", proc.stdout, re.MULTILINE), proc.stdout


@pytest.mark.slow
def test_the_shipped_manifest_describes_the_shared_corpora():
    """Every corpus of the shipped manifest, applied to ``../shared/corpora`` as if it were the repositories, keeps
    exactly the shared files (less the two license PDFs of lebl-ra: text only) and counts them right."""
    corpora = shared_dir() / "corpora"
    if not (corpora / "stacks").is_dir():
        pytest.fail(f"the shared corpora are missing: expected {corpora} (or set THEOREM_RAG_SHARED)")
    for spec in load_manifest().corpora.values():
        expected = {p for p in files_under(corpora / spec.name) if not p.endswith(".pdf")} - set(spec.write)
        kept = {}
        for part in spec.parts:
            shared = files_under(corpora / spec.name / part.dest)
            prefix = f"{part.root}/" if part.root else ""
            kept |= part.select(prefix + p for p in shared)
            assert part.files == len(part.select(prefix + p for p in shared)), part.repo
        assert set(kept) == expected, spec.name
    papers = [json.loads(line) for line in (DATA / "papers.jsonl").open()]
    assert (DATA / "papers.jsonl").read_text() == (corpora / "papers" / "MANIFEST.jsonl").read_text()
    parts = load_manifest().corpora["papers"].parts
    assert [(p.dest, p.repo, p.commit) for p in parts] == [(e["id"], e["repo"], e["commit"]) for e in papers]
