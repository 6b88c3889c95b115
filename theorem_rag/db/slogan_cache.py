"""Slogan cache records and keys, pure: a slogan is paid for once per statement, writer, prompt version and model.

>>> slogan_key("abc", "litellm", "v1", "openai/gpt-4o-mini") == slogan_key("abc", "litellm", "v1", "openai/gpt-4o-mini")
True
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

CACHE_COLUMNS = (
    "key", "statement_hash", "writer", "prompt_version", "model", "slogan", "input_tokens", "output_tokens", "cost",
)  # fmt: skip


def slogan_key(statement_hash: str, writer: str, prompt_version: str, model: str) -> str:
    """The cache key: a digest of the four parts (NUL-separated, so no two tuples collide by concatenation)."""
    h = hashlib.sha256()
    for part in (statement_hash, writer, prompt_version, model):
        if not isinstance(part, str):
            raise ValueError(f"slogan key parts must be strings, got {part!r}")
        h.update(part.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:40]


@dataclass(frozen=True)
class CachedSlogan:
    """One cached slogan with what it cost; ``key`` defaults to :func:`slogan_key` of the other parts.

    >>> CachedSlogan("h", "offline", "v1", "-", "Every PID is a UFD.").key == slogan_key("h", "offline", "v1", "-")
    True
    """

    statement_hash: str
    writer: str
    prompt_version: str
    model: str
    slogan: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    key: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.slogan, str) or not self.slogan.strip():
            raise ValueError(f"empty slogan for statement {self.statement_hash!r}")
        expected = slogan_key(self.statement_hash, self.writer, self.prompt_version, self.model)
        if not self.key:
            object.__setattr__(self, "key", expected)
        elif self.key != expected:
            raise ValueError(f"slogan key {self.key!r} does not match its parts")

    def row(self) -> tuple:
        return tuple(getattr(self, c) for c in CACHE_COLUMNS)
