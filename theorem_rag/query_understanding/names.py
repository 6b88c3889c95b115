"""The statement itself before entries about it, when a short query names a result (pure: no database).

A query such as "Cayleys theorem", "banach fixed point" or "Bezouts lemma" is a name. Among the hits whose names
contain every word of the query (compared by :func:`name_words`: case, accents, TeX accents, apostrophes, hyphens,
a leading "the" and a plural or possessive "s" do not count), :func:`prefer_statements` puts first the one named
exactly so, then the other statements of results, and last the entries about the result: an exercise, example or
remark (PlanetMath files its "proof of X" entries as remarks), or a name that says it is about it ("corollary of
X", "alternate statement of X": the query's words come after an "of"). Only hits with such a name move, and only
among the places such hits hold; every other hit keeps its place, so the rule acts only where the evidence is a
name match. "Named exactly so" counts only for a whole name, one with a result word ("theorem", "lemma", ...): a
truncated name such as "cayley hamilton" is the short name of the result in several sources alike.

>>> name_words("Cayley's theorem") == name_words("Cayleys theorem") == ("cayley", "theorem")
True
>>> name_words("corollary of B\\\\'ezout's lemma")
('corollary', 'of', 'bezout', 'lemma')
>>> name_class("Cayleys theorem", "Cayley's theorem", "theorem"), name_class("Cayleys theorem", "Cayley-Hamilton theorem", "theorem")
(0, 1)
>>> name_class("Bezouts lemma", "corollary of B\\\\'ezout's lemma", "theorem"), name_class("banach fixed point", "Banach fixed point theorem", "exercise")
(2, 2)
>>> name_class("Cayleys theorem", "Lagrange's theorem", "theorem") is None
True
>>> name_class("cayley hamilton", "Cayley-Hamilton", "theorem"), name_class("cayley hamilton", "Cayley-Hamilton theorem", "theorem")
(1, 1)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from theorem_rag.query_understanding.intent import RESULT_WORDS
from theorem_rag.query_understanding.text import fold_accents

T = TypeVar("T")

# Kinds of entries that are about a result rather than its statement.
DERIVED_KINDS = frozenset({"exercise", "example", "remark"})
# Queries longer than this are descriptions, not names: the rule does not apply.
MAX_NAME_WORDS = 6
_TEX_ACCENT = re.compile(r"\\[`'\"^~=.uvHckrb]\s*\{?([A-Za-z])\}?")
_WORD = re.compile(r"[a-z0-9]+")


def name_words(text: str) -> tuple[str, ...]:
    """The words a name is compared by: lower case, accents and TeX accents folded, apostrophes dropped, a
    leading "the" dropped and a final "s" of each word dropped (plural or possessive)."""
    text = fold_accents(_TEX_ACCENT.sub(r"\1", text)).lower().replace("'", "").replace("\u2019", "")
    words = [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in _WORD.findall(text)]
    if words[:1] == ["the"]:
        words = words[1:]
    return tuple(words)


_RESULT_WORDS = frozenset(w for word in RESULT_WORDS for w in name_words(word))


def name_class(query: str, name: str | None, kind: str | None) -> int | None:
    """0: named exactly as the query; 1: a result whose name holds every query word; 2: an entry about it (a
    derived kind, or the query's words come after an "of"); None: the name does not hold every query word."""
    if not name:
        return None
    q, n = name_words(query), name_words(name)
    if not q or not set(q) <= set(n):
        return None
    first = min(n.index(w) for w in q)
    if kind in DERIVED_KINDS or (first > 0 and n[first - 1] == "of"):
        return 2
    # Named exactly so counts only for a whole name (one with a result word: "Cayleys theorem"); a truncated name
    # ("cayley hamilton") equals the short names of several sources alike, which says nothing about which is meant.
    return 0 if q == n and set(q) & _RESULT_WORDS else 1


_ABOUT = re.compile(r"(?:alternat\w* |another |second |third )?(?:proof|example|exercise|application|computation|"
                    r"consequence|corollary|remark|note|generali[sz]ation|special case)s? (?:of|for|to|using)\b")


def about_a_result(name: str | None, kind: str | None) -> bool:
    """Whether an entry is about a result rather than its statement: a derived kind (exercise, example, remark:
    PlanetMath's "proof of X" entries are remarks), or a name such as "proof of X", "example of X".

    >>> about_a_result("proof of Wilson's theorem", "theorem"), about_a_result("Wilson's theorem", "theorem")
    (True, False)
    >>> about_a_result(None, "example"), about_a_result("Computation of powers using Fermat's little theorem", None)
    (True, True)
    """
    return kind in DERIVED_KINDS or bool(name and _ABOUT.match(" ".join(name.lower().split())))


# A query that asks for an entry about a result rather than for the result: the about tie-break leaves it alone.
_ASKS_ABOUT = re.compile(r"\b(?:proofs?|prove[sdn]?|proving|derivations?|examples?|counter-?examples?|exercises?|"
                         r"problems?|remarks?|applications?|computations?)\b", re.IGNORECASE)


def asks_about_a_result(query: str) -> bool:
    """Whether a query asks for a proof, an example, an exercise or a remark rather than for a statement.

    >>> asks_about_a_result("proof of Holder's inequality"), asks_about_a_result("an example of a non-Noetherian ring")
    (True, True)
    >>> asks_about_a_result("every finite division ring is commutative")
    False
    """
    return bool(_ASKS_ABOUT.search(query))


def statements_before_entries_about_them(query: str, hits: Sequence[T],
                                         name_of: Callable[[T], tuple[str | None, str | None]],
                                         fixed: Callable[[T], bool] = lambda h: False) -> list[T]:  # fmt: skip
    """``hits`` with the entries about a result (:func:`about_a_result`: an exercise, example or remark, a "proof
    of X"; not ``fixed``) moved after the statements among their own places (:func:`results_first`, with no entry
    preferred as devoted), unless the query asks for such an entry (:func:`asks_about_a_result`): a query that
    describes a result asks for its statement; an entry about it restates it and comes after.

    >>> hits = [("proof of Doob's inequality", "remark"), ("Doob's inequality", "theorem"), ("Doob's Lp", "lemma")]
    >>> statements_before_entries_about_them("maximal inequality for submartingales", hits, lambda h: h)[0][0]
    "Doob's inequality"
    >>> statements_before_entries_about_them("proof of Doob's inequality", hits, lambda h: h)[0][0]
    "proof of Doob's inequality"
    """
    return list(hits) if asks_about_a_result(query) else results_first(hits, name_of, fixed=fixed)


def is_name_query(query: str) -> bool:
    """Whether the name tie-break applies: a query of one to ``MAX_NAME_WORDS`` words."""
    return 0 < len(name_words(query)) <= MAX_NAME_WORDS


def devoted(name: str | None, title: str | None) -> bool:
    """Whether a statement is the subject of its whole document: the document's title is the statement's name (an
    encyclopedia entry such as PlanetMath's, as opposed to a theorem inside a book's chapter).

    >>> devoted("Tychonoff's theorem", "Tychonoff's theorem"), devoted("Tychonoff's theorem", "An Infinitely Large Napkin")
    (True, False)
    """
    return bool(name and title) and name_words(name) == name_words(title)


def _class(query: str, hit: T, name_of: Callable[[T], tuple[str | None, str | None]],
           is_alias: Callable[[T], bool]) -> int | None:
    found = name_class(query, *name_of(hit))
    return min(found if found is not None else 1, 1) if is_alias(hit) else found


def prefer_statements(query: str, hits: Sequence[T], name_of: Callable[[T], tuple[str | None, str | None]],
                      fixed: Callable[[T], bool] = lambda h: False,
                      is_devoted: Callable[[T], bool] = lambda h: False,
                      is_alias: Callable[[T], bool] = lambda h: False) -> list[T]:  # fmt: skip
    """``hits`` with the name-matched ones (not ``fixed``) reordered among their own places by (class, devoted
    entry first, rank).

    ``name_of(hit)`` gives (name, kind); ``is_devoted(hit)`` whether the hit is the subject of its whole document
    (:func:`devoted`): among statements named alike, the entry devoted to the result goes first. ``is_alias(hit)``:
    the query is one of the hit's recorded alternative names, which counts as a result named with the query's
    words (class 1) whatever its own name. A query of more than ``MAX_NAME_WORDS`` words is left alone.

    >>> hits = [("Cayley-Hamilton theorem", "theorem"), ("group", "definition"), ("Cayley's theorem", "theorem")]
    >>> [h[0] for h in prefer_statements("Cayleys theorem", hits, lambda h: h)]
    ["Cayley's theorem", 'group', 'Cayley-Hamilton theorem']
    >>> hits = [("Mean value theorem", "theorem", "book"), ("mean-value theorem", "theorem", "entry")]
    >>> [h[2] for h in prefer_statements("mean value", hits, lambda h: h[:2], is_devoted=lambda h: h[2] == "entry")]
    ['entry', 'book']
    """
    if not is_name_query(query):
        return list(hits)
    classes = [None if fixed(h) else _class(query, h, name_of, is_alias) for h in hits]
    places = [i for i, c in enumerate(classes) if c is not None]
    return reorder_places(hits, places, key=lambda i: (classes[i], not is_devoted(hits[i]), i))


def results_first(hits: Sequence[T], name_of: Callable[[T], tuple[str | None, str | None]],
                  fixed: Callable[[T], bool] = lambda h: False,
                  is_devoted: Callable[[T], bool] = lambda h: False) -> list[T]:  # fmt: skip
    """``hits`` with the entries about a result (:func:`about_a_result`; not ``fixed``) moved after the others
    among their own places, and in each group the entries devoted to a result (``is_devoted``, see
    :func:`devoted`) first: what a formula query asks for is the result, best its own entry.

    >>> hits = [("proof of Wilson's theorem", "remark"), ("Wilson's theorem", "theorem"), ("group", "definition")]
    >>> [h[0] for h in results_first(hits, lambda h: h)]
    ["Wilson's theorem", 'group', "proof of Wilson's theorem"]
    >>> [h[0] for h in results_first(hits, lambda h: h, is_devoted=lambda h: h[0] == "group")]
    ['group', "Wilson's theorem", "proof of Wilson's theorem"]
    """
    movable = [i for i, h in enumerate(hits) if not fixed(h)]
    derived = {i for i in movable if about_a_result(*name_of(hits[i]))}
    return reorder_places(hits, movable, key=lambda i: (i in derived, not is_devoted(hits[i]), i))


def reorder_places(hits: Sequence[T], places: list[int], key: Callable[[int], Any]) -> list[T]:
    """``hits`` with the hits at ``places`` sorted by ``key`` (of their index) among those places; others stay."""
    out = list(hits)
    for place, i in zip(places, sorted(places, key=key)):
        out[place] = hits[i]
    return out
