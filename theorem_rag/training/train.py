"""Contrastive fine-tuning of a sentence-transformers model on mined pairs (in-batch and hard negatives).

The loop is sentence-transformers' ``MultipleNegativesRankingLoss`` (optionally wrapped in ``MatryoshkaLoss``)
driven by a plain PyTorch loop: seeded, CPU by default (CUDA when present), a progress bar with an ETA, and a
checkpoint every ``checkpoint_every`` steps so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from theorem_rag.training.pairs import Pair


# The card's first loss is the mean over the first this many steps, its final loss over the last this many.
FIRST_LOSSES, FINAL_LOSSES = 20, 50


@dataclass
class TrainConfig:
    """The recipe; written into the model card beside the weights."""

    base_model: str
    epochs: int = 1
    batch_size: int = 64
    learning_rate: float = 2e-5
    warmup_ratio: float = 0.1
    max_seq_length: int = 128
    hard_negatives: bool = True
    matryoshka: bool = False
    scale: float = 20.0
    seed: int = 0
    device: str = "auto"
    checkpoint_every: int = 100
    extra: dict[str, Any] = field(default_factory=dict)


def batches(pairs: Sequence[Pair], batch_size: int, rng: random.Random) -> list[list[Pair]]:
    """Shuffled batches in which no anchor text and no positive statement repeats (either would be a false
    in-batch negative); pairs that do not fit are carried to the next batch.

    >>> ps = [Pair("name", f"a{i % 3}", "p", "n", "x", f"t{i % 3}") for i in range(9)]
    >>> all(len({p.positive_id for p in b}) == len(b) for b in batches(ps, 3, random.Random(0)))
    True
    """
    order = list(pairs)
    rng.shuffle(order)
    out: list[list[Pair]] = []
    pending = order
    while pending:
        carry: list[Pair] = []
        batch: list[Pair] = []
        anchors: set[str] = set()
        targets: set[str] = set()
        for p in pending:
            if p.anchor in anchors or p.positive_id in targets:
                carry.append(p)
                continue
            batch.append(p)
            anchors.add(p.anchor)
            targets.add(p.positive_id)
            if len(batch) == batch_size:
                out.append(batch)
                batch, anchors, targets = [], set(), set()
        if batch:
            out.append(batch)
        if len(carry) == len(pending):  # nothing placed: would loop forever
            out.extend([p] for p in carry)
            break
        pending = carry
    return out


def _device(name: str) -> str:
    if name != "auto":
        return name
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def train(pairs: Sequence[Pair], config: TrainConfig, out_dir: str | Path, *, progress: bool = True) -> dict:
    """Fine-tune ``config.base_model`` on ``pairs`` and save it (fp32) to ``out_dir``; returns the run summary."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.losses import MatryoshkaLoss, MultipleNegativesRankingLoss
    from tqdm.auto import tqdm

    from theorem_rag.embed_models import resolve_model_path

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    random.seed(config.seed)
    torch.manual_seed(config.seed)
    device = _device(config.device)
    os.environ["HF_HUB_OFFLINE"] = "1"
    model = SentenceTransformer(resolve_model_path(config.base_model), device=device, local_files_only=True)
    model.max_seq_length = config.max_seq_length
    loss: Any = MultipleNegativesRankingLoss(model, scale=config.scale)
    if config.matryoshka:
        dim = model.get_sentence_embedding_dimension()
        loss = MatryoshkaLoss(model, loss, [d for d in (dim, 256, 128, 64) if d <= dim])

    plan = [b for epoch in range(config.epochs) for b in batches(pairs, config.batch_size,
                                                                   random.Random(config.seed + epoch))]
    total = len(plan)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    warmup = max(1, int(total * config.warmup_ratio))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / warmup) * max(0.0, (total - s) / max(1, total - warmup))
        if s >= warmup else (s + 1) / warmup)

    checkpoint = out_dir / "checkpoint.pt"
    start = 0
    # What the card reports (seconds, first and final loss) covers the whole run: a checkpoint carries the time
    # spent and the losses it needs (the first FIRST_LOSSES, the last FINAL_LOSSES) into the run that resumes it.
    spent, head, tail = 0.0, [], []
    if checkpoint.exists():
        state = torch.load(checkpoint, map_location=device, weights_only=False)
        if state.get("config") == asdict(config) and state.get("total") == total:
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            scheduler.load_state_dict(state["scheduler"])
            start = state["step"]
            spent, head, tail = state.get("seconds", 0.0), state.get("first_losses", []), state.get("last_losses", [])
    model.train()
    losses: list[float] = []
    began = time.time()

    def so_far() -> tuple[float, list[float], list[float]]:
        """The whole run's seconds, first losses and last losses up to now, resumed parts included."""
        return spent + time.time() - began, (head + losses)[:FIRST_LOSSES], (tail + losses)[-FINAL_LOSSES:]

    bar = tqdm(total=total, initial=start, desc="training", unit="batch", disable=not progress)
    for step in range(start, total):
        batch = plan[step]
        columns = [[p.anchor for p in batch], [p.positive for p in batch]]
        if config.hard_negatives:
            columns.append([p.negative for p in batch])
        features = [{k: v.to(device) for k, v in model.tokenize(col).items() if hasattr(v, "to")} for col in columns]
        value = loss(features, None)
        value.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        losses.append(float(value.detach()))
        bar.update(1)
        bar.set_postfix(loss=f"{sum(losses[-20:]) / len(losses[-20:]):.3f}")
        if config.checkpoint_every and (step + 1) % config.checkpoint_every == 0 and step + 1 < total:
            seconds, first, last = so_far()
            torch.save({"config": asdict(config), "total": total, "step": step + 1, "model": model.state_dict(),
                        "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                        "seconds": seconds, "first_losses": first, "last_losses": last}, checkpoint)  # fmt: skip
    bar.close()
    model.eval()
    model.save(str(out_dir))
    checkpoint.unlink(missing_ok=True)
    seconds, first, last = so_far()
    summary = {
        "config": asdict(config), "pairs": len(pairs), "steps": total, "device": device,
        "seconds": round(seconds, 1),
        "final_loss": round(sum(last) / len(last), 4) if last else None,
        "first_loss": round(sum(first) / len(first), 4) if first else None,
    }
    if start:
        summary["resumed_at_step"] = start
    (out_dir / "training.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def subsample(pairs: Sequence[Pair], limits: dict[str, int], seed: int = 0) -> list[Pair]:
    """At most ``limits[kind]`` pairs of each kind (all of a kind without a limit), chosen with ``seed``."""
    rng = random.Random(seed)
    by_kind: dict[str, list[Pair]] = {}
    for p in pairs:
        by_kind.setdefault(p.kind, []).append(p)
    out: list[Pair] = []
    for kind, group in by_kind.items():
        n = limits.get(kind, len(group))
        out.extend(group if n >= len(group) else rng.sample(group, n))
    return out
