"""The build on Ray Data: the same records, slogans and vectors as the single-process build; crashes and timeouts
reported, not fatal; a build killed midway and rerun loses, duplicates and redoes nothing.

Ray starts once for the module (a local ``ray.init`` with 2 CPUs); the tests are few and small.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason='the Ray engine tests need Ray: pip install "theorem-rag[ray]"')

from corpus_build.ray_engine import TaskError, init_ray, ray_map  # noqa: E402
from theorem_rag.config import DEFAULT_EMBED_MODEL, Settings  # noqa: E402
from theorem_rag.db import table_sql  # noqa: E402
from theorem_rag.db.table_names import space_name  # noqa: E402
from theorem_rag.record_files import read_records  # noqa: E402

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(scope="module")
def local_ray():
    init_ray(num_cpus=2, object_store_mb=200)
    yield
    ray.shutdown()


def test_map_reports_crashes_and_timeouts_and_goes_on(local_ray):
    got = list(ray_map(math.sqrt, [4.0, -1.0, 9.0], max_retries=0))
    assert sorted((g.index, g.reason) if isinstance(g, TaskError) else g for g in got) == [
        (0, 2.0), (1, "crashed: ValueError: math domain error"), (2, 3.0)]  # fmt: skip
    got = list(ray_map(time.sleep, [0, 30], timeout=1.0, max_retries=0))
    assert sorted((g.index, g.reason) if isinstance(g, TaskError) else g for g in got) == [
        (0, None), (1, "timed out after 1.0 s")]  # fmt: skip


def test_unit_mapper_reports_a_crashed_document(local_ray):
    from corpus_build.ray_parse import ray_unit_mapper
    from corpus_build.theorems import DEFAULT_ENVS
    from corpus_build.units import UnitJob

    good = UnitJob(r"\begin{document}\begin{lemma}A lemma about sets.\end{lemma}\end{document}", DEFAULT_ENVS, {}, {},
                   use_plastex=False)  # fmt: skip
    bad = UnitJob(None, DEFAULT_ENVS, {}, {}, use_plastex=False)  # no text: parse_unit raises TypeError
    got = ray_unit_mapper()([good, bad, good])
    assert [e.parser for e in got] == ["fallback", "failed", "fallback"]
    assert [s.body for s in got[0].statements] == ["A lemma about sets."]
    assert got[1].reason.startswith("parser crashed: TypeError: ")


def test_ray_parse_equals_local_parse(local_ray, tmp_path):
    from corpus_build.parse import parse_sources
    from corpus_build.ray_parse import parse_sources_ray

    sources = [FIXTURES / "latex" / "stacks", FIXTURES / "latex" / "paper", FIXTURES / "latex" / "planetmath",
               FIXTURES / "integrations" / "theorems.jsonl"]  # fmt: skip
    local = parse_sources(sources, tmp_path / "local", use_plastex=False, progress=False)
    on_ray = parse_sources_ray(sources, tmp_path / "ray", use_plastex=False)
    a, b = read_records(tmp_path / "local", strict=False), read_records(tmp_path / "ray", strict=False)
    assert len(a.rejected) == len(b.rejected) == 8  # the jsonl repeats statements of the Stacks fixture
    assert len(a.theorems) + len(a.rejected) == local.to_dict()["totals"]["records_kept"] == 65
    assert [t.to_dict() for t in b.theorems] == [t.to_dict() for t in a.theorems]
    assert [d.to_dict() for d in b.documents] == [d.to_dict() for d in a.documents]
    strip = lambda r: {k: v for k, v in r.items() if k not in ("seconds", "parser_seconds", "path")}  # noqa: E731
    assert [strip(s) for s in on_ray.to_dict()["sources"]] == [strip(s) for s in local.to_dict()["sources"]]


def _records():
    recs = read_records(FIXTURES / "integrations")
    return recs.theorems, recs.documents


def _state(store, space):
    ids = [t for t in store.vector_ids(space)]
    theorems = store.get_theorems(ids)
    slogans = {h.theorem_id: h.slogan for h in store.hydrate([__import__("theorem_rag.records").records.Hit(i, 0.0)
                                                                for i in ids])}  # fmt: skip
    vectors = dict(store.iter_vectors(space))
    return ids, theorems, slogans, vectors


def _build(engine: str, dsn: str, table: str, *extra: str) -> str:
    from click.testing import CliRunner

    from theorem_rag.cli import main

    ray_flags = ["--ray-batch-size", "16"] if engine == "ray" else []
    result = CliRunner().invoke(main, ["index", "build", "--records", str(FIXTURES / "integrations"), "--engine", engine,
                                       *ray_flags, "--embed-backend", "torch", "--slogan-writer", "offline",
                                       "--database-url", dsn, "--table", table, *extra])  # fmt: skip
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.db
@pytest.mark.models
def test_ray_build_equals_local_build_in_every_space(local_ray, pg_dsn):
    """The quickstart's builds, with each engine: two sources into the base model's space, the same into
    math-minilm-v4's (the query space of queries in words) and into the words space (each statement's words, read
    whole), then every source with a plain ``index build``. Both indexes hold the same statements, slogans and
    vectors in every space: on Ray too the query space and the words space follow."""
    from theorem_rag.config import ADAPTED_MODEL
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.indexing.ray_build import RayBuildOptions, build_index_ray

    theorems, documents = _records()
    some = ["--source", "stacks", "--source", "planetmath"]
    space, query_space = space_name(DEFAULT_EMBED_MODEL, "slogan"), space_name(ADAPTED_MODEL, "slogan")
    words_space = space_name(DEFAULT_EMBED_MODEL, "statement")
    with TheoremStore(pg_dsn, table="ray_eq_local") as local, TheoremStore(pg_dsn, table="ray_eq_ray") as on_ray:
        on_ray.migrate()
        before = _indexes(on_ray)
        out = _build("ray", pg_dsn, "ray_eq_ray", *some)
        assert (f"space {space}: 8 statements (8 new, 0 updated, 0 unchanged, 0 removed) in 5 documents; "
                "slogans 0 cached, 8 written, 0 failed; 8 embedded") in out
        # into the empty index the bulk path: every secondary index dropped before the writes and built once after
        # them (new objects, the same definitions); the upsert path would have kept the same objects
        after = _indexes(on_ray)
        assert {n: d for n, (d, _) in after.items()} == {n: d for n, (d, _) in before.items()}
        kept = {f"{on_ray.names.theorems}_pkey", f"{on_ray.names.text}_pkey", table_sql.doc_index_name(on_ray.names)}
        rebuilt = {n for n in before if after[n][1] != before[n][1]}
        assert rebuilt == set(before) - kept and len(rebuilt) >= 8 and on_ray.deferred_indexes() == []
        _build("ray", pg_dsn, "ray_eq_ray", *some, "--embed-model", ADAPTED_MODEL)
        _build("local", pg_dsn, "ray_eq_local", *some)
        _build("local", pg_dsn, "ray_eq_local", *some, "--embed-model", ADAPTED_MODEL)
        for engine in ("ray", "local"):
            _build(engine, pg_dsn, f"ray_eq_{engine}", *some, "--embed-field", "statement")
        assert on_ray.count_vectors(query_space) == local.count_vectors(query_space) == 8
        assert on_ray.count_vectors(words_space) == local.count_vectors(words_space) == 8

        graphs = {s: _hnsw_oid(s, space) for s in (on_ray, local)}
        outputs = {engine: _build(engine, pg_dsn, f"ray_eq_{engine}") for engine in ("ray", "local")}
        # 43 new vectors into a space of 8, more than REBUILD_SHARE of it: each engine drops the HNSW index before
        # the writes and builds it again over all 51 (a new relation), instead of inserting 43 times into the graph
        assert all(_hnsw_oid(s, space) not in (None, oid) for s, oid in graphs.items())
        for out in outputs.values():
            assert (f"space {space}: 51 statements (43 new, 0 updated, 8 unchanged, 0 removed) in 6 documents; "
                    "slogans 8 cached, 43 written, 0 failed; 43 embedded") in out
            assert (f"space {query_space}: 51 statements (0 new, 0 updated, 51 unchanged, 0 removed) in 6 documents; "
                    "slogans 51 cached, 0 written, 0 failed; 43 embedded") in out
            assert f"space {words_space}: 51 statements" in out and out.count("43 embedded") == 3
        assert [sp.name for sp in on_ray.spaces()] == [sp.name for sp in local.spaces()] == sorted(
            [space, query_space, words_space])  # fmt: skip
        for name in (space, query_space, words_space):
            ids_a, th_a, sl_a, vec_a = _state(local, name)
            ids_b, th_b, sl_b, vec_b = _state(on_ray, name)
            assert ids_b == ids_a and len(ids_a) == 51, name
            assert th_b == th_a
            assert sl_b == sl_a
            for i in ids_a:
                np.testing.assert_allclose(vec_b[i], vec_a[i], atol=1e-5)
            assert on_ray.has_index(name) and local.has_index(name)
        assert on_ray.stats()["theorems"] == local.stats()["theorems"] == 51
        tokens = Settings().embed_max_tokens  # what the CLI's build read of each slogan
        again = build_index_ray(pg_dsn, theorems, documents, space=space, table="ray_eq_ray", embed_max_tokens=tokens,
                                options=RayBuildOptions(batch_size=16))  # fmt: skip
        assert (again.inserted, again.updated, again.unchanged, again.slogans_written, again.embedded) == (0, 0, 51, 0, 0)


@pytest.mark.db
def test_a_failed_ray_first_load_builds_its_indexes_on_the_way_out(local_ray, pg_dsn):
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.indexing.ray_build import RayBuildOptions, build_index_ray

    theorems, documents = _records()
    with TheoremStore(pg_dsn, table="ray_fail") as store:
        store.migrate()
        before = _indexes(store)
        with pytest.raises(Exception, match="no_such_option"):  # the slogan actors cannot be made: the pipeline fails
            build_index_ray(pg_dsn, theorems, documents, space="minilm_slogan", table="ray_fail",
                            writer={"spec": "offline", "no_such_option": 1}, options=RayBuildOptions(batch_size=16),
                            build_hnsw=False)  # fmt: skip
        after = _indexes(store)
        assert store.deferred_indexes() == []
        assert {n: d for n, (d, _) in after.items()} == {n: d for n, (d, _) in before.items()}
        assert any(after[n][1] != before[n][1] for n in before)  # dropped by the first load, built again


def _hnsw_oid(store, space: str) -> int | None:
    """The object id of ``space``'s HNSW index (a new one when it was built again), None when it has none."""
    with store.connection() as conn:
        return conn.execute("SELECT to_regclass(%s)::oid", [store.names.hnsw_index(space)]).fetchone()[0]


def _indexes(store) -> dict[str, tuple[str, int]]:
    """Each index of the statements and text tables: its definition and its object id."""
    with store.connection() as conn:
        return {n: (d, oid) for n, d, oid in conn.execute(
            "SELECT indexname, indexdef, (quote_ident(schemaname) || '.' || quote_ident(indexname))::regclass::oid "
            "FROM pg_indexes WHERE tablename = ANY(%s)", [[store.names.theorems, store.names.text]])}  # fmt: skip


KILL_SCRIPT = """
import sys
from theorem_rag.record_files import read_records
from theorem_rag.indexing.ray_build import RayBuildOptions, build_index_ray
recs = read_records(sys.argv[1])
build_index_ray(sys.argv[2], recs.theorems, recs.documents, space="minilm_slogan", table=sys.argv[3],
                options=RayBuildOptions(batch_size=2, num_cpus=2, object_store_mb=200), build_hnsw=False)
print("finished", flush=True)
"""


def _session_pids(sid: int, *, live: bool = False) -> list[int]:
    """The processes of session ``sid``; ``live``: leave out zombies (dead, not yet reaped). Read in one pass: a
    process can vanish between a listing and a second read of its stat."""
    pids = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                stat = (p / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            # fields[0]: the state (field 3 of /proc/PID/stat); fields[3]: the session id (field 6)
            if int(fields[3]) == sid and not (live and fields[0] == "Z"):
                pids.append(int(p.name))
    return pids


@pytest.mark.db
@pytest.mark.models
def test_killed_build_reruns_without_loss_duplicates_or_redone_work(local_ray, pg_dsn):
    """SIGKILL every process of a Ray build (driver, raylet, workers) once some vectors are in, then rerun."""
    import psycopg

    from theorem_rag.db.store import TheoremStore
    from theorem_rag.indexing.ray_build import RayBuildOptions, build_index_ray
    from theorem_rag.slogans.offline import OfflineSloganWriter
    from theorem_rag.slogans.writer import cache_key_for

    theorems, documents = _records()
    table, space = "ray_kill", "minilm_slogan"
    proc = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, str(FIXTURES / "integrations"), pg_dsn, table],
                            start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env={**os.environ, "RAY_ADDRESS": ""})  # fmt: skip
    vec_table = f"{table}_vec_{space}"
    at_kill = 0
    deadline = time.monotonic() + 600  # Ray's start and the model load take minutes on a loaded 2-core machine
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        while time.monotonic() < deadline and proc.poll() is None:
            exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [vec_table]).fetchone()[0]
            if exists and conn.execute(f'SELECT count(*) FROM "{vec_table}"').fetchone()[0] >= 6:
                break
            time.sleep(0.05)
        assert proc.poll() is None, f"the build ended before it could be killed: {proc.stdout.read().decode()[-2000:]}"
        for pid in _session_pids(proc.pid):
            with contextlib.suppress(ProcessLookupError):  # ended since the listing
                os.kill(pid, signal.SIGKILL)
        proc.wait(30)
        time.sleep(1.0)
        assert _session_pids(proc.pid, live=True) == []
        at_kill = conn.execute(f'SELECT count(*) FROM "{vec_table}"').fetchone()[0]
        cached_keys = {r[0] for r in conn.execute(f'SELECT key FROM "{table}_slogan_cache"')}
    assert 6 <= at_kill < 51, f"{at_kill} vectors at the kill; the build said: {proc.stdout.read().decode()[-3000:]}"
    with TheoremStore(pg_dsn, table=table) as store:
        assert store.deferred_indexes()  # killed in its first load, whose indexes are built at the end
    writer = OfflineSloganWriter()
    docs = {d.id: d for d in documents}
    keys = {t.id: cache_key_for(t, writer, docs.get(t.doc_id)) for t in theorems}
    report = build_index_ray(pg_dsn, theorems, documents, space=space, table=table,
                             options=RayBuildOptions(batch_size=16), build_hnsw=False)  # fmt: skip
    assert report.embedded == 51 - at_kill  # vectors committed before the kill are not redone
    assert report.slogans_cached == sum(keys[t.id] in cached_keys for t in theorems)
    with TheoremStore(pg_dsn, table=table) as store:
        assert store.vector_ids(space) == sorted(t.id for t in theorems)
        assert store.count() == 51 and store.count_vectors(space) == 51
        assert store.ids_missing_vectors(space) == []
        assert store.deferred_indexes() == []  # the first load the kill cut short left them dropped; the rerun built them


def test_arxiv_papers_parsed_on_ray_equal_the_local_parse(local_ray, tmp_path):
    from arxiv_server import FixtureArxiv, fixture_arxiv, gz, paper_tex, tarball
    from corpus_build.arxiv.client import ArxivClient
    from corpus_build.arxiv.ingest import ingest_arxiv
    from corpus_build.ray_parse import ray_paper_mapper

    arxiv = FixtureArxiv()
    thm = r"\begin{thm}\label{a}Every finite integral domain is a field.\end{thm}"
    lem = r"\begin{lem}Every field is an integral domain with no zero divisors at all.\end{lem}"
    arxiv.entries = [{"id": f"2301.0000{i}v1", "title": f"P{i}"} for i in range(1, 5)]
    arxiv.eprints = {"2301.00001v1": tarball({"main.tex": paper_tex(thm, lem)}), "2301.00002v1": gz(paper_tex(lem)),
                     "2301.00003v1": b"%PDF-1.4\n", "2301.00004v1": gz(paper_tex("No statements."))}  # fmt: skip
    reports = {}
    with fixture_arxiv(arxiv) as base:
        for name, mapper in (("local", None), ("ray", ray_paper_mapper())):
            client = ArxivClient(api_url=f"{base}/api/query", eprint_url=f"{base}/e-print", interval=0.0)
            kw = {"mapper": mapper} if mapper else {}
            reports[name] = ingest_arxiv(tmp_path / name, tmp_path / "cache", category="math.AC", date_from="2023-01-01",
                                         date_to="2023-01-31", client=client, use_plastex=False, progress=False, **kw)  # fmt: skip
    a, b = read_records(tmp_path / "local"), read_records(tmp_path / "ray")
    assert sorted(t.id for t in a.theorems) == ["arxiv:2301.00001#a", "arxiv:2301.00001#lemma-1.2",
                                                "arxiv:2301.00002#lemma-1.1"]  # fmt: skip
    assert sorted(json.dumps(t.to_dict(), sort_keys=True) for t in b.theorems) == sorted(
        json.dumps(t.to_dict(), sort_keys=True) for t in a.theorems)
    # a paper without statements has a document that says why (it replaces an earlier version's statements)
    status = lambda recs: {d.id: d.meta.get("status") for d in recs.documents}  # noqa: E731
    assert status(b) == status(a) == {"arxiv:2301.00001": None, "arxiv:2301.00002": None,
                                      "arxiv:2301.00003": "pdf-only", "arxiv:2301.00004": "no-theorems"}  # fmt: skip
    fails = {k: sorted((f["path"], f["reason"]) for f in r.sources[0].failed) for k, r in reports.items()}
    assert fails["ray"] == fails["local"] == [
        ("2301.00003v1", "pdf-only: arXiv has only a PDF for this version (no LaTeX source)"),
        ("2301.00004v1", "no theorems: the source has no theorem environments")]  # fmt: skip
