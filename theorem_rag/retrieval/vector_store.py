"""``TheoremVectorStore``: a LlamaIndex vector store over one embedding space of a TheoremStore.

Unlike LlamaIndex's ``PGVectorStore`` it searches a binary-quantized HNSW index and re-ranks by exact cosine,
binds every filter value, and sets ``hnsw.ef_search`` through ``set_config`` (which works under psycopg 3).

>>> vs = TheoremVectorStore.from_store(store, space="minilm_slogan")     # doctest: +SKIP
>>> vs.query(VectorStoreQuery(query_embedding=[...], similarity_top_k=5))  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

try:
    from llama_index.core.bridge.pydantic import PrivateAttr
    from llama_index.core.schema import BaseNode
    from llama_index.core.vector_stores.types import (
        BasePydanticVectorStore,
        FilterCondition,
        FilterOperator,
        MetadataFilters,
        VectorStoreQuery,
        VectorStoreQueryMode,
        VectorStoreQueryResult,
    )
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError('TheoremVectorStore needs LlamaIndex: pip install "theorem-rag[index]"') from err

from theorem_rag.embed import embed_hash
from theorem_rag.errors import InputError
from theorem_rag.filters import Filters
from theorem_rag.records import Theorem
from theorem_rag.retrieval.hits import hit_to_node

_LIST_KEYS = {"source": "source", "kind": "kind", "doc_id": "doc_id", "paper": "doc_id"}


def metadata_filters_to_filters(filters: MetadataFilters | None) -> Filters:
    """Map LlamaIndex ``MetadataFilters`` onto :class:`Filters`; what cannot be expressed is a clear InputError.

    Supported: ``==`` / ``in`` on source, kind, doc_id (paper); ``==``, ``>=``, ``<=``, ``>``, ``<`` on year;
    conditions joined by AND.
    """
    if filters is None or not filters.filters:
        return Filters()
    if filters.condition not in (None, FilterCondition.AND):
        raise InputError(f"only AND-joined filters are supported, got {filters.condition}")
    values: dict[str, Any] = {}
    for f in filters.filters:
        if isinstance(f, MetadataFilters):
            raise InputError("nested MetadataFilters are not supported")
        if f.key in _LIST_KEYS and f.operator in (FilterOperator.EQ, FilterOperator.IN):
            new = [f.value] if f.operator == FilterOperator.EQ else list(f.value)
            key = _LIST_KEYS[f.key]
            if key in values:  # AND of two value sets is their intersection
                new = [v for v in values[key] if v in new] or ["\uffffno match"]
            values[key] = new
        elif f.key == "year" and f.operator in (FilterOperator.EQ, FilterOperator.GTE, FilterOperator.GT):
            lo = f.value + (1 if f.operator == FilterOperator.GT else 0)
            values["year_min"] = max(lo, values.get("year_min", lo))
            if f.operator == FilterOperator.EQ:
                values["year_max"] = min(f.value, values.get("year_max", f.value))
        elif f.key == "year" and f.operator in (FilterOperator.LTE, FilterOperator.LT):
            hi = f.value - (1 if f.operator == FilterOperator.LT else 0)
            values["year_max"] = min(hi, values.get("year_max", hi))
        else:
            raise InputError(
                f"unsupported filter {f.key!r} {f.operator.value!r}; supported: source/kind/doc_id with == or in, "
                "year with ==, >=, <=, >, <"
            )
    return Filters.from_mapping(values)


class TheoremVectorStore(BasePydanticVectorStore):
    """LlamaIndex vector store over one space (``space``) of a :class:`~theorem_rag.db.store.TheoremStore`."""

    stores_text: bool = True
    flat_metadata: bool = False
    space: str
    pool: int | None = None  # None: by the space's index kind and size (TheoremStore.search_dense)
    ef_search: int | None = None
    iterative_scan: str = "relaxed_order"
    _store: Any = PrivateAttr()

    @classmethod
    def from_store(cls, store: Any, space: str, **kwargs: Any) -> TheoremVectorStore:
        vs = cls(space=space, **kwargs)
        vs._store = store
        return vs

    @property
    def client(self) -> Any:
        return self._store

    def add(self, nodes: Sequence[BaseNode], **kwargs: Any) -> list[str]:
        """Upsert nodes as statements and write their embeddings.

        A node's metadata holds either the full record (``record``: ``Theorem.to_dict()``, as ingestion does) or at
        least ``source`` and ``kind`` (then the node text is the statement). A stored, unchanged record is not
        rewritten; a ``slogan`` in the metadata is stored with it. Each vector is stored under the metadata's
        ``embed_hash`` (what ingestion embedded), else the hash of the node text.
        """
        theorems, vectors = [], []
        hashes = [(n.metadata or {}).get("embed_hash") or embed_hash(n.get_content()) for n in nodes]
        for node in nodes:
            meta = node.metadata or {}
            if node.embedding is None:
                raise InputError(f"node {node.node_id!r} has no embedding")
            if isinstance(meta.get("record"), dict):
                # The full record (what ingestion attaches): the node text is what was embedded, e.g. a slogan.
                theorems.append(Theorem.from_dict(meta["record"]))
                if theorems[-1].id != node.node_id:
                    raise InputError(f"node {node.node_id!r} carries the record of {theorems[-1].id!r}")
                vectors.append(node.embedding)
                continue
            missing = [k for k in ("source", "kind") if not meta.get(k)]
            if missing:
                raise InputError(f"node {node.node_id!r} lacks metadata: {', '.join(missing)} (or a full 'record')")
            theorems.append(
                Theorem(
                    id=node.node_id, source=meta["source"], kind=meta["kind"],
                    body_latex=meta.get("statement") or node.get_content(),
                    doc_id=meta.get("doc_id") or node.ref_doc_id or meta["source"],
                    number=meta.get("number") or None, name=meta.get("name") or None, url=meta.get("url") or None,
                )  # fmt: skip
            )
            vectors.append(node.embedding)
        slogans = {n.node_id: n.metadata["slogan"] for n in nodes if (n.metadata or {}).get("slogan")}
        self._store.upsert_theorems(theorems, slogans=slogans or None)
        if theorems:
            self._store.write_vectors(self.space, [t.id for t in theorems], vectors, hashes=hashes)
        return [t.id for t in theorems]

    def delete(self, ref_doc_id: str, **delete_kwargs: Any) -> None:
        """Delete every statement of a document (LlamaIndex's ref_doc_id is our doc_id)."""
        self._store.delete_document(ref_doc_id)

    def query(self, query: VectorStoreQuery, **kwargs: Any) -> VectorStoreQueryResult:
        if query.mode != VectorStoreQueryMode.DEFAULT:
            raise InputError(f"query mode {query.mode.value!r} is not supported; use TheoremRetriever for hybrid search")
        if query.query_embedding is None:
            raise InputError("TheoremVectorStore.query needs query.query_embedding")
        filters = metadata_filters_to_filters(query.filters)
        if query.doc_ids:
            filters = Filters.from_mapping({**_as_mapping(filters), "doc_id": list(query.doc_ids)})
        k = query.similarity_top_k
        if query.node_ids:
            # The caller names its candidates: rank those (exactly, by primary key), not the index's top k, which may
            # hold none of them.
            hits = self._store.exact_search(self.space, query.query_embedding, k=k, filters=filters,
                                            ids=list(query.node_ids))  # fmt: skip
        else:
            hits = self._store.search_dense(
                self.space, query.query_embedding, k=k, pool=None if self.pool is None else max(self.pool, k),
                filters=filters, ef_search=self.ef_search, iterative_scan=self.iterative_scan,
            )  # fmt: skip
        nodes = [hit_to_node(h) for h in self._store.hydrate(hits)]
        return VectorStoreQueryResult(
            nodes=[n.node for n in nodes], similarities=[n.score for n in nodes], ids=[n.node.node_id for n in nodes]
        )

    async def aquery(self, query: VectorStoreQuery, **kwargs: Any) -> VectorStoreQueryResult:
        return await asyncio.to_thread(self.query, query, **kwargs)

    async def async_add(self, nodes: Sequence[BaseNode], **kwargs: Any) -> list[str]:
        return await asyncio.to_thread(self.add, nodes, **kwargs)

    async def adelete(self, ref_doc_id: str, **delete_kwargs: Any) -> None:
        await asyncio.to_thread(self.delete, ref_doc_id)


def _as_mapping(f: Filters) -> dict[str, Any]:
    return {"source": f.source, "kind": f.kind, "doc_id": f.doc_id, "year_min": f.year_min, "year_max": f.year_max}
