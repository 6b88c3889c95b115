"""arXiv ingestion against a fixture arXiv on loopback: every e-print case, caching, paging, spacing, versions."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from arxiv_server import FixtureArxiv, fixture_arxiv, gz, paper_tex, tarball
from corpus_build.arxiv.client import ArxivClient
from corpus_build.arxiv.ingest import ingest_arxiv
from corpus_build.sources import extract_tar
from theorem_rag.errors import InputError
from theorem_rag.record_files import read_records

INTERVAL = 0.2
JITTER = 0.04  # the server logs a request when its thread runs, a little after the client sent it
THM = r"\begin{thm}\label{thm:main}Every finite integral domain is a field.\end{thm}"
LEM = r"\begin{lem}Every field is an integral domain with no zero divisors at all.\end{lem}"
LEM2 = r"\begin{lem}\label{lem:two}A subring of a field is an integral domain.\end{lem}"


def entry(id_, **kw):
    return {"id": id_, "title": f"Paper {id_}", "authors": ["A. Author"], "abstract": f"Abstract of {id_}.",
            "primary_category": "math.AC", "categories": ["math.AC", "math.RA"],
            "published": "2023-01-05T10:00:00Z", **kw}  # fmt: skip


def fixture() -> FixtureArxiv:
    a = FixtureArxiv()
    a.entries = [
        entry("2301.00001v1", doi="10.1000/one", journal_ref="J. Alg. 1 (2023)", license="http://creativecommons.org/licenses/by/4.0/"),
        entry("2301.00002v1"),
        entry("2301.00003v1"),
        entry("2301.00004v1"),
        entry("2301.00005v1"),
        entry("2301.00006v2", comment="This paper has been withdrawn by the author"),
        entry("2301.00007v1"),
        entry("2301.00008v1"),
    ]
    a.eprints = {
        "2301.00001v1": tarball({"main.tex": paper_tex(r"\input{sec}"), "sec.tex": (THM + LEM).encode()}),
        "2301.00002v1": gz(paper_tex(LEM2)),                      # gzipped single file
        "2301.00003v1": b"%PDF-1.5\n%binary\n",                   # PDF only
        "2301.00004v1": 404,                                      # missing
        "2301.00005v1": ("503-once", gz(paper_tex(THM))),          # busy once, with Retry-After
        "2301.00007v1": ("cut-once", tarball({"p.tex": paper_tex(LEM2)})),  # truncated once
        "2301.00008v1": tarball({"../evil.tex": b"pwned", "main.tex": paper_tex(THM)}),  # ../ member
    }
    return a


def client(base: str, **kw) -> ArxivClient:
    return ArxivClient(contact="tests@example.org", api_url=f"{base}/api/query", eprint_url=f"{base}/e-print",
                       interval=INTERVAL, **kw)  # fmt: skip


def run(base, tmp_path: Path, **kw):
    return ingest_arxiv(tmp_path / "out", tmp_path / "cache", client=client(base), use_plastex=False, progress=False,
                        **kw)  # fmt: skip


def failed(report) -> dict[str, str]:
    return {f["path"]: f["reason"] for f in report.sources[0].failed}


def test_category_listing_every_case(tmp_path):
    arxiv = fixture()
    with fixture_arxiv(arxiv) as base:
        report = run(base, tmp_path, category="math.AC", date_from="2023-01-01", date_to="2023-01-31")
    recs = read_records(tmp_path / "out")
    assert sorted(t.id for t in recs.theorems) == [
        "arxiv:2301.00001#lemma-1.2", "arxiv:2301.00001#thm:main", "arxiv:2301.00002#lem:two",
        "arxiv:2301.00005#thm:main", "arxiv:2301.00007#lem:two", "arxiv:2301.00008#thm:main",
    ]  # fmt: skip
    why = failed(report)
    assert sorted(why) == ["2301.00003v1", "2301.00004v1", "2301.00006v2"]
    assert why["2301.00003v1"].startswith("pdf-only: ")
    assert why["2301.00004v1"].startswith("failed: download failed: HTTP 404")
    assert why["2301.00006v2"] == "withdrawn: This paper has been withdrawn by the author"
    # the ../ member was refused, noted, and nothing was written outside the scratch folder
    notes = [n for n in report.sources[0].notes if n["path"].startswith("2301.00008v1/")]
    assert notes == [{"path": "2301.00008v1/../evil.tex",
                      "note": "tar member path escapes the target folder (..); refused"}]  # fmt: skip
    assert not list(tmp_path.rglob("evil.tex"))
    # metadata made it into the documents
    docs = {d.id: d for d in recs.documents}
    one = docs["arxiv:2301.00001"]
    assert (one.title, one.authors, one.year, one.url) == ("Paper 2301.00001v1", ("A. Author",), 2023,
                                                           "https://arxiv.org/abs/2301.00001")  # fmt: skip
    assert one.license == "http://creativecommons.org/licenses/by/4.0/"
    assert (one.meta["doi"], one.meta["journal_ref"], one.meta["primary_category"], one.meta["categories"],
            one.meta["version"]) == ("10.1000/one", "J. Alg. 1 (2023)", "math.AC", ["math.AC", "math.RA"], 1)  # fmt: skip
    assert one.abstract == "Abstract of 2301.00001v1."
    t = next(t for t in recs.theorems if t.id == "arxiv:2301.00001#thm:main")
    assert (t.source, t.doc_id, t.url, t.number) == ("arxiv", "arxiv:2301.00001", "https://arxiv.org/abs/2301.00001", "1.1")
    # the 503 was retried after its Retry-After, the truncated body retried at once
    five = arxiv.requests("/e-print/2301.00005v1")
    assert [r.status for r in five] == [503, 200]
    assert five[1].t - five[0].t >= arxiv.retry_after
    assert [r.status for r in arxiv.requests("/e-print/2301.00007v1")] == [200, 200]
    assert [r.status for r in arxiv.requests("/e-print/2301.00004v1")] == [404]
    assert not arxiv.requests("/e-print/2301.00006")  # withdrawn: not downloaded


def test_paging_spacing_user_agent_and_a_second_run_fetches_nothing(tmp_path):
    arxiv = fixture()
    with fixture_arxiv(arxiv) as base:
        ingest_arxiv(tmp_path / "out", tmp_path / "cache", client=client(base), use_plastex=False, progress=False,
                     category="math.AC", date_from="2023-01-01", date_to="2023-01-31")  # fmt: skip
        listing = arxiv.requests("/api/query")
        # the default page size (100) takes all 8 in one page; a second listing with pages of 3 pages three times
        assert [r.query["start"] for r in listing] == [["0"]]
        gaps = [b.t - a.t for a, b in zip(arxiv.log, arxiv.log[1:])]
        assert min(gaps) >= INTERVAL - JITTER, gaps
        assert {r.agent for r in arxiv.log} == {next(iter({r.agent for r in arxiv.log}))}
        assert "mailto:tests@example.org" in arxiv.log[0].agent
        first = read_records(tmp_path / "out")
        arxiv.clear()
        ingest_arxiv(tmp_path / "out", tmp_path / "cache", client=client(base), use_plastex=False, progress=False,
                     category="math.AC", date_from="2023-01-01", date_to="2023-01-31")  # fmt: skip
        assert arxiv.log == []  # listing state and sources are on disk
        again = read_records(tmp_path / "out")
        assert [t.to_dict() for t in again.theorems] == [t.to_dict() for t in first.theorems]


def test_listing_pages_and_resumes_after_a_failed_page(tmp_path):
    from corpus_build.arxiv.ingest import list_category
    from corpus_build.report import SourceReport

    arxiv = fixture()
    arxiv.fail_listing_at = {6}
    with fixture_arxiv(arxiv) as base:
        rep = SourceReport("arxiv", "-", "arxiv")
        got = list_category(client(base, retries=0), tmp_path / "state", "math.AC", "2023-01-01", "2023-01-31",
                            page_size=3, rep=rep)  # fmt: skip
        assert [e.id.versioned for e in got] == [e["id"] for e in arxiv.entries[:6]]
        assert [r.query["start"] for r in arxiv.requests("/api/query")] == [["0"], ["3"], ["6"]]
        assert [f["path"] for f in rep.failed] == ["listing start=6"]
        arxiv.clear()
        arxiv.fail_listing_at = set()
        got = list_category(client(base), tmp_path / "state", "math.AC", "2023-01-01", "2023-01-31", page_size=3)
        assert [r.query["start"] for r in arxiv.requests("/api/query")] == [["6"]]
        assert [e.id.versioned for e in got] == [e["id"] for e in arxiv.entries]
        q = arxiv.log[0].query
        assert q["search_query"] == ["cat:math.AC AND submittedDate:[202301010000 TO 202301312359]"]
        assert (q["sortBy"], q["sortOrder"], q["max_results"]) == (["submittedDate"], ["ascending"], ["3"])


def test_ids_old_and_new_style_and_a_new_version_replaces_the_old(tmp_path):
    arxiv = FixtureArxiv()
    arxiv.entries = [entry("2301.00001v1"), entry("math/0601001v1", published="2006-01-03T00:00:00Z")]
    arxiv.eprints = {"2301.00001v1": gz(paper_tex(THM, LEM)), "math/0601001v1": gz(paper_tex(LEM2))}
    with fixture_arxiv(arxiv) as base:
        run(base, tmp_path, ids=["arXiv:2301.00001v1", "math.AC/0601001"])
        recs = read_records(tmp_path / "out")
        assert sorted(t.id for t in recs.theorems) == ["arxiv:2301.00001#lemma-1.2", "arxiv:2301.00001#thm:main",
                                                       "arxiv:math/0601001#lem:two"]  # fmt: skip
        assert {d.id: d.year for d in recs.documents} == {"arxiv:2301.00001": 2023, "arxiv:math/0601001": 2006}
        # version 2 drops the lemma and edits the theorem; the other paper stays as it was
        arxiv.entries[0] = entry("2301.00001v2")
        arxiv.eprints["2301.00001v2"] = gz(paper_tex(THM.replace("field", "field (Wedderburn)")))
        arxiv.clear()
        run(base, tmp_path, ids=["2301.00001"])
        assert [r.path for r in arxiv.log] == ["/api/query", "/e-print/2301.00001v2"]
    recs = read_records(tmp_path / "out")
    assert sorted(t.id for t in recs.theorems) == ["arxiv:2301.00001#thm:main", "arxiv:math/0601001#lem:two"]
    assert "Wedderburn" in next(t.body_latex for t in recs.theorems if t.id == "arxiv:2301.00001#thm:main")
    assert {d.id: d.meta["version"] for d in recs.documents} == {"arxiv:2301.00001": 2, "arxiv:math/0601001": 1}


def test_versioned_ids_rerun_fetches_nothing_and_a_no_theorem_paper_is_reported(tmp_path):
    arxiv = FixtureArxiv()
    arxiv.entries = [entry("2301.00001v1"), entry("2301.00002v1")]
    arxiv.eprints = {"2301.00001v1": gz(paper_tex(THM)), "2301.00002v1": gz(paper_tex("No statements here."))}
    with fixture_arxiv(arxiv) as base:
        report = run(base, tmp_path, ids=["2301.00001v1", "2301.00002v1"])
        assert failed(report) == {"2301.00002v1": "no theorems: the source has no theorem environments"}
        arxiv.clear()
        run(base, tmp_path, ids=["2301.00001v1", "2301.00002v1"])
        assert arxiv.log == []
    cached = sorted(p.relative_to(tmp_path / "cache" / "sources").as_posix()
                    for p in (tmp_path / "cache" / "sources").rglob("*"))  # fmt: skip
    assert cached == ["2301.00001", "2301.00001/v1.eprint", "2301.00001/v1.json",
                      "2301.00002", "2301.00002/v1.eprint", "2301.00002/v1.json"]  # fmt: skip


def test_a_truncated_download_that_stays_truncated_fails_and_is_not_cached(tmp_path):
    arxiv = FixtureArxiv()
    arxiv.entries = [entry("2301.00001v1")]
    with fixture_arxiv(arxiv) as base:
        body = gz(paper_tex(THM))
        arxiv.eprints = {"2301.00001v1": ("cut-once", body)}
        c = client(base, retries=0)
        report = ingest_arxiv(tmp_path / "out", tmp_path / "cache", client=c, use_plastex=False, progress=False,
                              ids=["2301.00001v1"])  # fmt: skip
        assert failed(report)["2301.00001v1"].startswith("failed: download failed: truncated download")
        assert not (tmp_path / "cache" / "sources" / "2301.00001" / "v1.json").exists()
        arxiv.clear()
        run(base, tmp_path, ids=["2301.00001v1"])  # the interrupted paper is fetched on the rerun
        assert [r.path for r in arxiv.log] == ["/e-print/2301.00001v1"]
    assert [t.id for t in read_records(tmp_path / "out").theorems] == ["arxiv:2301.00001#thm:main"]


def test_bulk_archive_on_disk(tmp_path):
    bulk = tmp_path / "arXiv_src_2301_001.tar"
    members = {
        "2301/2301.00001.gz": tarball({"main.tex": paper_tex(THM)}),
        "2301/2301.00002.gz": gz(paper_tex(LEM2)),
        "2301/2301.00003.pdf": b"%PDF-1.4\n",
        "2301/README": b"not a paper",
    }
    with tarfile.open(bulk, "w") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    meta = tmp_path / "meta.jsonl"
    meta.write_text(json.dumps({"id": "2301.00001", "title": "Bulk one", "authors": "A. One and B. Two",
                                "categories": "math.AC math.RA", "journal-ref": "J 1",
                                "versions": [{"version": "v1", "created": "Mon, 2 Jan 2023 10:00:00 GMT"}]}) + "\n")  # fmt: skip
    report = ingest_arxiv(tmp_path / "out", tmp_path / "cache", archives=[bulk], metadata=meta, use_plastex=False,
                          progress=False)  # fmt: skip
    recs = read_records(tmp_path / "out")
    assert sorted(t.id for t in recs.theorems) == ["arxiv:2301.00001#thm:main", "arxiv:2301.00002#lem:two"]
    docs = {d.id: d for d in recs.documents}
    assert (docs["arxiv:2301.00001"].title, docs["arxiv:2301.00001"].authors, docs["arxiv:2301.00001"].year) == (
        "Bulk one", ("A. One", "B. Two"), 2023)
    assert docs["arxiv:2301.00001"].meta["categories"] == ["math.AC", "math.RA"]
    assert docs["arxiv:2301.00002"].title == "A paper"  # no metadata: the LaTeX title
    assert failed(report) == {"arXiv_src_2301_001.tar:2301/README": "member name is not an arXiv id",
                              "2301.00003": "pdf-only: arXiv has only a PDF for this version (no LaTeX source)"}  # fmt: skip


def test_tar_limits_member_count_total_size_and_traversal(tmp_path):
    # an e-print in memory goes through the same capped extraction as a tarball on disk
    data = tarball({"../up.tex": b"y", "/abs.tex": b"z", "a.tex": b"a", "b.tex": b"b", "c.tex": b"c"})
    probs = extract_tar(io.BytesIO(data), tmp_path / "a", max_member_bytes=1000, max_members=4)
    assert [(p.path, p.reason) for p in probs] == [
        ("../up.tex", "tar member path escapes the target folder (..); refused"),
        ("/abs.tex", "tar member has an absolute path; refused"),
        ("archive", "archive has more than 4 members; the rest is skipped")]  # fmt: skip
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["a.tex", "b.tex"]
    data = tarball({f"f{i}.tex": b"x" * 100 for i in range(5)})
    probs = extract_tar(io.BytesIO(data), tmp_path / "b", max_member_bytes=1000, max_total_bytes=250)
    assert [p.reason for p in probs] == ["archive expands to more than 250 bytes; the rest is skipped from f2.tex"]
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["f0.tex", "f1.tex"]


def test_bad_requests_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="name papers one way"):
        ingest_arxiv(tmp_path, tmp_path, ids=["2301.00001"], category="math.AG")
    with pytest.raises(InputError, match="needs --from and --to"):
        ingest_arxiv(tmp_path, tmp_path, category="math.AG")
    with pytest.raises(InputError, match="not an arXiv id"):
        ingest_arxiv(tmp_path, tmp_path, ids=["hello"])
    with pytest.raises(InputError, match="not an arXiv category"):
        ingest_arxiv(tmp_path, tmp_path, category="math AG", date_from="2023-01-01", date_to="2023-01-02")


def test_cli_brings_in_a_category(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from theorem_rag.cli import main

    arxiv = fixture()
    with fixture_arxiv(arxiv) as base:
        monkeypatch.setenv("THEOREM_RAG_ARXIV_INTERVAL", "0.05")
        result = CliRunner().invoke(main, ["corpus", "arxiv", "--category", "math.AC", "--from", "2023-01-01",
                                           "--to", "2023-01-31", "--out", str(tmp_path / "out"), "--cache",
                                           str(tmp_path / "cache"), "--api-url", f"{base}/api/query",
                                           "--eprint-url", f"{base}/e-print", "--no-plastex", "--quiet",
                                           "--contact", "cli@example.org"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.startswith("arxiv: 6 records from 5 papers; 3 papers not parsed (10 requests)")
    assert "mailto:cli@example.org" in arxiv.log[0].agent


def test_an_empty_page_before_the_end_stops_without_marking_the_listing_done(tmp_path):
    from corpus_build.arxiv.ingest import list_category
    from corpus_build.report import SourceReport

    arxiv = fixture()
    arxiv.empty_listing_at = {3}
    with fixture_arxiv(arxiv) as base:
        rep = SourceReport("arxiv", "-", "arxiv")
        got = list_category(client(base), tmp_path / "s", "math.AC", "2023-01-01", "2023-01-31", page_size=3, rep=rep)
        assert len(got) == 3
        assert rep.failed == [{"path": "listing start=3", "reason": "empty page before the end; run again to resume"}]
        arxiv.empty_listing_at = set()
        arxiv.clear()
        got = list_category(client(base), tmp_path / "s", "math.AC", "2023-01-01", "2023-01-31", page_size=3)
        assert len(got) == 8 and [r.query["start"] for r in arxiv.log] == [["3"], ["6"]]
