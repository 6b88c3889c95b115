"""The first N documents of one source tree parsed both ways in turn (a fork of this process, a fresh interpreter
per plasTeX run), alternating which goes first; checks the extractions are identical and prints the seconds.

    python ab_fork.py TREE SOURCE_DIR N      # TREE: a checkout with the fork path (corpus_build/plastex_child.py)
"""

import pickle
import sys
import tempfile
import time
from pathlib import Path

tree, src, n = Path(sys.argv[1]).resolve(), Path(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, str(tree))
import corpus_build.plastex_child as PP  # noqa: E402
from corpus_build.parse import DEFAULT_MAX_FILE_BYTES, adapters_for, plan_tree  # noqa: E402
from corpus_build.report import SourceReport  # noqa: E402
from corpus_build.units import parse_unit  # noqa: E402

assert PP.__file__.startswith(str(tree)), PP.__file__
rep = SourceReport(source=str(src), path=str(src), corpus="")
adapter = adapters_for(src, Path(tempfile.mkdtemp()), rep, DEFAULT_MAX_FILE_BYTES)[0]
plan = plan_tree(adapter, rep, use_plastex=True, max_bytes=DEFAULT_MAX_FILE_BYTES)
jobs = list(plan.jobs.values())[:n]
times = {True: 0.0, False: 0.0}
same = 0
for i, job in enumerate(jobs):
    outs = {}
    for fork in (True, False) if i % 2 else (False, True):
        PP._can_fork = lambda fork=fork: fork
        t = time.perf_counter()
        ext = parse_unit(job)
        times[fork] += time.perf_counter() - t
        outs[fork] = pickle.dumps(([s.__dict__ for s in ext.statements], ext.parser, ext.reason, ext.found_by))
    same += outs[True] == outs[False]
print(f"{src.name}: {len(jobs)} documents, identical {same}; seconds: fork {times[True]:.1f}, "
      f"fresh interpreter {times[False]:.1f}")
