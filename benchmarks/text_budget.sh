#!/bin/bash
# The dev-set table of the default (hybrid) search with sqltext.CANDIDATE_BUDGET set to $1, written to $2:
# how many full-text candidates a long query may score before quality drops (benchmarks/results/text_budget/).
#   THEOREM_RAG_DATA_DIR=<full index> bash benchmarks/text_budget.sh 5000 /tmp/budget_5000 <records>
set -euo pipefail
budget=$1 out=$2 records=${3:-data/records}
cd "$(dirname "$0")/.."
python -c "
import sys
import theorem_rag.db.sqltext as st
st.CANDIDATE_BUDGET = int(sys.argv[1])
sys.argv = ['theorem-rag'] + sys.argv[2:]
from theorem_rag.cli import main
main()" "$budget" eval --records "$records" --limit 400 --no-plots \
  --queries ../shared/eval/stacks_slogans_dev.jsonl --queries ../shared/eval/planetmath_synonyms.jsonl \
  --queries ../shared/eval/stacks_proof_refs.jsonl --config hybrid --out "$out"
