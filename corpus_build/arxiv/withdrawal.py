r"""Telling a withdrawn arXiv version from a paper that merely mentions a withdrawal, pure.

arXiv marks a withdrawal in the new version's comment ("This paper has been withdrawn by the author due to a
crucial error", "Withdrawn by arXiv administrators", "Withdrawn."), older withdrawals also in the abstract and in
a source that is only that notice. A comment counts when one of its sentences *is* such a notice; a comment that
mentions withdrawing a part ("Lemma 3 withdrawn", "the previous version was withdrawn") does not.

>>> comments = ["This paper has been withdrawn by the author due to an error in Lemma 3", "Withdrawn.",
...             "Paper withdrawn", "12 pages. This article has been withdrawn by arXiv administrators",
...             "withdrawn by the authors; see 2302.00001", "The authors have withdrawn this paper"]
>>> [says_withdrawn(c) for c in comments]
[True, True, True, True, True, True]
>>> others = ["Lemma 3 withdrawn", "v2: Lemma 3 withdrawn; 12 pages", "Withdrawn Lemma 3 is replaced by Prop. 4",
...           "The previous version was withdrawn", "We show that withdrawn papers are rare", ""]
>>> [says_withdrawn(c) for c in others]
[False, False, False, False, False, False]
>>> is_withdrawal_notice(r"\documentclass{article}\begin{document}\title{X}\maketitle"
...                      r" This paper has been withdrawn by the author.\end{document}")
True
>>> is_withdrawal_notice(r"\begin{document}Lemma 3 withdrawn. A short note on groups.\end{document}")
False
"""

from __future__ import annotations

import re

_SUBJECT = r"(?:(?:this|the|our)\s+)?(?:paper|article|submission|manuscript|preprint|e-?print|version|work|note)"
# A sentence that is a withdrawal notice: the whole paper (not a part of it) is said to be withdrawn.
_PHRASE = (
    rf"{_SUBJECT}\s+(?:(?:has|have)\s+been|is|was|(?:is|was)\s+(?:now|hereby|being))\s+withdrawn"
    r"|(?:the\s+)?authors?\s+(?:has|have)\s+withdrawn\s+(?:this|the|our)\s+(?:paper|article|submission|manuscript)"
    r"|(?:i|we)\s+(?:have\s+|hereby\s+)?withdrawn?\s+(?:this|the|our)\s+(?:paper|article|submission|manuscript)"
    r"|withdrawn\s+by\s+(?:the\s+)?(?:authors?|submitter|arxiv)"
)
_NOTICE = re.compile(
    rf"^\W*(?:{_PHRASE}|{_SUBJECT}\s+withdrawn\b"
    r"|withdrawn(?=\s*$|\s*[.,;:!(\u2013-]|\s+(?:by|due|because|for|as|owing|on|at|upon|after|pending)\b))",
    re.I,
)
_ANYWHERE = re.compile(rf"\b(?:{_PHRASE})", re.I)
_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\n+")
NOTICE_MAX_WORDS = 150  # a source longer than this is a paper, whatever it says


def says_withdrawn(text: str, *, first_only: bool = False) -> bool:
    """Whether ``text`` (a comment; an abstract with ``first_only``) has a sentence that is a withdrawal notice."""
    sentences = _SENTENCE.split(text.strip())
    return any(_NOTICE.match(s) for s in (sentences[:1] if first_only else sentences))


def is_withdrawal_notice(source: str) -> bool:
    """Whether a LaTeX (or plain) source is only a withdrawal notice: short, and saying the paper was withdrawn."""
    m = re.search(r"\\begin\s*\{document\}(.*?)(?:\\end\s*\{document\}|$)", source, re.S)
    body = m.group(1) if m else source
    body = re.sub(r"(?<!\\)%.*", "", body)
    words = re.sub(r"\\[A-Za-z@]+\*?|[{}\[\]$]", " ", body).split()
    return 0 < len(words) <= NOTICE_MAX_WORDS and bool(_ANYWHERE.search(" ".join(words)))
