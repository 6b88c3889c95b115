"""Write the slogans a set of statements still lacks, caching each batch as it completes.

The cache is read first; only missing slogans are written, and finished ones are flushed to the cache every
``flush_every`` results (and once more on the way out, also on Ctrl-C or an error), so an interrupted run loses
at most what was in flight and a rerun resumes. Failed statements are reported, never cached.

>>> from theorem_rag.records import Theorem
>>> from theorem_rag.slogans.cache import MemorySloganCache
>>> from theorem_rag.slogans.offline import OfflineSloganWriter
>>> t = Theorem(id="a", source="x", kind="lemma", doc_id="d", body_latex=r"Every field is a domain.")
>>> run = write_slogans([t], OfflineSloganWriter(), MemorySloganCache(), progress=False)
>>> run.slogans["a"], run.stats.written, run.stats.cached
('Lemma. Every field is a domain.', 1, 0)
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from theorem_rag.errors import InputError
from theorem_rag.records import Document, Theorem, digest
from theorem_rag.slogans.base import SloganResult, SloganWriter
from theorem_rag.slogans.cache import SloganCache, SloganRow, slogan_key

log = logging.getLogger(__name__)


@dataclass
class SloganStats:
    """What a run did: slogans found in the cache, written, failed, and the tokens and dollars spent."""

    total: int = 0
    cached: int = 0
    written: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        return (
            f"{self.total} statements: {self.cached} cached, {self.written} written, {self.failed} failed; "
            f"{self.prompt_tokens} prompt + {self.completion_tokens} completion tokens, ${self.cost_usd:.4f}"
        )


@dataclass(frozen=True)
class SloganRun:
    """The slogans by theorem id (failed ones absent) and the run's statistics."""

    slogans: dict[str, str]
    stats: SloganStats


def statement_hash(theorem: Theorem, writer: SloganWriter, document: Document | None = None) -> str:
    """The hash of exactly what ``writer`` reads to write ``theorem``'s slogan (its :meth:`inputs`)."""
    return digest(*writer.inputs(theorem, document))


def cache_key_for(theorem: Theorem, writer: SloganWriter, document: Document | None = None) -> str:
    """The cache key of ``theorem``'s slogan by ``writer`` (``document``: its paper, for writers that read it)."""
    return slogan_key(statement_hash(theorem, writer, document), writer.name, writer.prompt_version, writer.model)


def write_slogans(
    theorems: Iterable[Theorem],
    writer: SloganWriter,
    cache: SloganCache,
    *,
    documents: Mapping[str, Document] | None = None,
    progress: bool = True,
    flush_every: int = 32,
) -> SloganRun:
    """Slogans for ``theorems``: cached ones looked up, missing ones written by ``writer`` and cached.

    Statements whose writer inputs are the same share one slogan (and one request). Raises what the writer
    raises (for example :class:`theorem_rag.slogans.llm_writer.LLMUnavailable`) after caching every slogan finished so far.
    """
    if flush_every < 1:
        raise InputError("flush_every must be at least 1")
    theorems, documents = list(theorems), documents or {}
    hashes = {t.id: statement_hash(t, writer, documents.get(t.doc_id)) for t in theorems}
    keys = {tid: slogan_key(h, writer.name, writer.prompt_version, writer.model) for tid, h in hashes.items()}
    stats = SloganStats(total=len(theorems))
    found = cache.get_many(sorted(set(keys.values())))
    slogans = {tid: found[k] for tid, k in keys.items() if k in found}
    stats.cached = len(slogans)

    ids_by_key: dict[str, list[str]] = {}
    hash_by_key = {keys[t.id]: hashes[t.id] for t in theorems}
    todo: list[Theorem] = []
    for t in theorems:
        k = keys[t.id]
        if k in found:
            continue
        if k not in ids_by_key:
            todo.append(t)
        ids_by_key.setdefault(k, []).append(t.id)
    if not todo:
        return SloganRun(slogans, stats)

    from tqdm.auto import tqdm

    buffer: list[SloganRow] = []
    bar = tqdm(total=len(todo), desc=f"slogans ({writer.name})", unit="stmt", disable=not progress)

    def flush() -> None:
        if buffer:
            cache.put_many(list(buffer))
            buffer.clear()

    def on_result(result: SloganResult) -> None:
        k = keys[result.theorem_id]
        same = ids_by_key.get(k, [result.theorem_id])
        stats.prompt_tokens += result.prompt_tokens
        stats.completion_tokens += result.completion_tokens
        stats.cost_usd += result.cost_usd
        bar.update(1)
        if not result.ok:
            stats.failed += len(same)
            for tid in same:
                stats.errors[tid] = result.error or "empty slogan"
            return
        stats.written += len(same)
        for tid in same:
            slogans[tid] = result.slogan  # type: ignore[assignment]
        buffer.append(
            SloganRow(
                statement_hash=hash_by_key[k],
                writer=writer.name,
                prompt_version=writer.prompt_version,
                model=writer.model,
                slogan=result.slogan,  # type: ignore[arg-type]
                prompt_tokens=result.prompt_tokens,
                completion_tokens=result.completion_tokens,
                cost_usd=result.cost_usd,
                key=k,
            )
        )
        if len(buffer) >= flush_every:
            flush()

    try:
        writer.write(todo, documents, on_result)
    finally:
        bar.close()
        flush()
        if stats.failed:
            log.warning("%d slogans failed; first: %s", stats.failed, next(iter(stats.errors.items())))
    return SloganRun(slogans, stats)
