"""A toy corpus and its edit, for the tests that ids and indexes follow edits of the sources.

Before: three unlabelled exercises, a labelled theorem and an unlabelled lemma. After: the first exercise
deleted, the label renamed, the other two exercises swapped and the lemma rewritten.
"""

from __future__ import annotations

from pathlib import Path

HEAD = r"""\documentclass{article}
\newtheorem{theorem}{Theorem}
\newtheorem{lemma}{Lemma}
\newtheorem{exercise}{Exercise}
\begin{document}
\section{Rings}
"""
EX1 = r"\begin{exercise}Show that every field is an integral domain.\end{exercise}"
EX2 = r"\begin{exercise}Show that the ring $\mathbb{Z}/6$ has zero divisors.\end{exercise}"
EX3 = r"\begin{exercise}Show that a finite integral domain is a field.\end{exercise}"
THM = r"\begin{theorem}\label{thm:%s}Every principal ideal domain is a unique factorisation domain.\end{theorem}"
LEMMA = r"\begin{lemma}Every maximal ideal of a commutative ring is %s.\end{lemma}"


def write_toy(root: Path, edited: bool) -> Path:
    """The toy corpus before (``edited=False``) or after the edit, in ``root/toy``."""
    src = root / "toy"
    src.mkdir(parents=True, exist_ok=True)
    if edited:
        body = [EX3, EX2, THM % "pid-ufd", LEMMA % "a prime ideal"]
    else:
        body = [EX1, EX2, EX3, THM % "old", LEMMA % "prime"]
    (src / "main.tex").write_text(HEAD + "\n".join(body) + "\n\\end{document}\n")
    return src
