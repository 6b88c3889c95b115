"""Where written slogans are kept so none is paid for twice: the key, the row and the cache protocol (pure).

A slogan is keyed by what determines it: the statement's content hash, the writer, its prompt version and the
model. The database implements :class:`SloganCache` over PostgreSQL; :class:`MemorySloganCache` serves tests.

>>> cache = MemorySloganCache()
>>> key = slogan_key("ab12", "offline", "offline-1", "rules")
>>> cache.put_many([SloganRow(key, "Flat base change.", "offline", "rules", "offline-1")])
>>> cache.get_many([key, "missing"]) == {key: "Flat base change."}
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


def slogan_key(statement_hash: str, writer: str, prompt_version: str, model: str) -> str:
    """A sha256 hex digest (first 40 digits) over the four parts that decide a slogan, NUL-separated so no two
    tuples collide by concatenation. The database's cache computes the same key.

    >>> len(slogan_key("ab12", "llm", "llm-1", "openai/gpt-4o-mini"))
    40
    """
    h = hashlib.sha256()
    for part in (statement_hash, writer, prompt_version, model):
        h.update(part.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:40]


@dataclass(frozen=True)
class SloganRow:
    """One cached slogan with who wrote it and what it cost."""

    key: str
    slogan: str
    writer: str
    model: str
    prompt_version: str
    statement_hash: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


@runtime_checkable
class SloganCache(Protocol):
    """Slogans by key. ``put_many`` must be durable when it returns (commit); a key already present may be kept."""

    def get_many(self, keys: Iterable[str]) -> dict[str, str]:
        """The cached slogans among ``keys``, as ``{key: slogan}``; missing keys are absent."""
        ...

    def put_many(self, rows: Sequence[SloganRow]) -> None:
        """Store rows, replacing any with the same key."""
        ...


class MemorySloganCache:
    """A :class:`SloganCache` in a dict, for tests and one-off runs.

    >>> c = MemorySloganCache(); c.put_many([SloganRow("k", "s", "w", "m", "v")]); c.get_many(["k"])
    {'k': 's'}
    """

    def __init__(self) -> None:
        self.rows: dict[str, SloganRow] = {}
        self.put_calls = 0

    def get_many(self, keys: Iterable[str]) -> dict[str, str]:
        return {k: self.rows[k].slogan for k in keys if k in self.rows}

    def put_many(self, rows: Sequence[SloganRow]) -> None:
        self.put_calls += 1
        for row in rows:
            self.rows[row.key] = row

    def __len__(self) -> int:
        return len(self.rows)


class StoreSloganCache:
    """A :class:`SloganCache` over :class:`theorem_rag.db.TheoremStore`'s slogan table (committed per batch).

    >>> cache = StoreSloganCache(store)   # doctest: +SKIP
    """

    def __init__(self, store: object) -> None:
        self.store = store

    def get_many(self, keys: Iterable[str]) -> dict[str, str]:
        found = self.store.cached_slogans(list(keys))  # type: ignore[attr-defined]
        return {k: v.slogan for k, v in found.items()}

    def put_many(self, rows: Sequence[SloganRow]) -> None:
        from theorem_rag.db.slogan_cache import CachedSlogan

        if any(not r.statement_hash for r in rows):
            raise ValueError("the database slogan cache needs each row's statement_hash")
        # Passing key lets CachedSlogan check that both sides derive the same key from the same parts.
        self.store.cache_slogans(  # type: ignore[attr-defined]
            [
                CachedSlogan(
                    statement_hash=r.statement_hash, writer=r.writer, prompt_version=r.prompt_version, model=r.model,
                    slogan=r.slogan, input_tokens=r.prompt_tokens, output_tokens=r.completion_tokens,
                    cost=r.cost_usd, key=r.key,
                )
                for r in rows
            ]
        )
