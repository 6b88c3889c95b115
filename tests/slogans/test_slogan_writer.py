"""write_slogans: cache first, write the rest, flush in batches, report failures (pure, in-memory cache)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pytest

from theorem_rag.records import Document, Theorem, digest
from theorem_rag.slogans import build_slogan_writer
from theorem_rag.slogans.base import SloganResult, SloganWriter
from theorem_rag.slogans.cache import MemorySloganCache, SloganCache, SloganRow, slogan_key
from theorem_rag.slogans.writer import cache_key_for, statement_hash, write_slogans

THEOREMS = [Theorem(id=f"x:{i}", source="x", kind="lemma", doc_id="d", body_latex=f"Fact {i}.") for i in range(10)]


class ScriptedWriter:
    """Writes 'Slogan <body>' and fails statements whose body says so; counts what it was asked."""

    name = "scripted"
    model = "none"
    prompt_version = "s-1"

    def inputs(self, theorem: Theorem, document: Document | None = None) -> tuple[str, ...]:
        return (theorem.body_latex,)

    def __init__(self, fail: set[str] = frozenset(), stop_after: int | None = None) -> None:
        self.fail = fail
        self.stop_after = stop_after
        self.asked: list[str] = []

    def write(self, theorems: Sequence[Theorem], documents: Mapping[str, Document],
              on_result: Callable[[SloganResult], None]) -> None:
        for n, t in enumerate(theorems):
            if self.stop_after is not None and n == self.stop_after:
                raise RuntimeError("crash")
            self.asked.append(t.id)
            if t.id in self.fail:
                on_result(SloganResult(t.id, None, prompt_tokens=3, error="refused"))
            else:
                on_result(SloganResult(t.id, f"Slogan {t.body_latex}", 3, 2, 0.5))


def test_protocols_hold():
    assert isinstance(MemorySloganCache(), SloganCache)
    assert isinstance(ScriptedWriter(), SloganWriter)
    assert isinstance(build_slogan_writer("offline"), SloganWriter)


def test_key_depends_on_every_part():
    base = slogan_key("h", "w", "v", "m")
    assert len({base, slogan_key("h2", "w", "v", "m"), slogan_key("h", "w2", "v", "m"),
                slogan_key("h", "w", "v2", "m"), slogan_key("h", "w", "v", "m2"), slogan_key("hw", "", "v", "m")}) == 6


def test_writes_missing_only_and_flushes_in_batches():
    cache = MemorySloganCache()
    w = ScriptedWriter()
    cache.put_many([SloganRow(statement_hash(THEOREMS[0], w), "scripted", "s-1", "none", "Old slogan.")])
    run = write_slogans(THEOREMS, w, cache, progress=False, flush_every=4)
    assert w.asked == [t.id for t in THEOREMS[1:]]
    assert run.slogans["x:0"] == "Old slogan." and run.slogans["x:9"] == "Slogan Fact 9."
    assert (run.stats.cached, run.stats.written, run.stats.failed) == (1, 9, 0)
    assert (run.stats.prompt_tokens, run.stats.completion_tokens, run.stats.cost_usd) == (27, 18, 4.5)
    assert cache.put_calls == 1 + 3  # the seed, then batches of 4, 4 and 1
    row = cache.rows[cache_key_for(THEOREMS[5], w)]
    assert (row.writer, row.prompt_version, row.statement_hash) == ("scripted", "s-1", digest("Fact 5."))


def test_failures_are_reported_and_never_cached():
    cache = MemorySloganCache()
    run = write_slogans(THEOREMS[:3], ScriptedWriter(fail={"x:1"}), cache, progress=False)
    assert sorted(run.slogans) == ["x:0", "x:2"] and run.stats.errors == {"x:1": "refused"}
    assert len(cache) == 2
    assert "1 failed" in run.stats.summary()


def test_a_crash_keeps_finished_slogans_and_a_rerun_resumes():
    cache = MemorySloganCache()
    with pytest.raises(RuntimeError, match="crash"):
        write_slogans(THEOREMS, ScriptedWriter(stop_after=6), cache, progress=False, flush_every=100)
    assert len(cache) == 6
    w = ScriptedWriter()
    run = write_slogans(THEOREMS, w, cache, progress=False)
    assert w.asked == ["x:6", "x:7", "x:8", "x:9"] and run.stats.cached == 6 and len(run.slogans) == 10


def test_identical_statements_share_one_request():
    twins = [Theorem(id=i, source="x", kind="lemma", doc_id="d", body_latex="Same.") for i in ("a", "b")]
    w = ScriptedWriter()
    run = write_slogans(twins, w, MemorySloganCache(), progress=False)
    assert w.asked == ["a"] and run.slogans == {"a": "Slogan Same.", "b": "Slogan Same."}
    assert run.stats.written == 2


def test_offline_writer_end_to_end():
    run = write_slogans(THEOREMS[:2], build_slogan_writer("offline"), MemorySloganCache(), progress=False)
    assert run.slogans == {"x:0": "Lemma. Fact 0.", "x:1": "Lemma. Fact 1."}


def test_flush_every_must_be_positive():
    with pytest.raises(ValueError, match="flush_every"):
        write_slogans(THEOREMS, ScriptedWriter(), MemorySloganCache(), flush_every=0)
