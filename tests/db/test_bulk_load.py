"""The store's bulk path (copy_theorems, text index, lexicon, sizes) and the scale benchmark's synthetic corpus.

``benchmarks/synthetic_corpus.py`` and ``benchmarks/bench_scale.py`` are exercised at a tiny N on the session's
real database, so the benchmark cannot rot between the runs that produce its tables.
"""

import sys
from pathlib import Path

import numpy as np
import psycopg
import pytest
from psycopg import sql

from theorem_rag.db import table_sql
from theorem_rag.db.store import TheoremStore
from theorem_rag.errors import InputError
from theorem_rag.formula_keys import formula_keys
from theorem_rag.records import Theorem

from db_helpers import DOCS, SLOGANS, THEOREMS, plan_nodes, theorem_vectors

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_scale  # noqa: E402
from bench_scale import exact_reference  # noqa: E402
from synthetic_corpus import Seed, SyntheticCorpus, load_corpus, nearest_neighbours  # noqa: E402

pytestmark = pytest.mark.db


@pytest.fixture
def seed() -> Seed:
    return Seed.from_parts(THEOREMS, [SLOGANS[t.id] for t in THEOREMS], theorem_vectors(), DOCS)


def test_corpus_repeats_the_seed_in_rounds(seed):
    corpus = SyntheticCorpus(seed, 20, batch_size=7)
    batches = list(corpus.batches())
    assert [len(b.theorems) for b in batches] == [7, 7, 6]
    ids = [i for b in batches for i in b.ids]
    assert len(set(ids)) == 20
    assert ids[:6] == [t.id for t in THEOREMS]  # round 0 is the seed itself
    for r in (1, 2):  # every full round visits each seed statement once, under its own id and document copy
        assert sorted(ids[6 * r : 6 * r + 6]) == sorted(f"{t.id}~r{r}" for t in THEOREMS)
    assert all(i.endswith("~r3") for i in ids[18:])
    by_id = {t.id: t for b in batches for t in b.theorems}
    copy = by_id["stacks:00DV~r2"]
    assert (copy.doc_id, copy.name, copy.body_latex) == ("stacks:algebra~r2", "Nakayama's lemma", THEOREMS[0].body_latex)
    slogans = {k: v for b in batches for k, v in b.slogans.items()}
    assert slogans["stacks:00DV~r2"] == SLOGANS["stacks:00DV"]
    docs = [d.id for b in batches for d in b.documents]
    assert len(docs) == len(set(docs)) and "stacks:algebra~r2" in docs and "paper:1" in docs

    vecs = np.concatenate([b.vectors for b in batches])
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1, atol=1e-5)
    np.testing.assert_array_equal(vecs[:6], seed.vectors)  # real vectors, untouched, in round 0
    assert not np.allclose(vecs[6:], 0) and all((vecs[6:] != v).any() for v in seed.vectors)
    # Moved towards a neighbour plus noise, each new vector stays close to the statement it copies.
    base = {t.id: v for t, v in zip(THEOREMS, seed.vectors)}
    assert min(float(v @ base[i.split("~")[0]]) for i, v in zip(ids[6:], vecs[6:])) > 0.5

    again = [(i, v) for ids_, vs in corpus.vector_batches() for i, v in zip(ids_, vs)]
    assert [i for i, _ in again] == ids
    np.testing.assert_array_equal(np.stack([v for _, v in again]), vecs)
    other = np.concatenate([v for _, v in SyntheticCorpus(seed, 20, batch_size=7, seed_value=1).vector_batches()])
    assert not np.array_equal(other[6:], vecs[6:])


def test_nearest_neighbours_exclude_the_row_itself(seed):
    nb = nearest_neighbours(seed.vectors, m=2)
    sims = seed.vectors @ seed.vectors.T
    np.fill_diagonal(sims, -np.inf)
    assert nb.tolist() == np.argsort(-sims, axis=1, kind="stable")[:, :2].tolist()


def test_load_corpus_through_the_bulk_path(store, seed):
    corpus = SyntheticCorpus(seed, 20, batch_size=7)
    steps = []
    report = load_corpus(store, corpus, "bench", progress=False, maintenance_work_mem="64MB", parallel_workers=0,
                         on_step=steps.append)  # fmt: skip
    assert steps == ["load", "indexes", "hnsw", "vacuum"]
    assert (report.rows, store.count(), store.count_vectors("bench")) == (20, 20, 20)
    assert report.documents == len(store.get_documents([d for b in corpus.batches() for d in (x.id for x in b.documents)]))
    assert set(report.seconds) == {"generate", "documents", "theorems", "vectors", "indexes", "hnsw", "vacuum"}
    assert store.has_index("bench") and store.deferred_indexes() == []
    sizes = {s.name: s for s in store.relation_sizes()}
    assert sizes[table_sql.text_index_name(store.names)].kind == "index" and sizes[store.names.hnsw_index("bench")].bytes > 0
    assert sizes[store.names.theorems].kind == "table" and sizes[store.names.theorems].bytes > 0

    hit = store.hydrate(store.search_dense("bench", seed.vectors[0], k=1, pool=20))[0]
    assert (hit.theorem_id, hit.slogan) == ("stacks:00DV", SLOGANS["stacks:00DV"])
    # The triggers kept the lexicon current through COPY: long queries rank by it (no lexicon, no candidates).
    copies = sorted(t.id for b in corpus.batches() for t in b.theorems if t.id.split("~")[0] == "paper:1:lem2")
    long_query = "finite subgroup of the multiplicative group of a field is cyclic"
    assert sorted(h.theorem_id for h in store.search_text(long_query, k=10))[: len(copies)] == copies
    # Keyword queries use the rebuilt GIN index; every copy of the named statement matches.
    named = sorted(t.id for b in corpus.batches() for t in b.theorems if t.name == "Nakayama's lemma")
    assert sorted(h.theorem_id for h in store.search_text("Nakayama lemma", k=10)) == named

    # The benchmark's numpy reference is the store's exact scan.
    qvecs = np.stack([seed.vectors[2], seed.vectors[4]])
    ref = exact_reference(corpus, qvecs, k=5)
    assert ref == [[h.theorem_id for h in store.exact_search("bench", q, k=5)] for q in qvecs]


def test_load_corpus_copies_each_batch_in_parts_at_once(store, seed, monkeypatch):
    import threading

    parts, lock, both = [], threading.Lock(), threading.Barrier(2, timeout=10)
    copy = store.copy_theorems

    def spy(theorems, slogans=None):
        with lock:
            parts.append(([t.id for t in theorems], dict(slogans or {})))
        both.wait()  # the two parts of a batch are copied at the same time, or this times out
        return copy(theorems, slogans)

    monkeypatch.setattr(store, "copy_theorems", spy)
    corpus = SyntheticCorpus(seed, 14, batch_size=7)
    report = load_corpus(store, corpus, "bench", progress=False, build_indexes=False, writers=2)
    assert (report.rows, store.count(), store.count_vectors("bench")) == (14, 14, 14)
    assert sorted(len(ids) for ids, _ in parts) == [3, 3, 4, 4]
    assert sorted(i for ids, _ in parts for i in ids) == sorted(i for b in corpus.batches() for i in b.ids)
    assert all(set(slogans) == set(ids) for ids, slogans in parts)  # each part brings its own slogans
    with pytest.raises(ValueError, match="writers must be"):
        load_corpus(store, corpus, "bench", progress=False, writers=store.pool_size)


def test_copy_theorems_writes_new_statements_only(store):
    assert store.copy_theorems(THEOREMS[:2], {"stacks:00DV": "A slogan."}) == 2
    with pytest.raises(InputError, match="new statements only"):
        store.copy_theorems(THEOREMS[1:4])
    assert store.count() == 2  # the failed batch wrote nothing
    with pytest.raises(InputError, match="not in the batch"):
        store.copy_theorems(THEOREMS[2:3], {"stacks:00DV": "x"})
    assert [h.slogan for h in store.hydrate(store.search_text("Nakayama", k=1))] == ["A slogan."]


ODD = ['say "hi"', "a,b", "{braces}", "back\\slash", "NULL", "", "tab\tand\nnewline", "ü∞"]


def test_arrays_survive_both_write_paths_whatever_their_characters(store):
    """Array columns go to COPY as PostgreSQL array literals written by theorem-rag: quotes, commas, braces,
    backslashes, an element spelled NULL, an empty one and control characters come back as they were."""
    body = r"If $\frac{a}{b} = \sqrt{c}$ and $x_{i,j} \in \{0\}$ then $\|v\| \le 1$."
    copied = Theorem(id="odd:1", source="odd", kind="lemma", body_latex=body, doc_id="odd:d", section=ODD, proof_refs=ODD[::-1])
    upserted = Theorem(id="odd:2", source="odd", kind="lemma", body_latex=body, doc_id="odd:d", section=ODD[1:], proof_refs=ODD)
    store.copy_theorems([copied])
    store.upsert_theorems([upserted])
    assert store.get_theorems(["odd:1", "odd:2"]) == {"odd:1": copied, "odd:2": upserted}
    with store.connection() as conn:
        query = sql.SQL("SELECT id, formula_keys FROM {t} WHERE source = %s").format(t=sql.Identifier(store.names.theorems))
        keys = dict(conn.execute(query, ["odd"]).fetchall())
    assert keys == {"odd:1": formula_keys(body), "odd:2": formula_keys(body)} and {"e:i ,", "e:{ 0 }"} <= set(keys["odd:1"])
    assert store.upsert_theorems([copied, upserted]).unchanged == 2  # the stored rows equal what is written


def test_copy_vectors_fills_the_filter_columns_as_write_vectors_does(store):
    """The bulk vector path takes source, kind, document and year from the records, not from a join: filtered
    searches see exactly what they see after write_vectors. Bad batches are refused whole."""
    from dataclasses import replace

    store.upsert_documents(DOCS)
    store.copy_theorems(THEOREMS)
    vecs, hashes, years = theorem_vectors(), [f"h{i}" for i in range(len(THEOREMS))], {d.id: d.year for d in DOCS}
    for name in ("bulk", "ref"):
        store.vector_space(name, vecs.shape[1])
    with pytest.raises(InputError, match="years lacks"):
        store.copy_vectors("bulk", THEOREMS, vecs, hashes, {})
    with pytest.raises(InputError, match="not stored"):
        store.copy_vectors("bulk", [*THEOREMS[:2], replace(THEOREMS[2], id="nope:1")], vecs[:3], hashes[:3], years)
    assert store.count_vectors("bulk") == 0
    assert store.copy_vectors("bulk", THEOREMS, vecs, hashes, years) == len(THEOREMS)
    store.write_vectors("ref", [t.id for t in THEOREMS], vecs, hashes=hashes)
    for filters in ({}, {"year_min": 2000}, {"source": ["stacks"]}, {"kind": ["lemma"]}, {"year_max": 1999}):
        got = [h.theorem_id for h in store.exact_search("bulk", vecs[2], k=6, filters=filters)]
        assert got == [h.theorem_id for h in store.exact_search("ref", vecs[2], k=6, filters=filters)], filters
    assert store.ids_missing_vectors("bulk", dict(zip([t.id for t in THEOREMS], hashes))) == []
    with pytest.raises(InputError, match="new vectors only"):
        store.copy_vectors("bulk", THEOREMS[:1], vecs[:1], hashes[:1], years)


def _index_definitions(store) -> dict[str, str]:
    with store.connection() as conn:
        return dict(conn.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ANY(%s)",
                                 [[store.names.theorems, store.names.text]]).fetchall())


def test_deferred_indexes_are_built_again_as_they_were_even_by_another_process(store, pg_dsn):
    """A bulk load drops every secondary index of the statements table and builds each again at the end; the
    definitions wait in the database, so a store opened after a crash still builds them."""
    before = _index_definitions(store)
    # The full-text index's pending list, which every search reads, is bounded (migration 16), and stays so.
    assert "gin_pending_list_limit='256'" in before[table_sql.text_index_name(store.names)]
    kept = {f"{store.names.theorems}_pkey", f"{store.names.text}_pkey", table_sql.doc_index_name(store.names)}  # document writes need doc_id's
    dropped = store.defer_indexes()
    assert set(dropped) == set(before) - kept | {store.names.lexicon, store.names.formula_df} and len(dropped) >= 9
    assert table_sql.text_index_name(store.names) in dropped
    assert set(_index_definitions(store)) == kept and store.deferred_indexes() == sorted(dropped)
    assert store.defer_indexes() == []  # nothing left to drop; the definitions are kept once
    store.copy_theorems(THEOREMS)
    with pytest.raises(InputError, match="parallel_workers"):
        store.restore_indexes(parallel_workers=-1)
    assert store.deferred_indexes() == sorted(dropped)  # the failed call built nothing and lost nothing
    with TheoremStore(pg_dsn, table=store.names.prefix) as other:
        assert sorted(other.restore_indexes("64MB", parallel_workers=1)) == sorted(dropped)
    assert _index_definitions(store) == before and store.deferred_indexes() == []
    assert store.restore_indexes() == []
    assert [h.theorem_id for h in store.search_text("Nakayama", k=1)] == ["stacks:00DV"]


def _lexicon(store) -> dict[str, int]:
    with store.connection() as conn:
        query = sql.SQL("SELECT lexeme, ndoc FROM {l}").format(l=sql.Identifier(store.names.lexicon))
        return dict(conn.execute(query).fetchall())


def _formula_counts(store) -> dict[str, int]:
    with store.connection() as conn:
        query = sql.SQL("SELECT key, ndoc FROM {f}").format(f=sql.Identifier(store.names.formula_df))
        return dict(conn.execute(query).fetchall())


def _triggers_off(store) -> set[str]:
    with store.connection() as conn:
        rows = conn.execute("SELECT tgname FROM pg_trigger WHERE tgrelid IN (to_regclass(%s), to_regclass(%s)) "
                            "AND tgenabled = 'D'", [store.names.text, store.names.theorems])  # fmt: skip
        return {r[0] for r in rows}


def test_a_first_load_counts_the_lexicon_and_formula_keys_once_at_its_end_as_the_triggers_would(store, pg_dsn,
                                                                                                table_prefix):
    """A bulk load turns the triggers of the lexicon and of the formula keys' counts off (no per-batch upsert of
    every lexeme and key) and counts both from their tables when it builds its indexes: the same counts the triggers
    keep for the same writes, even when another process finishes the load; afterwards the triggers keep them again."""
    with TheoremStore(pg_dsn, table=table_prefix + "_u") as other:
        other.migrate()
        other.upsert_theorems(THEOREMS)
        expected, expected_keys = _lexicon(other), _formula_counts(other)
    assert expected["nakayama"] == 1 and len(expected) > 30 and len(expected_keys) > 10

    assert {store.names.lexicon, store.names.formula_df} <= set(store.defer_indexes())
    assert _triggers_off(store) == {"trag_lex_ins", "trag_lex_upd", "trag_lex_del", "trag_formula_ins",
                                    "trag_formula_upd", "trag_formula_del"}  # fmt: skip
    store.copy_theorems(THEOREMS[:3])
    store.upsert_theorems(THEOREMS)  # a write by the other path meanwhile is counted at the end too
    assert _lexicon(store) == {} and _formula_counts(store) == {}  # nothing counted during the load
    with TheoremStore(pg_dsn, table=store.names.prefix) as finisher:
        built = finisher.restore_indexes("64MB", parallel_workers=0)
        assert {store.names.lexicon, store.names.formula_df} <= set(built)
    assert _lexicon(store) == expected and _formula_counts(store) == expected_keys
    assert _triggers_off(store) == set() and store.deferred_indexes() == []

    store.delete_theorems([THEOREMS[0].id])  # the triggers are back on
    with TheoremStore(pg_dsn, table=table_prefix + "_u") as other:
        other.delete_theorems([THEOREMS[0].id])
        assert _lexicon(store) == _lexicon(other) != expected
        assert _formula_counts(store) == _formula_counts(other) != expected_keys


def test_a_build_loads_an_empty_index_by_copy_and_later_writes_by_upsert(store, pg_dsn, table_prefix, monkeypatch):
    """``write_theorems`` (what ``index build`` writes with): into an empty index the bulk path, leaving every
    index as it was and the same rows the upsert path writes; once it holds statements, the upsert."""
    before = _index_definitions(store)
    calls = []
    monkeypatch.setattr(store, "upsert_theorems", lambda items, slogans=None: calls.append(len(items)))
    counts = store.write_theorems(THEOREMS)
    assert (counts.inserted, counts.updated, counts.unchanged, calls) == (len(THEOREMS), 0, 0, [])
    assert _index_definitions(store) == before and store.deferred_indexes() == []
    monkeypatch.undo()
    with TheoremStore(pg_dsn, table=table_prefix + "_u") as other:
        other.migrate()
        other.upsert_theorems(THEOREMS)
        ids = [t.id for t in THEOREMS]
        assert store.get_theorems(ids) == other.get_theorems(ids) and store.count() == other.count() == len(ids)
        assert [h.theorem_id for h in store.search_text("Nakayama lemma module", k=5)] == [
            h.theorem_id for h in other.search_text("Nakayama lemma module", k=5)]
    assert store.write_theorems(THEOREMS).unchanged == len(THEOREMS)  # now the upsert, which finds them stored
    with TheoremStore(pg_dsn, table=table_prefix + "_d") as empty:
        empty.migrate()
        with pytest.raises(InputError, match="duplicate"):
            empty.write_theorems([THEOREMS[0], THEOREMS[0]])
        assert empty.count() == 0 and empty.deferred_indexes() == []


def test_a_build_first_builds_the_indexes_an_interrupted_bulk_load_left_dropped(store):
    before = _index_definitions(store)
    store.defer_indexes()  # a load that stopped before its end
    store.write_theorems(THEOREMS[:2])
    assert _index_definitions(store) == before and store.deferred_indexes() == []


def test_document_upsert_reads_only_the_vectors_of_its_statements(store):
    """The year sync after a document write goes through the statements' doc_id index to the vectors' primary key:
    with sequential scans disabled the plan has none on the vector table (it has no doc_id index, so the old
    join on ``v.doc_id`` had to scan it whole on every document write)."""
    store.copy_theorems(THEOREMS)
    store.vector_space("toy", 8)
    store.write_vectors("toy", [t.id for t in THEOREMS], theorem_vectors())  # documents come after: no year yet
    assert {h.theorem_id for h in store.exact_search("toy", theorem_vectors()[2], k=6, filters={"year_min": 1})} == set()
    assert store.upsert_documents(DOCS).inserted == 3
    got = {h.theorem_id for h in store.exact_search("toy", theorem_vectors()[2], k=6, filters={"year_min": 2000})}
    assert got == {"stacks:00DV", "stacks:00FN", "paper:1:thm1", "paper:1:lem2"}  # napkin's document has no year
    assert store.upsert_documents(DOCS).unchanged == 3
    with store.connection() as conn, conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")
        query = table_sql.sync_document_years(store.names, "toy")
        plan = conn.execute(b"EXPLAIN (FORMAT JSON) " + query.as_bytes(conn), [["paper:1"]]).fetchone()[0]
    scans = [(node["Node Type"], node.get("Relation Name")) for node in plan_nodes(plan)]
    assert ("Seq Scan", store.names.vectors("toy")) not in scans
    assert ("Index Scan", store.names.vectors("toy")) in scans


@pytest.mark.parametrize("items", [
    [], [""], ["a"], ["NULL", "null"], ['say "hi"', "x,y", "{braces}", " padded "],
    ["a\\", "\\", '\\"', '"\\', "\\\\n"], [r"e:\alpha|\beta", "a:v^v", "c:\\frac"], ["ümlaut", "λ", "𝔽_p"],
])  # fmt: skip
def test_array_text_reads_back_as_the_same_elements(store, items):
    """``text_array`` escapes the whole list at once (joined by NUL): PostgreSQL's own array parser must read back
    exactly the elements written, quotes, backslashes, separators and the word NULL included."""
    with store.connection() as conn:
        assert conn.execute("SELECT %s::text[]", [table_sql.text_array(items)]).fetchone()[0] == items


def test_an_element_with_a_nul_is_refused_not_split(store):
    with pytest.raises(psycopg.DataError, match="NUL"), store.connection() as conn:
        conn.execute("SELECT %s::text[]", [table_sql.text_array(["a\0b", "c"])])


def test_a_record_carries_its_formula_keys_to_both_write_paths_while_they_match_its_text(store):
    """Formula keys computed where a record is parsed are written as carried (the bulk load does not compute
    them: the carried key here is one no formula gives); keys stamped for another text, or another version of the
    keys, are computed again."""
    from dataclasses import replace

    from theorem_rag import formula_keys as fk

    body = r"Then $x^2 \ge 0$ for every real $x$."
    made = dict(source="fk", kind="lemma", body_latex=body, doc_id="fk:d")
    fake = ("e:carried key",)
    carried = Theorem(id="fk:1", formula_keys=(fk.stamp(body), fake), **made)
    stale = Theorem(id="fk:2", formula_keys=(fk.stamp("the statement before an edit"), fake), **made)
    old_version = Theorem(id="fk:3", formula_keys=(fk.digest("formula_keys", "0", body, length=16), fake), **made)
    store.copy_theorems([carried, stale, old_version])
    store.upsert_theorems([replace(carried, id="fk:4"), replace(stale, id="fk:5")])
    with store.connection() as conn:
        query = sql.SQL("SELECT id, formula_keys FROM {t} WHERE source = %s").format(t=sql.Identifier(store.names.theorems))
        keys = dict(conn.execute(query, ["fk"]).fetchall())
    computed = formula_keys(body)
    assert computed and "e:carried key" not in computed
    assert keys == {"fk:1": ["e:carried key"], "fk:2": computed, "fk:3": computed, "fk:4": ["e:carried key"],
                    "fk:5": computed}  # fmt: skip
    assert store.get_theorems(["fk:1"]) == {"fk:1": carried}  # the keys are not part of the record


def test_the_scale_benchmark_refuses_missing_query_sets_before_it_builds(tmp_path, capsys):
    """The dev query sets are read after the load and the index builds (16 minutes at 1M): a run from a checkout
    not beside ``shared/`` stops at once, with what to pass, before it touches a server or a folder."""
    data = tmp_path / "bench"
    with pytest.raises(SystemExit) as stopped:
        bench_scale.main(["--n", "10", "--seed-data-dir", str(tmp_path / "seed"), "--data-dir", str(data),
                          "--eval-dir", str(tmp_path / "no_eval"), "--out", str(tmp_path / "out")])  # fmt: skip
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "stacks_slogans_dev.jsonl" in err and "--eval-dir" in err
    assert not data.exists() and not (tmp_path / "out").exists()
