"""A new version of an arXiv paper replaces its statements in the index: upsert by id and hash, stale ones gone."""

from __future__ import annotations

import pytest

from arxiv_server import FixtureArxiv, fixture_arxiv, gz, paper_tex
from corpus_build.arxiv.client import ArxivClient
from corpus_build.arxiv.ingest import ingest_arxiv
from theorem_rag.indexing.ingest import build_index
from theorem_rag.record_files import read_records
from theorem_rag.slogans.offline import OfflineSloganWriter

from digest_vectors import CountingEmbedder, text_vector

pytestmark = pytest.mark.db

THM = r"\begin{thm}\label{thm:main}Every finite integral domain is a field.\end{thm}"
LEM = r"\begin{lem}\label{lem:z}Every field is an integral domain with no zero divisors.\end{lem}"
OTHER = r"\begin{thm}\label{o}A group of prime order is cyclic.\end{thm}"


def _ingest_and_build(base, tmp_path, store, embedder, ids):
    client = ArxivClient(api_url=f"{base}/api/query", eprint_url=f"{base}/e-print", interval=0.0)
    ingest_arxiv(tmp_path / "out", tmp_path / "cache", ids=ids, client=client, use_plastex=False, progress=False)
    recs = read_records(tmp_path / "out")
    embedder.texts = []
    return build_index(store, embedder, recs.theorems, recs.documents, writer=OfflineSloganWriter(), space="dg",
                       progress=False, build_hnsw=False)  # fmt: skip


def test_new_version_replaces_the_old_statements_in_the_index(tmp_path, store):
    arxiv = FixtureArxiv()
    arxiv.entries = [{"id": "2301.00001v1", "title": "P"}, {"id": "2302.00002v1", "title": "Q"}]
    arxiv.eprints = {"2301.00001v1": gz(paper_tex(THM, LEM)), "2302.00002v1": gz(paper_tex(OTHER))}
    e = CountingEmbedder()
    with fixture_arxiv(arxiv) as base:
        first = _ingest_and_build(base, tmp_path, store, e, ["2301.00001", "2302.00002"])
        assert (first.inserted, first.removed, first.embedded) == (3, 0, 3)
        arxiv.entries[0] = {"id": "2301.00001v2", "title": "P"}
        arxiv.eprints["2301.00001v2"] = gz(paper_tex(THM))  # the lemma is gone in version 2
        second = _ingest_and_build(base, tmp_path, store, e, ["2301.00001"])
    assert (second.inserted, second.updated, second.removed, second.embedded) == (0, 0, 1, 0)
    assert e.texts == []  # the theorem did not change: no slogan or vector is recomputed
    assert store.vector_ids("dg") == ["arxiv:2301.00001#thm:main", "arxiv:2302.00002#o"]
    assert sorted(store.get_theorems(["arxiv:2301.00001#lem:z", "arxiv:2301.00001#thm:main"])) == [
        "arxiv:2301.00001#thm:main"]
    assert store.get_document("arxiv:2301.00001").meta["version"] == 2


def test_category_and_year_filters_work_on_arxiv_metadata(tmp_path, store):
    arxiv = FixtureArxiv()
    arxiv.entries = [
        {"id": "2301.00001v1", "title": "P", "primary_category": "math.AC", "categories": ["math.AC", "math.RA"],
         "published": "2023-01-02T00:00:00Z"},
        {"id": "1902.00002v1", "title": "Q", "primary_category": "math.GR", "categories": ["math.GR"],
         "published": "2019-02-02T00:00:00Z"},
    ]  # fmt: skip
    arxiv.eprints = {"2301.00001v1": gz(paper_tex(THM, LEM)), "1902.00002v1": gz(paper_tex(OTHER))}
    e = CountingEmbedder()
    with fixture_arxiv(arxiv) as base:
        _ingest_and_build(base, tmp_path, store, e, ["2301.00001", "1902.00002"])
    q = text_vector("anything", 16)
    ids = lambda hits: sorted(h.theorem_id for h in hits)  # noqa: E731
    assert ids(store.exact_search("dg", q, k=10, filters={"category": "math.RA"})) == [
        "arxiv:2301.00001#lem:z", "arxiv:2301.00001#thm:main"]  # fmt: skip
    assert ids(store.exact_search("dg", q, k=10, filters={"category": ["math.GR", "math.AC"]})) == [
        "arxiv:1902.00002#o", "arxiv:2301.00001#lem:z", "arxiv:2301.00001#thm:main"]  # fmt: skip
    assert ids(store.exact_search("dg", q, k=10, filters={"category": "math.GR", "paper": "arxiv:2301.00001"})) == []
    assert ids(store.exact_search("dg", q, k=10, filters={"category": "math.AT"})) == []
    assert ids(store.exact_search("dg", q, k=10, filters={"year_max": 2020})) == ["arxiv:1902.00002#o"]
    assert ids(store.search_text("cyclic", k=10, filters={"category": "math.AC"})) == []
    assert ids(store.search_text("cyclic", k=10, filters={"category": "math.GR"})) == [
        "arxiv:1902.00002#o"]
