"""Interpolate the weights of a fine-tuned model with its base (WiSE-FT: ``(1 - alpha) * base + alpha * tuned``),
to keep more of what the base model knew. Writes a model folder like ``theorem-rag model train`` does (fp16
weights, the tuned model's ``theorem_rag.json`` with the interpolation added, its card).

    python benchmarks/model_interpolate.py models/math-minilm-v2 --alpha 0.5 --out models/math-minilm-v2-w50

Tried once (2026-12-02, benchmarks/results/model_v2/README.md): alpha 0.5 of math-minilm-v2 keeps the Stacks slogan
gain (hybrid Hit@20 0.750 -> 0.787) but not proof references in ordinary search (hybrid Recall@20 0.385 -> 0.370).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from theorem_rag.config import DEFAULT_BASE_MODEL
from theorem_rag.embed import MODEL_SETTINGS_FILE, resolve_model_path


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("tuned", type=Path, help="Folder of the fine-tuned model (from `theorem-rag model train`).")
    p.add_argument("--base", default=DEFAULT_BASE_MODEL, help="The model it was tuned from (name or folder).")
    p.add_argument("--alpha", type=float, required=True, help="Weight of the tuned model, in [0, 1].")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    if not 0 <= args.alpha <= 1:
        raise SystemExit("--alpha must be in [0, 1]")
    import torch
    from safetensors.torch import load_file, save_file

    base = load_file(str(Path(resolve_model_path(args.base)) / "model.safetensors"))
    tuned = load_file(str(args.tuned / "model.safetensors"))
    missing = set(tuned) - set(base)
    if missing:
        raise SystemExit(f"not the same architecture: {sorted(missing)[:5]} are not in {args.base}")
    if args.out.exists():
        shutil.rmtree(args.out)
    shutil.copytree(args.tuned, args.out)
    mixed = {k: ((1 - args.alpha) * base[k].float() + args.alpha * v.float()).to(torch.float16).contiguous()
             for k, v in tuned.items()}  # fmt: skip
    save_file(mixed, str(args.out / "model.safetensors"), metadata={"format": "pt"})
    meta_path = args.out / MODEL_SETTINGS_FILE
    meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    meta["interpolated"] = {"base": args.base, "tuned": str(args.tuned), "alpha": args.alpha}
    meta_path.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    print(f"saved {args.out}: {1 - args.alpha:g} x {args.base} + {args.alpha:g} x {args.tuned}")


if __name__ == "__main__":
    main()
