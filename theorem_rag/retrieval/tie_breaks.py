"""The tie-breaks query understanding applies to the first places of a fused ranking: a formula query's results
before the entries about them, and a query that names a result: the statement itself before exercises, examples and
"proof of" entries, the entry devoted to it first (:mod:`theorem_rag.query_understanding.names`); and a query that
describes a result: statements before the entries about them, unless it asks for such an entry, and when it states
the result, the definitions of its words after the other statements; and a query that names or describes a notion:
the Lean declarations that define one before the lemmas about it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from theorem_rag.query_understanding import QueryPlan
from theorem_rag.query_understanding.names import (
    asks_about_a_result, devoted, is_name_query, name_class, name_words, prefer_statements, reorder_places,
    results_first, statements_before_entries_about_them,
)  # fmt: skip
from theorem_rag.records import Hit, is_lean
from theorem_rag.retrieval.routing import Routing
from theorem_rag.retrieval.store_protocol import Store
from theorem_rag.slogans.lean_words import DEFINING

# The places the formula tie-break (results before the entries about them) reorders: the first this many.
FORMULA_DEPTH = 10
# The places the name tie-break (query_understanding.names) reorders: the first this many.
NAME_DEPTH = 5
# The places the about tie-break (statements before the entries about them) reorders: the first this many, as many
# as the statements' words are read for (statement_words.WORDS_DEPTH). 10 -> 30 on the quickstart's index: Stacks
# slogans Hit@20 0.787 -> 0.812, proof references R@20 0.372 -> 0.378, the others the same or up; 20 moved nothing,
# 40 and 50 as 30 (benchmarks/results/about_depth).
ABOUT_DEPTH = 30
# The places the definitions tie-break (a notion's definitions before the lemmas about it) reorders: the first this
# many. Offline on mathlib_dev with --formal: 10 places +0.018 nDCG@10, 20 +0.032, 30 +0.035 (results/notions).
DEFINITION_DEPTH = 30
# The Lean kinds a query that states a result does not ask for.
DEFINED_TYPES = DEFINING - {"def", "abbrev"}


def tie_breaks(store: Store, plan: QueryPlan, routing: Routing, hits: list[Hit], k: int, front_set: set[str],
               exact: set[str]) -> list[Hit]:  # fmt: skip
    """The first places of the fused hits reordered as query understanding reads the query (a formula, or a
    short query that names a result), cut to ``k``."""
    if plan.formula:
        # A formula asks for the result that has it: statements before the entries about them ("proof of X"),
        # and among them the entries devoted to one result (an encyclopedia entry) before statements inside
        # longer documents.
        head = results_first(hits[:FORMULA_DEPTH], _name_and_kind, fixed=lambda h: h.theorem_id in front_set,
                             is_devoted=_devoted(store, hits[:FORMULA_DEPTH]))  # fmt: skip
        return [replace(h, rank=i) for i, h in enumerate([*head, *hits[FORMULA_DEPTH:]][:k], 1)]
    # A short query that names a result: the statement itself before exercises, examples and "proof of"
    # entries with the same name, and among statements named alike the entry devoted to it (its document's
    # title is its name) first (only hits named with every query word move; those routed to the front stay,
    # but for statements named as the query, which are ordered like the others: by their own name, or as a
    # result with the query's words when the query is one of their alias, "pairing" for "axiom of
    # pairing"). The name is the query, or else the first of its variants (an acronym's expansion, a close
    # name) that names a hit.
    names = [t for t in (plan.text, *plan.variants, routing.did_you_mean) if t and is_name_query(t)]
    name = next((t for t in names if any(name_class(t, *_name_and_kind(h)) is not None for h in hits[:NAME_DEPTH])),
                None)
    if name is None:
        return hits
    head = prefer_statements(
        name, hits[:NAME_DEPTH], _name_and_kind,
        fixed=lambda h: h.theorem_id in front_set and h.theorem_id not in exact,
        is_devoted=_devoted(store, hits[:NAME_DEPTH]),
        is_alias=lambda h: h.theorem_id in exact and name_words(_name_and_kind(h)[0] or "") != name_words(name),
    )  # fmt: skip
    return [replace(h, rank=i) for i, h in enumerate([*head, *hits[NAME_DEPTH:]][:k], 1)]


def statements_first(plan: QueryPlan, hits: list[Hit], front_set: set[str]) -> list[Hit]:
    """For a query that describes a result (longer than a name, not a formula: those have their own tie-breaks
    above), the first :data:`ABOUT_DEPTH` hits with the statements before the exercises, examples, remarks and
    proofs about results (those routed to the front stay), unless the query asks for such an entry
    (:func:`~theorem_rag.query_understanding.names.statements_before_entries_about_them`); when it states the result
    (``plan.asserts``: "flatness is the same for modules and sheaves"), the definitions after the other statements
    too, unless it asks for a definition.
    """
    if plan.formula or is_name_query(plan.original):
        return hits
    head = statements_before_entries_about_them(plan.original, hits[:ABOUT_DEPTH], _name_and_kind,
                                                fixed=lambda h: h.theorem_id in front_set)  # fmt: skip
    if plan.asserts and not plan.definition_of and not asks_about_a_result(plan.original):
        # A query that states a result asks for it, not for the definitions of its words: they go after the others.
        movable = [i for i, h in enumerate(head) if h.theorem is not None and h.theorem_id not in front_set]
        head = reorder_places(head, movable, key=lambda i: (_is_definition(head[i]), i))
    if all(a is b for a, b in zip(head, hits)):
        return hits
    return [replace(h, rank=i) for i, h in enumerate([*head, *hits[ABOUT_DEPTH:]], 1)]


def definitions_first(plan: QueryPlan, hits: list[Hit], front_set: set[str]) -> list[Hit]:
    """For a query that names or describes a notion (``plan.notion``: "Polish space", "measure for which the whole
    space is a countable union of sets of finite measure"), the Lean declarations among the first
    :data:`DEFINITION_DEPTH` hits that define something (a structure, a class, a def: :data:`DEFINING`) before the
    other Lean declarations, in the places Lean declarations hold: a library defines a notion once and states
    hundreds of lemmas in its words, which the query's words match as well. Every other hit keeps its place (a
    LaTeX statement, a hit routed to the front), and so does the order among definitions and among the others.
    """
    if not plan.notion:
        return hits
    head = hits[:DEFINITION_DEPTH]
    lean = [i for i, h in enumerate(head) if h.theorem is not None and is_lean(h.theorem) and h.theorem_id not in
            front_set]  # fmt: skip
    ordered = reorder_places(head, lean, key=lambda i: (_lean_kind(head[i]) not in DEFINING, i))
    if all(a is b for a, b in zip(ordered, head)):
        return hits
    return [replace(h, rank=i) for i, h in enumerate([*ordered, *hits[DEFINITION_DEPTH:]], 1)]


def _is_definition(h: Hit) -> bool:
    """A definition: a LaTeX statement of that kind, a Lean declaration of a type (a structure, a class, an inductive
    type; a ``def`` is often a construction that states a result, ``yonedaEquiv``, and an instance is one)."""
    t = h.theorem
    return t is not None and (_lean_kind(h) in DEFINED_TYPES if is_lean(t) else t.kind == "definition")


def _lean_kind(h: Hit) -> str | None:
    return (h.theorem.meta or {}).get("lean_kind") if h.theorem else None


def _name_and_kind(h: Hit) -> tuple[str | None, str | None]:
    """What the name rules read of a hit: its statement's name and kind."""
    return (h.theorem.name, h.theorem.kind) if h.theorem else (None, None)


def _devoted(store: Store, hits: Sequence[Hit]) -> Callable[[Hit], bool]:
    """Whether a hit is the entry devoted to its result (:func:`devoted`), for these hits: their documents'
    titles are looked up once."""
    docs = store.get_documents(list(dict.fromkeys(h.theorem.doc_id for h in hits if h.theorem is not None)))
    titles = {doc_id: doc.title for doc_id, doc in docs.items()}
    return lambda h: h.theorem is not None and devoted(h.theorem.name, titles.get(h.theorem.doc_id))
