#!/usr/bin/env bash
# Parse of the shared corpora, 2 workers: main (a fresh interpreter per plasTeX run) then qt_a (a fork of the worker)
. /work/main/.venv/bin/activate
export HF_HUB_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True TOKENIZERS_PARALLELISM=false OMP_WAIT_POLICY=PASSIVE
C=/work/shared/corpora; O=/work/scratch/pab; mkdir -p $O
for t in ${TREES:-main qt_a}; do
  rm -rf $O/$t; mkdir -p $O/$t
  cd /work/$t
  python -c "import corpus_build.plastex_parser as p; print(p.__file__)" > $O/$t/which.txt
  echo "$(date -u +%H:%M:%S) start $t loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >> $O/stages.log
  /usr/bin/time -v -o $O/$t/parse.time python -c "from theorem_rag.cli import main; main()" corpus parse $C/{stacks,planetmath,openlogic,napkin,hott,lebl-ra,papers} --out $O/$t/records --quiet > $O/$t/parse.out 2> $O/$t/parse.err
  echo "$(date -u +%H:%M:%S) end $t rc=$? loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >> $O/stages.log
done
