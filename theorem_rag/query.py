"""Query checks and the small facts about a query the retrieval stack needs, pure.

>>> validate_query("  Nakayama lemma ", max_chars=100)
'Nakayama lemma'
>>> query_tokens("Nakayama's lemma for modules")
['nakayama', 's', 'lemma', 'for', 'modules']
"""

from __future__ import annotations

import re

from theorem_rag.errors import InputError

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)

# A query of at most this many words is a keyword query: slogan embeddings handle those poorly, so the
# full-text side uses prefix matching and gets more weight in the fusion.
SHORT_QUERY_TOKENS = 3


def validate_query(query: object, max_chars: int) -> str:
    """Return the stripped query; a non-string, empty or too long one is an :class:`~theorem_rag.errors.InputError`."""
    if not isinstance(query, str):
        raise InputError(f"query must be a string, not {type(query).__name__}")
    text = query.strip()
    if not text:
        raise InputError("empty query")
    if len(text) > max_chars:
        raise InputError(f"query has {len(text)} characters; the limit is {max_chars} (max_query_chars)")
    return text


def query_tokens(query: str) -> list[str]:
    """Lower-cased words and numbers of a query; LaTeX control words count as words."""
    return [t.lower() for t in _TOKEN.findall(query)]


def is_short_query(query: str) -> bool:
    return 0 < len(query_tokens(query)) <= SHORT_QUERY_TOKENS


_GRAPH = re.compile(r"^\s*(uses|used-by|id)\s*:\s*(\S+)\s*$", re.I)


# A query with TeX math and at least this many words reads as a statement (a lemma pasted in to find its premises or
# its twins), not as a question in words: 978 of the 1,000 Stacks proof-reference dev queries, 1 of the 80 slogans,
# none of the 1,695 PlanetMath synonyms.
STATEMENT_QUERY_WORDS = 8
_TEX_MATH = re.compile(r"\$|\\\(|\\\[|\\begin\{")


def is_statement_query(query: str) -> bool:
    """Whether a query is a statement (TeX math and at least ``STATEMENT_QUERY_WORDS`` words).

    >>> is_statement_query(r"Let $R$ be a local ring and $M$ a finite $R$-module with $\mathfrak m M = M$. Then $M = 0$.")
    True
    >>> is_statement_query("a local ring has a unique maximal ideal"), is_statement_query("$x^2 + y^2 = z^2$")
    (False, False)
    """
    return bool(_TEX_MATH.search(query)) and len(query.split()) >= STATEMENT_QUERY_WORDS


def graph_query(query: str) -> tuple[str, str] | None:
    """``(relation, id)`` for a proof-graph query (``uses:ID``, ``used-by:ID``) or a look-up (``id:ID``), else
    None: an ordinary search. The cards' "uses n" / "used by n" links run these.

    >>> graph_query("used-by: stacks:00DV"), graph_query("ID:planetmath:Bijection"), graph_query("Nakayama")
    (('used-by', 'stacks:00DV'), ('id', 'planetmath:Bijection'), None)
    """
    m = _GRAPH.match(query or "") if isinstance(query, str) else None
    return (m[1].lower(), m[2]) if m else None
