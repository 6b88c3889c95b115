"""Tiny inputs for the benchmark smoke tests: a LaTeX corpus tree shaped like ``shared/corpora`` (only the files
the benchmarks open, a few statements each), dev query sets over the 51 integration records, and a runner.

Each smoke test runs a benchmark as its users do (``python benchmarks/<script>.py ...``) on these, so a benchmark
that no longer runs fails CI instead of the next measurement.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "integrations"
CLI = "from theorem_rag.cli import main; main()"  # `python -c CLI ARGS...` is `theorem-rag ARGS...`

DOC = r"""\documentclass{article}
\newtheorem{theorem}{Theorem}
\newtheorem{lemma}[theorem]{Lemma}
\newtheorem{definition}[theorem]{Definition}
\begin{document}
%s
\end{document}
"""
CHAPTER = r"""\section{%s}
\begin{definition}\label{definition-%s}A \emph{%s} is a set with an operation.\end{definition}
\begin{lemma}\label{lemma-%s}Every %s has at most one neutral element.\end{lemma}
\begin{proof}Compare two neutral elements, see Definition \ref{definition-%s}.\end{proof}
\begin{theorem}[Main]\label{theorem-%s}If $x^2 = x$ for every $x$ then the %s is commutative.\end{theorem}
"""


THEOREMS = r"\newtheorem{theorem}{Theorem}\newtheorem{lemma}{Lemma}\newtheorem{definition}{Definition}"


def chapter(name: str) -> str:
    return CHAPTER % ((name.title(),) + (name,) * 7)


def write_corpora(root: Path) -> Path:
    """The files the parse benchmarks and ``eval_quick_records.py`` read, in the layout of the real corpora."""
    files = {
        "stacks/preamble.tex": THEOREMS,
        "stacks/tags/tags": "# tag,label\n00A1,sets-lemma-set\n00A2,fields-lemma-field\n00A3,algebra-lemma-ring\n",
        "hott/macros.tex": THEOREMS,
        "hott/preliminaries.tex": chapter("magma"),
        "hott/hlevels.tex": chapter("monoid"),
        "hott/main.tex": DOC % "\\input{preliminaries}\n\\input{hlevels}",
        "napkin/tex/preamble.tex": THEOREMS,
        "napkin/tex/macros.tex": r"\newcommand{\ZZ}{\mathbb{Z}}",
        "napkin/tex/alg-NT/dedekind.tex": chapter("domain"),
        "papers/finkelstein-nc-approximation/ncapproximation.tex": DOC % chapter("quasigroup"),
        "papers/sag-foundations/util/zariski-base.cls": r"\newtheorem{theorem}{Theorem}\newtheorem{lemma}{Lemma}",
        "papers/sag-foundations/util/zariski.cls": r"\newtheorem{definition}{Definition}",
        "papers/sag-foundations/util/zariski.sty": r"\newcommand{\Spec}{\operatorname{Spec}}",
        "papers/sag-foundations/foundations/main.tex": chapter("loop"),
        "planetmath/03_Logic/03E25-AxiomOfChoice.tex": "\\pmcanonicalname{AxiomOfChoice}\n\\pmtitle{axiom of choice}\n"
        "\\pmtype{Theorem}\n\\begin{document}Every set of nonempty sets has a choice function.\\end{document}\n",
    }
    for name, word in (("sets", "set"), ("fields", "field"), ("algebra", "ring")):
        files[f"stacks/{name}.tex"] = "\\input{preamble}\n" + chapter(word)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def write_records(folder: Path) -> Path:
    """The 51 integration records (tests/fixtures/integrations) as a records folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("theorems.jsonl", "documents.jsonl"):
        (folder / name).write_text((FIXTURES / name).read_text(encoding="utf-8"), encoding="utf-8")
    return folder


# Queries over the integration records, in the dev sets' format and file names (one that misses on purpose).
DEV_SETS = {
    "stacks_slogans_dev.jsonl": [
        ("slogan-1", "a local ring has a unique maximal ideal", ["stacks:00AC"]),
        ("slogan-2", "the product of two rings is a ring", ["stacks:00AD"]),
        ("slogan-3", "definition of a ring", ["stacks:00AB"]),
        ("slogan-4", "recipe for banana bread with walnuts", ["stacks:00AE"]),
    ],
    "planetmath_synonyms.jsonl": [
        ("syn-1", "bijective", ["planetmath:Bijection"]),
        ("syn-2", "Cantor's theorem", ["planetmath:CantorsTheorem"]),
        ("syn-3", "guitar chords for wonderwall", ["planetmath:ProofOfCantorsTheorem"]),
        ("syn-4", "chocolate chip cookies", ["planetmath:Bijection"]),  # a miss in the half calibration fits on
    ],
    "stacks_proof_refs.jsonl": [
        ("proof-1", "Let $R$ be a local ring. Then $R$ has a unique maximal ideal.", ["stacks:00AB", "stacks:00AE"]),
        ("proof-2", "The product of two rings $R \\times S$ is a ring.", ["stacks:00AC"]),
    ],
}
PROBES = [("typos-01", "Cantors theorem", ["planetmath:CantorsTheorem"]),
          ("abbrev-01", "bijective map", ["planetmath:Bijection"])]


def write_eval(folder: Path) -> Path:
    """The three dev sets in ``folder``, and the probe sets (``dev_probes.jsonl``, ``nonsense.jsonl``) in
    ``folder/probes``."""
    (folder / "probes").mkdir(parents=True, exist_ok=True)
    sets = {**{name: rows for name, rows in DEV_SETS.items()}, "probes/dev_probes.jsonl": PROBES}
    for name, rows in sets.items():
        lines = [json.dumps({"id": i, "query": q, "relevant": rel}) for i, q, rel in rows]
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    nonsense = {"id": "nonsense-01", "query": "recipe for banana bread"}
    (folder / "probes" / "nonsense.jsonl").write_text(json.dumps(nonsense) + "\n")
    return folder


def env(**extra: str) -> dict[str, str]:
    """The environment a benchmark runs in: offline, torch (no int8 export in tests), the adapted space off."""
    out = {**os.environ, "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "TOKENIZERS_PARALLELISM": "false", "OMP_WAIT_POLICY": "PASSIVE", "THEOREM_RAG_EMBED_BACKEND": "torch",
           "THEOREM_RAG_QUERY_MODEL": ""}
    out.pop("THEOREM_RAG_DATABASE_URL", None)
    out.update(extra)
    return out


def run(*args: str | Path, cwd: Path = ROOT, timeout: float = 600, **env_extra: str) -> str:
    """Run ``python ARGS...`` (a ``.sh`` first argument runs under bash); its output, or a failure that shows it."""
    first = str(args[0])
    cmd = ["bash", *map(str, args)] if first.endswith(".sh") else [sys.executable, *map(str, args)]
    proc = subprocess.run(cmd, cwd=cwd, env=env(**env_extra), capture_output=True, text=True, timeout=timeout)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{' '.join(cmd)} exited {proc.returncode}:\n{output[-6000:]}"
    return output
