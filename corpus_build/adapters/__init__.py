"""One small adapter per corpus: which files start documents, ids, urls and metadata."""

from __future__ import annotations

from corpus_build.adapters.base import Adapter, Unit

__all__ = ["Adapter", "Unit", "adapter_class"]


def adapter_class(kind: str) -> type[Adapter]:
    """The adapter for a corpus kind from :func:`corpus_build.sources.detect_corpus`.

    >>> adapter_class("stacks").__name__
    'StacksAdapter'
    """
    from corpus_build.adapters import books, openlogic, planetmath, stacks

    return {
        "stacks": stacks.StacksAdapter,
        "planetmath": planetmath.PlanetMathAdapter,
        "openlogic": openlogic.OpenLogicAdapter,
        "hott": books.HottAdapter,
        "napkin": books.NapkinAdapter,
        "lebl-ra": books.LeblAdapter,
        "cring": books.CRingAdapter,
    }.get(kind, Adapter)
