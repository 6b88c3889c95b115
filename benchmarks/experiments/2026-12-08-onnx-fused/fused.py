"""Throughput and fidelity of the int8 ONNX encoder with BERT's operators fused before quantizing (attention,
skip-layer-norm, GELU: ``onnxruntime.transformers.optimizer``) against the shipped int8 graph, alternated on the same
texts; each against the float model (sentence-transformers on torch).

    python benchmarks/experiments/2026-12-08-onnx-fused/fused.py OUT_DIR [N_TEXTS] [ROUNDS] [MODEL]

The texts: every statement's words (the words space, 256 tokens) and slogans (128 tokens), a random sample of the
quickstart's records (`data/records`).
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from theorem_rag.config import DEFAULT_EMBED_MODEL
from theorem_rag.embed import Embedder, embed_text_for
from theorem_rag.embed_onnx import OnnxInt8Encoder, _eager_attention, _Forward, tokenize
from theorem_rag.records import Theorem
from theorem_rag.slogans.offline import offline_slogan

ROOT = Path(__file__).resolve().parents[3]


def export_fused(st_model, folder: Path) -> Path:
    """The model exported as the shipped recipe does, its BERT operators fused, then quantized the same way."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.optimizer import optimize_model

    folder.mkdir(parents=True, exist_ok=True)
    sample = tokenize(st_model, ["An example sentence to trace the model.", "Another, longer example sentence."])
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in sample]
    wrapped = _Forward.build(st_model, names)
    fp32 = folder / "model.onnx"
    axes = {n: {0: "batch", 1: "tokens"} for n in names} | {"sentence_embedding": {0: "batch"}}
    with torch.no_grad(), _eager_attention(st_model):
        torch.onnx.export(wrapped, tuple(sample[n] for n in names), str(fp32), input_names=names,
                          output_names=["sentence_embedding"], dynamic_axes=axes, opset_version=17, dynamo=False)
    cfg = st_model[0].auto_model.config
    opt = optimize_model(str(fp32), model_type="bert", num_heads=cfg.num_attention_heads, hidden_size=cfg.hidden_size)
    print("fused operators:", opt.get_fused_operator_statistics(), flush=True)
    fused = folder / "model_fused.onnx"
    opt.save_model_to_file(str(fused))
    int8 = folder / "model_fused_int8.onnx"
    # the fused operators (com.microsoft domain) defeat shape inference: their outputs are float
    import onnx

    ops = os.environ.get("QUANTIZE_OPS")  # e.g. "MatMul": the fused Attention left in float
    if ops == "none":
        return fused
    quantize_dynamic(str(fused), str(int8), weight_type=QuantType.QInt8, per_channel=True,
                     op_types_to_quantize=ops.split(",") if ops else None,
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    return int8


def main() -> None:
    import onnxruntime as ort

    out = Path(sys.argv[1])
    n, rounds = (int(sys.argv[2]) if len(sys.argv) > 2 else 3000), (int(sys.argv[3]) if len(sys.argv) > 3 else 2)
    model_name = sys.argv[4] if len(sys.argv) > 4 else DEFAULT_EMBED_MODEL
    random.seed(0)
    lines = (ROOT / "data" / "records" / "theorems.jsonl").read_text().splitlines()
    theorems = [Theorem.from_dict(json.loads(line)) for line in random.sample(lines, n)]
    model = Embedder(model_name)
    cut = model.reading(128)
    sets = {"statement words (256 tokens)": [embed_text_for(t, None, "statement") for t in theorems],
            "slogans (128 tokens)": cut._cut([offline_slogan(t) for t in theorems])}
    shipped = OnnxInt8Encoder(model.model, model_name, Path(tempfile.mkdtemp(prefix="onnx-shipped-")))
    fused = OnnxInt8Encoder(model.model, model_name, Path(tempfile.mkdtemp(prefix="onnx-fused-")))
    path = export_fused(model.model, out / "model")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = shipped.session.get_session_options().intra_op_num_threads
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    fused.session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    rows = []
    for name, texts in sets.items():
        ref = model.model.encode(texts[:500], batch_size=64, normalize_embeddings=True)
        shipped.encode(texts[:256]), fused.encode(texts[:256])  # warm both
        for r in range(rounds):
            t = time.perf_counter(); a_vec = shipped.encode(texts); a = time.perf_counter() - t
            t = time.perf_counter(); b_vec = fused.encode(texts); b = time.perf_counter() - t
            ca = (a_vec[:500] * ref).sum(axis=1)
            cb = (b_vec[:500] * ref).sum(axis=1)
            row = dict(texts=name, round=r + 1, shipped_per_s=round(n / a, 1), fused_per_s=round(n / b, 1),
                       speedup=round(a / b, 3), shipped_cos_float_mean=round(float(ca.mean()), 5),
                       shipped_cos_float_min=round(float(ca.min()), 5), fused_cos_float_mean=round(float(cb.mean()), 5),
                       fused_cos_float_min=round(float(cb.min()), 5),
                       shipped_fused_cos_min=round(float((a_vec * b_vec).sum(axis=1).min()), 5))
            rows.append(row)
            print(json.dumps(row), flush=True)
    (out / f"fused_{model_name}.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
