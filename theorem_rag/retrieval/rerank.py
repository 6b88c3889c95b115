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
    listing = "\n".join(f"[{i + 1}] {' '.join(p.split())[:max_chars]}" for i, p in enumerate(passages))
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
    from pydantic import Field, PrivateAttr

    base = _base()

    class CrossEncoderReranker(base):  # type: ignore[misc, valid-type]
        """Rescore candidates with a sentence-transformers ``CrossEncoder`` (a local name or path) and keep ``top_n``.

        >>> CrossEncoderReranker(model="/models/ms-marco-MiniLM-L-6-v2", top_n=10)   # doctest: +SKIP
        """

        model: str = Field(description="CrossEncoder model name or local path.")
        top_n: int = Field(10, description="How many nodes to keep.")
        device: str = Field("cpu", description="torch device.")
        batch_size: int = Field(32, description="Pairs scored per batch.")
        _encoder: Any = PrivateAttr(default=None)

        @classmethod
        def class_name(cls) -> str:
            return "CrossEncoderReranker"

        def load(self) -> Any:
            if self._encoder is None:
                try:
                    from sentence_transformers import CrossEncoder
                except ImportError as e:
                    raise ImportError('the cross-encoder reranker needs sentence-transformers: '
                                      'pip install "theorem-rag[models]"') from e
                os.environ["HF_HUB_OFFLINE"] = "1"
                try:
                    self._encoder = CrossEncoder(self.model, device=self.device, local_files_only=True)
                except OSError as e:
                    raise RuntimeError(
                        f"cross-encoder {self.model!r} is not available locally. No cross-encoder with bundled "
                        "weights exists on PyPI and nothing is downloaded at run time: put the model on this "
                        "machine (a local path or the Hugging Face cache) and name it in THEOREM_RAG_RERANKER"
                    ) from e
            return self._encoder

        def _postprocess_nodes(self, nodes: list, query_bundle: Any = None) -> list:
            if query_bundle is None:
                raise ValueError("the cross-encoder reranker needs the query")
            if not nodes:
                return []
            from llama_index.core.schema import NodeWithScore

            scores = self.load().predict(
                [(query_bundle.query_str, _node_text(n)) for n in nodes],
                batch_size=self.batch_size,
                show_progress_bar=False,
            )
            ranked = sorted(zip(nodes, scores), key=lambda pair: -float(pair[1]))[: self.top_n]
            return [NodeWithScore(node=n.node, score=float(s)) for n, s in ranked]

    class LLMReranker(base):  # type: ignore[misc, valid-type]
        """Ask an LLM (through litellm) to order the candidates; on any failure keep the input order, with a warning.

        >>> LLMReranker(model="openai/gpt-4o-mini", top_n=5).top_n
        5
        """

        model: str = Field(description="litellm model name.")
        top_n: int = Field(10, description="How many nodes to keep.")
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
            from theorem_rag.slogans.llm import import_litellm

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


def build_reranker(spec: str | None, *, top_n: int = 10, api_base: str | None = None) -> Any:
    """The reranker a spec names: ``None``/``""`` (none), ``cross-encoder:<name or path>`` or ``llm:<litellm model>``."""
    if not spec:
        return None
    kind, sep, target = spec.partition(":")
    if not sep or not target.strip():
        raise ValueError(f"reranker spec must be 'cross-encoder:<model>' or 'llm:<model>', not {spec!r}")
    if kind == "cross-encoder":
        return _classes()["CrossEncoderReranker"](model=target.strip(), top_n=top_n)
    if kind == "llm":
        return _classes()["LLMReranker"](model=target.strip(), top_n=top_n, api_base=api_base)
    raise ValueError(f"unknown reranker kind {kind!r}: use 'cross-encoder:<model>' or 'llm:<model>'")
