"""What every slogan writer shares: the result record and the writer protocol (pure).

A writer turns statements into slogans and reports each one through a callback as soon as it is done, so the
driver (:func:`theorem_rag.slogans.writer.write_slogans`) can cache finished slogans while others are in flight.

>>> SloganResult("stacks:00FN", "Noetherian rings are stable under localization.").ok
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from theorem_rag.records import Document, Theorem


@dataclass(frozen=True)
class SloganResult:
    """One written slogan, or the reason none was written (``error``), with what it cost."""

    theorem_id: str
    slogan: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.slogan)


@runtime_checkable
class SloganWriter(Protocol):
    """Writes slogans; ``name``, ``model``, ``prompt_version`` and the hash of :meth:`inputs` key the cache.

    Change ``prompt_version`` when the rules or the prompt change; :meth:`inputs` must return everything a
    slogan is computed from, so that editing any of it (a macro, a label, an abstract) writes it again and
    editing anything else does not.
    """

    name: str
    model: str
    prompt_version: str

    def inputs(self, theorem: Theorem, document: Document | None) -> tuple[str, ...]:
        """The texts the slogan of ``theorem`` is computed from (``document`` is its paper, when known)."""
        ...

    def write(
        self,
        theorems: Sequence[Theorem],
        documents: Mapping[str, Document],
        on_result: Callable[[SloganResult], None],
    ) -> None:
        """Write a slogan for each theorem, calling ``on_result`` once per theorem as it completes."""
        ...
