#!/usr/bin/env bash
# The main job on the embedded defaults: install, parse the corpora into theorem records, write offline
# slogans, embed them with the bundled MiniLM model and with math-minilm-v4 into the embedded PostgreSQL + pgvector,
# each statement's words alone with MiniLM, and search. The first search comes as soon as the base model's space
# holds the Stacks Project; the other corpora, the adapted space, the words space, the premise head and what only the
# app, the servers, evaluation and the tests need follow (llama-cpp-python, which compiles for minutes, in the
# background from the start).
# Reruns are incremental: unchanged statements are neither re-sloganized nor re-embedded.
set -euo pipefail
cd "$(dirname "$0")/.."
EVAL="${THEOREM_RAG_EVAL_DIR:-../shared/eval}"
export HF_HUB_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True TOKENIZERS_PARALLELISM=false OMP_WAIT_POLICY=PASSIVE
elapsed() { printf '%dm%02ds' $((SECONDS / 60)) $((SECONDS % 60)); }
bash scripts/setup.sh corpus,index
# llama-cpp-python, which only the app needs, compiles for minutes: built now as a wheel in the background at the
# lowest priority, on the cycles that parsing and embedding leave idle, and installed from that wheel at the end.
WHEELS=$(mktemp -d)
nice -n 19 bash scripts/setup.sh --wheels "$WHEELS" > "$WHEELS/build.log" 2>&1 &
PREBUILD=$!
trap 'kill "$PREBUILD" 2>/dev/null || true; rm -rf "$WHEELS"' EXIT
trag=.venv/bin/theorem-rag
# The corpora: $THEOREM_RAG_CORPORA if set, else ../shared/corpora where it exists, else fetched once from their
# public git repositories at pinned commits into <data dir>/corpora (needs git and the network; reruns reuse it).
SOURCES=(stacks planetmath openlogic napkin hott lebl-ra cring papers)
CORPORA=$($trag corpus locate-or-fetch "${SOURCES[@]}")
$trag corpus parse "${SOURCES[@]/#/$CORPORA/}" --out data/records
# The Stacks Project first (16,850 of about 36,000 statements), so that the first search answers minutes sooner; the
# second build adds the other corpora and leaves Stacks as it is. Queries in words search this space until
# math-minilm-v4's below is complete.
$trag index build --records data/records --source stacks
$trag search "a local ring has a unique maximal ideal" -k 5
echo "first search after $(elapsed)"
$trag index build --records data/records
# The space of math-minilm-v4 (MiniLM adapted to mathematics on these corpora, shipped in packages/): queries in
# words search it; statement-shaped queries and premise search stay with the base model's space above.
$trag index build --records data/records --embed-model math-minilm-v4
# The words space: each statement's words alone, by the base model. A query in words reads its first candidates'
# statements there (theorem_rag/retrieval/statement_words.py); later builds keep it in step.
$trag index build --records data/records --embed-field statement
# The premise head learns from the proof graph what proofs cite; the proofs of evaluation queries stay unread.
if [ -d "$EVAL" ]; then $trag model premise-head --eval-dir "$EVAL"; else $trag model premise-head --no-eval-exclusion; fi
$trag search "a local ring has a unique maximal ideal" -k 5
$trag search "1-1 correspondence" -k 3
echo "searches done after $(elapsed); installing the rest: the app, the servers, evaluation, docs and tests"
wait "$PREBUILD" || { cat "$WHEELS/build.log" >&2; echo "building llama-cpp-python in the background failed; again now"; }
PIP_FIND_LINKS="$WHEELS${PIP_FIND_LINKS:+ $PIP_FIND_LINKS}" bash scripts/setup.sh
echo "quickstart done after $(elapsed)"
