"""Throughput of the int8 ONNX encoder: many batches side by side on single-threaded sessions, a batch a core
(`OnnxInt8Encoder.encode` with lanes.patch applied), against the same batches one after the other on one session with every core (the
encoder before), alternated, on the same texts.

    python benchmarks/experiments/2026-12-07-onnx-lanes/lanes.py DATA_DIR [N_TEXTS] [ROUNDS]

DATA_DIR holds the quickstart's `onnx/` cache; the texts are every statement's words and slogans as the words and
base spaces embed them, a random sample of the quickstart's records (`data/records`).
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from theorem_rag.config import DEFAULT_EMBED_MODEL
from theorem_rag.embed import Embedder, embed_text_for
from theorem_rag.embed_onnx import OnnxInt8Encoder
from theorem_rag.records import Theorem
from theorem_rag.slogans.offline import offline_slogan

ROOT = Path(__file__).resolve().parents[3]


def in_turn(enc: OnnxInt8Encoder, texts: list[str], batch_size: int = 64) -> np.ndarray:
    """The encoder before: every batch on the one session with every core, one after the other."""
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    out = [None] * len(texts)
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        for i, v in zip(idx, enc.session.run(["sentence_embedding"], enc._feed([texts[i] for i in idx]))[0]):
            out[i] = v
    arr = np.asarray(out, dtype=np.float32)
    return arr / np.linalg.norm(arr, axis=1, keepdims=True)


def main() -> None:
    data_dir = Path(sys.argv[1])
    n, rounds = (int(sys.argv[2]) if len(sys.argv) > 2 else 3000), (int(sys.argv[3]) if len(sys.argv) > 3 else 2)
    random.seed(0)
    lines = (ROOT / "data" / "records" / "theorems.jsonl").read_text().splitlines()
    theorems = [Theorem.from_dict(json.loads(line)) for line in random.sample(lines, n)]
    model = Embedder(DEFAULT_EMBED_MODEL)
    cut = model.reading(128)
    sets = {"statement words (256 tokens)": [embed_text_for(t, None, "statement") for t in theorems],
            "slogans (128 tokens)": cut._cut([offline_slogan(t) for t in theorems])}
    enc = OnnxInt8Encoder(model.model, DEFAULT_EMBED_MODEL, data_dir / "onnx")
    print(f"{enc.threads} cores, {n} texts a set")
    for name, texts in sets.items():
        enc.encode(texts[:256]), in_turn(enc, texts[:256])  # warm both
        for r in range(rounds):
            t = time.perf_counter(); before = in_turn(enc, texts); a = time.perf_counter() - t
            t = time.perf_counter(); after = enc.encode(texts); b = time.perf_counter() - t
            cos = float((before * after).sum(axis=1).min())
            print(f"{name}, round {r + 1}: one session {n / a:.1f} texts/s, side by side {n / b:.1f} texts/s "
                  f"({a / b:.2f}x); least cosine between the two {cos:.5f}", flush=True)


if __name__ == "__main__":
    main()
