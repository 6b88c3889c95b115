#!/usr/bin/env bash
# Lean 4 mathlib beside the LaTeX corpora, opt-in (run after scripts/quickstart.sh, which it does not slow down):
# parse every declaration of Mathlib/ into records, write their offline slogans, embed them into the index's vector
# spaces and search three ways. Reruns are incremental, as for LaTeX. docs/how-to/mathlib.md says what each step
# does and what it costs; benchmarks/results/mathlib_build/ holds the measured times.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True TOKENIZERS_PARALLELISM=false OMP_WAIT_POLICY=PASSIVE
trag=.venv/bin/theorem-rag
[ -x "$trag" ] || { echo "run scripts/quickstart.sh first (it sets up .venv and the index)" >&2; exit 2; }
# ../shared/corpora/mathlib4 where it exists, else fetched once (about 100 MB of Mathlib/ at the pinned commit).
CORPORA=$($trag corpus locate-or-fetch mathlib4)
$trag corpus parse "$CORPORA/mathlib4" --out data/mathlib-records
# The declarations go into the base model's space alone (math-minilm-v4 learned from LaTeX; its space keeps the
# informal statements): a query in words, in LaTeX or in Lean reaches them there.
$trag index build --records data/mathlib-records
$trag search "Nat.Prime.two_le" -k 3
$trag search "∀ ε > 0, ∃ δ > 0, ∀ x, dist x y < δ → dist (f x) (f y) < ε" -k 3
$trag search "every bounded monotone sequence of real numbers converges" -k 3
