"""The offline writer and its LaTeX reader: exact outputs on hand-written statements."""

from __future__ import annotations

import pytest

from theorem_rag.records import Theorem
from theorem_rag.slogans.latex_text import label_words, latex_to_text
from theorem_rag.slogans.offline import OfflineSloganWriter, offline_slogan


def thm(body: str, **kw) -> Theorem:
    kw.setdefault("kind", "lemma")
    return Theorem(id=kw.pop("id", "x:1"), source="x", doc_id="x:d", body_latex=body, **kw)


FLAT = thm(
    r"Let $R \to S$ be a ring map and $M$ a flat $R$-module. Then $M \otimes_R S$ is a flat $S$-module "
    r"(see Lemma \ref{lemma-flat}).",
    label="lemma-flat-base-change",
    section=("Commutative Algebra", "Flatness"),
)
SNAKE = thm(
    "Given a commutative diagram $$\\xymatrix{A \\ar[r] & B}$$ with exact rows, there is an exact sequence\n"
    "$$\\Ker(\\alpha) \\to \\Ker(\\beta) \\to \\Coker(\\gamma)$$ % a comment\n"
    "\\begin{enumerate}\n\\item if $X \\to Y$ is injective, then the first map is injective,\n"
    "\\item if $V \\to W$ is surjective, the last map is surjective.\n\\end{enumerate}",
    kind="theorem",
    name="Snake lemma",
    label="thm:snake",
)
REGULAR = thm(
    r"A scheme $X$ is \emph{regular} if every local ring $\mathcal{O}_{X,x}$ is regular, and "
    r"$\Spec(\mathbf{Z}) \times_{\mathbf{Z}} \mathbf{P}^n$ is \'etale over $\varinjlim_i A_i$.",
    kind="definition",
)


def test_flat_base_change():
    assert offline_slogan(FLAT) == (
        "Flat base change. Lemma on flatness. Let R to S be a ring map and M a flat R-module. "
        "Then M tensor over R S is a flat S-module."
    )


def test_snake_lemma_lists_become_clauses_and_diagrams_vanish():
    assert offline_slogan(SNAKE) == (
        "Snake lemma. Theorem. Given a commutative diagram with exact rows, there is an exact sequence "
        "kernel of alpha to kernel of beta to cokernel of gamma: if X to Y is injective, then the first map is "
        "injective; if V to W is surjective, the last map is surjective."
    )


def test_named_symbols_and_accents():
    assert offline_slogan(REGULAR) == (
        "Definition. A scheme X is regular if every local ring of X at x is regular, and spectrum of integers "
        "fibre product over integers projective space n is etale over colimit i A i."
    )


def test_without_variables_keeps_only_words():
    assert offline_slogan(REGULAR, variables=False) == (
        "Definition. A scheme is regular if every local ring is regular, and spectrum of integers "
        "fibre product over integers projective space is etale over colimit."
    )


def test_long_bodies_are_cut_and_context_can_be_left_out():
    long = thm(" ".join(["word"] * 500) + ".")
    assert offline_slogan(long, max_words=10) == "Lemma. " + " ".join(["word"] * 10) + " ..."
    assert offline_slogan(FLAT, context=False).startswith("Let R to S be a ring map")


@pytest.mark.parametrize(
    ("label", "words"),
    [("lemma-flat-base-change", "flat base change"), ("algebra-lemma-qc-open", "quasi-compact open"),
     ("thm:snake", "snake"), ("def:ses-2", "short exact sequence"), (None, "")],
)
def test_label_words(label, words):
    assert label_words(label) == words


def test_latex_to_text_is_ascii_and_drops_references_and_comments():
    out = latex_to_text("Sch\u00e9ma $\\mathcal{O}_X$ \\cite[p.~3]{EGA} % hidden\n is \\textbf{nice} (Lemma \\ref{a}).")
    assert out == "Schema structure sheaf of X is nice."
    assert out.isascii()


def test_writer_still_names_the_kind_of_an_empty_statement():
    results = []
    OfflineSloganWriter().write([FLAT, thm("%", id="x:2")], {}, results.append)
    assert [r.ok for r in results] == [True, True]
    assert results[1].slogan == "Lemma."


def test_writer_prompt_version_follows_its_options():
    assert OfflineSloganWriter().prompt_version != OfflineSloganWriter(variables=False).prompt_version


def test_lean_blueprint_metadata_is_not_statement_text():
    """``\\uses``, ``\\lean`` and the status marks of a Lean blueprint print nothing in the paper: the slogan has
    none of their label fragments (they read "Uses exceptional-set-carleson" before)."""
    t = thm("\\leanok\n\\lean{classical_carleson}\n\\uses{exceptional-set-carleson, int-continuous}\n"
            "Let $f$ be a $2\\pi$-periodic continuous function. \\mathlibok Then its Fourier series converges.",
            kind="theorem", name="Classical Carleson")  # fmt: skip
    assert offline_slogan(t, context=False) == (
        "Let f be a 2 pi-periodic continuous function. Then its Fourier series converges.")
    assert latex_to_text("The uses of \\emph{lean} ideas") == "The uses of lean ideas"


@pytest.mark.parametrize(
    ("latex", "words"),
    [
        (r"Equivalences of \texorpdfstring{$\infty$}{infinity}-categories", "Equivalences of infinity-categories"),
        (r"Reduction to \texorpdfstring {$n\geq 5$}{ngeq5} and prime", "Reduction to n at least 5 and prime"),
        (r"{\color{gray}\textup{Done.}} Let $X$ be affine.", "Done. Let X be affine."),
        (r"\textcolor{red}{Let} $X$ be \colorbox[rgb]{1,0,0}{affine}.", "Let X be affine."),
        (r"\subsection*{Primes} \glsadd{not:primes}$P \coloneqq \lbrace p \rbrace$ \bibitem[K]{knuth} Knuth.",
         "Primes P = p Knuth."),
    ],
)
def test_markup_reads_as_what_prints(latex: str, words: str):
    """``\\texorpdfstring{TeX}{plain}`` prints its TeX; a colour, a glossary entry, a bibliography key and the word
    "subsection" print nothing; ``\\coloneqq`` prints "=". 621 slogans of the quickstart's index read "color blue"
    (492 of Napkin's) or "texorpdfstring ngeq5" before offline-5, and 2,316 (1,796 of PlanetMath's, 451 of Lebl's)
    "subsection", "bibitem", "lbrace", "glsadd not:natnums" or "coloneqq" before offline-6."""
    assert latex_to_text(latex) == words


@pytest.mark.parametrize(
    ("name", "head"),
    [
        (r"using \axiomref{sqc}, \axiomref{loc}, \axiomref{Z-choice}", "Dense closed n th neighborhood."),
        (r"{\autocite[Theorem~1.4]{krw14} (citing \autocite{bcgl92})}", "Dense closed n th neighborhood."),
        (r"requires \sectionref{sec:taylor}", "Dense closed n th neighborhood."),
        (r"Snake lemma, after \parencite{bourbaki}", "Snake lemma, after."),
    ],
)
def test_a_name_made_of_references_names_nothing(name: str, head: str):
    """A paper's own reference and citation macros (``\\axiomref``, ``\\sectionref``, ``\\autocite``) print a key
    as a number or a citation; a theorem's optional argument made of them is no name. The slogan started "Using
    axiomref sqc, axiomref loc, axiomref Z-choice" for 82 statements of the synthetic algebraic geometry papers."""
    t = thm("Let $U$ be a dense open subtype of a scheme $X$.", name=name, label="dense-closed-n-th-neighborhood")
    slogan = offline_slogan(t)
    assert slogan.startswith(head)
    assert not any(w in slogan for w in ("axiomref", "autocite", "sectionref", "parencite", "krw14", "sqc", "taylor"))
