"""French, German and Spanish names of results, put into English through the glossary (``data/glossary.tsv``).

Accents are folded first (théorème -> theoreme). A query is translated only when it carries a marker of one
language: a word naming a kind of result that differs from English (théorème, Satz, teorema) or a German compound
of the glossary (Zwischenwertsatz); words the glossary lacks (names such as Fermat) stay as they are.

>>> translate("petit théorème de Fermat")
'fermat little theorem'
>>> translate("Satz von Lagrange")
'theorem lagrange'
>>> translate("Nakayama lemma") is None
True
"""

from __future__ import annotations

import re

from theorem_rag.query_understanding.lexicon import FUNCTION_MARKERS, glossary, markers
from theorem_rag.query_understanding.text import fold_accents

_WORD = re.compile(r"[\w-]+|'")


def language_of(query: str) -> str | None:
    """The glossary language with the most marker words in the query (None: no marker, so English).

    A function word before a capitalised word is the particle of a name, which English queries carry too ("van der
    Corput", "von Neumann", "del Pezzo"), not a marker of the language:

    >>> language_of("van der Waerden theorem"), language_of("del Pezzo surfaces"), language_of("Satz von Lagrange")
    (None, None, 'de')
    >>> language_of("teorema del valor medio")
    'es'
    """
    folded = fold_accents(query).lower()
    tokens = re.findall(r"[\w-]+", fold_accents(query))
    particles = {t.lower() for t, after in zip(tokens, tokens[1:]) if after[:1].isupper()}
    function_words = {w for lang_words in FUNCTION_MARKERS.values() for w in lang_words}
    words = set(re.findall(r"[\w-]+", folded)) - (particles & function_words)
    best, best_count = None, 0
    for lang, marks in markers().items():
        count = sum(1 for m in marks if (" " in m and m in folded) or m in words)
        if count > best_count:
            best, best_count = lang, count
    return best


def translate(query: str) -> str | None:
    """The query in English word by word (phrases first), or None when it is not in a glossary language."""
    lang = language_of(query)
    if lang is None:
        return None
    table = glossary()[lang]
    text = " " + re.sub(r"[’']", " ' ", fold_accents(query).lower()) + " "
    for phrase in sorted((p for p in table if " " in p), key=len, reverse=True):
        text = text.replace(f" {phrase} ", f" {table[phrase]} ")
    words = []
    for word in text.split():
        if word == "'":
            continue
        english = table.get(word, word)
        if english:
            words.append(english)
    out = " ".join(words)
    return out if out and out != " ".join(fold_accents(query).lower().split()) else None
