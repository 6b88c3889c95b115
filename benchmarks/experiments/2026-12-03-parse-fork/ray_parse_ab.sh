#!/usr/bin/env bash
# Ray parse of OpenLogic: qt_a (c827d66: Ray workers run a fresh interpreter per plasTeX run) and main (8f7d6cb: the fork server)
. /work/main/.venv/bin/activate
export HF_HUB_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True TOKENIZERS_PARALLELISM=false OMP_WAIT_POLICY=PASSIVE RAY_ADDRESS=
C=/work/shared/corpora; O=/work/scratch/rpab; mkdir -p $O
for t in ${TREES:-qt_a main}; do
  rm -rf $O/$t; mkdir -p $O/$t
  cd /work/$t
  echo "$(date -u +%H:%M:%S) start $t loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >> $O/stages.log
  PYTHONPATH=/work/$t /usr/bin/time -v -o $O/$t/parse.time python -c "from theorem_rag.cli import main; main()" corpus parse ${CORPORA:-$C/openlogic} --engine ray --out $O/$t/records --quiet > $O/$t/parse.out 2> $O/$t/parse.err
  echo "$(date -u +%H:%M:%S) end $t rc=$? loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >> $O/stages.log
done
