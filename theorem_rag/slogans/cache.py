"""Where written slogans are kept so none is paid for twice: the key, the row and the cache protocol (pure).

A slogan is keyed by what determines it: the hash of the writer's inputs for the statement (see
:meth:`~theorem_rag.slogans.base.SloganWriter.inputs`), the writer, its prompt version and the model.
:class:`SloganRow` is the one row type, in memory and in the database. Both caches keep the first row written
under a key: a key names one slogan, so a second write (a rerun, a concurrent run) is a duplicate, never an update.

>>> cache = MemorySloganCache()
>>> row = SloganRow("ab12", "offline", "offline-1", "rules", "Flat base change.")
>>> cache.put_many([row])
>>> cache.get_many([row.key, "missing"]) == {row.key: "Flat base change."}
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from theorem_rag.records import digest


def slogan_key(statement_hash: str, writer: str, prompt_version: str, model: str) -> str:
    """The cache key (40 hex digits of :func:`~theorem_rag.records.digest`) over the four parts that decide a slogan.

    >>> len(slogan_key("ab12", "llm", "llm-1", "openai/gpt-4o-mini"))
    40
    """
    return digest(statement_hash, writer, prompt_version, model, length=40)


@dataclass(frozen=True)
class SloganRow:
    """One cached slogan: what it was written from, by whom, and what it cost.

    ``statement_hash`` hashes the writer's inputs for the statement; ``key`` defaults to :func:`slogan_key` of
    the four parts, and a key given that does not match them is refused, as is an empty slogan.

    >>> SloganRow("h", "offline", "v1", "-", "Every PID is a UFD.").key == slogan_key("h", "offline", "v1", "-")
    True
    """

    statement_hash: str
    writer: str
    prompt_version: str
    model: str
    slogan: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    key: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.slogan, str) or not self.slogan.strip():
            raise ValueError(f"empty slogan for statement {self.statement_hash!r}")
        expected = slogan_key(self.statement_hash, self.writer, self.prompt_version, self.model)
        if not self.key:
            object.__setattr__(self, "key", expected)
        elif self.key != expected:
            raise ValueError(f"slogan key {self.key!r} does not match its parts")


@runtime_checkable
class SloganCache(Protocol):
    """Slogans by key. ``put_many`` is durable when it returns (commit) and keeps the first row of a key."""

    def get_many(self, keys: Iterable[str]) -> dict[str, str]:
        """The cached slogans among ``keys``, as ``{key: slogan}``; missing keys are absent."""
        ...

    def put_many(self, rows: Sequence[SloganRow]) -> None:
        """Store rows; a key already present keeps its slogan (first write wins)."""
        ...


class MemorySloganCache:
    """A :class:`SloganCache` in a dict, for tests and one-off runs.

    >>> c = MemorySloganCache(); c.put_many([SloganRow("h", "w", "v", "m", "s")]); list(c.get_many(c.rows).values())
    ['s']
    """

    def __init__(self) -> None:
        self.rows: dict[str, SloganRow] = {}
        self.put_calls = 0

    def get_many(self, keys: Iterable[str]) -> dict[str, str]:
        return {k: self.rows[k].slogan for k in keys if k in self.rows}

    def put_many(self, rows: Sequence[SloganRow]) -> None:
        self.put_calls += 1
        for row in rows:
            self.rows.setdefault(row.key, row)

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
        return {k: row.slogan for k, row in found.items()}

    def put_many(self, rows: Sequence[SloganRow]) -> None:
        self.store.cache_slogans(rows)  # type: ignore[attr-defined]
