"""A synthetic corpus of N statements that looks like a real one, and its bulk load through the store.

The *seed* is a built index (statements, slogans, documents and slogan vectors read back through
:class:`~theorem_rag.db.store.TheoremStore`), so no embedding pass runs at benchmark time. The corpus repeats the
seed in *rounds*: round 0 is the seed itself (real ids, real vectors, so the dev sets' answers are in it); round
``r >= 1`` visits the seed statements in a fresh random order and gives each one a copy of its document
(``<doc>~r<r>``), its text and slogan, and a new vector: the real vector moved part of the way towards one of its
real nearest neighbours, plus a little Gaussian noise, then normalized. New points thus fall between real
neighbours instead of piling up on top of them, and neighbourhoods keep the shape of the real space.

Everything is a function of (seed, N, options): :meth:`SyntheticCorpus.vector_batches` regenerates exactly the
vectors :meth:`SyntheticCorpus.batches` produced, without the records, for an exact-scan reference in numpy.

>>> seed = Seed.from_parts(theorems, slogans, vectors, documents)      # doctest: +SKIP
>>> corpus = SyntheticCorpus(seed, 100_000)                            # doctest: +SKIP
>>> report = load_corpus(store, corpus, "bench_slogan")                # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from theorem_rag.formula_keys import carry
from theorem_rag.records import Document, Hit, Theorem


@dataclass
class Seed:
    """Real statements with their slogans and unit slogan vectors (row i of ``vectors`` is ``theorems[i]``)."""

    theorems: list[Theorem]
    slogans: list[str]
    vectors: np.ndarray
    documents: dict[str, Document]
    neighbours: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))

    @classmethod
    def from_parts(
        cls, theorems: Sequence[Theorem], slogans: Sequence[str], vectors: np.ndarray,
        documents: Mapping[str, Document] | Sequence[Document], n_neighbours: int = 8,
    ) -> Seed:  # fmt: skip
        """A seed from aligned lists; vectors are normalized and their nearest seed neighbours computed."""
        vecs = np.asarray(vectors, dtype=np.float32)
        if vecs.ndim != 2 or len(vecs) != len(theorems) or len(slogans) != len(theorems) or not len(theorems):
            raise ValueError(f"{len(theorems)} theorems, {len(slogans)} slogans, vectors of shape {vecs.shape}")
        vecs = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
        docs = dict(documents) if isinstance(documents, Mapping) else {d.id: d for d in documents}
        missing = sorted({t.doc_id for t in theorems} - set(docs))
        docs.update({d: Document(id=d, source=next(t.source for t in theorems if t.doc_id == d)) for d in missing})
        return cls(list(theorems), list(slogans), vecs, docs, nearest_neighbours(vecs, n_neighbours))

    @classmethod
    def read(cls, store, space: str, limit: int | None = None, n_neighbours: int = 8) -> Seed:
        """The statements of ``space`` that have a vector and a slogan, read from a built index (first ``limit``
        by id)."""
        ids, vecs = [], []
        for tid, vec in store.iter_vectors(space):
            ids.append(tid)
            vecs.append(vec)
        records = {}
        for start in range(0, len(ids), 5000):
            hits = store.hydrate([Hit(tid, 0.0) for tid in ids[start : start + 5000]])
            records.update({h.theorem_id: (h.theorem, h.slogan) for h in hits})
        keep = [i for i, tid in enumerate(ids) if tid in records and records[tid][1]]
        if limit is not None:
            keep = keep[:limit]
        # Each seed statement carries its formula keys as a parsed record does (corpus_build computes them in the
        # parse workers, theorem_rag.formula_keys.carry); its copies share its text, so the load uses them as is.
        theorems = [replace(t, formula_keys=carry(t.text)) for t in (records[ids[i]][0] for i in keep)]
        slogans = [records[ids[i]][1] for i in keep]
        documents = store.get_documents(sorted({t.doc_id for t in theorems}))
        return cls.from_parts(theorems, slogans, np.stack([vecs[i] for i in keep]), documents, n_neighbours)


def nearest_neighbours(vectors: np.ndarray, m: int = 8, chunk: int = 2048) -> np.ndarray:
    """For each unit row, the indices of its ``m`` most cosine-similar other rows (itself excluded).

    >>> v = np.eye(3, dtype=np.float32) + np.array([[0, 0, 0], [0.9, 0, 0], [0, 0, 0]], dtype=np.float32)
    >>> nearest_neighbours(v / np.linalg.norm(v, axis=1, keepdims=True), m=1).ravel().tolist()
    [1, 0, 0]
    """
    n = len(vectors)
    m = max(0, min(m, n - 1))
    out = np.zeros((n, m), dtype=np.int64)
    if m == 0:
        return out
    for start in range(0, n, chunk):
        sims = vectors[start : start + chunk] @ vectors.T
        rows = np.arange(len(sims))
        sims[rows, start + rows] = -np.inf
        part = np.argpartition(-sims, m - 1, axis=1)[:, :m]
        order = np.argsort(-np.take_along_axis(sims, part, axis=1), axis=1, kind="stable")
        out[start : start + chunk] = np.take_along_axis(part, order, axis=1)
    return out


@dataclass
class Batch:
    """One slice of the corpus: the documents it introduces, its statements, their slogans and vectors."""

    documents: list[Document]
    theorems: list[Theorem]
    slogans: dict[str, str]
    vectors: np.ndarray

    @property
    def ids(self) -> list[str]:
        return [t.id for t in self.theorems]


class SyntheticCorpus:
    """N statements made from a :class:`Seed` (see the module docstring); deterministic in ``seed_value``.

    ``mix`` is the largest share of the way towards a neighbour a new vector moves; ``noise`` the norm of the
    Gaussian noise added before normalizing (relative to the unit vector).
    """

    def __init__(
        self, seed: Seed, n: int, *, batch_size: int = 20_000, mix: float = 0.5, noise: float = 0.1, seed_value: int = 0
    ) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size!r}")
        self.seed, self.n, self.batch_size = seed, n, batch_size
        self.mix, self.noise, self.seed_value = mix, noise, seed_value
        self._orders: dict[int, np.ndarray] = {}

    @property
    def dim(self) -> int:
        return int(self.seed.vectors.shape[1])

    def __len__(self) -> int:
        return self.n

    def _order(self, r: int) -> np.ndarray:
        """The seed rows in the order round ``r`` visits them (round 0: as given)."""
        if r not in self._orders:
            size = len(self.seed.theorems)
            rng = np.random.default_rng([self.seed_value, 1, r])
            self._orders = {r: np.arange(size) if r == 0 else rng.permutation(size)}  # one round held at a time
        return self._orders[r]

    def _rows(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """Round and seed row of corpus rows ``start .. stop - 1``."""
        k = np.arange(start, stop)
        size = len(self.seed.theorems)
        rounds, pos = k // size, k % size
        seed_rows = np.empty(len(k), dtype=np.int64)
        for r in np.unique(rounds):
            sel = rounds == r
            seed_rows[sel] = self._order(int(r))[pos[sel]]
        return rounds, seed_rows

    def _vectors(self, index: int, rounds: np.ndarray, seed_rows: np.ndarray) -> np.ndarray:
        base = self.seed.vectors[seed_rows]
        moved = rounds > 0
        if not moved.any():
            return base.copy()
        rng = np.random.default_rng([self.seed_value, 2, index])
        nb = self.seed.neighbours
        count = int(moved.sum())
        if nb.shape[1]:
            towards = self.seed.vectors[nb[seed_rows[moved], rng.integers(0, nb.shape[1], size=count)]]
        else:
            towards = base[moved]
        share = rng.uniform(0, self.mix, size=(count, 1)).astype(np.float32)
        noise = rng.normal(size=(count, self.dim)).astype(np.float32) * np.float32(self.noise / np.sqrt(self.dim))
        out = base.copy()
        new = (1 - share) * base[moved] + share * towards + noise
        out[moved] = new / np.linalg.norm(new, axis=1, keepdims=True)
        return out

    def _spans(self) -> Iterator[tuple[int, int, int]]:
        for index, start in enumerate(range(0, self.n, self.batch_size)):
            yield index, start, min(start + self.batch_size, self.n)

    def vector_batches(self) -> Iterator[tuple[list[str], np.ndarray]]:
        """(ids, vectors) of every batch, exactly as :meth:`batches` makes them, without building records."""
        for index, start, stop in self._spans():
            rounds, seed_rows = self._rows(start, stop)
            yield [self._id(self.seed.theorems[s].id, r) for r, s in zip(rounds, seed_rows)], self._vectors(
                index, rounds, seed_rows
            )

    @staticmethod
    def _id(base: str, r: int) -> str:
        return base if r == 0 else f"{base}~r{r}"

    def batches(self) -> Iterator[Batch]:
        """The corpus in batches of ``batch_size`` statements; each document comes with its first statement."""
        seen_docs: set[str] = set()
        for index, start, stop in self._spans():
            rounds, seed_rows = self._rows(start, stop)
            theorems, slogans, documents = [], {}, []
            for r, s in zip(rounds.tolist(), seed_rows.tolist()):
                t = self.seed.theorems[s]
                doc_id = self._id(t.doc_id, r)
                if doc_id not in seen_docs:
                    seen_docs.add(doc_id)
                    documents.append(replace(self.seed.documents[t.doc_id], id=doc_id))
                new = t if r == 0 else replace(t, id=self._id(t.id, r), doc_id=doc_id)
                theorems.append(new)
                slogans[new.id] = self.seed.slogans[s]
            yield Batch(documents, theorems, slogans, self._vectors(index, rounds, seed_rows))


@dataclass
class LoadReport:
    """What :func:`load_corpus` wrote and how long each step took (seconds)."""

    rows: int = 0
    documents: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    wall: float | None = None  # wall time of the load steps together (they overlap); None: their sum

    @property
    def load_seconds(self) -> float:
        if self.wall is not None:
            return self.wall
        return sum(self.seconds.get(k, 0.0) for k in ("documents", "theorems", "vectors"))

    @property
    def rows_per_second(self) -> float:
        return self.rows / self.load_seconds if self.load_seconds else 0.0


def load_corpus(
    store,
    corpus: SyntheticCorpus,
    space: str,
    *,
    model: str = "",
    maintenance_work_mem: str = "1GB",
    parallel_workers: int | None = None,
    build_indexes: bool = True,
    progress: bool = True,
    on_step: Callable[[str], None] | None = None,
    dense_index: str | None = None,
    hnsw_options: dict | None = None,
    writers: int = 1,
) -> LoadReport:
    """Bulk-load ``corpus`` into an empty index through the store: documents, statements by ``COPY`` with the
    secondary indexes of the statements table dropped (``defer_indexes``), vectors by binary ``COPY`` straight into
    the space's table (``copy_vectors``), on a connection of its own while the next batch of statements is copied;
    with ``writers`` > 1 each batch's statements go in that many parts at once, each by one ``COPY`` on its own
    connection (one server process parses and indexes the text of a ``COPY``, so one at a time keeps one core
    busy at most; on 2 cores two gained 14-26 % at 100k and nothing at 300k while this process computed each
    statement's formula keys, ``benchmarks/results/scale_bulk``; with the keys carried by the records, 1.6x at 100k
    and 2.0x at 1M against one writer before, ``benchmarks/results/load_keys``);
    then those indexes (full-text, trigram, formula keys, ...) and the HNSW index are built (the lexicon is kept
    current by the store's triggers as the statements arrive).

    Every step's wall time is in ``report.seconds`` (generate: making the batches in Python, which nothing else
    overlaps and which is not part of the load; documents, theorems, vectors, which overlap, so ``report.wall``
    is the load's wall time; indexes, hnsw, vacuum); ``on_step(name)`` is called as each of "load", "indexes",
    "hnsw", "vacuum" starts.
    """
    from concurrent.futures import ThreadPoolExecutor

    from tqdm import tqdm

    from theorem_rag.embed import embed_hash

    if writers < 1 or writers + 1 > store.pool_size:
        raise ValueError(f"writers must be 1 .. {store.pool_size - 1} (the store's pool_size less one for the "
                         f"vectors), got {writers!r}")
    report = LoadReport(wall=0.0)
    step_started = on_step or (lambda name: None)
    step_started("load")
    store.vector_space(space, corpus.dim, field="slogan", model=model, index=dense_index)
    store.defer_indexes()
    secs = report.seconds
    for key in ("generate", "documents", "theorems", "vectors"):
        secs[key] = 0.0
    years: dict[str, int | None] = {}

    def vectors(batch: Batch, batch_years: dict[str, int | None]) -> None:
        t = time.perf_counter()
        hashes = [embed_hash(batch.slogans[i]) for i in batch.ids]
        store.copy_vectors(space, batch.theorems, batch.vectors, hashes, batch_years)
        secs["vectors"] += time.perf_counter() - t

    batches = corpus.batches()
    previous = None
    bar = tqdm(total=corpus.n, desc="load", unit="stmt", disable=not progress)
    with ThreadPoolExecutor(1) as pool, ThreadPoolExecutor(writers) as copiers, bar:
        while True:
            t = time.perf_counter()
            batch = next(batches, None)
            secs["generate"] += time.perf_counter() - t
            t0 = time.perf_counter()
            # The previous batch's vectors go in while this batch's statements do (their rows must exist first).
            pending = None
            if previous is not None:
                pending = pool.submit(vectors, previous, {x.doc_id: years[x.doc_id] for x in previous.theorems})
            if batch is not None:
                store.upsert_documents(batch.documents)
                years.update((d.id, d.year) for d in batch.documents)
                t1 = time.perf_counter()
                size = -(-len(batch.theorems) // writers)
                parts = [batch.theorems[i : i + size] for i in range(0, len(batch.theorems), size)]
                slogans = batch.slogans
                copies = [copiers.submit(store.copy_theorems, part, {x.id: slogans[x.id] for x in part if x.id in slogans})
                          for part in parts]  # fmt: skip
                for done in copies:
                    done.result()
                secs["documents"] += t1 - t0
                secs["theorems"] += time.perf_counter() - t1
                report.rows += len(batch.theorems)
                report.documents += len(batch.documents)
            if pending is not None:
                pending.result()
                bar.update(len(previous.theorems))
            report.wall += time.perf_counter() - t0
            if batch is None:
                break
            previous = batch
    if build_indexes:
        steps = (
            ("indexes", lambda: store.restore_indexes(maintenance_work_mem, parallel_workers)),
            ("hnsw", lambda: store.build_index(space, maintenance_work_mem=maintenance_work_mem,
                                               parallel_workers=parallel_workers, **(hnsw_options or {}))),
            ("vacuum", store.vacuum_analyze),
        )  # fmt: skip
        for key, step in steps:
            step_started(key)
            t0 = time.perf_counter()
            step()
            secs[key] = time.perf_counter() - t0
    return report
