"""What a query asks for, pure: the definition of a term, a paper by arXiv id or DOI, or a statement.

>>> definition_subject("What is a Hausdorff space?")
'Hausdorff space'
>>> definition_subject("definition of an étale morphism")
'étale morphism'
>>> definition_subject("every group of prime order is cyclic") is None
True
>>> bare_noun_phrase("metric space"), bare_noun_phrase("Nakayama lemma"), bare_noun_phrase("a^2 = 1")
(True, False, False)
>>> arxiv_id("see https://arxiv.org/abs/2412.03203v2"), arxiv_id("Nakayama")
('2412.03203', None)
>>> doi("doi:10.1007/978-3-642-14279-6_2")
'10.1007/978-3-642-14279-6_2'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_DEFINITION = re.compile(
    r"^\s*(?:(?:the\s+)?(?:definition|defn|def|meaning|notion|concept)\s*(?:of|:)\s*|define\s+|"
    r"what(?:\s+is|'s|s)\s+(?:meant\s+by\s+)?|what\s+are\s+|what\s+does\s+)"
    r"(?:(?:a|an|the)\s+)?(?P<term>.+?)(?:\s+mean)?\s*\??\s*$",
    re.IGNORECASE,
)
_TRAILING_DEFINITION = re.compile(r"^\s*(?P<term>.+?)\s*[:,-]?\s+(?:definition|defn|def\.?|meaning)\s*\??\s*$",
                                  re.IGNORECASE)  # fmt: skip
# Words that make a short query the name of a result, not a term to define.
RESULT_WORDS = {
    "theorem", "theorems", "lemma", "lemmas", "proposition", "corollary", "conjecture", "principle", "inequality",
    "formula", "criterion", "rule", "law", "identity", "hypothesis", "axiom", "axioms", "paradox", "problem",
    "conditions", "condition", "proof", "test", "argument", "trick", "method", "theory", "equation",
}  # fmt: skip
_ARXIV = re.compile(r"(?:arxiv[:\s/]*|abs/|pdf/)?\b(\d{4}\.\d{4,5})(?:v\d+)?\b", re.IGNORECASE)
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)


def definition_subject(query: str) -> str | None:
    """The term of "definition of X", "what is a X", "define X", "X definition"; None for other queries."""
    for pattern in (_DEFINITION, _TRAILING_DEFINITION):
        m = pattern.match(query)
        if m:
            term = m.group("term").strip(" ?.:")
            if term and len(term.split()) <= 8:
                return term
    return None


def bare_noun_phrase(query: str) -> bool:
    """A short query of plain words (at most four, no result word like "theorem", no formula): a term."""
    words = query.split()
    if not 1 <= len(words) <= 4 or re.search(r"[\\$^=<>|0-9(){}]", query):
        return False
    return not any(w.lower().strip(".,'s") in RESULT_WORDS or w.lower() in RESULT_WORDS for w in words)


def arxiv_id(query: str) -> str | None:
    """A new-style arXiv identifier in the query (without version), or None."""
    m = _ARXIV.search(query)
    return m.group(1) if m else None


def doi(query: str) -> str | None:
    m = _DOI.search(query)
    return m.group(1).rstrip(".,;)") if m else None


# Titles shorter than this (in words) are too generic to route a query to their document ("Schemes").
MIN_TITLE_WORDS = 3


def title_index(titles: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Title keys (:func:`title_key`) of titles of ``MIN_TITLE_WORDS`` words or more, to their document ids (the
    first document with a title keeps it).

    >>> title_index([("a", "Schemes"), ("b", "On Finite Groups"), ("c", "on finite groups!")])
    {'on finite groups': 'b'}
    """
    index: dict[str, str] = {}
    for doc_id, title in titles:
        tkey = title_key(title)
        if len(tkey.split()) >= MIN_TITLE_WORDS:
            index.setdefault(tkey, doc_id)
    return index


def title_key(title: str) -> str:
    """A title reduced for comparison: LaTeX commands and punctuation dropped, lower case, single spaces.

    >>> title_key(r"\\textbf{Formalizing Carleson's Theorem in Lean}")
    'formalizing carleson s theorem in lean'
    """
    text = re.sub(r"\\[A-Za-z]+", " ", title)
    text = re.sub(r"[^\w]+", " ", text.lower())
    return " ".join(text.split())
