"""A cache of what long-running readers read from the database, kept per value of the index's change marker
(:mod:`theorem_rag.db.generation`), safe to share between threads.

Emptying a dict when the marker moves is not enough on its own: a reader that read before the move and writes after
it puts the old value into the emptied dict, where it stays until the next change (an old index kind, a document
missing that exists now). Here a reader takes a stamp before it reads, and what it read is stored only if the cache
was not emptied since. Pure logic: no driver.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class GenerationCache(Generic[K, V]):
    """Values read from the database, kept while the change marker stays where it was when they were read.

    A reader takes a :meth:`stamp` before it reads the database and hands it to :meth:`update` with what it read.
    :meth:`advance` to another marker drops every entry and voids every stamp taken before, so a value read before
    the marker moved never enters the cache emptied for the new one, however late it is written. Iterate over a
    :meth:`copy`: the cache itself changes under other threads.

    >>> cache = GenerationCache()
    >>> cache.advance(7)
    True
    >>> stamp = cache.stamp()          # then read the database ...
    >>> cache.advance(8)               # ... while another thread sees the marker move
    True
    >>> cache.update({"toy": "read before the move"}, stamp), cache.get("toy")
    (False, None)
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation: int | None = None
        # How many times the cache was emptied: a stamp is void once it differs. Not the marker itself, which two
        # threads that read it at different times may hand to advance() out of order.
        self._stamp = 0
        self._entries: dict[K, V] = {}

    def advance(self, generation: int) -> bool:
        """Keep the entries when ``generation`` is the marker they were read under; otherwise drop them all and
        return True."""
        with self._lock:
            if generation == self._generation:
                return False
            self._generation, self._entries, self._stamp = generation, {}, self._stamp + 1
            return True

    def stamp(self) -> int:
        """What :meth:`update` needs to know whether the cache was emptied since: take it before reading."""
        with self._lock:
            return self._stamp

    def update(self, entries: Mapping[K, V], stamp: int) -> bool:
        """Store ``entries``, read after :meth:`stamp` returned ``stamp``, unless the cache was emptied since (they
        may be stale then, and are dropped); returns whether they were stored."""
        with self._lock:
            if stamp != self._stamp:
                return False
            self._entries.update(entries)
            return True

    def get(self, key: K) -> V | None:
        with self._lock:
            return self._entries.get(key)

    def copy(self) -> dict[K, V]:
        """The entries now, in a dict of their own."""
        with self._lock:
            return dict(self._entries)


__all__ = ["GenerationCache"]
