#!/usr/bin/env bash
# Time the two build stages of scripts/quickstart.sh (after setup) on a fresh data folder, with CPU time
# (/usr/bin/time -v) and the load average sampled every 15 s, so figures from a shared machine can be judged.
#
#   bash benchmarks/time_quickstart.sh OUT_FOLDER [DATA_DIR]
#
# OUT_FOLDER gets records/, parse.time, build.time, query_space.time, head.time, search.time, load.log and the command outputs; DATA_DIR
# (default OUT_FOLDER/data) must not exist yet. Extra arguments for `corpus parse` come from PARSE_ARGS; the corpora
# from THEOREM_RAG_CORPORA (../shared/corpora) and THEOREM_RAG_SOURCES (all seven, space-separated).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:?output folder}"
DATA="${2:-$OUT/data}"
CORPORA="${THEOREM_RAG_CORPORA:-../shared/corpora}"
PY="${PYTHON:-.venv/bin/python}"
CLI=(-c "from theorem_rag.cli import main; main()")
[ ! -e "$DATA" ] || { echo "data folder $DATA exists: the timing is for a fresh one" >&2; exit 2; }
mkdir -p "$OUT"
export HF_HUB_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True TOKENIZERS_PARALLELISM=false OMP_WAIT_POLICY=PASSIVE
export THEOREM_RAG_DATA_DIR="$DATA"
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 15; done ) > "$OUT/load.log" &
SAMPLER=$!
trap 'kill $SAMPLER' EXIT
stage() {
  local name=$1; shift
  echo "$(date -u +%H:%M:%S) start $name" >> "$OUT/stages.log"
  /usr/bin/time -v -o "$OUT/$name.time" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  echo "$(date -u +%H:%M:%S) end $name" >> "$OUT/stages.log"
}
read -ra SOURCES <<< "${THEOREM_RAG_SOURCES:-stacks planetmath openlogic napkin hott lebl-ra papers}"
# shellcheck disable=SC2086
stage parse "$PY" "${CLI[@]}" corpus parse "${SOURCES[@]/#/$CORPORA/}" --out "$OUT/records" --quiet ${PARSE_ARGS:-}
stage build "$PY" "${CLI[@]}" index build --records "$OUT/records"
stage query_space "$PY" "${CLI[@]}" index build --records "$OUT/records" --embed-model math-minilm-v4
stage head "$PY" "${CLI[@]}" model premise-head --eval-dir "${THEOREM_RAG_EVAL_DIR:-../shared/eval}"
stage search "$PY" "${CLI[@]}" search "a local ring has a unique maximal ideal" -k 5
for name in parse build query_space head search; do
  grep -E "Elapsed|User time|System time|Maximum resident" "$OUT/$name.time" | sed "s/^/$name: /"
done
