"""``understand(query)``: every query rule applied once, into a :class:`QueryPlan` the retriever searches with.

The plan keeps the query as typed (``original``), the text searched first (``text``: repeated words collapsed,
accents folded, a "definition of" preface dropped, a formula read as the slogans read it) and ``variants``
searched beside it and fused (acronyms expanded, the English of a French, German or Spanish name, the query with
its accents). A formula query also carries its ``formula_keys``, matched against the statements' formulas. A
query in Lean notation is a formula too, read as the Lean slogans read declarations, and searched as typed beside
(:mod:`~theorem_rag.query_understanding.lean`). ``definition_of`` asks for definitions of a term first; ``arxiv_id``,
``doi`` and ``title`` route to a paper; ``names`` are the Lean names the query may be or end (looked up by name);
``notion``: the query names or describes a notion, not a result (its definitions first among Lean declarations);
``asserts``: it states a result (definitions after the other statements).
``notes`` say in words what was done, for people.

>>> p = understand("CRT")
>>> p.text, p.variants
('CRT', ('Chinese remainder theorem',))
>>> understand("What is a Hausdorff space?").definition_of
'Hausdorff space'
>>> p = understand("théorème chinois des restes")
>>> p.text, p.variants
('theorem chinese remainder', ('théorème chinois des restes',))
>>> understand("lemma lemma Nakayama").text
'lemma Nakayama'
>>> p = understand("s ⊔ t = t ⊔ s")
>>> p.formula, p.text, p.variants
(True, 's sup t = t sup s', ('s ⊔ t = t ⊔ s',))
>>> understand("Prime.two_le").names
('Prime.two_le',)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from theorem_rag.query_understanding.intent import (
    RESULT_WORDS, arxiv_id, asks_for_notion, asserts_a_result, bare_noun_phrase, definition_subject, doi,
)  # fmt: skip
from theorem_rag.query_understanding.lean import lean_formula_keys, lean_text, name_suffixes
from theorem_rag.query_understanding.lexicon import expansions
from theorem_rag.query_understanding.math_text import as_latex, formula_text, query_formula_keys
from theorem_rag.query_understanding.text import collapse_repeats, fold_accents, normalize_spaces
from theorem_rag.query_understanding.translate import translate

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*")
MAX_VARIANTS = 3


@dataclass(frozen=True)
class QueryPlan:
    """What to search for one query; see :func:`understand`."""

    original: str
    text: str
    variants: tuple[str, ...] = ()
    definition_of: str | None = None
    bare_term: bool = False
    arxiv_id: str | None = None
    doi: str | None = None
    formula: bool = False
    formula_keys: tuple[str, ...] = field(default=(), repr=False)
    lean: bool = False
    names: tuple[str, ...] = ()
    notion: bool = False
    asserts: bool = False
    notes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def texts(self) -> tuple[str, ...]:
        """The main text and its variants, each searched and fused."""
        return (self.text, *self.variants)


def _expand_acronyms(text: str) -> list[tuple[str, str, str]]:
    """(acronym, expansion, text with the acronym replaced) for every acronym token of ``text``."""
    out = []
    for m in _TOKEN.finditer(text):
        for expansion in expansions(m.group(0)):
            out.append((m.group(0), expansion, text[: m.start()] + expansion + text[m.end() :]))
    return out


def understand(query: str) -> QueryPlan:
    """Apply the query rules (pure; no database): see the module docstring."""
    notes: list[str] = []
    typed = normalize_spaces(query)
    text = collapse_repeats(typed)
    if text != typed:
        notes.append("repeated words collapsed")
    folded = fold_accents(text)
    variants: list[str] = []
    lean = lean_text(text)  # before accents are folded: folding changes notation (ℕ -> N, ≠ -> =)
    formula = lean if lean is not None else formula_text(folded)
    if formula is not None:
        notes.append(f"{'Lean' if lean is not None else 'formula'} read as: {formula}")
        # as declarations and statements write it: Lean as typed, ASCII math as LaTeX
        variants.append(text if lean is not None else as_latex(folded))
        folded = formula
    subject = definition_subject(folded)
    definition_of = None
    if subject and not (set(w.lower() for w in subject.split()) & RESULT_WORDS):
        definition_of = subject
        notes.append(f"definitions of {subject!r} first")
        folded = subject
    elif subject:
        folded = subject
    bare = definition_of is None and formula is None and bare_noun_phrase(folded)
    english = translate(text) if formula is None else None
    if english:
        # The English name is searched first (the embedding model and the full-text stemmer are English); the
        # query as typed stays a variant, so a name recorded in the corpus in that language still matches.
        notes.append(f"read as English: {english}")
        variants.insert(0, text)
        folded = english
        bare = bare and bare_noun_phrase(english)  # "grand théorème de Fermat" names a result: "theorem" in English
    for acronym, expansion, expanded in _expand_acronyms(folded):
        notes.append(f"{acronym} = {expansion}")
        variants.append(expanded)
    if folded != text and formula is None and text not in variants:
        variants.append(text)  # as typed, accents and all: accents folded on the query side, the typed form kept
    seen = {folded.lower()}
    unique = []
    for v in variants:
        if v.lower() not in seen:
            seen.add(v.lower())
            unique.append(v)
    return QueryPlan(
        original=query, text=folded, variants=tuple(unique[:MAX_VARIANTS]), definition_of=definition_of,
        bare_term=bare, arxiv_id=arxiv_id(query), doi=doi(query), formula=formula is not None, lean=lean is not None,
        formula_keys=lean_formula_keys(text) if lean is not None else query_formula_keys(text) if formula else (),
        names=name_suffixes(text) if formula is None else (), notion=asks_for_notion(english or query),
        asserts=asserts_a_result(english or query), notes=tuple(notes),
    )  # fmt: skip
