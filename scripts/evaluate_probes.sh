#!/usr/bin/env bash
# The query-understanding evidence (docs/query_understanding.md): the probe set per pattern before (hybrid-plain)
# and after (hybrid), the confidence calibration on the dev sets, and the dev table's hybrid row before and after.
# Needs the full index (THEOREM_RAG_DATA_DIR or THEOREM_RAG_DATABASE_URL) and the records it was built from.
set -euo pipefail
cd "$(dirname "$0")/.."
E="${THEOREM_RAG_EVAL:-../shared/eval}"
R="${RECORDS:-data/records}"
PY="${PYTHON:-.venv/bin/python}"
export HF_HUB_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True TOKENIZERS_PARALLELISM=false OMP_WAIT_POLICY=PASSIVE
trag() { "$PY" -c "from theorem_rag.cli import main; main()" "$@"; }
"$PY" benchmarks/probes/make_probes.py --records "$R"
trag eval --records "$R" --no-plots --queries benchmarks/probes/dev_probes.jsonl --config hybrid-plain,hybrid \
    --out benchmarks/results/probes/eval
"$PY" benchmarks/calibrate_confidence.py --limit "${CALIB_LIMIT:-300}"
"$PY" benchmarks/probe_table.py benchmarks/results/probes/eval/results.json
trag eval --records "$R" --no-plots --limit "${LIMIT:-400}" --out benchmarks/results/probes/dev_table \
    --queries "$E/stacks_slogans_dev.jsonl" --queries "$E/planetmath_synonyms.jsonl" \
    --queries "$E/stacks_proof_refs.jsonl" --config hybrid-plain,hybrid
