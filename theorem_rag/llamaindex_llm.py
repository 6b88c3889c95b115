"""A LlamaIndex LLM over theorem-rag's chat models, so query engines and agents can use the same backends as the
app: the bundled offline GGUF model (``local:smollm2``) or any litellm model.

>>> llm = chat_llm("local:smollm2")                 # the model loads on the first completion
>>> llm.metadata.num_output
400
>>> engine = CitationQueryEngine(search.as_retriever(k=4), llm=llm)     # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

_INDEX_EXTRA = 'pip install "theorem-rag[index,app]"'


def chat_llm(name: str = "local:smollm2", api_base: str | None = None, *, max_tokens: int = 400,
             temperature: float = 0.2, context_window: int = 4096, timeout: float | None = None) -> Any:  # fmt: skip
    """A LlamaIndex ``CustomLLM`` streaming from :func:`theorem_rag.chat_backends.build_chat_model` ``(name)``.

    ``max_tokens`` bounds each completion. A local model gets no wall-clock limit unless ``timeout`` (seconds) is
    given, so the same notebook gives the same answer on a busy machine, only later; a hosted model's ``timeout``
    is its request timeout (``None``: the backend's default)."""
    try:
        from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
        from llama_index.core.llms.callbacks import llm_completion_callback
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(f"the LlamaIndex LLM adapter needs LlamaIndex: {_INDEX_EXTRA}") from e
    from theorem_rag.chat_backends import LocalGGUFChat, build_chat_model

    local = name.startswith("local:")
    chat = LocalGGUFChat(name, timeout=timeout) if local else build_chat_model(name, api_base, timeout=timeout)

    class ChatModelLLM(CustomLLM):
        """Completions through a theorem-rag chat model (one user message per prompt)."""

        model_name: str = name
        num_output: int = max_tokens

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(context_window=context_window, num_output=self.num_output, model_name=self.model_name)

        def _messages(self, prompt: str) -> Sequence[dict[str, str]]:
            return [{"role": "user", "content": prompt}]

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
            text = "".join(chat.stream(self._messages(prompt), max_tokens=self.num_output, temperature=temperature))
            return CompletionResponse(text=text)

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
            text = ""
            for piece in chat.stream(self._messages(prompt), max_tokens=self.num_output, temperature=temperature):
                text += piece
                yield CompletionResponse(text=text, delta=piece)

    return ChatModelLLM()
