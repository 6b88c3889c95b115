"""What a query asks for, pure: the definition of a term, a paper by arXiv id or DOI, or a statement.

>>> definition_subject("What is a Hausdorff space?")
'Hausdorff space'
>>> definition_subject("definition of an étale morphism")
'étale morphism'
>>> definition_subject("every group of prime order is cyclic") is None
True
>>> bare_noun_phrase("metric space"), bare_noun_phrase("Nakayama lemma"), bare_noun_phrase("a^2 = 1")
(True, False, False)
>>> asks_for_notion("ring where every ideal is principal"), asks_for_notion("every ideal of k[X] is principal")
(True, False)
>>> arxiv_id("see https://arxiv.org/abs/2412.03203v2"), arxiv_id("Nakayama")
('2412.03203', None)
>>> doi("doi:10.1007/978-3-642-14279-6_2")
'10.1007/978-3-642-14279-6_2'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from theorem_rag.query_understanding.math_text import MATH_SPANS

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
# Verbs that assert something of a query's subject ("every group of prime order *is* cyclic"): outside a relative
# clause they make a query a statement, not the description of a notion ("a ring *where* every ideal is principal").
ASSERTING = frozenset(
    "is are isn't aren't has have hasn't haven't holds hold exists exist equals implies imply contains contain can "
    "cannot can't must does do doesn't don't satisfies satisfy gives give splits converges converge tends tend "
    "commutes commute preserves preserve decreases increases admits admit divides generates vanishes vanish adds "
    "hits returns injects maps agrees agree becomes become coincides coincide determines extends factors belongs "
    "belong".split()
)  # fmt: skip
_RELATIVE = frozenset("where which that whose whom such".split())
# A quantifier or a question word first: the query states or asks a result ("which rings are ...").
_RESULT_OPENERS = frozenset(
    "every any each all no if there given which what when where whether why is are does do can".split()
)  # fmt: skip
_PREPOSITIONS = frozenset("of for on in over with from between to under at as into by".split())
_RELATIONS = "=≤≥<>↔⟹⇒∣≠≡"
_NOTION_TOKEN = re.compile(f"[A-Za-z']+|[{_RELATIONS}]")
_DEFINING = re.compile(r"\bdefin", re.IGNORECASE)
_DESCRIBED_TYPE = re.compile(r"\s*(?:structure|class|inductive|type)\b", re.IGNORECASE)
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


def asks_for_notion(query: str) -> bool:
    """Whether ``query`` names or describes a notion (a kind of object, a structure, a construction: "sigma algebra",
    "measure for which the whole space is a countable union of sets of finite measure") rather than a result.

    A result is asserted (a verb of :data:`ASSERTING` or a relation outside a relative clause, or a quantifier
    first: "every", "if") or named (a word of :data:`RESULT_WORDS` or a possessive in the phrase's head, before its
    first preposition or aside: "Chinese remainder theorem for ideals", "Hilbert's Nullstellensatz", not "input
    diagram for the snake lemma"; mathematicians name objects attributively, "Hilbert space"). A formula or
    Lean notation asserts, unless it describes a type ("structure with fields ...").

    >>> asks_for_notion("Polish space"), asks_for_notion("model of a first-order theory")
    (True, True)
    >>> asks_for_notion("Baire category theorem"), asks_for_notion("left adjoints are cocontinuous")
    (False, False)
    >>> asks_for_notion("What is a Hausdorff space?"), asks_for_notion(r"$\\pi_1(X, x_0)$")
    (True, False)
    >>> asks_for_notion("structure with `toFun : α → β` and `Function.Injective toFun`")
    True
    """
    subject = definition_subject(query)
    if subject is not None:
        query = subject
    if "$" in query or "`" in query:
        return bool(_DESCRIBED_TYPE.match(query))
    query = query.lower().replace("’", "'")
    tokens = _NOTION_TOKEN.findall(query)
    if not tokens:
        return False
    head = []
    for token in _NOTION_TOKEN.findall(re.split(r"[(,:;]", query, maxsplit=1)[0]):
        if token in _PREPOSITIONS:
            break
        head.append(token)
    return not (any(_result_word(t) or t.endswith("'s") for t in head) or _asserts(tokens))


def asserts_a_result(query: str) -> bool:
    """Whether ``query`` states something (a verb of :data:`ASSERTING` or a relation in its prose outside a relative
    clause, or a quantifier or question word first), so that it asks for a result, not for a definition. A term
    followed by its description ("cartesian closed infinity-cosmos: the product functor has right adjoints") and a
    query that speaks of defining do not; a formula's relations are not read (they may define an object, "the curve
    $y^2 = x^3 + 1$").

    >>> asserts_a_result("flatness is the same for modules and sheaves"), asserts_a_result("Polish space")
    (True, False)
    >>> asserts_a_result("Frey curve $v^2 = u(u - A)(u + B)$ attached to a solution of Fermat's equation")
    False
    >>> asserts_a_result("closed cosmos: exponentiation preserves isofibrations")
    False
    """
    head, colon, _ = query.partition(":")
    if _DEFINING.search(query) or (colon and asks_for_notion(head)):
        return False
    return _asserts(_NOTION_TOKEN.findall(MATH_SPANS.sub(" ", query).lower().replace("’", "'")))


def _asserts(tokens: list[str]) -> bool:
    """Whether these lower-case words (:data:`_NOTION_TOKEN`) assert: a quantifier or question word first, or a verb
    of :data:`ASSERTING` or a relation outside a relative clause."""
    if tokens and tokens[0] in _RESULT_OPENERS:
        return True
    relative = False
    for token, after in zip(tokens, [*tokens[1:], ""]):
        relative = relative or token in _RELATIVE and (token != "such" or after == "that")  # not "such as"
        if not relative and (token in ASSERTING or token in _RELATIONS):
            return True
    return False


def _result_word(token: str) -> bool:
    """A word of :data:`RESULT_WORDS`, in the plural too ("laws", "identities")."""
    singular = token[:-3] + "y" if token.endswith("ies") else token.removesuffix("s")
    return token in RESULT_WORDS or singular in RESULT_WORDS


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
