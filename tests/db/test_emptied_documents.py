"""A document that lost every statement (its file still there) stays in the records, so a rebuild removes what
the index held of it, as a fresh build of the edited sources would hold; records of documents without any
statement (every paper of an arXiv folder withdrawn) are pruned by ``index build``, not refused.

Records are parsed with the CLI; the index is built with digest vectors (no model), except where the CLI's build
is the point: records without statements need no model.
"""

from __future__ import annotations

import json
import uuid

import pytest
from click.testing import CliRunner
from psycopg import sql

from digest_vectors import CountingEmbedder
from theorem_rag.cli import main
from theorem_rag.db.store import TheoremStore
from theorem_rag.indexing.ingest import build_index
from theorem_rag.record_files import read_records
from theorem_rag.records import Document, Theorem
from theorem_rag.slogans.offline import OfflineSloganWriter
from toy_corpus import HEAD, write_toy

pytestmark = pytest.mark.db
NOTES = r"""\begin{lemma}Every ideal of a principal ideal ring is principal.\end{lemma}
\begin{exercise}Show that $\mathbb{Z}[x]$ is not a principal ideal ring.\end{exercise}"""
NOTES_EMPTIED = "The lemma and the exercise moved to the toy notes."


def _notes(root, body: str):
    src = root / "notes"
    src.mkdir(parents=True, exist_ok=True)
    (src / "main.tex").write_text(HEAD + body + "\n\\end{document}\n")
    return src


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def _parse(out, *sources) -> None:
    res = _cli("corpus", "parse", *map(str, sources), "--out", str(out), "--no-plastex", "--quiet")
    assert res.exit_code == 0, res.output


def _build(store: TheoremStore, records):
    recs = read_records(records)
    return build_index(store, CountingEmbedder(), recs.theorems, recs.documents, writer=OfflineSloganWriter(),
                       space="dg_slogan", progress=False)  # fmt: skip


def _index(store: TheoremStore) -> dict:
    with store.connection() as conn:
        docs = [r[0] for r in conn.execute(sql.SQL("SELECT id FROM {d} ORDER BY id").format(
            d=sql.Identifier(store.names.documents)))]  # fmt: skip
    vectors = dict(store.iter_vectors("dg_slogan"))
    return {"ids": sorted(vectors), "documents": docs, "count": store.count(),
            "vectors": {i: v.tolist() for i, v in vectors.items()}}  # fmt: skip


def test_a_document_that_lost_every_statement_is_pruned_as_a_fresh_build(pg_dsn, tmp_path):
    records, fresh_records = tmp_path / "records", tmp_path / "fresh-records"
    _parse(records, write_toy(tmp_path / "v1", edited=False), _notes(tmp_path / "v1", NOTES))
    v2 = [write_toy(tmp_path / "v2", edited=False), _notes(tmp_path / "v2", NOTES_EMPTIED)]
    with TheoremStore(pg_dsn, table=f"kept_{uuid.uuid4().hex[:8]}") as kept, \
         TheoremStore(pg_dsn, table=f"fresh_{uuid.uuid4().hex[:8]}") as fresh:  # fmt: skip
        assert _build(kept, records).theorems == 7
        _parse(records, *v2)
        docs = [json.loads(line) for line in (records / "documents.jsonl").open()]
        assert [d["id"] for d in docs] == ["toy", "notes"]
        assert not any(t.doc_id == "notes" for t in read_records(records).theorems)
        report = _build(kept, records)
        assert (report.theorems, report.removed) == (5, 2)
        _parse(fresh_records, *v2)
        _build(fresh, fresh_records)
        rebuilt, want = _index(kept), _index(fresh)
    assert rebuilt == want and want["count"] == 5 and want["documents"] == ["notes", "toy"]


def test_the_parse_report_lists_the_emptied_file(tmp_path):
    from corpus_build.parse import parse_sources

    report = parse_sources([_notes(tmp_path, NOTES_EMPTIED)], tmp_path / "out", use_plastex=False, progress=False)
    assert (report.sources[0].documents, report.sources[0].without_statements) == (1, ["main.tex"])


def _records_of(folder, theorems: list[Theorem], documents: list[Document]):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "theorems.jsonl").write_text("".join(t.to_json() + "\n" for t in theorems))
    (folder / "documents.jsonl").write_text("".join(d.to_json() + "\n" for d in documents))
    return folder


def test_records_without_statements_prune_instead_of_being_refused(pg_dsn, tmp_path):
    table = f"pr_{uuid.uuid4().hex[:8]}"
    withdrawn = Document("arxiv:2301.01234", "arxiv", title="A paper withdrawn", meta={"status": "withdrawn"})
    kept = Document("arxiv:2301.05678", "arxiv", title="A paper kept")
    old = [Theorem(id=f"arxiv:2301.01234#lemma-{n}", source="arxiv", kind="lemma", doc_id=withdrawn.id,
                   body_latex=f"Lemma {n} of the first version holds for every $n \\geq {n}$.") for n in (1, 2)]
    other = Theorem(id="arxiv:2301.05678#theorem-1", source="arxiv", kind="theorem", doc_id=kept.id,
                    body_latex=r"Every finite group of odd order is solvable.")  # fmt: skip
    with TheoremStore(pg_dsn, table=table) as store:
        _build(store, _records_of(tmp_path / "v1", [*old, other], [withdrawn, kept]))
        res = _cli("index", "build", "--records", str(_records_of(tmp_path / "v2", [], [withdrawn])),
                   "--database-url", pg_dsn, "--table", table)  # fmt: skip
        assert res.exit_code == 0, res.output
        assert ("1 documents without statements (arxiv:2301.01234): 2 statements stored for them removed"
                in res.output), res.output
        assert [t.id for t in store.theorems_of(withdrawn.id)] == [] and store.count() == 1
        assert store.get_document(withdrawn.id).meta["status"] == "withdrawn"
        assert [t.id for t in store.theorems_of(kept.id)] == [other.id]
        # a document without statements routes no title query ("the paper A paper withdrawn" finds nothing there)
        assert store.document_title_index() == {"a paper kept": kept.id}
        res = _cli("index", "build", "--records", str(_records_of(tmp_path / "none", [], [])),
                   "--database-url", pg_dsn, "--table", table)  # fmt: skip
        assert res.exit_code == 2 and "no statements and no documents in the records" in res.output, res.output
