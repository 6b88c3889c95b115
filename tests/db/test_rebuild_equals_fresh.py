"""An index rebuilt after the sources changed equals a fresh build of the changed sources, every space included.

The toy corpus (tests/toy_corpus.py) is parsed and indexed with the CLI, as a user does it: the bundled
MiniLM space and the math-minilm-v4 space that answers queries in words. The sources are then edited (a statement
deleted, a label renamed, two exercises swapped, a statement rewritten), parsed again into the same folder and
indexed again; a second index is built from the edited sources alone. Both must hold the same statements (ids,
records, slogans), the same documents and, in every space, the same vectors: nothing left over from before.
"""

from __future__ import annotations

import uuid

import numpy as np
import pytest
from click.testing import CliRunner
from psycopg import sql

from theorem_rag.cli import main
from theorem_rag.db.store import TheoremStore
from theorem_rag.config import ADAPTED_MODEL
from theorem_rag.records import Hit
from toy_corpus import write_toy

pytestmark = [pytest.mark.db, pytest.mark.models]


def _cli(*args: str) -> str:
    res = CliRunner().invoke(main, list(args))
    assert res.exit_code == 0, res.output
    return res.output


def _parse(src, out) -> None:
    _cli("corpus", "parse", str(src), "--out", str(out), "--no-plastex", "--quiet")


def _build(records, dsn: str, table: str, *extra: str) -> str:
    return _cli("index", "build", "--records", str(records), "--database-url", dsn, "--table", table,
                "--slogan-writer", "offline", "--embed-backend", "torch", *extra)  # fmt: skip


def _index(store: TheoremStore) -> dict:
    """Everything a search can read: statements with their slogans, documents, and each space's vectors."""
    with store.connection() as conn:
        ids = [r[0] for r in conn.execute(sql.SQL("SELECT id FROM {t} ORDER BY id").format(
            t=sql.Identifier(store.names.theorems)))]  # fmt: skip
        docs = [r[0] for r in conn.execute(sql.SQL("SELECT id FROM {d} ORDER BY id").format(
            d=sql.Identifier(store.names.documents)))]  # fmt: skip
    records = store.get_theorems(ids)
    slogans = {h.theorem_id: h.slogan for h in store.hydrate([Hit(i, 0.0) for i in ids])}
    spaces = {sp.name: dict(store.iter_vectors(sp.name)) for sp in store.spaces()}
    return {"ids": ids, "records": [records[i].to_dict() for i in ids], "slogans": slogans, "documents": docs,
            "spaces": spaces, "count": store.count()}  # fmt: skip


def test_a_rebuild_after_edits_equals_a_fresh_build(tmp_path, pg_dsn):
    kept, fresh = f"kept_{uuid.uuid4().hex[:8]}", f"fresh_{uuid.uuid4().hex[:8]}"
    records = tmp_path / "records"
    _parse(write_toy(tmp_path / "v1", edited=False), records)
    _build(records, pg_dsn, kept)
    _build(records, pg_dsn, kept, "--embed-model", ADAPTED_MODEL)
    with TheoremStore(pg_dsn, table=kept) as store:
        before = _index(store)
    assert len(before["ids"]) == 5 and len(before["spaces"]) == 2

    _parse(write_toy(tmp_path / "v2", edited=True), records)
    out = _build(records, pg_dsn, kept)  # the query model's space follows in the same command
    assert out.count(": 4 statements (") == 2 and "3 removed)" in out, out

    edited = tmp_path / "edited-records"
    _parse(write_toy(tmp_path / "v2", edited=True), edited)
    _build(edited, pg_dsn, fresh)
    _build(edited, pg_dsn, fresh, "--embed-model", ADAPTED_MODEL)

    with TheoremStore(pg_dsn, table=kept) as a, TheoremStore(pg_dsn, table=fresh) as b:
        rebuilt, want = _index(a), _index(b)
    assert rebuilt["ids"] == want["ids"] and rebuilt["count"] == want["count"] == 4
    assert rebuilt["records"] == want["records"]
    assert rebuilt["slogans"] == want["slogans"] and all(want["slogans"].values())
    assert rebuilt["documents"] == want["documents"] == ["toy"]
    assert sorted(rebuilt["spaces"]) == sorted(want["spaces"]) and len(want["spaces"]) == 2
    for space, vectors in want["spaces"].items():
        assert sorted(rebuilt["spaces"][space]) == sorted(vectors) == want["ids"], space
        for tid, vec in vectors.items():
            np.testing.assert_allclose(rebuilt["spaces"][space][tid], vec, atol=1e-5, err_msg=f"{space} {tid}")
    # the two exercises nobody edited kept their ids through the edit (the swap and the deletion moved them)
    old_ids, new_ids = ({r["body_latex"]: r["id"] for r in index["records"]} for index in (before, want))
    kept = sorted(body for body, tid in new_ids.items() if old_ids.get(body) == tid)
    assert kept == ["Show that a finite integral domain is a field.",
                    r"Show that the ring $\mathbb{Z}/6$ has zero divisors."]
