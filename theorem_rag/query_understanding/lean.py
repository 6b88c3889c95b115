"""Queries in Lean 4, pure: Lean notation read into the words of the Lean slogans, and Lean names to look up.

A query such as ``a ∣ b → a ≤ b`` or ``∀ ε > 0, ∃ δ > 0, ...`` is a formal statement: :func:`lean_text` reads it
with the slogans' own reader (:func:`~theorem_rag.slogans.lean_text.code_words`, over the one dictionary of
:mod:`theorem_rag.slogans.lean_words`), so it meets a declaration's slogan in the same words. A query that quotes
code spans (``IsAlgClosed ℂ`` in backticks) has its spans read as Lean and its prose kept. LaTeX is never Lean
(:mod:`~theorem_rag.query_understanding.math_text` reads it), nor is plain ASCII math.

A query shaped like a Lean name (``Nat.Prime.two_le``, ``two_le``, ``Prime.two_le``) or made of the words of one
(``prime two le``) gives the names to look up (:func:`name_suffixes`): the declarations whose full name is one of
them or ends with one after a dot.

>>> lean_text("a ∣ b → a ≤ b")
'a divides b implies a less than or equal to b'
>>> name_suffixes("Nat.Prime.two_le"), name_suffixes("prime two le")
(('Nat.Prime.two_le',), ('prime.two.le', 'prime.two_le', 'prime_two.le', 'prime_two_le'))
>>> lean_text(r"$a \\mid b$") is None, name_suffixes("metric space")
(True, ())
"""

from __future__ import annotations

import itertools
import re

from theorem_rag.formula_keys import lean_keys
from theorem_rag.query_understanding.math_text import MAX_PROSE_WORDS, is_latex
from theorem_rag.query_understanding.text import fold_accents
from theorem_rag.slogans.lean_text import code_words
from theorem_rag.slogans.lean_words import NAME_WORDS, SYMBOLS

# Lean's notation beyond ASCII: the dictionary's symbols, and the arrow and norm its reader reads apart (in prose,
# as these words). ASCII alone is read as ASCII math.
_PROSE_READING = {"→": "to", "‖": "norm"}
_NOTATION = re.compile("|".join(re.escape(s) for s in sorted(SYMBOLS, key=len, reverse=True) if not s.isascii())
                       + "|[→‖]")  # fmt: skip
_CODE_SPAN = re.compile(r"`([^`]+)`")
# A word of prose: lower-case letters standing alone, not part of a dotted name (``Set.range``) or an identifier.
_PROSE_WORD = re.compile(r"(?<![\w.'])[a-z]{2,}(?![\w.'])")
_KEYWORDS = frozenset({"fun", "in", "if", "then", "else", "let", "have", "by", "match", "with", "do", "at"})
# A binder-like piece of code (``f : α → α``): its arrow is a function type, read "to", not "implies".
_TYPING = re.compile(r"^\s*[^\s:()\[\]{}]+(?:\s+[^\s:()\[\]{}]+)*\s*:(?!=)")
_PART = r"[^\W\d][\w'!?]*"
_NAME = re.compile(rf"(?:_root_\.)?{_PART}(?:\.{_PART})*")
_CAMEL = re.compile(r"[a-z][A-Z]")
_NAME_WORD = re.compile(r"[A-Za-z][A-Za-z0-9']*")
# A query of the words of a name is two to this many words (each split joins them by a dot or an underscore).
MAX_NAME_WORDS = 4
# A term of one to this many words may name a notion mathlib defines (a structure, a class, a definition).
MAX_TYPE_WORDS = 4
_TERM_WORD = re.compile(r"[^\W\d_]+")


def lean_prose_words(query: str) -> int:
    """Words of prose in a query of Lean code: lower-case words of two letters or more that stand alone (not part of
    a name such as ``Set.range``, not a keyword such as ``fun``).

    >>> lean_prose_words("∃ c ∈ Set.Ioo a b, deriv f c = 0"), lean_prose_words("x ≠ 1 in a field, closed form")
    (1, 3)
    """
    return sum(1 for w in _PROSE_WORD.findall(query) if w not in _KEYWORDS)


def is_lean_notation(query: str) -> bool:
    """Whether a query is Lean: not LaTeX, and either it quotes code in backticks, or it has Lean notation beyond
    ASCII (``∣ ⊔ → ∀ ℕ``...) with at most ``MAX_PROSE_WORDS`` words of prose (a sentence that uses a symbol or
    two is searched as typed, as a sentence quoting a formula is).

    >>> is_lean_notation("p.Prime → 2 ≤ p"), is_lean_notation("`IsAlgClosed ℂ`"), is_lean_notation("x^2 >= 0")
    (True, True, False)
    >>> is_lean_notation("closed form of 1 + x + ... + x^(n-1) as a quotient, x ≠ 1, in a field")
    False
    """
    if is_latex(query):
        return False
    if _CODE_SPAN.search(query):
        return True
    return bool(_NOTATION.search(query)) and lean_prose_words(query) <= MAX_PROSE_WORDS


def _code(code: str) -> str:
    return code_words(code, implication=not _TYPING.match(code))


def _prose(text: str) -> str:
    return fold_accents(_NOTATION.sub(lambda m: f" {_PROSE_READING.get(m[0]) or SYMBOLS[m[0]]} ", text))


def lean_text(query: str) -> str | None:
    """The query read as the Lean slogans read declarations when it is Lean (:func:`is_lean_notation`), else None:
    notation spelled out, names read as words; a code span's arrow reads "implies" unless the span types a name
    (``f : α → α``); the prose around code spans stays, its symbols read and its accents folded.

    >>> lean_text("Continuous f → IsCompact s → IsCompact (f '' s)")
    'continuous f implies is compact s implies is compact (f image s)'
    >>> lean_text("`a ≠ 0 → a ^ (p - 1) = 1` for `a : ZMod p`")
    'a not equal to 0 implies a to the power (p - 1) = 1 for a: integers modulo p'
    """
    if not is_lean_notation(query):
        return None
    if not _CODE_SPAN.search(query):
        return _code(query) or None
    parts = _CODE_SPAN.split(query)  # prose, code, prose, code, ...
    words = " ".join(_code(p) if i % 2 else _prose(p) for i, p in enumerate(parts))
    return " ".join(re.sub(r"\s+([,.;:])", r"\1", words).split()) or None


def lean_formula_keys(query: str) -> tuple[str, ...]:
    """The formula keys of a Lean query (its code spans, else the whole of it), in the symbols LaTeX's formulas are
    read into (:func:`~theorem_rag.formula_keys.lean_symbols`): what ``store.search_formula`` matches against the
    declarations' statements and the LaTeX statements' formulas alike.

    >>> from theorem_rag.formula_keys import formula_keys
    >>> lean_formula_keys("`a ^ (p - 1) ≡ 1 [ZMOD p]`") == tuple(formula_keys(r"$a^{p-1} \\equiv 1 \\pmod p$"))
    True
    """
    return tuple(lean_keys(_CODE_SPAN.findall(query) or [query]))


def name_suffixes(query: str) -> tuple[str, ...]:
    """The Lean names a query may end: the query itself when it is shaped like a Lean name (one identifier with a
    dot, an underscore or a camelCase joint: ``Nat.Prime.two_le``, ``two_le``, ``IsCompact``; ``_root_.`` dropped);
    for two to ``MAX_NAME_WORDS`` words of which one is a name word (``le``, ``dvd``, ``mul``: a key of
    :data:`~theorem_rag.slogans.lean_words.NAME_WORDS`), the words joined by dots and underscores in every way;
    else nothing. A plain word (``Continuous``) is left to the exact-name rule of full-text search.

    >>> name_suffixes("_root_.mul_comm"), name_suffixes("Continuous"), name_suffixes("add pow")
    (('mul_comm',), (), ('add.pow', 'add_pow'))
    """
    text = query.strip()
    if _NAME.fullmatch(text):
        name = text.removeprefix("_root_.")
        return (name,) if "." in name or "_" in name.strip("_") or _CAMEL.search(name) else ()
    words = text.split()
    if not 2 <= len(words) <= MAX_NAME_WORDS or not all(map(_NAME_WORD.fullmatch, words)):
        return ()
    if not any(w.lower() in NAME_WORDS for w in words):
        return ()
    joints = itertools.product("._", repeat=len(words) - 1)
    return tuple(words[0] + "".join(j + w for j, w in zip(joint, words[1:])) for joint in joints)


def type_names(term: str) -> tuple[str, ...]:
    """The names mathlib gives the notion a term names, by its naming convention: the words run together in
    UpperCamelCase (structures, classes and the types it defines: "Euclidean domain" is ``EuclideanDomain``), the
    term as written and with its last word singular; a name look-up ignores case, so ``alternatingGroup`` answers
    "alternating group" too. One to ``MAX_TYPE_WORDS`` words of letters (hyphens split words); else nothing.

    >>> type_names("Euclidean domain"), type_names("path-connected spaces"), type_names("x^2 + 1")
    (('EuclideanDomain',), ('PathConnectedSpaces', 'PathConnectedSpace'), ())
    """
    words = fold_accents(term).replace("-", " ").split()
    if not 1 <= len(words) <= MAX_TYPE_WORDS or not all(map(_TERM_WORD.fullmatch, words)):
        return ()
    last = words[-1]
    singular = (last[:-3] + "y" if last.endswith("ies") else last[:-1] if last.endswith("s") and not
                last.endswith("ss") else last)  # fmt: skip
    forms = ("".join(w[:1].upper() + w[1:] for w in [*words[:-1], end]) for end in (last, singular))
    return tuple(dict.fromkeys(forms))
