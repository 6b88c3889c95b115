"""The index build on Ray Data: the same steps as :func:`theorem_rag.indexing.ingest.build_index`, spread over workers.

Statements flow in bounded batches through three stages, each a ``map_batches`` over actors that open their own
database connection and write with ``COPY``:

1. :class:`StatementWriter` upserts the batch's statements by id and content hash (into an empty index, the bulk
   path of a first load: the secondary indexes dropped first, each batch copied, the indexes built at the end);
2. :class:`SloganStage` writes the slogans the cache lacks (the offline writer, or litellm with a global cap on
   concurrent requests: ``slogan_tasks`` actors each allowed ``llm_concurrency // slogan_tasks`` requests) and
   caches them per batch;
3. :class:`EmbedStage` embeds what has no vector for its text yet (each actor loads the model once; a GPU
   per actor when the cluster has GPUs) and writes the vectors with binary ``COPY``.

Every write is idempotent, so killing a build and running it again loses nothing, duplicates nothing, and does
not redo slogans or vectors that were committed before the kill. The driver then prunes statements that new
versions dropped and builds the HNSW index (the lexicon and counts are kept by the database's triggers).

>>> report = build_index_ray(dsn, theorems, documents, space="minilm_l6_v2_slogan")   # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from corpus_build.ray_engine import init_ray
from theorem_rag.embed_onnx import backend_for_space
from theorem_rag.indexing.ingest import (
    IndexReport,
    check_maker,
    drop_index_before_adding,
    prune_stale,
    slogans_to_store,
)
from theorem_rag.records import Document, Theorem

STAGES = ("write", "slogans", "embed", "vectors")


@dataclass(frozen=True)
class RayBuildOptions:
    """How the Ray build spreads: rows per batch, actors per stage, and what each one reserves."""

    batch_size: int = 512
    writers: int = 1
    slogan_tasks: int = 1
    embed_actors: int = 1
    embed_cpus: float = 1.0
    # Threads of one CPU embedding actor. Ray sets OMP_NUM_THREADS to an actor's whole CPUs (1 here), which would
    # leave torch on one thread; None: the node's cores shared by the embedding actors.
    embed_threads: int | None = None
    gpus_per_actor: float | None = None  # None: one GPU per embedding actor when the cluster has GPUs
    address: str | None = None
    num_cpus: int | None = None
    object_store_mb: int | None = None


def embed_threads(threads: int | None, actors: int, cores: int | None) -> int:
    """Threads per CPU embedding actor: ``threads`` if set, else a node's ``cores`` shared by the ``actors``.

    >>> embed_threads(3, 1, 16), embed_threads(None, 1, 2), embed_threads(None, 4, 2)
    (3, 2, 1)
    """
    return threads or max(1, (cores or 1) // max(1, actors))


@dataclass(frozen=True)
class StoreSpec:
    """How a worker opens the database (it must be reachable from every worker)."""

    dsn: str
    table: str = "theorems"

    def open(self) -> Any:
        from theorem_rag.db.store import TheoremStore

        return TheoremStore(self.dsn, table=self.table, pool_size=1, timeout=30.0)


def _theorems(batch: dict) -> list[Theorem]:
    return [Theorem.from_dict(json.loads(r)) for r in batch["record"]]


def _with(batch: dict, **columns: list) -> dict:
    out = dict(batch)
    out.update({k: list(v) for k, v in columns.items()})
    return out


def _per_batch(n: int, value: float) -> list[float]:
    """A batch total as a column: the value on the first row, zeros after (sums stay right)."""
    return [value] + [0.0] * (n - 1) if n else []


class StatementWriter:
    """Writes a batch of statements with ``COPY``: upserts them, or in a first load (``first_load``: the driver
    dropped the secondary indexes, ``TheoremStore.begin_first_load``) copies them into the table."""

    def __init__(self, store: StoreSpec, first_load: bool = False) -> None:
        self.store = store.open()
        self.first_load = first_load

    def __call__(self, batch: dict) -> dict:
        t0 = time.perf_counter()
        theorems = _theorems(batch)
        counts = self.store.write_first_load(theorems) if self.first_load else self.store.upsert_theorems(theorems)
        n = len(batch["record"])
        return _with(batch, n_inserted=_per_batch(n, counts.inserted), n_updated=_per_batch(n, counts.updated),
                     t_write=_per_batch(n, time.perf_counter() - t0))  # fmt: skip


class SloganStage:
    """Writes the slogans a batch lacks, cached per batch, and sets them on the statements."""

    def __init__(self, store: StoreSpec, writer: dict, documents: dict[str, dict]) -> None:
        from theorem_rag.slogans import build_slogan_writer
        from theorem_rag.slogans.cache import StoreSloganCache

        self.store = store.open()
        self.cache = StoreSloganCache(self.store)
        self.writer = build_slogan_writer(**writer)
        self.documents = {k: Document.from_dict(v) for k, v in documents.items()}

    def __call__(self, batch: dict) -> dict:
        from theorem_rag.slogans import write_slogans

        t0 = time.perf_counter()
        theorems = _theorems(batch)
        docs = {t.doc_id: self.documents[t.doc_id] for t in theorems if t.doc_id in self.documents}
        run = write_slogans(theorems, self.writer, self.cache, documents=docs, progress=False)
        slogans = slogans_to_store(run)  # a failed slogan clears the stored one, as in the local build
        if slogans:
            self.store.set_slogans(slogans)
        n = len(theorems)
        return _with(batch, slogan=[run.slogans.get(t.id, "") for t in theorems],
                     n_cached=_per_batch(n, run.stats.cached), n_written=_per_batch(n, run.stats.written),
                     n_failed=_per_batch(n, run.stats.failed), t_slogans=_per_batch(n, time.perf_counter() - t0))  # fmt: skip


class EmbedStage:
    """Embeds the statements whose text has no vector yet and writes the vectors with binary ``COPY``."""

    def __init__(self, store: StoreSpec, model: str, instruction: str, batch_size: int, space: str, field: str,
                 device: str = "cpu", backend: str = "torch", cache_dir: str | None = None,
                 threads: int | None = None, actors: int = 1, max_tokens: int = 0) -> None:  # fmt: skip
        from theorem_rag.embed import Embedder

        if device == "cpu":
            import torch

            n = embed_threads(threads, actors, os.cpu_count())  # this node's cores
            torch.set_num_threads(n)
            os.environ["OMP_NUM_THREADS"] = str(n)  # onnxruntime and anything loaded later
        self.store = store.open()
        self.embedder = Embedder(model, doc_instruction=instruction, batch_size=batch_size, device=device,
                                 backend=backend, cache_dir=cache_dir, max_tokens=max_tokens)  # fmt: skip
        self.space, self.field = space, field
        _ = self.embedder.onnx if backend == "onnx-int8" else self.embedder.model  # load once, in the constructor

    def __call__(self, batch: dict) -> dict:
        from theorem_rag.embed import embed_hash, embed_text_for

        theorems = _theorems(batch)
        texts = {t.id: embed_text_for(t, s or None, self.field) for t, s in zip(theorems, batch["slogan"])}
        instruction, tokens = self.embedder.doc_instruction, self.embedder.hash_tokens
        hashes = {tid: embed_hash(text, instruction, tokens) for tid, text in texts.items()}
        todo = self.store.ids_missing_vectors(self.space, hashes)
        t0 = time.perf_counter()
        vectors = self.embedder.embed_documents([texts[i] for i in todo])
        t1 = time.perf_counter()
        if todo:
            self.store.write_vectors(self.space, todo, vectors, [hashes[i] for i in todo])
        n = len(theorems)
        return {"n_embedded": _per_batch(n, len(todo)), "t_embed": _per_batch(n, t1 - t0),
                "t_vectors": _per_batch(n, time.perf_counter() - t1),
                **{k: list(batch[k]) for k in batch if k.startswith(("n_", "t_"))}}  # fmt: skip


def build_index_ray(
    dsn: str,
    theorems: Iterable[Theorem],
    documents: Iterable[Document] = (),
    *,
    space: str,
    table: str = "theorems",
    field: str = "slogan",
    embed_model: str | None = None,
    doc_instruction: str = "",
    embed_max_tokens: int = 0,
    embed_batch_size: int = 64,
    embed_backend: str = "auto",
    onnx_cache_dir: str | None = None,
    writer: dict | None = None,
    options: RayBuildOptions = RayBuildOptions(),
    build_hnsw: bool = True,
    prune: bool = True,
    reembed: bool = False,
    dense_index: str | None = None,
) -> IndexReport:
    """Build (or bring up to date) the index of ``theorems`` on Ray; returns the same report as the local build,
    with per-stage busy seconds (summed over workers) in ``seconds`` next to the wall time.

    ``writer`` holds the keyword arguments of :func:`theorem_rag.slogans.build_slogan_writer` (default: offline).
    ``embed_backend`` is ``torch``, ``onnx-int8`` (the ONNX file is built once here, under ``onnx_cache_dir``,
    and each node of a cluster builds its own there) or ``auto`` (the space's own backend; onnx-int8 for a new
    space); a space keeps the backend that filled it. ``dense_index`` is the kind of HNSW index and
    ``embed_max_tokens`` the most tokens of a text embedded (0: the model's own limit), as in the local build.
    """
    from theorem_rag.config import DEFAULT_EMBED_MODEL
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.embed import Embedder

    ray = init_ray(options.address, num_cpus=options.num_cpus, object_store_mb=options.object_store_mb)
    theorems, documents = list(theorems), list(documents)
    embed_model = embed_model or DEFAULT_EMBED_MODEL
    writer = dict(writer or {"spec": "offline"})
    report = IndexReport(space=space, documents=len(documents), theorems=len(theorems))
    wall = time.perf_counter()
    spec = StoreSpec(dsn, table)
    store = TheoremStore(dsn, table=table)
    first_load = False
    try:
        t0 = time.perf_counter()
        spaces = store.spaces()
        embed_backend = backend_for_space(embed_backend, spaces, space, embed_model)
        if not reembed and space in {sp.name for sp in spaces}:
            check_maker(store.space(space), embed_model, embed_backend)
        store.upsert_documents(documents)
        # the space must exist before workers write to it; the dimension comes from the model (and an ONNX
        # export is built here once, so that local actors only load it)
        probe = Embedder(embed_model, doc_instruction=doc_instruction, backend=embed_backend, cache_dir=onnx_cache_dir,
                         max_tokens=embed_max_tokens)  # fmt: skip
        if embed_backend == "onnx-int8":
            _ = probe.onnx
        store.vector_space(space, probe.dim, field=field, model=embed_model, backend=embed_backend,
                           index=dense_index)  # fmt: skip
        if dense_index:
            store.set_index_kind(space, dense_index)
        if reembed:
            store.reset_space(space, embed_model, embed_backend)
        del probe
        if build_hnsw:  # the statements without a vector in the space yet (the workers learn of changed slogans)
            drop_index_before_adding(store, space, len({t.id for t in theorems} - set(store.vector_ids(space))))
        report.seconds["documents"] = time.perf_counter() - t0

        # into an empty index: the bulk path of a first load, the secondary indexes built once after the pipeline
        # (or on the way out of a failed one, as the local build does; a killed build leaves them to the next build)
        first_load = store.begin_first_load([t.id for t in theorems])
        gpus = ray.cluster_resources().get("GPU", 0) if options.gpus_per_actor is None else options.gpus_per_actor
        gpu_each = 1.0 if options.gpus_per_actor is None and gpus else (options.gpus_per_actor or 0.0)
        if "concurrency" in writer and options.slogan_tasks > 1:
            writer["concurrency"] = max(1, writer["concurrency"] // options.slogan_tasks)
        docs = {d.id: d.to_dict() for d in documents if d.id in {t.doc_id for t in theorems}}
        rows = [{"record": t.to_json()} for t in theorems]
        n_blocks = max(1, -(-len(rows) // options.batch_size))
        ds = ray.data.from_items(rows, override_num_blocks=n_blocks)
        bs = options.batch_size
        ds = ds.map_batches(StatementWriter, fn_constructor_kwargs={"store": spec, "first_load": first_load},
                            batch_size=bs, compute=ray.data.ActorPoolStrategy(size=options.writers), num_cpus=0.25)  # fmt: skip
        ds = ds.map_batches(SloganStage, fn_constructor_kwargs={"store": spec, "writer": writer, "documents": docs},
                            batch_size=bs, compute=ray.data.ActorPoolStrategy(size=options.slogan_tasks), num_cpus=0.5)  # fmt: skip
        gpu_opts = {"num_gpus": gpu_each} if gpu_each else {}
        ds = ds.map_batches(EmbedStage, batch_size=bs,
                            compute=ray.data.ActorPoolStrategy(size=options.embed_actors), num_cpus=options.embed_cpus,
                            **gpu_opts,
                            fn_constructor_kwargs={"store": spec, "model": embed_model, "instruction": doc_instruction,
                                                   "batch_size": embed_batch_size, "space": space, "field": field,
                                                   "device": "cuda" if gpu_each else "cpu", "backend": embed_backend,
                                                   "cache_dir": onnx_cache_dir, "threads": options.embed_threads,
                                                   "actors": options.embed_actors,
                                                   "max_tokens": embed_max_tokens})  # fmt: skip
        totals: dict[str, float] = {}
        for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
            for k, v in batch.items():
                totals[k] = totals.get(k, 0.0) + float(v.sum())
        report.inserted, report.updated = int(totals.get("n_inserted", 0)), int(totals.get("n_updated", 0))
        report.unchanged = report.theorems - report.inserted - report.updated
        report.slogans_cached, report.slogans_written = int(totals.get("n_cached", 0)), int(totals.get("n_written", 0))
        report.slogans_failed = int(totals.get("n_failed", 0))
        report.embedded = int(totals.get("n_embedded", 0))
        for stage in STAGES:
            report.seconds[f"{stage}_busy"] = totals.get(f"t_{stage}", 0.0)
        report.seconds["pipeline"] = time.perf_counter() - wall - report.seconds["documents"]
        if first_load:
            t0 = time.perf_counter()
            store.restore_indexes()
            report.seconds["restore_indexes"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        if prune:
            report.removed = prune_stale(store, documents, [t.id for t in theorems])
        report.seconds["prune"] = time.perf_counter() - t0
        if build_hnsw and (report.embedded or not store.has_index(space)):
            t0 = time.perf_counter()
            store.build_index(space)
            report.index_built = True
            report.seconds["hnsw"] = time.perf_counter() - t0
    finally:
        try:
            if first_load and store.deferred_indexes():  # the pipeline failed before they were built
                store.restore_indexes()
        finally:
            store.close()
    return report


__all__ = ["RayBuildOptions", "StoreSpec", "build_index_ray"]
