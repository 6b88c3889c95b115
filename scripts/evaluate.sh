#!/usr/bin/env bash
# Reproduce the quality table of the README: both embedding spaces on the index built by quickstart.sh, then every
# configuration side by side on the dev panel. Results land in benchmarks/results/eval/ (JSON, Markdown, plots).
# LIMIT (default 400) caps each set at its first N queries to keep the run under ~20 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
E="${THEOREM_RAG_EVAL:-../shared/eval}"
export HF_HUB_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True TOKENIZERS_PARALLELISM=false OMP_WAIT_POLICY=PASSIVE
trag=.venv/bin/theorem-rag
$trag index build --records data/records
$trag index build --records data/records --embed-model math-minilm-v4   # queries in words (the hybrid rows)
$trag index build --records data/records --embed-field latex
# The panel: every dev set of $E (research queries included) and the query-pattern probes.
sets=()
for f in "$E"/*.jsonl benchmarks/probes/dev_probes.jsonl; do [ -f "$f" ] && sets+=(--queries "$f"); done
$trag eval --records data/records --limit "${LIMIT:-400}" --out benchmarks/results/eval --embedding-map 1500 \
    "${sets[@]}" --config bm25-latex,dense-latex,dense-slogan,hybrid-latex,hybrid,hybrid+latex
