"""A rebuild keeps what the index holds of a file whose parse failed, when its document has other files.

The files of a book share one document id: the second parse writes that document from the file that parsed, and
the file that failed (unreadable, or its worker lost) says nothing of its statements, so they stay, with their
slogans and vectors, while a statement deleted from the file that parsed is removed. A third parse that reads the
file again removes what it lost. Records are parsed by ``corpus_build``, the index built with digest vectors.
"""

from __future__ import annotations

import uuid

import pytest

from corpus_build.extract import Extraction
from corpus_build.fallback_parser import FallbackResult
from corpus_build.parse import parse_sources
from corpus_build.units import parse_unit
from digest_vectors import CountingEmbedder
from theorem_rag.db.store import TheoremStore
from theorem_rag.indexing.ingest import build_index
from theorem_rag.record_files import read_records
from theorem_rag.records import Hit
from theorem_rag.slogans.offline import OfflineSloganWriter

pytestmark = pytest.mark.db
HEAD = r"\documentclass{book}\begin{document}"
KEPT = r"\begin{lemma}Every subgroup of a cyclic group is cyclic.\end{lemma}"
DROPPED = r"\begin{exercise}Show that a group of prime order is cyclic.\end{exercise}"
CH2 = [r"\begin{theorem}Every finite subgroup of the multiplicative group of a field is cyclic.\end{theorem}",
       r"\begin{lemma}The units of $\mathbb{Z}/p$ form a cyclic group of order $p-1$.\end{lemma}"]  # fmt: skip


def _write_book(root, chapters: dict[str, str | bytes], main: bool):
    """A book in ``root/book``: its chapters, alone or included by ``main.tex``."""
    src = root / "book"
    src.mkdir(parents=True, exist_ok=True)
    for name, body in chapters.items():
        (src / name).write_bytes(body if isinstance(body, bytes) else body.encode())
    if main:
        (src / "main.tex").write_text(HEAD + "\n\\input{ch1}\n\\input{ch2}\n\\end{document}\n")
    return src


def _lose(marker: str):
    """A parse engine that loses the worker of every document whose text holds ``marker``."""
    lost = Extraction([], "failed", reason="parser worker lost", fallback=FallbackResult([]))
    return lambda jobs: [lost if marker in job.text else parse_unit(job) for job in jobs]


def _parse(src, out, engine=None):
    parse_sources([src], out, use_plastex=False, progress=False, map_units=engine)
    return read_records(out)


def _build(store: TheoremStore, records):
    return build_index(store, CountingEmbedder(), records.theorems, records.documents, writer=OfflineSloganWriter(),
                       space="dg_slogan", progress=False, build_hnsw=False)  # fmt: skip


def _stored(store: TheoremStore) -> dict[str, tuple[str | None, list[float]]]:
    """Every stored statement's slogan and vector, by id."""
    vectors = dict(store.iter_vectors("dg_slogan"))
    slogans = {h.theorem_id: h.slogan for h in store.hydrate([Hit(i, 1.0) for i in vectors])}
    return {i: (slogans[i], v.tolist()) for i, v in vectors.items()}


# chapters alone (two documents of one id) or included by a main file; ch2 unreadable, or its worker lost
CASES = {"unreadable alone": (False, False), "lost worker": (False, True), "unreadable included": (True, False)}


@pytest.mark.parametrize("main, lost", list(CASES.values()), ids=list(CASES))
def test_a_failed_file_keeps_its_statements_while_the_others_are_pruned(pg_dsn, tmp_path, main, lost):
    v1 = _write_book(tmp_path / "v1", {"ch1.tex": KEPT + "\n" + DROPPED, "ch2.tex": "\n".join(CH2)}, main)
    broken = "\n".join(CH2) if lost else b"\\begin{theorem}\x00\x01\x02\\end{theorem}"
    v2 = _write_book(tmp_path / "v2", {"ch1.tex": KEPT, "ch2.tex": broken}, main)
    v3 = _write_book(tmp_path / "v3", {"ch1.tex": KEPT, "ch2.tex": CH2[0]}, main)
    with TheoremStore(pg_dsn, table=f"ff_{uuid.uuid4().hex[:8]}") as store:
        store.migrate()
        first = _parse(v1, tmp_path / "r1")
        assert {d.id for d in first.documents} == {"book"} and len(first.theorems) == 4
        by_file = {f: {t.id for t in first.theorems if t.file == f} for f in ("ch1.tex", "ch2.tex")}
        _build(store, first)
        before = _stored(store)

        second = _parse(v2, tmp_path / "r2", _lose("multiplicative group") if lost else None)
        assert len(second.theorems) == 1 and second.theorems[0].id in by_file["ch1.tex"]
        removed = _build(store, second).removed
        after = _stored(store)
        assert set(after) == {second.theorems[0].id} | by_file["ch2.tex"] and removed == 1
        # the same slogans (the offline writer wrote one for each) and the same vectors as before the failed parse
        assert {i: after[i] for i in by_file["ch2.tex"]} == {i: before[i] for i in by_file["ch2.tex"]}
        assert len(by_file["ch2.tex"]) == 2 and all(after[i][0] for i in by_file["ch2.tex"])
        assert [d.meta["failed_files"] for d in second.documents] == [["ch2.tex"]]

        third = _parse(v3, tmp_path / "r3")
        assert [d.meta.get("failed_files") for d in third.documents] == [None]
        assert _build(store, third).removed == 1
        assert set(_stored(store)) == {t.id for t in third.theorems} and len(third.theorems) == 2


@pytest.mark.slow
@pytest.mark.models
def test_on_ray_too_a_lost_worker_keeps_its_files_statements(pg_dsn, tmp_path):
    """The Ray build (a local ``ray.init``, the bundled model) prunes as the local one: the file whose worker was
    lost keeps its statements and vectors, the statement deleted from the other file goes."""
    ray = pytest.importorskip("ray", reason='the Ray build needs Ray: pip install "theorem-rag[ray]"')
    from corpus_build.ray_engine import init_ray
    from theorem_rag.indexing.ray_build import RayBuildOptions, build_index_ray

    table = f"rayff_{uuid.uuid4().hex[:8]}"
    first = _parse(_write_book(tmp_path / "v1", {"ch1.tex": KEPT + "\n" + DROPPED, "ch2.tex": "\n".join(CH2)},
                               main=False), tmp_path / "r1")  # fmt: skip
    second = _parse(_write_book(tmp_path / "v2", {"ch1.tex": KEPT, "ch2.tex": "\n".join(CH2)}, main=False),
                    tmp_path / "r2", _lose("multiplicative group"))  # fmt: skip

    def build(records):
        return build_index_ray(pg_dsn, records.theorems, records.documents, space="minilm_slogan", table=table,
                               embed_backend="torch", options=RayBuildOptions(batch_size=8), build_hnsw=False)  # fmt: skip

    init_ray(num_cpus=2, object_store_mb=200)
    try:
        build(first)
        report = build(second)
    finally:
        ray.shutdown()
    with TheoremStore(pg_dsn, table=table) as store:
        stored = {i for i, _ in store.iter_vectors("minilm_slogan")}
    ch2 = {t.id for t in first.theorems if t.file == "ch2.tex"}
    assert stored == {second.theorems[0].id} | ch2 and len(ch2) == 2 and report.removed == 1
