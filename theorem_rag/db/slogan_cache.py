"""Slogan cache rows as the database stores them, pure: a slogan is paid for once per statement, writer,
prompt version and model (the key is :func:`theorem_rag.slogans.cache.slogan_key`).

>>> slogan_key("abc", "litellm", "v1", "openai/gpt-4o-mini") == slogan_key("abc", "litellm", "v1", "openai/gpt-4o-mini")
True
"""

from __future__ import annotations

from dataclasses import dataclass

from theorem_rag.slogans.cache import slogan_key

CACHE_COLUMNS = (
    "key", "statement_hash", "writer", "prompt_version", "model", "slogan", "input_tokens", "output_tokens", "cost",
)  # fmt: skip


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
