"""The vector spaces a search compares queries with, and the embedders that fill them: for a search built from
:class:`~theorem_rag.config.Settings`, the query space of a second model for queries in words
(:func:`query_space_options`) and the embedder of a model and backend (:func:`settings_embedder`); for every search,
whether its spaces are built (:class:`BuiltSpaces`, :class:`IndexNotBuilt`) and hold vectors of the model and backend
it embeds with (:func:`check_space_maker`). ``TheoremSearch`` uses them.

>>> from types import SimpleNamespace
>>> from theorem_rag.db.vectors import VectorSpace
>>> space = VectorSpace("minilm_slogan", 384, model="minilm", backend="torch")
>>> check_space_maker(space, SimpleNamespace(model_name="minilm", backend="torch"))
>>> check_space_maker(space, SimpleNamespace(model_name="minilm", backend="onnx-int8"))
Traceback (most recent call last):
...
theorem_rag.errors.InputError: vector space 'minilm_slogan' holds vectors of minilm run by the torch backend, ...
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from theorem_rag.errors import InputError

if TYPE_CHECKING:
    from theorem_rag.config import Settings
    from theorem_rag.db.vectors import VectorSpace
    from theorem_rag.embed import Embedder
    from theorem_rag.retrieval.store_protocol import Store

# The search's own logger: what it says about the query space is configured and read as before.
log = logging.getLogger("theorem_rag.search")


class IndexNotBuilt(RuntimeError):
    """The vector space searched has no vectors yet: run ``theorem-rag index build`` first."""


class BuiltSpaces:
    """The spaces a search found built and filled by its embedders, as of the index's change marker: each is checked
    once, and again after the index changed."""

    def __init__(self) -> None:
        self.spaces: set[str] = set()
        self.generation: int | None = None  # the index's change marker when ``spaces`` was checked

    def check(self, store: Store, spaces: Sequence[str], embedder: Embedder, query_space: str | None = None,
              query_embedder: Embedder | None = None) -> None:  # fmt: skip
        """:class:`IndexNotBuilt` when one of ``spaces`` has no vectors; an InputError (:func:`check_space_maker`)
        when one holds vectors of another model or backend than ``embedder`` runs, or ``query_space`` than
        ``query_embedder`` runs."""
        # Once per call: another process may have changed the index since (new documents, a space's index kind or
        # vectors); the store's change marker says so, and what was checked is checked again.
        generation = store.refresh()
        if generation != self.generation:
            self.spaces, self.generation = set(), generation
        for space in spaces:
            if space in self.spaces:  # vectors are only removed by a rebuild or deletion, which the marker shows
                continue
            try:
                built = store.count_vectors(space) > 0
            except ValueError:
                built = False
            if not built:
                field = space.rsplit("_", 1)[-1]
                raise IndexNotBuilt(
                    f"the index has no vectors in space {space!r}: run `theorem-rag index build --embed-field {field}`"
                )
            check_space_maker(store.space(space), embedder)
            self.spaces.add(space)
        if query_space and query_space not in self.spaces:
            check_space_maker(store.space(query_space), query_embedder)
            self.spaces.add(query_space)


def query_space_options(s: Settings, store: Store, spaces: Sequence[VectorSpace], space: str,
                          extra_spaces: Sequence[str]) -> dict[str, Any]:  # fmt: skip
    """The query space of the settings' search (``query_space`` and ``query_embedder``) when ``query_model`` names
    another model whose space of the same field as ``space`` the index has (among ``spaces``), with as many vectors,
    or with the vectors of every informal statement (``formal_in_base``: the formal ones, Lean declarations, are in
    ``space`` alone; ``index build`` embeds them there only); else nothing."""
    from theorem_rag.db.table_names import space_name
    from theorem_rag.embed_models import resolve_model_path
    from theorem_rag.embed_onnx import AUTO, backend_for_space

    by_name = {sp.name: sp for sp in spaces}
    if not s.query_model or s.query_model == s.embed_model or extra_spaces or space not in by_name:
        return {}
    name = space_name(s.query_model, by_name[space].field)
    if name == space or name not in by_name:
        return {}
    have, need = store.count_vectors(name), store.count_vectors(space)
    formal_in_base = have < need and have == need - store.count_formal()
    if have < need and not formal_in_base:
        if have:
            log.warning("vector space %s has %d of the %d vectors of %s: queries in words search %s until "
                        "`theorem-rag index build --embed-model %s` completes it", name, have, need, space, space,
                        s.query_model)  # fmt: skip
        return {}
    try:
        resolve_model_path(s.query_model)
    except ImportError as e:
        log.warning("queries in words search %s: %s (or set THEOREM_RAG_QUERY_MODEL='')", space, e)
        return {}
    backend = backend_for_space(s.embed_backend, list(spaces) if s.embed_backend == AUTO else [], name,
                                s.query_model)  # fmt: skip
    return {"query_space": name, "query_embedder": settings_embedder(s, s.query_model, backend),
            "formal_in_base": formal_in_base}


def words_space_of(s: Settings, store: Store, spaces: Sequence[VectorSpace], embedder: Embedder) -> str | None:
    """The words space of the settings' embed model (each statement's body alone, read into words:
    :mod:`~theorem_rag.retrieval.statement_words`) when the index has it, made by ``embedder``'s model and backend,
    with a vector for every informal statement; else ``None`` (a search then reads no statement's words)."""
    from theorem_rag.db.table_names import space_name
    from theorem_rag.retrieval.statement_words import WORDS_FIELD

    name = space_name(s.embed_model, WORDS_FIELD)
    found = next((sp for sp in spaces if sp.name == name), None)
    if found is None or not found.made_by(embedder.model_name, embedder.backend):
        return None
    have, need = store.count_vectors(name), store.count() - store.count_formal()
    if have < need:
        log.info("vector space %s has %d of the %d informal statements' vectors: no statement's words are read "
                 "until `theorem-rag index build --embed-field statement` completes it", name, have, need)
        return None
    return name


def settings_embedder(s: Settings, model: str, backend: str) -> Embedder:
    """The settings' :class:`~theorem_rag.embed.Embedder` of ``model`` run by ``backend`` (ONNX exports cached
    under the data folder)."""
    from theorem_rag.embed import Embedder

    return Embedder(model, doc_instruction=s.doc_instruction, query_instruction=s.query_instruction,
                    batch_size=s.embed_batch_size, backend=backend, cache_dir=Path(s.data_dir) / "onnx",
                    max_tokens=s.embed_max_tokens)  # fmt: skip


def check_space_maker(space: VectorSpace, embedder: Embedder) -> None:
    """An InputError when ``space`` was filled by another model or backend than ``embedder`` runs: its vectors and
    the query's would not be comparable. The message says what to set or run instead."""
    model, backend = getattr(embedder, "model_name", None), getattr(embedder, "backend", None)
    if space.made_by(model, backend):
        return
    other_model = bool(space.model and model and space.model != model)
    setting = f"THEOREM_RAG_EMBED_BACKEND={space.backend}" + (f" THEOREM_RAG_EMBED_MODEL={space.model}" if other_model else "")
    command = f"theorem-rag index build --reembed --embed-backend {backend}" + (f" --embed-model {model}" if other_model else "")
    raise InputError(
        f"vector space {space.name!r} holds vectors of {space.model or 'an unrecorded model'} run by the "
        f"{space.backend} backend, but this search embeds queries with {model} on {backend}; vectors of two models "
        f"or backends are never compared. Search with {setting}, or re-embed the space: `{command}`"
    )
