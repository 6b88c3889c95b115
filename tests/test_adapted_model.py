"""The adapted embedder shipped in packages/theorem-rag-math-minilm: it installs with the project, loads offline from
its own files and is not the base model; a missing package is a clear error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from theorem_rag.config import ADAPTED_MODEL, DEFAULT_BASE_MODEL
from theorem_rag.embed import Embedder, resolve_model_path

NAKAYAMA = (r"Let $R$ be a ring, $I$ an ideal contained in the Jacobson radical of $R$ and $M$ a finite $R$-module. "
            r"If $IM = M$ then $M = 0$.")
SNAKE = r"Given a commutative diagram of exact rows there is an exact sequence $\ker f \to \ker g \to \mathrm{coker} h$."
FIELDS = "Every finite integral domain is a field."


def test_the_adapted_model_resolves_to_its_package_with_weights_card_and_recipe():
    path = Path(resolve_model_path(ADAPTED_MODEL))
    assert path.name == "model" and "theorem_rag_math_minilm" in path.parts
    weights = path / "model.safetensors"
    assert 20e6 < weights.stat().st_size < 60e6  # fp16: half of MiniLM-L6's 90 MB in float32
    card = (path / "README.md").read_text(encoding="utf-8")
    assert "theorem-rag model train" in card and "training pairs" in card
    assert json.loads((path / "theorem_rag.json").read_text(encoding="utf-8"))["recipe"]["base_model"] == DEFAULT_BASE_MODEL


def test_a_missing_adapted_package_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "theorem_rag_math_minilm", None)
    with pytest.raises(ImportError, match=r"pip install \./packages/theorem-rag-math-minilm.*THEOREM_RAG_EMBED_MODEL="):
        resolve_model_path(ADAPTED_MODEL)


@pytest.mark.models
def test_the_shipped_weights_embed_offline_and_differ_from_the_base(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import torch

    adapted = Embedder(ADAPTED_MODEL, backend="torch", query_cache_size=0)
    base = Embedder(DEFAULT_BASE_MODEL, backend="torch", query_cache_size=0)
    assert {p.dtype for p in adapted.model.parameters()} == {torch.float32}  # fp16 on disk, float32 on CPU
    docs = [NAKAYAMA, SNAKE, FIELDS]
    a, b = adapted.embed_documents(docs), base.embed_documents(docs)
    assert a.shape == (3, 384) and a.dtype == np.float32 and np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert (a * b).sum(axis=1).max() < 0.995  # other weights than the base model's
    assert int(np.argmax(a @ adapted.embed_query("Nakayama's lemma"))) == 0
    assert int(np.argmax(a @ adapted.embed_query("exact sequence of kernels and cokernels"))) == 1
    assert int(np.argmax(a @ adapted.embed_query("finite domains are fields"))) == 2
