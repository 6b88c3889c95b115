"""prompt_text: the one LaTeX-to-text reader, with math kept as written, for what a language model is shown."""

from __future__ import annotations

import pytest

from theorem_rag.slogans.latex_text import latex_to_text, prompt_text


@pytest.mark.parametrize(
    ("latex", "expected"),
    [
        ("A  \\label{x}$x$\n% hidden\nB", "A $x$ B"),
        (r"Let $f\colon X \to Y$ be \emph{flat} (see Lemma \ref{lemma-x}).", r"Let $f\colon X \to Y$ be flat."),
        (r"Then \begin{equation}\label{eq} a^2 + b^2 = c^2 \end{equation} holds.",
         r"Then \begin{equation}a^2 + b^2 = c^2\end{equation} holds."),
        (r"\begin{enumerate}\item $\mathcal{O}_X$ is \textbf{coherent}, \item \( x \) or \[ y \]\end{enumerate}",
         r"$\mathcal{O}_X$ is coherent; \(x\) or \[y\]"),
        (r"$$ \sum_{i} x_i $$ and $\,$.", r"$$\sum_{i} x_i$$ and $\,$."),
    ],
    ids=["label-comment", "markup-and-reference", "display-env", "lists", "display-dollars"],
)
def test_prose_is_read_and_math_kept(latex, expected):
    assert prompt_text(latex, 500) == expected


def test_cut_on_a_word_boundary_and_math_stays_out_of_the_words_reading():
    assert prompt_text("y" * 50, 10) == "y" * 9 + "\u2026"
    assert prompt_text("alpha beta gamma delta", 12) == "alpha beta\u2026"
    # The same reader in its default mode reads the math as words (the offline slogans).
    assert latex_to_text(r"Let $f\colon X \to Y$ be \emph{flat}.") == "Let f: X to Y be flat."
