"""An old positional id (``<file>#<n>``, kept as ``meta.legacy_id``) still finds its statement: by id in the store,
``id:`` queries, ``get_theorem``, REST ``/theorems/{id}`` and feedback, through the partial index of migration 21.

The toy corpus (tests/toy_corpus.py) is parsed by the CLI and indexed with digest vectors (no model); a link saved
before the id rule changed names the second exercise ``toy:main.tex#1``.
"""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest
from click.testing import CliRunner
from psycopg import sql

from digest_vectors import CountingEmbedder
from loopback import serving
from theorem_rag.cli import main
from theorem_rag.db import legacy_ids
from theorem_rag.indexing.ingest import build_index
from theorem_rag.record_files import read_records
from theorem_rag.search import TheoremSearch
from theorem_rag.slogans.offline import OfflineSloganWriter
from toy_corpus import EX2, write_toy

pytestmark = pytest.mark.db
OLD = "toy:main.tex#1"  # the second exercise's id before ids followed the statement


class Digest(CountingEmbedder):
    """Digest vectors with what a search reads of an embedder."""

    batch_size, query_instruction, backend = 8, "", "torch"

    def embed_queries(self, texts, *, progress=False):
        return self.embed_documents(texts)

    embed_premise_queries = embed_queries


@pytest.fixture
def toy(store, tmp_path):
    res = CliRunner().invoke(main, ["corpus", "parse", str(write_toy(tmp_path, edited=False)), "--out",
                                    str(tmp_path / "records"), "--no-plastex", "--quiet"])  # fmt: skip
    assert res.exit_code == 0, res.output
    records = read_records(tmp_path / "records")
    build_index(store, Digest(), records.theorems, records.documents, writer=OfflineSloganWriter(),
                space="dg_slogan", progress=False)  # fmt: skip
    new = next(t.id for t in records.theorems if t.meta.get("legacy_id") == OLD)
    assert new.startswith("toy:main.tex#exercise-") and new != OLD
    return TheoremSearch(store, Digest(), space="dg_slogan", k=3), new


def test_an_old_id_finds_its_statement_by_every_lookup(toy):
    search, new = toy
    got = search.store.get_theorems([OLD, new, "toy:main.tex#9", "toy:nothing"])
    assert sorted(got) == sorted([OLD, new]) and got[OLD].id == got[new].id == new and got[OLD].body_latex in EX2
    hit = search.get_theorem(OLD)
    assert (hit.theorem_id, hit.theorem.id) == (new, new)
    hits, ids = search.graph_search("id", OLD)  # what an `id:` query runs
    assert ids == [new] and [h.theorem_id for h in hits] == [new]
    assert search.neighbours(OLD).theorem_id == new
    assert search.get_theorem("toy:main.tex#9") is None  # an old id no statement carries stays unknown


def test_premises_of_an_old_id_leave_its_statement_out(toy):
    search, new = toy
    ids = [h.theorem_id for h in search.premises(OLD, k=5)]
    assert len(ids) == 4 and new not in ids  # the other four statements of the toy corpus


def test_feedback_on_an_old_id_is_stored_on_the_statement(toy):
    search, new = toy
    search.record_feedback(query="zero divisors", vote=1, theorem_id=OLD)
    search.record_feedback(query="unknown", vote=-1, theorem_id="toy:main.tex#9")
    with search.store.connection() as conn:
        rows = conn.execute(sql.SQL("SELECT theorem_id, vote FROM {f} ORDER BY id").format(
            f=sql.Identifier(search.store.names.feedback))).fetchall()  # fmt: skip
    assert rows == [(new, 1), ("toy:main.tex#9", -1)]


def test_rest_theorem_page_of_an_old_id(toy):
    from theorem_rag.api.app import create_app

    search, new = toy
    with serving(create_app(search)) as url, httpx.Client(base_url=url, timeout=60) as client:
        r = client.get(f"/theorems/{quote(OLD)}")  # '#' travels as %23
        assert r.status_code == 200, r.text
        assert r.json()["id"] == new and r.json()["statement"] in EX2
        assert client.get(f"/theorems/{quote('toy:main.tex#9')}").status_code == 404


def test_the_lookup_reads_the_partial_index(store):
    with store.connection() as conn:
        conn.execute("SET enable_seqscan = off")
        plan = "\n".join(r[0] for r in conn.execute(sql.SQL("EXPLAIN ") + legacy_ids.targets(store.names), [[OLD]]))
        conn.execute("RESET enable_seqscan")
    assert legacy_ids.index_name(store.names) in plan, plan
