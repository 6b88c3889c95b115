#!/usr/bin/env bash
# The main job on the embedded defaults: install, parse the corpora into theorem records, write offline
# slogans, embed them with the bundled MiniLM model and with math-minilm-v4 into the embedded PostgreSQL + pgvector,
# and search.
# Reruns are incremental: unchanged statements are neither re-sloganized nor re-embedded.
set -euo pipefail
cd "$(dirname "$0")/.."
EVAL="${THEOREM_RAG_EVAL_DIR:-../shared/eval}"
export HF_HUB_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True TOKENIZERS_PARALLELISM=false OMP_WAIT_POLICY=PASSIVE
bash scripts/setup.sh
trag=.venv/bin/theorem-rag
# The corpora: $THEOREM_RAG_CORPORA if set, else ../shared/corpora where it exists, else fetched once from their
# public git repositories at pinned commits into <data dir>/corpora (needs git and the network; reruns reuse it).
SOURCES=(stacks planetmath openlogic napkin hott lebl-ra cring papers)
CORPORA=$($trag corpus locate-or-fetch "${SOURCES[@]}")
$trag corpus parse "${SOURCES[@]/#/$CORPORA/}" --out data/records
$trag index build --records data/records
# The space of math-minilm-v4 (MiniLM adapted to mathematics on these corpora, shipped in packages/): queries in
# words search it; statement-shaped queries and premise search stay with the base model's space above.
$trag index build --records data/records --embed-model math-minilm-v4
# The premise head learns from the proof graph what proofs cite; the proofs of evaluation queries stay unread.
if [ -d "$EVAL" ]; then $trag model premise-head --eval-dir "$EVAL"; else $trag model premise-head --no-eval-exclusion; fi
$trag search "a local ring has a unique maximal ideal" -k 5
$trag search "1-1 correspondence" -k 3
