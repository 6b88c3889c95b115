"""Deterministic vectors for tests that need an embedder but no model: a text's vector is seeded by its digest."""

from __future__ import annotations

import hashlib

import numpy as np


def text_vector(text: str, dim: int) -> np.ndarray:
    """A deterministic unit vector for a text (seeded by its digest): same text, same vector."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).normal(size=dim).astype(np.float32)
    return v / np.linalg.norm(v)


class CountingEmbedder:
    """Embeds a text as its digest vector and remembers what it was asked to embed."""

    model_name, doc_instruction, dim = "digest", "", 16

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed_documents(self, texts, *, progress=False) -> np.ndarray:
        self.texts += list(texts)
        return np.stack([text_vector(t, self.dim) for t in texts])
