"""The ``Store`` protocol is what retrieval and search read from the store: ``TheoremStore`` implements it with the
same signatures, and a search, its plan, premises and papers read nothing else."""

from __future__ import annotations

import inspect

import pytest

from theorem_rag.retrieval.store_protocol import Store

# Read by the retriever through getattr with a default, so a store without them still serves: not in the protocol.
OPTIONAL = frozenset({"dense_walk", "premise_head", "is_pinned"})


def protocol_methods() -> set[str]:
    return {name for name, value in vars(Store).items() if inspect.isfunction(value) and not name.startswith("_")}


def test_the_store_implements_the_protocol_with_the_same_signatures():
    from theorem_rag.db.store import TheoremStore

    missing = sorted(name for name in protocol_methods() if not hasattr(TheoremStore, name))
    assert missing == []
    differ = {name: (str(inspect.signature(getattr(Store, name))), str(inspect.signature(getattr(TheoremStore, name))))
              for name in protocol_methods()}  # fmt: skip
    assert {name: pair for name, pair in differ.items() if pair[0] != pair[1]} == {}


class ProtocolOnly:
    """A store that answers the protocol's methods (and the optional ones) and raises on anything else."""

    def __init__(self, store: object) -> None:
        self._store = store

    def __getattr__(self, name: str) -> object:
        if name not in protocol_methods() | OPTIONAL:
            raise AttributeError(f"{name} is not in the Store protocol")
        return getattr(self._store, name)


@pytest.mark.db
def test_a_search_reads_only_what_the_protocol_declares(tiny_search):
    from theorem_rag.search import TheoremSearch

    only = TheoremSearch(ProtocolOnly(tiny_search.store), tiny_search.embedder, space=tiny_search.space, k=5,
                         max_k=50)  # fmt: skip
    query = "every finite integral domain is a field"
    found = only.results(query, k=5)
    assert [h.theorem_id for h in found.hits] == [h.theorem_id for h in tiny_search.search(query, k=5)]
    assert only.assess(query, found.hits, found.plan).confidence == tiny_search.assess(query, found.hits).confidence
    assert [h.theorem_id for h in only.premises("stacks:00AC", 3)] == [
        h.theorem_id for h in tiny_search.premises("stacks:00AC", 3)]  # fmt: skip
    assert [p.doc_id for p in only.search_papers(query, k=2)] == [p.doc_id for p in tiny_search.search_papers(query, k=2)]
    with pytest.raises(AttributeError, match="not in the Store protocol"):
        only.store.upsert_theorems  # noqa: B018 - a write is no part of what a search reads
