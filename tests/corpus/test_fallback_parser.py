from corpus_build.fallback_parser import parse_fallback, refs_in
from corpus_build.texfiles import strip_comments
from corpus_build.theorems import DEFAULT_ENVS, parse_theorem_decls

ENVS = parse_theorem_decls(
    r"\newtheorem{thm}{Theorem}[section]\newtheorem{lem}[thm]{Lemma}\newtheorem{rem}{Remark}"
    r"\newtheorem{algo}{Algorithm}",
    DEFAULT_ENVS,
)


def test_numbers_sections_names_labels_and_proof_refs():
    tex = r"""\chapter{Groups}\section{Basics}
\begin{thm}[Lagrange]\label{t:lag}\label{t:alias} The order of a subgroup divides $|G|$.\end{thm}
\begin{proof} By \cref{l:cos, l:idx} and \autoref{t:other}.\end{proof}
\subsection{More}
\begin{lem}\label{l:cos} Cosets partition $G$.\end{lem}
\section*{Unnumbered}\begin{rem} A remark.\end{rem}
\appendix\chapter{Extra}\section{S}\begin{thm} An appendix theorem.\end{thm}"""
    st = parse_fallback(tex, ENVS).statements
    assert [(s.kind, s.number, s.label, s.name) for s in st] == [
        ("theorem", "1.1.1", "t:lag", "Lagrange"),
        ("lemma", "1.1.2", "l:cos", None),
        ("remark", "1", None, None),
        ("theorem", "A.1.1", None, None),
    ]
    assert st[0].labels == ["t:lag", "t:alias"]
    assert st[0].refs == ["l:cos", "l:idx", "t:other"]
    assert st[0].body == "The order of a subgroup divides $|G|$."
    assert st[1].section == ["Groups", "Basics", "More"]
    assert st[2].section == ["Groups", "Unnumbered"]
    assert st[1].refs == []


def test_missing_end_does_not_swallow_the_rest():
    tex = r"""\section{One}\begin{lem}\label{a} Open forever.
\section{Two}\begin{thm}\label{b} Closed properly.\end{thm}
\begin{lem}\label{c} Also open. \begin{thm} next starts here.\end{thm}"""
    res = parse_fallback(tex, ENVS)
    assert [(s.label, s.body) for s in res.statements] == [
        ("a", "Open forever."),
        ("b", "Closed properly."),
        ("c", "Also open."),
        (None, "next starts here."),
    ]
    assert [e for e, _ in res.unterminated] == ["lem", "lem"]


def test_nested_environments_comments_and_unknown_kinds():
    tex = strip_comments(
        r"""\begin{lem} Outer $x % comment in math
= 1$ \begin{enumerate}\item one\end{enumerate}
\begin{lem} inner same kind \end{lem} tail \verb|\end{lem}| still?
\end{lem}
\begin{algo} An algorithm. \end{algo}
% \begin{thm} commented out \end{thm}
"""
    )
    res = parse_fallback(tex, ENVS)
    assert len(res.statements) == 1
    body = res.statements[0].body
    assert body.startswith("Outer $x \n= 1$ \\begin{enumerate}") and "inner same kind \\end{lem} tail" in body
    assert res.unknown_kind == {"algo": 1}


def test_statements_in_comment_and_verbatim_environments_are_not_read():
    """TeX skips them, and so does plasTeX: the CRing Project keeps unfinished statements in comment blocks."""
    tex = r"""\begin{thm}\label{a} Kept, with \verb|\end{thm}| inside.\end{thm}
\begin{comment}We shall eventually prove:
\begin{lem}\label{b} A lemma nobody proved.\end{lem}
\end{comment}
\begin{verbatim}\begin{thm} Shown as code. \end{thm}\end{verbatim}
\begin{lem}\label{c} Kept too.\end{lem}"""
    res = parse_fallback(tex, ENVS)
    assert [(s.label, s.number, s.body) for s in res.statements] == [
        ("a", "0.1", r"Kept, with \verb|\end{thm}| inside."),
        ("c", "0.2", "Kept too."),
    ]
    assert res.unterminated == []


def test_empty_and_garbage_inputs():
    assert parse_fallback("", ENVS).statements == []
    assert parse_fallback(r"\begin{lem}", ENVS).statements[0].body == ""
    assert parse_fallback(r"\end{lem}\end{thm}\section{", ENVS).statements == []


def test_refs_in_handles_optional_arguments_and_lists():
    assert refs_in(r"\ref{a} \Cref{b,c} \hyperref[x]{d} \olref[sec]{e} \ref{a}") == ["a", "b", "c", "d", "e"]


def test_name_may_follow_on_the_next_line_as_in_latex():
    tex = "\\begin{thm}\n\t[Zorn's lemma]\n\tEvery chain is bounded.\\end{thm}\n" \
          "\\begin{thm}\n\n[0,1] is compact.\\end{thm}"
    st = parse_fallback(tex, ENVS).statements
    assert [(s.name, s.body) for s in st] == [
        ("Zorn's lemma", "Every chain is bounded."),
        (None, "[0,1] is compact."),  # after a blank line the bracket is text, as in LaTeX
    ]
