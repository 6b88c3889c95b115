"""Caches kept under the index's change marker do not keep what was read before it moved (issue 54).

A reader reads, the marker moves (another process changes the index, another request sees it and empties the cache),
then the reader writes what it read: that value must not land in the emptied cache, where it would stay until the
next change. Each interleaving is forced by a hook around a real read or write, so nothing depends on timing.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import replace

import pytest
from db_helpers import DIM, DOCS, THEOREMS
from test_generation import PAPER, PAPER_THEOREMS, DigestEmbedder, _build

from theorem_rag.db.generation_cache import GenerationCache
from theorem_rag.db.store import TheoremStore
from theorem_rag.records import Hit
from theorem_rag.search import TheoremSearch


def test_what_was_read_before_the_marker_moved_is_not_stored():
    cache: GenerationCache[str, str] = GenerationCache()
    assert cache.advance(1)
    before = cache.stamp()
    assert cache.update({"a": "read under 1"}, before) and cache.get("a") == "read under 1"
    assert not cache.advance(1)  # the same marker: entries stay
    assert cache.get("a") == "read under 1"
    assert cache.advance(2)
    assert cache.get("a") is None
    assert not cache.update({"a": "read under 1"}, before)
    assert cache.copy() == {}
    assert cache.update({"a": "read under 2"}, cache.stamp())
    assert cache.copy() == {"a": "read under 2"}


def test_a_marker_handed_over_out_of_order_voids_the_stamps_too():
    # Two requests read the marker at different times and advance in the opposite order: 2, then the older 1.
    cache: GenerationCache[str, str] = GenerationCache()
    cache.advance(1)
    stamp = cache.stamp()
    cache.advance(2)
    cache.advance(1)
    assert not cache.update({"a": "read under 1, before the move"}, stamp)


@pytest.mark.db
def test_a_space_read_before_a_refresh_is_not_kept_after_it(store, pg_dsn, table_prefix):
    store.vector_space("toy", DIM, index="bit")
    store.refresh()
    read_spaces = store.spaces

    def read_then_another_process_changes_the_kind():
        found = read_spaces()  # the old kind
        with TheoremStore(pg_dsn, table=table_prefix) as other:
            other.set_index_kind("toy", "halfvec")
        store.refresh()  # another request sees the marker move
        return found

    store.spaces = read_then_another_process_changes_the_kind
    assert store.space("toy").index == "bit"  # what this call read
    del store.spaces
    store.refresh()
    assert store.space("toy").index == "halfvec"


@pytest.mark.db
def test_a_space_written_before_a_refresh_is_not_kept_after_it(store, pg_dsn, table_prefix):
    store.vector_space("toy", DIM, index="bit")
    store.refresh()
    assert store.space("toy").index == "bit"
    connection = store.connection

    @contextmanager
    def connection_then_another_process_changes_the_kind():
        with connection() as conn:
            yield conn
        del store.connection  # once: the hook's own reads go straight through
        with TheoremStore(pg_dsn, table=table_prefix) as other:
            other.set_index_kind("toy", "bit")
        store.refresh()

    store.connection = connection_then_another_process_changes_the_kind
    assert store.set_index_kind("toy", "halfvec").index == "halfvec"  # what this call wrote
    store.refresh()
    assert store.space("toy").index == "bit"


@pytest.mark.db
def test_the_apps_document_read_before_a_refresh_is_not_kept_after_it(store, pg_dsn, table_prefix, monkeypatch):
    from theorem_rag.ui.app import Handlers

    _build(store, THEOREMS, DOCS)
    store.upsert_theorems(PAPER_THEOREMS)  # the statements came first; their document later
    handlers = Handlers(TheoremSearch(store, DigestEmbedder(), space="toy", k=3, pool=10), None)
    hit = handlers.search.get_theorem("sag:1")
    get_document = handlers.search.get_document

    def read_then_the_paper_arrives(doc_id):
        found = get_document(doc_id)  # None: not ingested yet
        with TheoremStore(pg_dsn, table=table_prefix) as other:
            other.upsert_documents([PAPER])
        handlers.documents_for([])  # another request sees the marker move
        return found

    monkeypatch.setattr(handlers.search, "get_document", read_then_the_paper_arrives)
    assert handlers.documents_for([hit]) == {}
    monkeypatch.undo()
    assert handlers.documents_for([hit]) == {"sag": PAPER}


class PausingId(str):
    """A document id whose hashing can run a hook once: the one Python call a dict comprehension makes per key, so
    a thread iterating a dict of these can be stopped in the middle."""

    hook = None

    def __hash__(self) -> int:
        hook, self.hook = self.hook, None
        if hook is not None:
            hook()
        return str.__hash__(self)


@pytest.mark.db
def test_the_apps_document_cache_is_read_while_another_thread_fills_it(store):
    from theorem_rag.ui.app import Handlers

    _build(store, THEOREMS, DOCS)
    handlers = Handlers(TheoremSearch(store, DigestEmbedder(), space="toy", k=3, pool=10), None)
    algebra, napkin = PausingId("stacks:algebra"), "napkin:ch1"
    assert handlers.documents_for([Hit(THEOREMS[0].id, 1.0, theorem=replace(THEOREMS[0], doc_id=algebra))])
    paused, resume, seen, errors = threading.Event(), threading.Event(), {}, []

    def pause():
        paused.set()
        resume.wait()

    def reader():
        try:
            seen.update(handlers.documents_for([]))  # stops while going through the cached documents
        except RuntimeError as err:
            errors.append(err)
        finally:
            paused.set()

    algebra.hook = pause
    thread = threading.Thread(target=reader)
    thread.start()
    try:
        paused.wait()
        assert algebra.hook is None, "the reader did not stop inside the cache's iteration"
        napkin_hit = Hit(THEOREMS[4].id, 1.0, theorem=THEOREMS[4])
        assert set(handlers.documents_for([napkin_hit])) == {algebra, napkin}  # inserts while the reader iterates
    finally:
        resume.set()
        thread.join()
    assert errors == []
    assert set(seen) == {algebra}
