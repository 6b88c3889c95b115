"""Rerankers as LlamaIndex node postprocessors: a sentence-transformers cross-encoder, or an LLM through litellm.

No cross-encoder with bundled weights exists on PyPI, so none is on by default: name one that is on this machine
(``cross-encoder:/path/to/model``) or an LLM (``llm:openai/gpt-4o-mini``) in ``Settings.reranker``.

>>> build_reranker(None) is None
True
>>> type(build_reranker("llm:openai/gpt-4o-mini", top_n=5)).__name__
'LLMReranker'
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any

from theorem_rag.errors import InputError
from theorem_rag.slogans.latex_text import prompt_text

log = logging.getLogger(__name__)
_INDEX_EXTRA = 'pip install "theorem-rag[index]"'


def _base() -> type:
    try:
        from llama_index.core.postprocessor.types import BaseNodePostprocessor
    except ImportError as e:
        raise ImportError(f"rerankers need llama-index-core: {_INDEX_EXTRA}") from e
    return BaseNodePostprocessor


def parse_ranking(answer: str, n: int) -> list[int]:
    """0-based candidate indices from an answer like ``"[3] > [1] > [2]"`` or ``"3, 1, 2"`` (1-based numbers).

    Numbers out of range and repeats are ignored; candidates the answer leaves out follow in their input order.

    >>> parse_ranking("Ranking: [3] > [1] > [9] > [3]", 4)
    [2, 0, 1, 3]
    """
    order: list[int] = []
    for m in re.finditer(r"\d+", answer or ""):
        i = int(m.group()) - 1
        if 0 <= i < n and i not in order:
            order.append(i)
    if not order:
        raise ValueError("no candidate numbers in the answer")
    return order + [i for i in range(n) if i not in order]


def rerank_messages(query: str, passages: list[str], max_chars: int = 600) -> list[dict[str, str]]:
    """Chat messages asking an LLM to order numbered candidates by relevance to ``query`` (pure)."""
    listing = "\n".join(f"[{i + 1}] {prompt_text(p, max_chars)}" for i, p in enumerate(passages))
    return [
        {
            "role": "system",
            "content": "You rank mathematical statements by how well they answer a search query. "
            "Answer only with the candidate numbers, most relevant first, like: [2] > [1] > [3].",
        },
        {"role": "user", "content": f"Query: {query}\n\nCandidates:\n{listing}\n\nRanking:"},
    ]


def _node_text(nws: Any) -> str:
    return nws.node.get_content()


_CLASSES: dict[str, type] = {}


def _classes() -> dict[str, type]:
    if _CLASSES:
        return _CLASSES
    from pydantic import Field

    base = _base()

    try:
        from llama_index.core.postprocessor import SentenceTransformerRerank
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(f"rerankers need llama-index-core: {_INDEX_EXTRA}") from e

    class CrossEncoderReranker(SentenceTransformerRerank):
        """LlamaIndex's ``SentenceTransformerRerank`` (scoring, order, callback events), loaded lazily and locally.

        Its own constructor would load the model at once, with ``trust_remote_code`` and permission to download;
        here the model loads on first use, only from this machine, and a missing one is a clear error.

        >>> CrossEncoderReranker(model="/models/ms-marco-MiniLM-L-6-v2", top_n=10).top_n
        10
        """

        def __init__(self, model: str, top_n: int = 100, device: str = "cpu") -> None:
            super(SentenceTransformerRerank, self).__init__(model=model, top_n=top_n, device=device,
                                                            keep_retrieval_score=False, trust_remote_code=False)
            self._model = None

        @classmethod
        def class_name(cls) -> str:
            return "CrossEncoderReranker"

        def load(self) -> Any:
            if self._model is None:
                try:
                    from sentence_transformers import CrossEncoder
                except ImportError as e:
                    raise ImportError('the cross-encoder reranker needs sentence-transformers: '
                                      'pip install "theorem-rag[models]"') from e
                os.environ["HF_HUB_OFFLINE"] = "1"
                try:
                    self._model = CrossEncoder(self.model, device=self.device, local_files_only=True)
                except OSError as e:
                    raise RuntimeError(
                        f"cross-encoder {self.model!r} is not available locally. No cross-encoder with bundled "
                        "weights exists on PyPI and nothing is downloaded at run time: put the model on this "
                        "machine (a local path or the Hugging Face cache) and name it in THEOREM_RAG_RERANKER"
                    ) from e
            return self._model

        def _postprocess_nodes(self, nodes: list, query_bundle: Any = None) -> list:
            if nodes and query_bundle is not None:
                self.load()
            return super()._postprocess_nodes(nodes, query_bundle)

    # Not LlamaIndex's LLMRerank: it drops every candidate the model does not name (a terse answer shrinks the
    # result below k), raises on a malformed answer or a network error (search must then keep the retrieval
    # order), scores batches of 10 separately and sorts them on one scale, and needs a LlamaIndex LLM class per
    # provider; this one calls litellm directly, as the slogan writer does, and keeps every candidate.
    class LLMReranker(base):  # type: ignore[misc, valid-type]
        """Ask an LLM (through litellm) to order the candidates; on any failure keep the input order, with a warning.

        >>> LLMReranker(model="openai/gpt-4o-mini", top_n=5).top_n
        5
        """

        model: str = Field(description="litellm model name.")
        top_n: int = Field(100, description="How many nodes to keep.")
        api_base: str | None = Field(None, description="Base URL of an OpenAI-compatible server.")
        max_candidates: int = Field(20, description="Only the first candidates are shown to the model.")
        timeout: float = Field(60.0, description="Seconds to wait for the model.")
        api_key: str | None = Field(None, exclude=True, repr=False, description="Key; else the provider's env var.")
        last_error: str | None = Field(None, description="Why the last call fell back to the input order.")

        @classmethod
        def class_name(cls) -> str:
            return "LLMReranker"

        def _postprocess_nodes(self, nodes: list, query_bundle: Any = None) -> list:
            if query_bundle is None:
                raise ValueError("the LLM reranker needs the query")
            head, tail = nodes[: self.max_candidates], nodes[self.max_candidates :]
            if len(head) < 2:
                return nodes[: self.top_n]
            from theorem_rag.slogans.llm_writer import import_litellm

            litellm = import_litellm()
            kwargs: dict[str, Any] = {"model": self.model, "timeout": self.timeout, "num_retries": 0,
                                      "max_retries": 0, "temperature": 0.0}
            if self.api_base:
                # A local server needs some key for the OpenAI client; a hosted one gets it from api_key or env.
                kwargs.update(api_base=self.api_base, api_key=self.api_key or "not-needed")
            elif self.api_key:
                kwargs["api_key"] = self.api_key
            try:
                resp = litellm.completion(messages=rerank_messages(query_bundle.query_str,
                                                                   [_node_text(n) for n in head]), **kwargs)
                order = parse_ranking(resp.choices[0].message.content or "", len(head))
                self.last_error = None
            except Exception as exc:  # noqa: BLE001 - any failure falls back to the retrieval order
                self.last_error = f"{type(exc).__name__}: {str(exc)[:200]}"
                log.warning("LLM reranker %r failed (%s); keeping the retrieval order", self.model, self.last_error)
                return nodes[: self.top_n]
            return ([head[i] for i in order] + tail)[: self.top_n]

    for cls in (CrossEncoderReranker, LLMReranker):
        cls.__qualname__ = cls.__name__
    _CLASSES.update(CrossEncoderReranker=CrossEncoderReranker, LLMReranker=LLMReranker)
    return _CLASSES


def __getattr__(name: str) -> Any:
    # The classes subclass LlamaIndex's base, built on first access so importing this module stays light.
    if name in ("CrossEncoderReranker", "LLMReranker"):
        return _classes()[name]
    raise AttributeError(name)


def build_reranker(spec: str | None, *, top_n: int = 100, api_base: str | None = None) -> Any:
    """The reranker a spec names: ``None``/``""`` (none), ``cross-encoder:<name or path>`` or ``llm:<litellm model>``.

    ``top_n`` only bounds what a direct ``postprocess_nodes`` call keeps; the retriever cuts to its own ``k``.
    """
    if not spec:
        return None
    kind, sep, target = spec.partition(":")
    if not sep or not target.strip():
        raise InputError(f"reranker spec must be 'cross-encoder:<model>' or 'llm:<model>', not {spec!r}")
    if kind == "cross-encoder":
        return _classes()["CrossEncoderReranker"](model=target.strip(), top_n=top_n)
    if kind == "llm":
        return _classes()["LLMReranker"](model=target.strip(), top_n=top_n, api_base=api_base)
    raise InputError(f"unknown reranker kind {kind!r}: use 'cross-encoder:<model>' or 'llm:<model>'")
