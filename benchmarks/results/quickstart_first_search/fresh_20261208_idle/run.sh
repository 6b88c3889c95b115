#!/bin/bash
# Two fresh quickstarts one after the other on the idle VM: the new order (HEAD) and the baseline (c592d3b).
set -u
R=/work/qs_runs2
rm -rf /work/qs_new /work/qs_old $R/data_new $R/data_old
git clone -q /work/main /work/qs_new
git clone -q /work/main /work/qs_old && git -C /work/qs_old checkout -q c592d3b
export PIP_NO_CACHE_DIR=1
# warm the page cache for the corpora both read
find /work/shared/corpora -path '*/mathlib4' -prune -o -type f -print0 | xargs -0 cat > /dev/null
( while true; do echo "$(date +%T) $(cut -d' ' -f1 /proc/loadavg)"; sleep 15; done ) > $R/load.log &
LOADPID=$!
for t in new old; do
  cd /work/qs_$t
  echo "$(date +%T) start $t" >> $R/stages.log
  ( while sleep 5; do for p in "parse:" "total:" "space minilm_l6_v2_slogan:" "first search after" "space math_minilm_v4_slogan:" "space minilm_l6_v2_statement:" "premise head" "searches done" "quickstart done"; do
      grep -q "$p" $R/$t.out 2>/dev/null && ! grep -q "$t|$p" $R/milestones.log 2>/dev/null && echo "$t|$p|$(date +%T)" >> $R/milestones.log; done; done ) &
  MON=$!
  THEOREM_RAG_DATA_DIR=$R/data_$t /usr/bin/time -v -o $R/$t.time bash scripts/quickstart.sh > $R/$t.out 2>&1
  echo "$(date +%T) end $t rc=$?" >> $R/stages.log
  sleep 6; kill $MON
done
kill $LOADPID
