"""Slogans: short plain-English summaries of statements, written by rules or by an LLM, cached once paid for.

>>> build_slogan_writer("offline").name
'offline'
>>> build_slogan_writer("openai/gpt-4o-mini", context="introduction").name
'llm-introduction'
"""

from __future__ import annotations

from theorem_rag.slogans.base import SloganResult, SloganWriter
from theorem_rag.slogans.cache import MemorySloganCache, SloganCache, SloganRow, slogan_key
from theorem_rag.slogans.offline import OfflineSloganWriter, offline_slogan
from theorem_rag.slogans.writer import SloganRun, SloganStats, write_slogans

__all__ = [
    "MemorySloganCache",
    "OfflineSloganWriter",
    "SloganCache",
    "SloganResult",
    "SloganRow",
    "SloganRun",
    "SloganStats",
    "SloganWriter",
    "build_slogan_writer",
    "offline_slogan",
    "slogan_key",
    "write_slogans",
]


def build_slogan_writer(
    spec: str = "offline",
    *,
    api_base: str | None = None,
    context: str = "body",
    concurrency: int = 8,
    max_retries: int = 4,
    rpm: int = 0,
) -> SloganWriter:
    """The writer named by ``spec`` (``Settings.slogan_writer``): ``"offline"`` or a litellm model name."""
    if not spec or spec == "offline":
        return OfflineSloganWriter()
    from theorem_rag.slogans.llm_writer import LLMSloganWriter

    return LLMSloganWriter(spec, api_base=api_base, context=context, concurrency=concurrency,
                           max_retries=max_retries, rpm=rpm)
