"""Metadata filters for search: a small validated structure, pure.

Filters restrict a search to some sources, kinds of statement, documents, a range of years, and formal (Lean) or
informal (LaTeX) statements. Every field holds values that end up as bound parameters of the candidate query, never
as SQL text.

>>> Filters.from_mapping({"source": "stacks", "kind": ["lemma", "theorem"], "year_min": 2000})
Filters(source=('stacks',), kind=('lemma', 'theorem'), doc_id=(), year_min=2000, year_max=None, category=(), formal=None)
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from theorem_rag.errors import InputError

# Accepted spellings: "paper" is what a user says, "doc_id" what the records call it; "year" is an exact year.
ALIASES = {"paper": "doc_id", "document": "doc_id"}
ALLOWED = ("source", "kind", "doc_id", "paper", "year", "year_min", "year_max", "category", "formal")
# The languages of formal statements: a document in one of them (``meta.language``, which the Lean adapter sets on
# every module it reads) holds formal statements; the others (LaTeX, no language recorded) informal ones.
FORMAL_LANGUAGES = ("lean",)
# An arXiv category: an archive (``math``, ``hep-th``, ``math-ph``, ``q-bio``), optionally a dot and a subject class
# (``math.AG``, ``cs.LO``, ``cond-mat.mes-hall``). Shared with the wire models, so REST, MCP and tools agree.
CATEGORY_PATTERN = r"^[a-z]+(?:-[a-z]+)*(?:\.(?:[A-Z]{2}|[a-z]+(?:-[a-z]+)*))?$"
_CATEGORY = re.compile(CATEGORY_PATTERN)


class FilterKeywords(TypedDict, total=False):
    """The keyword filters of ``TheoremSearch``'s searches, as REST and MCP requests name them too: a value or a
    list of values each (``None`` or an empty one: no restriction)."""

    sources: Sequence[str] | str | None
    kinds: Sequence[str] | str | None
    papers: Sequence[str] | str | None
    year_min: int | None
    year_max: int | None
    categories: Sequence[str] | str | None
    formal: bool | None


# The field of Filters each keyword filter sets.
KEYWORD_FIELDS = {"sources": "source", "kinds": "kind", "papers": "doc_id", "year_min": "year_min",
                  "year_max": "year_max", "categories": "category", "formal": "formal"}  # fmt: skip


def check_category(value: Any) -> str:
    """``value`` if it is an arXiv category, else :class:`~theorem_rag.errors.InputError`.

    >>> [check_category(c) for c in ("math.AG", "cs.LO", "hep-th", "math-ph", "cond-mat.mes-hall")]
    ['math.AG', 'cs.LO', 'hep-th', 'math-ph', 'cond-mat.mes-hall']
    >>> check_category("math AG")
    Traceback (most recent call last):
    ...
    theorem_rag.errors.InputError: filter 'category' takes arXiv categories such as 'math.AG', 'cs.LO' or 'hep-th', got 'math AG'
    """
    if not isinstance(value, str) or not _CATEGORY.fullmatch(value):
        raise InputError(f"filter 'category' takes arXiv categories such as 'math.AG', 'cs.LO' or 'hep-th', got {value!r}")
    return value


def _strings(field: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = (value,)
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise InputError(f"filter {field!r} takes a string or a list of strings, not {type(value).__name__}")
    out = []
    for v in value:
        if not isinstance(v, str) or not v:
            raise InputError(f"filter {field!r} takes non-empty strings, got {v!r}")
        out.append(v)
    return tuple(sorted(set(out)))


def _year(field: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"filter {field!r} takes an integer year, got {value!r}")
    return value


def _formal(value: Any) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise InputError(f"filter 'formal' takes true (formal statements: Lean), false (informal: LaTeX) or null, "
                         f"got {value!r}")  # fmt: skip
    return value


@dataclass(frozen=True)
class Filters:
    """Restrict a search: any of the given sources, kinds and documents, ``year_min <= year <= year_max``, and
    formal statements only (``formal=True``: Lean declarations, whose document is in one of
    :data:`FORMAL_LANGUAGES`) or informal ones only (``formal=False``: LaTeX).

    An empty tuple or ``None`` means "no restriction" on that field; a year filter drops statements whose document
    has no year.

    >>> Filters(source=("hott",)).is_empty
    False
    """

    source: tuple[str, ...] = ()
    kind: tuple[str, ...] = ()
    doc_id: tuple[str, ...] = ()
    year_min: int | None = None
    year_max: int | None = None
    # arXiv categories (primary or cross-list) of the statement's document; the store turns them into documents
    category: tuple[str, ...] = ()
    formal: bool | None = None

    def __post_init__(self) -> None:
        for name in ("source", "kind", "doc_id", "category"):
            object.__setattr__(self, name, _strings(name, getattr(self, name)))
        for category in self.category:
            check_category(category)
        _formal(self.formal)
        ymin, ymax = _year("year_min", self.year_min), _year("year_max", self.year_max)
        if ymin is not None and ymax is not None and ymin > ymax:
            raise InputError(f"filter year_min={ymin} is after year_max={ymax}")

    @property
    def is_empty(self) -> bool:
        return (not (self.source or self.kind or self.doc_id or self.category) and self.year_min is None
                and self.year_max is None and self.formal is None)  # fmt: skip

    def admits(self, formal_sources: Collection[str]) -> tuple[bool, bool]:
        """Whether these filters can admit (informal, formal) statements, by the formal filter and the sources
        named, given the sources whose statements are formal (``formal_sources``).

        >>> Filters(source=("mathlib",)).admits({"mathlib"}), Filters(formal=False).admits({"mathlib"})
        ((False, True), (True, False))
        """
        sources = set(self.source)
        informal = self.formal is not True and (not sources or bool(sources - set(formal_sources)))
        formal = self.formal is not False and (not sources or bool(sources & set(formal_sources)))
        return informal, formal

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any] | Filters | None) -> Filters:
        """Validate a plain mapping such as ``{"source": "stacks", "year": 2019}``.

        Unknown fields raise :class:`~theorem_rag.errors.InputError` naming the allowed ones, so a typo never
        silently widens a search.
        """
        if mapping is None:
            return cls()
        if isinstance(mapping, Filters):
            return mapping
        if not isinstance(mapping, Mapping):
            raise InputError(f"filters must be a mapping of field to values, not {type(mapping).__name__}")
        unknown = sorted(str(k) for k in mapping if k not in ALLOWED)
        if unknown:
            raise InputError(f"unknown filter field(s) {', '.join(unknown)}; allowed: {', '.join(ALLOWED)}")
        values: dict[str, Any] = {}
        for key, value in mapping.items():
            if value is None:
                continue
            name = ALIASES.get(key, key)
            if name == "year":
                year = _year("year", value)
                values["year_min"] = values["year_max"] = year
            elif name in values:
                values[name] = tuple(values[name]) + _strings(key, value)
            else:
                values[name] = value
        return cls(**values)

    @classmethod
    def from_keywords(cls, keywords: FilterKeywords | Mapping[str, Any]) -> Filters:
        """Validate keyword filters (:class:`FilterKeywords`); an unknown one is an
        :class:`~theorem_rag.errors.InputError` naming the allowed ones. An empty value restricts nothing, but an empty
        category string is an error, as in :class:`Filters`.

        >>> Filters.from_keywords({"sources": ["stacks"], "kinds": [], "papers": "", "year_min": 2000})
        Filters(source=('stacks',), kind=(), doc_id=(), year_min=2000, year_max=None, category=(), formal=None)
        >>> Filters.from_keywords({"formal": False}).formal
        False
        """
        unknown = sorted(set(keywords) - set(KEYWORD_FIELDS))
        if unknown:
            raise InputError(f"unknown filter(s) {', '.join(unknown)}; allowed: {', '.join(KEYWORD_FIELDS)}")
        kept = ("year_min", "year_max", "formal") + (
            ("categories",) if isinstance(keywords.get("categories"), str) else ())
        return cls.from_mapping({KEYWORD_FIELDS[name]: value if name in kept else value or None
                                 for name, value in keywords.items()})  # fmt: skip
