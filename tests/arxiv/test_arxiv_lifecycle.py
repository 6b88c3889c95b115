"""Following arXiv over time: versions without statements replace the old ones, interrupted or damaged state
resumes, and a newer bulk archive replaces a source cached without a version. Only the loopback fixture arXiv."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from arxiv_server import FixtureArxiv, fixture_arxiv, gz, paper_tex, tarball
from corpus_build.arxiv.atom import ArxivEntry
from corpus_build.arxiv.client import ArxivClient
from corpus_build.arxiv.ingest import ingest_arxiv, list_category
from corpus_build.report import SourceReport
from theorem_rag.record_files import read_records

THM = r"\begin{thm}\label{thm:main}Every finite integral domain is a field.\end{thm}"
LEM = r"\begin{lem}\label{lem:z}Every field is an integral domain with no zero divisors.\end{lem}"
OTHER = r"\begin{thm}\label{o}A group of prime order is cyclic.\end{thm}"
NOTICE = rb"\documentclass{article}\begin{document}This paper has been withdrawn by the author due to an error."
EIGHT = [f"2301.0000{i}v1" for i in range(1, 9)]


def client(base: str, **kw) -> ArxivClient:
    return ArxivClient(api_url=f"{base}/api/query", eprint_url=f"{base}/e-print", interval=0.0, **kw)


def ingest(base, out: Path, cache: Path, **kw):
    return ingest_arxiv(out, cache, client=client(base), use_plastex=False, progress=False, **kw)


def failed(report) -> dict[str, str]:
    return {f["path"]: f["reason"] for f in report.sources[0].failed}


# -- a new version without statements ---------------------------------------------------------------------------

V2_WITHOUT_STATEMENTS = {
    "withdrawn comment": ({"comment": "This paper has been withdrawn by the author due to a gap in Lemma 2"}, None,
                          "withdrawn", "This paper has been withdrawn by the author due to a gap in Lemma 2"),
    "withdrawal notice as source": ({}, gz(NOTICE), "withdrawn", "the source is only a withdrawal notice"),
    "pdf only": ({}, b"%PDF-1.5\n%binary\n", "pdf-only", "arXiv has only a PDF for this version (no LaTeX source)"),
    "no theorem environments": ({}, gz(paper_tex("Only prose now.")), "no-theorems",
                                "the source has no theorem environments"),
}  # fmt: skip


@pytest.mark.db
@pytest.mark.parametrize("case", list(V2_WITHOUT_STATEMENTS))
def test_a_new_version_without_statements_removes_the_old_ones(case, tmp_path, store, pg_dsn, table_prefix):
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.indexing.ingest import build_index
    from theorem_rag.slogans.offline import OfflineSloganWriter

    from digest_vectors import CountingEmbedder

    def build(into, out):
        recs = read_records(out)
        return build_index(into, CountingEmbedder(), recs.theorems, recs.documents, writer=OfflineSloganWriter(),
                           space="dg", progress=False, build_hnsw=False)  # fmt: skip

    fields, eprint, status, reason = V2_WITHOUT_STATEMENTS[case]
    arxiv = FixtureArxiv()
    arxiv.entries = [{"id": "2301.00001v1", "title": "P"}, {"id": "2302.00002v1", "title": "Q"}]
    arxiv.eprints = {"2301.00001v1": gz(paper_tex(THM, LEM)), "2302.00002v1": gz(paper_tex(OTHER))}
    ids = ["2301.00001", "2302.00002"]
    with fixture_arxiv(arxiv) as base:
        ingest(base, tmp_path / "out", tmp_path / "cache", ids=ids)
        assert build(store, tmp_path / "out").inserted == 3
        arxiv.entries[0] = {"id": "2301.00001v2", "title": "P", **fields}
        if eprint is not None:
            arxiv.eprints["2301.00001v2"] = eprint
        arxiv.clear()
        report = ingest(base, tmp_path / "out", tmp_path / "cache", ids=["2301.00001"])
        second = build(store, tmp_path / "out")
        # the same sources built from nothing
        ingest(base, tmp_path / "fresh", tmp_path / "fresh-cache", ids=ids)
    assert failed(report) == {"2301.00001v2": f"{status.replace('no-theorems', 'no theorems')}: {reason}"}
    if eprint is None:  # withdrawn by its metadata: the source is not asked for
        assert [r.path for r in arxiv.log if r.path.startswith("/e-print/2301")] == []
    recs = read_records(tmp_path / "out")
    assert sorted(t.id for t in recs.theorems) == ["arxiv:2302.00002#o"]
    doc = next(d for d in recs.documents if d.id == "arxiv:2301.00001")
    assert (doc.meta["version"], doc.meta["status"], doc.meta["status_reason"], doc.title) == (2, status, reason, "P")
    assert second.removed == 2
    assert store.vector_ids("dg") == ["arxiv:2302.00002#o"]
    assert store.get_theorems(["arxiv:2301.00001#thm:main", "arxiv:2301.00001#lem:z"]) == {}
    assert store.get_document("arxiv:2301.00001").meta["status"] == status
    fresh = TheoremStore(pg_dsn, table=f"{table_prefix}f", timeout=2.0)
    try:
        fresh.migrate()
        build(fresh, tmp_path / "fresh")
        assert fresh.vector_ids("dg") == store.vector_ids("dg")
        assert fresh.get_document("arxiv:2301.00001").meta == store.get_document("arxiv:2301.00001").meta
    finally:
        fresh.close()


def test_a_comment_that_withdraws_a_lemma_is_not_a_withdrawn_paper(tmp_path):
    arxiv = FixtureArxiv()
    arxiv.entries = [{"id": "2301.00001v2", "title": "P", "comment": "Lemma 3 withdrawn; 12 pages"}]
    arxiv.eprints = {"2301.00001v2": gz(paper_tex(THM))}
    with fixture_arxiv(arxiv) as base:
        report = ingest(base, tmp_path / "out", tmp_path / "cache", ids=["2301.00001"])
    assert failed(report) == {}
    assert [t.id for t in read_records(tmp_path / "out").theorems] == ["arxiv:2301.00001#thm:main"]


# -- interrupted and damaged state --------------------------------------------------------------------------------


def eight() -> FixtureArxiv:
    a = FixtureArxiv()
    a.entries = [{"id": i, "title": f"Paper {i}"} for i in EIGHT]
    a.eprints = {i: gz(paper_tex(THM)) for i in EIGHT}
    return a


def listing(base, state: Path, **kw):
    return list_category(client(base, retries=0), state, "math.AG", "2023-01-01", "2023-01-31", page_size=3, **kw)


def test_a_listing_interrupted_while_saving_a_page_resumes_without_skipping_papers(tmp_path, monkeypatch):
    arxiv = eight()
    with fixture_arxiv(arxiv) as base:
        assert len(listing(base, tmp_path / "s", max_papers=3)) == 3
        to_dict = ArxivEntry.to_dict

        def interrupted(self):  # Ctrl-C while the second page is being saved
            if self.id.versioned == EIGHT[1]:
                raise KeyboardInterrupt
            return to_dict(self)

        monkeypatch.setattr(ArxivEntry, "to_dict", interrupted)
        with pytest.raises(KeyboardInterrupt):
            listing(base, tmp_path / "s")
        monkeypatch.setattr(ArxivEntry, "to_dict", to_dict)
        arxiv.clear()
        got = listing(base, tmp_path / "s")
    assert [e.id.versioned for e in got] == EIGHT
    assert [r.query["start"] for r in arxiv.log] == [["3"], ["6"]]
    assert not [p.name for p in (tmp_path / "s").iterdir() if p.name.endswith(".part")]


def test_damaged_listing_state_is_recovered_from_the_readable_entries(tmp_path):
    arxiv = eight()
    with fixture_arxiv(arxiv) as base:
        listing(base, tmp_path / "s")
        entries = next((tmp_path / "s").glob("*.jsonl"))
        state = entries.with_suffix(".json")
        # what a kill in the middle of rewriting the entries left: four lines and half of the fifth
        lines = entries.read_text().splitlines(keepends=True)
        entries.write_text("".join(lines[:4]) + lines[4][:20])
        arxiv.clear()
        rep = SourceReport("arxiv", "-", "arxiv")
        got = listing(base, tmp_path / "s", rep=rep)
        assert [e.id.versioned for e in got] == EIGHT
        assert [r.query["start"] for r in arxiv.log] == [["4"], ["7"]]
        assert [n["path"] for n in rep.notes] == ["listing"]
        assert rep.notes[0]["note"].startswith(f"{entries}:5: damaged line")
        assert rep.notes[0]["note"].endswith("the listing resumes after its 4 readable entries")
        # a state file that is not JSON: the entries on disk are complete, so one request confirms the end
        state.write_text('{"query": "cat:math.AG AND sub')
        arxiv.clear()
        rep = SourceReport("arxiv", "-", "arxiv")
        got = listing(base, tmp_path / "s", rep=rep)
        assert [e.id.versioned for e in got] == EIGHT
        assert [r.query["start"] for r in arxiv.log] == [["8"]]
        assert rep.notes[0]["note"].startswith(f"{state}: not readable JSON")
        arxiv.clear()
        assert [e.id.versioned for e in listing(base, tmp_path / "s")] == EIGHT
        assert arxiv.log == []


def test_damaged_metadata_and_source_cache_files_are_fetched_again(tmp_path):
    arxiv = eight()
    ids = EIGHT[:2]
    with fixture_arxiv(arxiv) as base:
        ingest(base, tmp_path / "out", tmp_path / "cache", ids=ids)
        first = read_records(tmp_path / "out")
        meta = tmp_path / "cache" / "metadata" / "2301.00001" / "v1.json"
        source = tmp_path / "cache" / "sources" / "2301.00002" / "v1.json"
        meta.write_text(meta.read_text()[:30])  # a kill in the middle of an in-place rewrite
        source.write_text("")
        arxiv.clear()
        report = ingest(base, tmp_path / "out", tmp_path / "cache", ids=ids)
        assert [(r.path, r.query.get("id_list")) for r in arxiv.log] == [("/api/query", ["2301.00001v1"]),
                                                                         ("/e-print/2301.00002v1", None)]  # fmt: skip
        assert [n["path"] for n in report.sources[0].notes] == ["metadata"]
        arxiv.clear()
        ingest(base, tmp_path / "out", tmp_path / "cache", ids=ids)
        assert arxiv.log == []  # both files were rewritten whole
    assert json.loads(meta.read_text())["id"] == "2301.00001v1"
    assert [t.to_dict() for t in read_records(tmp_path / "out").theorems] == [t.to_dict() for t in first.theorems]


# -- bulk archives ---------------------------------------------------------------------------------------------------


def bulk(path: Path, members: dict[str, tuple[bytes, int]]) -> Path:
    with tarfile.open(path, "w") as tf:
        for name, (data, mtime) in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), mtime
            tf.addfile(info, io.BytesIO(data))
    return path


def test_a_newer_bulk_archive_replaces_a_source_cached_without_version(tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old = bulk(tmp_path / "old" / "arXiv_src_2301_001.tar", {"2301/2301.00001.gz": (gz(paper_tex(THM)), 1_000),
                                                             "2301/2301.00002.gz": (gz(paper_tex(OTHER)), 1_000)})
    new = bulk(tmp_path / "new" / "arXiv_src_2301_001.tar",
               {"2301/2301.00001.gz": (tarball({"main.tex": paper_tex(THM, LEM)}), 2_000),
                "2301/2301.00002.gz": (gz(paper_tex(OTHER)), 2_000)})  # fmt: skip

    def run(*archives):
        ingest_arxiv(tmp_path / "out", tmp_path / "cache", archives=archives, use_plastex=False, progress=False)
        return sorted(t.id for t in read_records(tmp_path / "out").theorems)

    assert run(old) == ["arxiv:2301.00001#thm:main", "arxiv:2301.00002#o"]
    assert run(new) == ["arxiv:2301.00001#lem:z", "arxiv:2301.00001#thm:main", "arxiv:2301.00002#o"]
    # an older archive read later does not bring the old source back; one paper in two archives is parsed once
    assert run(old) == ["arxiv:2301.00001#lem:z", "arxiv:2301.00001#thm:main", "arxiv:2301.00002#o"]
    assert run(new, old) == ["arxiv:2301.00001#lem:z", "arxiv:2301.00001#thm:main", "arxiv:2301.00002#o"]
    cached = json.loads((tmp_path / "cache" / "sources" / "2301.00001" / "unversioned.json").read_text())
    assert (cached["kind"], cached["mtime"]) == ("tar.gz", 2_000)
