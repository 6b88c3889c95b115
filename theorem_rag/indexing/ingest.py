"""Ingestion: records -> TextNodes -> slogans -> embeddings -> the vector store, through LlamaIndex.

``build_index`` is idempotent and incremental: statements are upserted by id and content hash, slogans come from
the database cache when their writer's inputs are unchanged, and only statements whose embedded text (slogan or
LaTeX, see :func:`~theorem_rag.embed.embed_text_for`) has no vector in the space yet are embedded.

>>> report = build_index(store, embedder, theorems, documents, writer=OfflineSloganWriter(),   # doctest: +SKIP
...                      space="minilm_l6_v2_slogan")                                             # doctest: +SKIP
>>> report.embedded                                                                               # doctest: +SKIP
21874
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from theorem_rag.filters import FORMAL_LANGUAGES
from theorem_rag.records import Document, Theorem

_INDEX_EXTRA = 'pip install "theorem-rag[index]"'
# A build that adds more than this share of the vectors a space already holds drops the space's HNSW index before
# writing them and builds it again after: pgvector inserts into an HNSW graph one vector at a time, while a build
# over all the vectors at once costs far less per vector. (Adding mathlib's 279,000 declarations to a space of the
# LaTeX corpora's 35,000 statements, under load on two cores: a batch of 2,048 took 20 s to insert into the graph.)
REBUILD_SHARE = 0.25


def drop_index_before_adding(store: Any, space: str, adding: int) -> bool:
    """Drop ``space``'s HNSW index when ``adding`` new vectors are more than :data:`REBUILD_SHARE` of those it holds,
    for the build to make it again over every vector once they are written; whether it was dropped. Both builds, the
    local one and Ray's, call this before they write."""
    if adding > REBUILD_SHARE * store.count_vectors(space) and store.has_index(space):
        store.drop_index(space)
        return True
    return False


@dataclass
class IndexReport:
    """What a build did, with wall times per step in seconds."""

    space: str
    documents: int = 0
    theorems: int = 0
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    slogans_cached: int = 0
    slogans_written: int = 0
    slogans_failed: int = 0
    embedded: int = 0
    index_built: bool = False
    seconds: dict[str, float] = field(default_factory=dict)

    def summary(self) -> str:
        secs = ", ".join(f"{k} {v:.1f}s" for k, v in self.seconds.items())
        return (
            f"space {self.space}: {self.theorems} statements ({self.inserted} new, {self.updated} updated, "
            f"{self.unchanged} unchanged, {self.removed} removed) in {self.documents} documents; slogans {self.slogans_cached} cached, "
            f"{self.slogans_written} written, {self.slogans_failed} failed; {self.embedded} embedded; {secs}"
        )


def owning_documents(documents: Iterable[Document]) -> list[str]:
    """Ids of the documents whose statements a build replaces: every document it is given.

    A parse writes every statement of each document it writes, so a document's records are the whole of it: a
    statement stored for it that they no longer hold was deleted, or moved, in the source. (arXiv documents
    still say so in ``meta.replaces_statements``; it is no longer needed.)

    >>> owning_documents([Document("arxiv:1", "arxiv", meta={"replaces_statements": True}), Document("s", "s")])
    ['arxiv:1', 's']
    """
    return [d.id for d in documents]


def failed_files(documents: Iterable[Document]) -> list[tuple[str, str]]:
    """``(document id, file)`` for every file a document's records could not be read from (``meta.failed_files``,
    written by ``corpus parse`` for a file it could not read or whose parse failed): the records say nothing of
    what that file holds now, so the statements stored for it stay.

    >>> failed_files([Document("book", "book", meta={"failed_files": ["ch2.tex"]}), Document("s", "s")])
    [('book', 'ch2.tex')]
    """
    return [(d.id, f) for d in documents for f in d.meta.get("failed_files", ())]


def informal_part(theorems: Iterable[Theorem], documents: Iterable[Document]) -> tuple[list[Theorem], list[Document]]:
    """The statements and documents a query model's space holds: the informal ones. The adapted model learned from
    LaTeX statements; the formal ones (documents in a formal language, :data:`~theorem_rag.filters.FORMAL_LANGUAGES`:
    Lean declarations) are embedded in the base model's space alone, where a query in words reaches them too
    (:class:`~theorem_rag.retrieval.retriever.TheoremRetriever`'s ``formal_in_base``). One space instead of two for
    mathlib's 279,000 declarations halves what adding them costs.

    >>> lean = Document("mathlib-module:M", "mathlib", meta={"language": "lean"})
    >>> informal_part([Theorem("mathlib:a", "mathlib", "theorem", "a", "mathlib-module:M"),
    ...                Theorem("s:1", "s", "lemma", "b", "s")], [lean, Document("s", "s")])
    ([Theorem(id='s:1', ...)], [Document(id='s', ...)])
    """
    theorems, documents = list(theorems), list(documents)
    formal = {d.id for d in documents if d.meta.get("language") in FORMAL_LANGUAGES}
    return [t for t in theorems if t.doc_id not in formal], [d for d in documents if d.id not in formal]


def prune_stale(store: Any, documents: Iterable[Document], keep_ids: Iterable[str]) -> int:
    """Delete the statements stored for ``documents`` that are not in ``keep_ids`` (the records' statements),
    except those of the files whose parse failed (:func:`failed_files`); their vectors go with them. Returns
    #deleted. The local and the Ray build both prune with this.

    >>> prune_stale(store, [book], [t.id for t in theorems])          # doctest: +SKIP
    2
    """
    documents = list(documents)
    return store.delete_stale(owning_documents(documents), list(keep_ids), failed_files(documents))


def prune_documents(store: Any, documents: Iterable[Document]) -> IndexReport:
    """The build of records that hold documents but no statement (every paper of an arXiv folder withdrawn, the
    last statement of a file deleted): nothing to write or embed, but each document is upserted and every
    statement stored for it is removed, with its vectors in every space, as :func:`build_index` removes those a
    document no longer holds (but those of its files whose parse failed). ``removed`` in the report says how many.

    >>> prune_documents(store, [withdrawn_paper]).removed           # doctest: +SKIP
    3
    """
    documents = list(documents)
    report = IndexReport(space="", documents=len(documents))
    t0 = time.perf_counter()
    store.upsert_documents(documents)
    report.removed = prune_stale(store, documents, [])
    report.seconds["prune"] = time.perf_counter() - t0
    return report


def slogans_to_store(run: Any) -> dict[str, str | None]:
    """What a slogan run (:func:`theorem_rag.slogans.write_slogans`) sets on the statements (``set_slogans``):
    its slogans, and ``None`` for each statement whose slogan failed. That statement keeps none: the one stored
    was written for another text (or by another writer) and would disagree with the vector embedded from its
    LaTeX. A later run writes it. The local and the Ray build both store this.

    >>> from types import SimpleNamespace as NS
    >>> slogans_to_store(NS(slogans={"a": "A slogan."}, stats=NS(errors={"b": "timeout"})))
    {'b': None, 'a': 'A slogan.'}
    """
    return {**{tid: None for tid in run.stats.errors}, **run.slogans}


def theorem_node(theorem: Theorem, slogan: str | None, embed_text: str, embed_hash: str = "") -> Any:
    """A LlamaIndex ``TextNode`` whose text is what gets embedded and whose metadata carries the full record
    and ``embed_hash``, the hash its vector is stored under (see :func:`theorem_rag.embed.embed_hash`)."""
    from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

    meta = {"source": theorem.source, "kind": theorem.kind, "doc_id": theorem.doc_id, "slogan": slogan or "",
            "record": theorem.to_dict(), "embed_hash": embed_hash}  # fmt: skip
    node = TextNode(id_=theorem.id, text=embed_text, metadata=meta, excluded_embed_metadata_keys=list(meta))
    node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=theorem.doc_id)
    return node


def check_maker(space: Any, model: str, backend: str) -> None:
    """An InputError unless ``space`` holds vectors of ``model`` run by ``backend``: one space never mixes two
    (the single-process build and the Ray build both check it before writing)."""
    from theorem_rag.errors import InputError

    if space.made_by(model, backend):
        return
    raise InputError(
        f"vector space {space.name!r} holds vectors of {space.model or 'an unrecorded model'} run by the "
        f"{space.backend} backend; this build embeds with {model} on {backend}, and one space never mixes the two. "
        f"Re-embed every statement with {backend}: `theorem-rag index build --reembed --embed-backend {backend}`, "
        f"or keep the space as it is: THEOREM_RAG_EMBED_BACKEND={space.backend}"
    )


def _embed_step(embedder: Any, progress: bool) -> Any:
    from llama_index.core.schema import TransformComponent

    class EmbedStatements(TransformComponent):
        """Embeds each node's text as a document (with the document instruction) in batches."""

        def __call__(self, nodes: Sequence[Any], **kwargs: Any) -> Sequence[Any]:
            vectors = embedder.embed_documents([n.get_content() for n in nodes], progress=progress)
            for node, vec in zip(nodes, vectors):
                node.embedding = vec.tolist()
            return nodes

    return EmbedStatements()


def build_index(
    store: Any,
    embedder: Any,
    theorems: Iterable[Theorem],
    documents: Iterable[Document] = (),
    *,
    writer: Any,
    space: str,
    field: str = "slogan",
    batch_size: int = 2048,
    progress: bool = True,
    build_hnsw: bool = True,
    reembed: bool = False,
    prune: bool = True,
    dense_index: str | None = None,
) -> IndexReport:
    """Upsert documents and statements, write missing slogans, embed what has no vector yet, build the index.

    ``dense_index`` (``bit`` or ``halfvec``: :class:`theorem_rag.db.vectors.VectorSpace`) is the kind of HNSW index
    of the space; ``None`` keeps an existing space's (``halfvec`` for a new one:
    :data:`theorem_rag.db.vectors.DEFAULT_INDEX_KIND`). Changing it rebuilds the index from the stored vectors.

    A space holds the vectors of one model run by one backend (``embedder.backend``, recorded with the space):
    building it with another is an InputError before anything is written, unless ``reembed`` is set, which
    deletes the space's vectors and embeds every statement again.

    Every document in ``documents`` owns its statements: with ``prune``, those stored for it that ``theorems``
    no longer holds (deleted or moved in the source, a new version dropped them) are deleted with their vectors,
    so a rebuild holds what a fresh build of the same records holds; the statements of a file whose parse failed
    (:func:`failed_files`) stay as they were. Pass ``prune=False`` when ``theorems`` is only part of a document's
    records (``--limit``).
    """
    try:
        from llama_index.core.ingestion import IngestionPipeline
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(f"indexing needs LlamaIndex: {_INDEX_EXTRA}") from e
    from theorem_rag.embed import FIELD_MAX_TOKENS, embed_hash, embed_text_for

    model, backend = getattr(embedder, "model_name", ""), getattr(embedder, "backend", "torch")
    if field in FIELD_MAX_TOKENS and callable(getattr(embedder, "reading", None)):
        embedder = embedder.reading(FIELD_MAX_TOKENS[field])  # a statement's words are read whole
    if not reembed and space in {sp.name for sp in store.spaces()}:
        check_maker(store.space(space), model, backend)
    from theorem_rag.retrieval.vector_store import TheoremVectorStore
    from theorem_rag.slogans import write_slogans
    from theorem_rag.slogans.cache import StoreSloganCache

    report = IndexReport(space=space)
    theorems, documents = list(theorems), list(documents)
    t0 = time.perf_counter()
    report.documents = len(documents)
    report.theorems = len(theorems)
    store.upsert_documents(documents)
    counts = store.write_theorems(theorems)
    report.inserted, report.updated, report.unchanged = counts.inserted, counts.updated, counts.unchanged
    if prune:
        report.removed = prune_stale(store, documents, [t.id for t in theorems])
    report.seconds["upsert"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    run = write_slogans(theorems, writer, StoreSloganCache(store), documents={d.id: d for d in documents},
                        progress=progress)  # fmt: skip
    report.slogans_cached, report.slogans_written = run.stats.cached, run.stats.written
    report.slogans_failed = run.stats.failed
    slogans = slogans_to_store(run)
    if slogans:
        store.set_slogans(slogans)
    report.seconds["slogans"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    store.vector_space(space, embedder.dim, field=field, model=model, backend=backend, index=dense_index)
    if dense_index:
        store.set_index_kind(space, dense_index)
    if reembed:
        store.reset_space(space, model, backend)
    # A vector is keyed on the text it embeds: a new slogan or a changed macro re-embeds that statement only.
    texts = {t.id: embed_text_for(t, run.slogans.get(t.id), field) for t in theorems}
    instruction, tokens = getattr(embedder, "doc_instruction", ""), getattr(embedder, "hash_tokens", 0)
    hashes = {tid: embed_hash(text, instruction, tokens) for tid, text in texts.items()}
    missing = set(store.ids_missing_vectors(space, hashes))
    todo = [t for t in theorems if t.id in missing]
    if build_hnsw:
        drop_index_before_adding(store, space, len(todo))  # built again below over every vector at once
    vector_store = TheoremVectorStore.from_store(store, space=space)
    pipeline = IngestionPipeline(transformations=[_embed_step(embedder, progress)], vector_store=vector_store)
    for i in range(0, len(todo), batch_size):
        batch = todo[i : i + batch_size]
        nodes = [theorem_node(t, run.slogans.get(t.id), texts[t.id], hashes[t.id]) for t in batch]
        pipeline.run(nodes=nodes, show_progress=False)
        report.embedded += len(batch)
    report.seconds["embed"] = time.perf_counter() - t0

    if build_hnsw and (report.embedded or not store.has_index(space)):
        t0 = time.perf_counter()
        store.build_index(space)
        report.index_built = True
        report.seconds["hnsw"] = time.perf_counter() - t0
    return report
