"""A vector space records the model and backend that filled it; building or searching it with another is refused.

No model is loaded: a digest embedder stands in, with a ``backend`` attribute like the real Embedder's.
"""

from __future__ import annotations

import numpy as np
import psycopg
import pytest
from db_helpers import DIM, DOCS, THEOREMS, text_vector

from theorem_rag.db.schema import migrate
from theorem_rag.errors import InputError
from theorem_rag.indexing.ingest import build_index
from theorem_rag.search import TheoremSearch

pytestmark = pytest.mark.db


class DigestEmbedder:
    """Deterministic vectors per text; ``backend`` only labels them (like two runtimes of one model)."""

    batch_size, doc_instruction, query_instruction, dim = 8, "", "", DIM

    def __init__(self, backend: str, model_name: str = "digest-model") -> None:
        self.backend, self.model_name = backend, model_name
        self.calls = 0

    def embed_documents(self, texts, *, progress=False) -> np.ndarray:
        self.calls += len(texts)
        return np.stack([text_vector(t) for t in texts])

    embed_queries = embed_documents

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]


def _build(store, embedder, **kwargs):
    from theorem_rag.slogans.offline import OfflineSloganWriter

    return build_index(store, embedder, THEOREMS, DOCS, writer=OfflineSloganWriter(), space="toy", progress=False,
                       **kwargs)  # fmt: skip


def test_a_space_records_its_backend_and_refuses_another(store):
    torch_embedder = DigestEmbedder("torch")
    assert _build(store, torch_embedder).embedded == len(THEOREMS)
    assert (store.space("toy").model, store.space("toy").backend) == ("digest-model", "torch")

    onnx = DigestEmbedder("onnx-int8")
    with pytest.raises(InputError, match=r"run by the torch backend.*theorem-rag index build --reembed --embed-backend onnx-int8"):
        _build(store, onnx)
    assert onnx.calls == 0 and store.space("toy").backend == "torch"
    with pytest.raises(InputError, match="never mixes"):
        _build(store, DigestEmbedder("torch", model_name="another-model"))

    report = _build(store, onnx, reembed=True)
    assert report.embedded == len(THEOREMS) and onnx.calls == len(THEOREMS) and report.index_built
    assert (store.space("toy").model, store.space("toy").backend) == ("digest-model", "onnx-int8")
    assert store.count_vectors("toy") == len(THEOREMS) and store.has_index("toy")
    assert _build(store, onnx).embedded == 0  # the same backend again: nothing to do


def test_searching_with_another_backend_is_refused_with_what_to_run(store):
    _build(store, DigestEmbedder("torch"))
    with pytest.raises(InputError) as e:
        TheoremSearch(store, DigestEmbedder("onnx-int8"), space="toy", k=3, pool=10).search("cyclic groups")
    assert "THEOREM_RAG_EMBED_BACKEND=torch" in str(e.value)
    assert "`theorem-rag index build --reembed --embed-backend onnx-int8`" in str(e.value)
    with pytest.raises(InputError, match="THEOREM_RAG_EMBED_MODEL=digest-model"):
        TheoremSearch(store, DigestEmbedder("torch", "other"), space="toy", k=3, pool=10).search("cyclic groups")
    same = TheoremSearch(store, DigestEmbedder("torch"), space="toy", k=3, pool=10, hybrid=False)
    slogan = same.get_theorem("paper:1:thm1").slogan
    assert [h.theorem_id for h in same.search(slogan)][:1] == ["paper:1:thm1"]


def test_spaces_made_before_the_backend_column_ran_torch(pg_dsn, table_prefix):
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        migrate(conn, table_prefix, target=3)
        conn.execute(f"INSERT INTO {table_prefix}_spaces (name, dim, half, model) VALUES ('old', 8, false, 'm')")
        assert 8 in migrate(conn, table_prefix)
        assert conn.execute(f"SELECT backend FROM {table_prefix}_spaces").fetchall() == [("torch",)]


def test_auto_searches_a_space_with_its_own_backend_and_builds_new_ones_on_onnx(store, pg_dsn, table_prefix, tmp_path):
    # THEOREM_RAG_EMBED_BACKEND=auto (the default): an index built on torch before this default stays searchable
    # as built; a new space, of a model with no space yet, is built on onnx-int8 (when onnxruntime is installed).
    from importlib.util import find_spec

    from theorem_rag.config import Settings
    from theorem_rag.db.table_names import space_name
    from theorem_rag.slogans.offline import OfflineSloganWriter

    build_index(store, DigestEmbedder("torch"), THEOREMS, DOCS, writer=OfflineSloganWriter(), progress=False,
                space=space_name("digest-model", "slogan"))  # fmt: skip

    def opened(model: str, field: str):
        s = Settings(database_url=pg_dsn, table=table_prefix, data_dir=tmp_path, embed_model=model, embed_field=field,
                     embed_backend="auto")  # fmt: skip
        search = TheoremSearch.from_settings(s)
        search.close()
        return search.embedder.backend

    assert opened("digest-model", "slogan") == "torch"  # the space's own backend
    assert opened("digest-model", "latex") == "torch"  # a new space of that model: fused with the first, so alike
    assert opened("another-model", "slogan") == ("onnx-int8" if find_spec("onnxruntime") else "torch")
    with pytest.raises(InputError, match="embedding backend must be one of"):
        TheoremSearch.from_settings(Settings(database_url=pg_dsn, table=table_prefix, data_dir=tmp_path,
                                             embed_backend="cuda"))  # fmt: skip
