"""What query understanding adds to a ranking, given the store: the statements to put first and the extra texts
to search. Used by :class:`~theorem_rag.retrieval.retriever.TheoremRetriever`; the rules themselves are pure, in
:mod:`theorem_rag.query_understanding`.

- the paper asked for by arXiv id, DOI or title: its statements first, in source order;
- "definition of X" / "what is a X": definitions named X (or with X in their name) first; a bare term: only a
  definition named exactly so;
- a term asked for (bare or "definition of X"): the Lean declaration mathlib names by it (``EuclideanDomain`` for
  "Euclidean domain"), after the definitions;
- a Lean name or the words of one (``Nat.Prime.two_le``, ``two_le``, ``prime two le``): the statements named so
  first, then those whose name ends with it after a dot (``store.names_ending``);
- a short query that full-text search does not find, with a statement name close to it by trigram similarity:
  that name is searched too ("did you mean").

>>> route_title("the paper Decomposing a factorial", title_index([("p1", "Decomposing a factorial"), ("p2", "Schemes")]))
'p1'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from typing import Any

from theorem_rag.filters import FORMAL_LANGUAGES, Filters
from theorem_rag.query import query_tokens
from theorem_rag.query_understanding.intent import MIN_TITLE_WORDS, title_index, title_key
from theorem_rag.query_understanding.lean import type_names
from theorem_rag.query_understanding.names import name_words
from theorem_rag.query_understanding.plan import QueryPlan
from theorem_rag.retrieval.store_protocol import Store

# Definitions matching the term asked for: this many candidates, of which the fused ranking's best PROMOTED go first.
PROMOTE_POOL = 20
PROMOTED = 2
# Declarations named by the term asked for (its UpperCamelCase: lean.type_names): this many after the definitions,
# chosen among the first LEAN_TYPES_POOL names that end so, case aside.
LEAN_TYPES = 1
LEAN_TYPES_POOL = 50
# A query that contains a title routes to it only when it is little more than the title ("the paper X", "X pdf"):
# a statement that mentions "the Chinese remainder theorem" is not asking for that entry.
MAX_EXTRA_WORDS = 3
TYPO_MAX_TOKENS = 6
# A word of the query and one of a close name are the same word misspelt from this SequenceMatcher ratio up
# ("nakayma" / "nakayama" 0.93, "lemma" / "lemmas" 0.91; "compact" / "complete" 0.67).
RESPELL_RATIO = 0.75
RESPELL_MIN_LETTERS = 4


@dataclass
class Routing:
    """Statement ids to put first (``named``: named as the query, and ``front``, those of the paper routed to, in
    this order; then ``name_ends``, named with the query as the end of a dotted name, ``modules``, those of the Lean
    module routed to, and ``promote``, in the order of the fused ranking, then ``lean_types``, the declarations named
    by the term asked for), the papers routed to, and a close name for a misspelt query.

    A paper's statements keep its order (the query asks for the paper); a Lean module's title is the topic of one
    file of a library ("Intermediate value theorem"), which a query names to find the result: its declarations in
    file order put the first ones ahead of it."""

    front: list[str] = field(default_factory=list)
    promote: list[str] = field(default_factory=list)
    named: list[str] = field(default_factory=list)
    name_ends: list[str] = field(default_factory=list)
    lean_types: list[str] = field(default_factory=list)
    modules: list[str] = field(default_factory=list)
    extra_texts: list[str] = field(default_factory=list)
    did_you_mean: str | None = None
    papers: list[str] = field(default_factory=list)


def route_title(query: str, titles: Mapping[str, str] | Sequence[tuple[str, str]]) -> str | None:
    """The id of the document whose title the query is, or contains whole with at most ``MAX_EXTRA_WORDS`` other
    words (the longest such title). ``titles``: a :func:`title_index`, or (id, title) pairs.

    The query's word spans are looked up in the index (a few dozen look-ups whatever the number of documents)."""
    index = titles if isinstance(titles, Mapping) else title_index(titles)
    words = title_key(query).split()
    if len(words) < MIN_TITLE_WORDS:
        return None
    best: tuple[int, str] | None = None
    for size in range(len(words), max(MIN_TITLE_WORDS, len(words) - MAX_EXTRA_WORDS) - 1, -1):
        for start in range(len(words) - size + 1):
            span = " ".join(words[start : start + size])
            doc = index.get(span)
            if doc is not None and (best is None or len(span) > best[0]):
                best = (len(span), doc)
        if best is not None and size == len(words):
            break
    return best[1] if best else None


def route(store: Store, plan: QueryPlan, filters: Filters, k: int) -> Routing:
    """The routing of one plan (database look-ups only; no ranking)."""
    out = Routing()
    docs = store.documents_by_identifier(plan.arxiv_id, plan.doi) if (plan.arxiv_id or plan.doi) else []
    if not docs:
        doc = route_title(plan.original, store.document_title_index())
        docs = [doc] if doc else []
    documents = store.get_documents(docs) if docs else {}
    docs = [d for d in docs if d in documents and document_admissible(documents[d], filters)]
    for doc in docs:
        out.papers.append(doc)
        routed = out.modules if is_formal(documents[doc]) else out.front
        routed += [t.id for t in store.theorems_of(doc, limit=k) if _admissible(t, filters)]
    if plan.definition_of:
        out.promote += store.definitions_named(plan.definition_of, exact=False, k=PROMOTE_POOL, filters=filters)
    elif plan.bare_term:
        out.promote += store.definitions_named(plan.text, exact=True, k=PROMOTE_POOL, filters=filters)
    term = plan.definition_of or (plan.text if plan.bare_term else None)
    types = type_names(term) if term and filters.formal is not False and (
        not filters.kind or "definition" in filters.kind) else ()  # fmt: skip
    if types:
        lean = replace(filters, formal=True, kind=("definition",))
        ending = store.names_ending(types, k=LEAN_TYPES_POOL, filters=lean)
        out.lean_types += [theorem_id for theorem_id, _ in type_named_first(ending, types)[:LEAN_TYPES]]
    if plan.names:
        forms = {n.lower() for n in plan.names}
        for theorem_id, name in store.names_ending(plan.names, k=k, filters=filters):
            (out.named if name.lower() in forms else out.name_ends).append(theorem_id)
    return out


def type_named_first(found: Sequence[tuple[str, str]], types: Sequence[str]) -> list[tuple[str, str]]:
    """``found`` (id, name) pairs, in their order, those whose last component is one of ``types`` as written first:
    by mathlib's naming convention a type (a structure, a class) is named in UpperCamelCase, a function or an instance
    in lowerCamelCase, so ``CategoryTheory.MonoidalCategory`` is the notion "monoidal category" and
    ``ModuleCat.monoidalCategory`` one instance of it.

    >>> type_named_first([("a", "ModuleCat.monoidalCategory"), ("b", "CategoryTheory.MonoidalCategory")],
    ...                  ["MonoidalCategory"])
    [('b', 'CategoryTheory.MonoidalCategory'), ('a', 'ModuleCat.monoidalCategory')]
    """
    exact = set(types)
    return sorted(found, key=lambda pair: pair[1].rsplit(".", 1)[-1] not in exact)


def did_you_mean(store: Store, plan: QueryPlan, lexical_empty: bool) -> str | None:
    """The :func:`close_name` of a short query that full-text search did not find, else None."""
    if not lexical_empty or plan.variants or plan.formula or len(query_tokens(plan.text)) > TYPO_MAX_TOKENS:
        return None
    return close_name(store, plan.text)


def close_name(store: Store, text: str) -> str | None:
    """The statement name closest to ``text`` by trigram similarity (pg_trgm), unless it is ``text`` itself or
    leaves out one of its words (:func:`respells`): the one "did you mean" rule, which the search follows
    (:func:`did_you_mean`) and an assessment of poor results suggests (``TheoremSearch.assess``)."""
    names = store.similar_names(text, k=1)
    name = names[0][0] if names else None
    return name if name and name.lower() != text.lower() and respells(text, name) else None


def respells(text: str, name: str) -> bool:
    """Whether ``name`` could be ``text`` spelt right: each word of ``text`` (of ``RESPELL_MIN_LETTERS`` letters or
    more: "of", "the", "map" are left aside) is close to one of ``name``'s (a :class:`difflib.SequenceMatcher` ratio
    of at least ``RESPELL_RATIO``; words as :func:`~theorem_rag.query_understanding.names.name_words` compares names:
    accents and LaTeX accents folded, plurals and possessives dropped). A name that holds some of the
    words and drops another is a different, shorter name: "transformation" for "ergodic transformation", which the
    search then followed as if the user had typed it, drowning the statements about ergodic maps.

    >>> respells("Nakayma lemma", "Nakayama's lemma"), respells("ergodic transformation", "transformation")
    (True, False)
    >>> respells("Schroder Bernstien theorem", r'Schr\\"oder-Bernstein theorem')
    True
    """
    ours, theirs = name_words(text), name_words(name)
    return all(any(SequenceMatcher(None, w, v).ratio() >= RESPELL_RATIO for v in theirs)
               for w in ours if len(w) >= RESPELL_MIN_LETTERS)  # fmt: skip


def document_admissible(document: Any, filters: Filters) -> bool:
    """Whether a routed paper passes the filters on documents (year, arXiv categories, formal or not), as the
    search's own statement applies them: a year filter drops a document without a year.

    >>> from theorem_rag.records import Document
    >>> doc = Document(id="p", source="arxiv", year=2019, meta={"categories": ["math.AG", "math.NT"]})
    >>> [document_admissible(doc, Filters(**f)) for f in ({"year_min": 2020}, {"category": ("math.NT",)}, {})]
    [False, True, True]
    >>> document_admissible(doc, Filters(formal=True)), document_admissible(doc, Filters(formal=False))
    (False, True)
    """
    formal = is_formal(document)
    if filters.formal is not None and formal != filters.formal:
        return False
    year = document.year
    if (filters.year_min is not None or filters.year_max is not None) and year is None:
        return False
    if (filters.year_min is not None and year < filters.year_min) or (
            filters.year_max is not None and year > filters.year_max):  # fmt: skip
        return False
    categories = (document.meta or {}).get("categories") or ()
    return not filters.category or bool(set(filters.category) & set(categories))


def is_formal(document: Any) -> bool:
    """Whether a document is in a formal language (a Lean module)."""
    return (document.meta or {}).get("language") in FORMAL_LANGUAGES


def _admissible(theorem: Any, filters: Filters) -> bool:
    return all(not values or getattr(theorem, name) in values
               for name, values in (("source", filters.source), ("kind", filters.kind), ("doc_id", filters.doc_id)))  # fmt: skip
