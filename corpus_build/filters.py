"""Quality filters on parsed statements, each one counted: nothing is dropped without a reason.

>>> reason_to_drop("Let $G$ be a group and")
'ends_mid_sentence'
>>> reason_to_drop("Every finite group of prime order is cyclic.") is None
True
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

REASONS = ("empty", "odd_dollars", "too_short", "short_no_period_no_math", "ends_mid_sentence", "duplicate")
_END_WORDS = ("and", "or", "such that", "where", "let", "then", "for all")
_END_CHARS = "([{,:;=<%"


def _count_dollars(body: str) -> int:
    r"""Math-shift ``$`` signs. One after an odd run of backslashes is a literal dollar (``\$``); after none or an
    even run it is math: ``\\$$`` is a line break, then the end of a display.

    >>> _count_dollars(r"$$x = 1.\\$$ costs \$5")
    4
    """
    return len(re.findall(r"(?<!\\)(?:\\\\)*\$", body))


def reason_to_drop(body: str) -> str | None:
    """The first filter a statement body fails, or None when it is kept (duplicates are checked apart)."""
    s = body.strip()
    if not s:
        return "empty"
    if _count_dollars(s) % 2:
        return "odd_dollars"
    if len(s) < 8:
        return "too_short"
    has_math = "$" in s or "\\[" in s or "\\(" in s or "\\begin" in s
    if len(s) < 32 and not s.endswith(".") and not has_math:
        return "short_no_period_no_math"
    tail = re.sub(r"[\s~]+$", "", s).lower()
    if tail[-1:] in _END_CHARS and not tail.endswith("\\%"):
        return "ends_mid_sentence"
    if any(re.search(rf"(?:^|\W){re.escape(w)}$", tail) for w in _END_WORDS):
        return "ends_mid_sentence"
    return None


_LAYOUT = re.compile(r"\\(pause|leavevmode|noindent|medskip|smallskip|bigskip|par)\b|\\(onslide|only|uncover|visible)\s*<[^>]*>")


def normalized(body: str) -> str:
    r"""The body without layout and slide-overlay commands, whitespace collapsed: equal forms are duplicates.

    >>> normalized(r"A set \pause is  a collection.")
    'A set is a collection.'
    """
    return re.sub(r"\s+", " ", _LAYOUT.sub(" ", body)).strip()


def apply_filters(items: Iterable[T], body_of, counts: Counter, scope_of=lambda item: "") -> Iterator[T]:
    """Yield the items that pass every filter, adding one to ``counts[reason]`` for each one dropped.

    Duplicates are judged by :func:`normalized` body among the items of this call with the same
    ``scope_of(item)`` (the document: Stacks states some lemmas in two chapters under two tags, and both are
    cited); the first one is kept.

    >>> c = Counter()
    >>> list(apply_filters(["A long enough statement.", "", "A long  enough statement."], str, c)), dict(c)
    (['A long enough statement.'], {'empty': 1, 'duplicate': 1})
    """
    seen: set[tuple] = set()
    for item in items:
        body = body_of(item)
        reason = reason_to_drop(body)
        if reason is None:
            key = (scope_of(item), normalized(body))
            if key in seen:
                reason = "duplicate"
            else:
                seen.add(key)
        if reason:
            counts[reason] += 1
        else:
            yield item
