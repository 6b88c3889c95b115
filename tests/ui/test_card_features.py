"""Clean statements, slogans that earn their place, proofs, uses / used by, citations, shareable searches (pure)."""

from __future__ import annotations

import re

import pytest

from theorem_rag.citations import bibtex, citation, markdown, source_cite
from theorem_rag.records import Document, Hit, Theorem
from theorem_rag.ui.card_data import parse_graph_query, state_from_params
from theorem_rag.ui.cards import CardExtras, hit_card, slogan_line
from theorem_rag.ui.diagrams import diagram_tex
from theorem_rag.ui.latex_html import inline_html, statement_html
from theorem_rag.ui.lint import lint_theorems, split_rendered
from theorem_rag.ui.refs import label_index

LOCAL = Theorem(id="stacks:00AC", source="stacks", kind="lemma", body_latex="Let $R$ be a local ring.",
                doc_id="stacks:algebra", number="10.18.2", label="lemma-local",
                url="https://stacks.math.columbia.edu/tag/00AC",
                meta={"tag": "00AC", "full_label": "algebra-lemma-local"})  # fmt: skip


def _thm(**kw) -> Theorem:
    base = dict(id="stacks:00AD", source="stacks", kind="lemma", body_latex="x", doc_id="stacks:algebra",
                number="10.18.3", url="https://stacks.math.columbia.edu/tag/00AD", meta={"tag": "00AD"})  # fmt: skip
    base.update(kw)
    return Theorem(**base)


def _raw(rendered: str) -> list[str]:
    text, _, diagrams = split_rendered(rendered)
    return re.findall(r"\\[A-Za-z]+", text) + ["<diagram as source>"] * diagrams


def test_nested_environment_is_rendered_as_such():
    out = statement_html(r"We prove: \begin{lemma}[Euclid] If $p \mid ab$ then $p \mid a$. \end{lemma}"
                         r"\begin{proof} Trivial. \end{proof}")  # fmt: skip
    assert '<div class="trag-nested trag-nested-lemma"><strong>Lemma</strong> (Euclid). If $p \\mid ab$' in out
    assert '<div class="trag-nested trag-nested-proof"><em>Proof.</em> Trivial.</div>' in out
    assert _raw(out) == []


def test_square_and_triangle_become_arrays_and_the_rest_a_link():
    square = statement_html(r"$$\xymatrix{A \ar[r]^f \ar[d] & B \ar[d]^g \\ C \ar[r]_h & D}$$")
    assert square.startswith(r"$$\begin{array}{ccc}A &amp; \xrightarrow{f} &amp; B\\ \big\downarrow")
    assert r"\underset{\scriptstyle h}{\longrightarrow}" in square and _raw(square) == []
    triangle = diagram_tex(r"""\begin{tikzcd} & E \ar[d, "p"] \\ V \ar[ru, "g"] \ar[r, "f"'] & B \end{tikzcd}""")
    assert r"\nearrow\mathrlap{\scriptstyle g}" in triangle and r"\big\downarrow\mathrlap{\scriptstyle p}" in triangle
    curved = statement_html(r"Then \[\xymatrix{A \ar@/^/[r] & B}\] commutes.", source_url="https://x.org/t")
    assert curved == ('Then <a class="trag-diagram" href="https://x.org/t" target="_blank" '
                      'rel="noopener noreferrer">diagram: see the source \u2197</a> commutes.')  # fmt: skip
    # A tikzcd outside math mode is a diagram too, not text.
    assert statement_html(r"\begin{tikzcd} A \ar[r] & B \end{tikzcd}").startswith(r"$$\begin{array}{ccc}A")


def test_references_resolve_to_number_and_link_and_citations_show_their_key():
    resolve = label_index([LOCAL])(_thm())
    out = statement_html(r"By Lemma \ref{lemma-local}, \cref{algebra-lemma-local} and \eqref{eq-7}; see "
                         r"\cite[Tag 00DV]{stacks-project} and \citet{a, b}.", resolve=resolve)  # fmt: skip
    assert ('By Lemma <a class="trag-ref" href="https://stacks.math.columbia.edu/tag/00AC" target="_blank" '
            'rel="noopener noreferrer" data-ref="stacks:00AC" title="stacks:00AC">10.18.2</a>, ') in out
    assert 'title="stacks:00AC">Lemma 10.18.2</a>' in out
    assert '<span class="trag-ref" title="eq-7">eq-7</span>' in out
    assert '[stacks-project, Tag 00DV]' in out and '[a, b]' in out and _raw(out) == []


def test_section_titles_and_names_lose_latex_plumbing():
    assert inline_html(r"\texorpdfstring{$\mathbf{Z}$-modules}{Z-modules} and \protect\emph{rings}") == (
        r"$\mathbf{Z}$-modules and <em>rings</em>")
    card = hit_card(Hit("stacks:00AD", 0.1, rank=1, theorem=_thm(section=(r"Flat \texorpdfstring{$R$}{R}-modules",))))
    assert 'class="trag-where">Flat $R$-modules</span>' in card and "texorpdfstring" not in card


def test_unknown_commands_are_dropped_and_counted():
    dropped: list[str] = []
    assert statement_html(r"A \weird{word} and \vspace{2mm}\strange here.", dropped=dropped) == "A word and strange here."
    assert dropped == [r"\weird", r"\strange"]


def test_slogan_is_shown_only_when_it_adds_something():
    t = _thm(body_latex="Let $R$ be a ring.", label="lemma-flat-base-change", section=("Flatness",))
    offline = "Flat base change. Lemma on flatness. Let R be a ring."
    card = hit_card(Hit(t.id, 0.1, rank=1, theorem=t, slogan=offline))
    assert '<div class="trag-slogan" title="Click to show all">Flat base change. Lemma on flatness.</div>' in card
    bare = _thm(body_latex="Let $R$ be a ring.")
    assert slogan_line("Lemma. Let R be a ring.", bare) is None
    assert 'class="trag-slogan"' not in hit_card(Hit(bare.id, 0.1, rank=1, theorem=bare, slogan="Lemma. Let R be a ring."))
    assert slogan_line("Flat base change preserves flatness.", t) == "Flat base change preserves flatness."


def test_score_internals_sit_behind_a_toggle_and_a_confidence_goes_in_front():
    t = _thm()
    card = hit_card(Hit(t.id, 0.0391, rank=1, theorem=t, dense_rank=8, lexical_rank=1))
    why = re.search(r'<details class="trag-why"><summary>why this result</summary>(.*?)</details>', card)
    assert why and why[1] == '<span class="trag-score">fused score 0.039 \u00b7 dense #8 \u00b7 text #1</span>'

    card = hit_card(Hit(t.id, 0.1, rank=1, theorem=t, confidence=0.8312))
    assert '<span class="trag-confidence">confidence 0.83</span><details class="trag-why">' in card


def test_card_shows_proof_collapsed_and_uses_and_used_by_links():
    t = _thm(proof_refs=("stacks:00AC", "stacks:00AB"), proof=r"By Lemma \ref{lemma-local}.")
    card = hit_card(Hit(t.id, 0.1, rank=1, theorem=t),
                    extras=CardExtras(resolve=label_index([LOCAL])(t), used_by=12))  # fmt: skip
    assert ('<details class="trag-proof"><summary>Proof</summary><div class="trag-proof-body">By Lemma '
            '<a class="trag-ref"') in card
    assert ('<span class="trag-nbs"><a class="trag-nb" href="?q=uses%3Astacks%3A00AD" data-query="uses:stacks:00AD">'
            'uses 2</a> \u00b7 <a class="trag-nb" href="?q=used-by%3Astacks%3A00AD" '
            'data-query="used-by:stacks:00AD">used by 12</a></span>') in card
    assert "trag-proof" not in hit_card(Hit(LOCAL.id, 0.1, rank=1, theorem=LOCAL))


def _parse_bib(text: str):
    from pybtex.database import parse_string

    return parse_string(text, "bibtex")


def test_citations_in_the_sources_own_format_parse_as_bibtex():
    assert source_cite(LOCAL) == r"\cite[Tag 00AC]{stacks-project}"
    entry = _parse_bib(bibtex(LOCAL)).entries["stacks-project"]
    assert entry.type == "misc" and entry.fields["title"] == "The Stacks project"
    assert markdown(LOCAL) == ("[Stacks Project, Lemma 10.18.2 (Tag 00AC)]"
                               "(https://stacks.math.columbia.edu/tag/00AC)")  # fmt: skip

    doc = Document(id="p1", source="p1", title=r"Rank of {finite} \\ groups}", authors=("Jeffrey~Finkelstein", "C D"),
                   year=2016, url="https://arxiv.org/abs/1601.00001", meta={"arxiv_id": "1601.00001"})  # fmt: skip
    paper = Theorem(id="p1:thm", source="p1", kind="theorem", body_latex="b", doc_id="p1", number="6.1")
    assert source_cite(paper, doc) == r"\cite[Theorem 6.1]{finkelstein2016rank}"
    e = _parse_bib(bibtex(paper, doc)).entries["finkelstein2016rank"]
    assert (e.fields["eprint"], e.fields["archivePrefix"], e.fields["year"]) == ("1601.00001", "arXiv", "2016")
    assert [str(p) for p in e.persons["author"]] == ["Finkelstein, Jeffrey", "D, C"]

    pm = Theorem(id="planetmath:Bijection", source="planetmath", kind="definition", body_latex="b",
                 doc_id="planetmath:Bijection", name="bijection", url="https://planetmath.org/bijection")  # fmt: skip
    assert source_cite(pm) == r"\cite{planetmath-Bijection}"
    e = _parse_bib(bibtex(pm)).entries["planetmath-Bijection"]
    assert e.fields["howpublished"] == r"\url{https://planetmath.org/bijection}"
    assert citation(pm) == "PlanetMath, Definition (bijection), https://planetmath.org/bijection"
    for source in ("hott", "napkin", "lebl-ra", "openlogic"):
        book = Theorem(id=f"{source}:x", source=source, kind="lemma", body_latex="b", doc_id=source, number="2.1")
        assert len(_parse_bib(bibtex(book)).entries) == 1


def test_card_copies_cite_with_bibtex_and_markdown():
    card = hit_card(Hit(LOCAL.id, 0.1, rank=1, theorem=LOCAL))
    bib = re.search(r'class="trag-copy trag-copy-bib" type="button" data-copy="([^"]*)"', card)[1]
    import html

    copied = html.unescape(bib)
    assert "\n" not in bib  # a blank line inside the attribute would end the Markdown HTML block
    assert copied.startswith("\\cite[Tag 00AC]{stacks-project}\n\n@misc{stacks-project,")
    assert list(_parse_bib(copied.split("\n\n", 1)[1]).entries) == ["stacks-project"]


def test_graph_queries_and_url_state():
    assert parse_graph_query("uses:stacks:00AC") == ("uses", "stacks:00AC")
    assert parse_graph_query("ID: planetmath:Bijection") == ("id", "planetmath:Bijection")
    assert parse_graph_query("uses of Nakayama") is None
    assert state_from_params({"q": " ring ", "source": ["stacks", "napkin"], "kind": "lemma,bogus", "k": "x"}) == (
        "ring", "Theorems", 10, ["stacks", "napkin"], ["lemma"], "", "", "All")
    assert state_from_params({"q": "curve", "category": ["math.AG", "hep-th"], "paper": "a,b"}) == (
        "curve", "Theorems", 10, [], [], "a,b", "math.AG,hep-th", "All")
    assert state_from_params({"q": "two_le", "statements": "Informal"})[-1] == "Informal (LaTeX)"
    assert state_from_params({"q": "two_le", "statements": "lean"})[-1] == "All"  # unknown: both


def test_lint_counts_each_problem_per_source():
    ok = _thm(id="stacks:0001", body_latex=r"Let $x \in \mathbf{Z}$, see \ref{lemma-local}.")
    raw = _thm(id="stacks:0002", body_latex=r"A \weird{word}.", name=r"\texorpdfstring{A}{B} \mystery")
    diagram = _thm(id="planetmath:D", source="planetmath", body_latex=r"$$\xymatrix{A \ar@/^/[r] & B}$$")
    report = lint_theorems([ok, raw, diagram, LOCAL], resolve=label_index([LOCAL]))
    stacks, pm = report.rows["stacks"], report.rows["planetmath"]
    assert (stacks.statements, stacks.unknown_dropped, stacks.raw_text, stacks.any, stacks.any_guessed) == (3, 1, 0, 0, 1)
    assert stacks.examples["unknown_dropped"] == ["stacks:0002"]
    assert stacks.dropped == {r"\weird": 1, r"\mystery": 1}  # the name's too, in the header
    assert (pm.statements, pm.diagram_source, pm.any) == (1, 0, 0)  # a link to the source, not source


def test_lint_finds_katex_errors_with_the_pages_katex():
    from theorem_rag.ui.katex_check import KatexChecker, KatexUnavailable

    try:
        checker = KatexChecker()
    except KatexUnavailable as err:
        pytest.fail(f"{err} (Node.js and the app extra's Gradio, or libjs-katex)", pytrace=False)
    bad = _thm(id="stacks:0003", body_latex=r"Let $\Spec(R)$ and $\frac{1}$ and $x$.")
    report = lint_theorems([bad, LOCAL], katex=checker)
    row = report.rows["stacks"]
    assert (row.katex_error, row.examples["katex_error"]) == (1, ["stacks:0003"])
    assert list(row.katex_messages) == ["Unexpected end of input in a macro argument, expected '}'"]
    # \Spec, which KaTeX lacks, is shown as an operator name: no KaTeX error, but counted as guessed.
    assert (row.unknown_dropped, row.dropped) == (1, {r"\Spec": 1})


def test_commands_katex_lacks_become_names_and_are_counted():
    dropped: list[str] = []
    out = statement_html(r"Let $X = \Spec(\ZZ)$ and $\begin{pmatrix} a \end{pmatrix}$.", dropped=dropped)
    assert out == r"Let $X = {\operatorname{Spec}}({\mathbb{Z}})$ and $\begin{pmatrix} a \end{pmatrix}$."
    assert dropped == [r"\Spec", r"\ZZ"]


def test_a_cut_statement_still_closes_its_lists():
    out = statement_html(r"Let $R$ be a ring. \begin{enumerate} \item first \item second and more words \end{enumerate}",
                         max_chars=50)  # fmt: skip
    assert out == "Let $R$ be a ring. <ol><li>first \u2026</li></ol>"


@pytest.mark.parametrize(
    ("latex", "html_out"),
    [
        # a line break before letters is not a command "\p" (\substack, matrices)
        (r"$\sum_{\substack{p\\p\leq x}} 1$", r"$\sum_{\substack{p\\p\leq x}} 1$"),
        # KaTeX commands that need an argument, defined as symbols by PlanetMath / the HoTT book
        (r"$\c_X \to \H^* \to A:\set$", r"${\operatorname{c}}_X \to {\operatorname{H}}^* \to A:{\operatorname{set}}$"),
        (r"$\text{Erd\H{o}s}$", r"$\text{Erd\H{o}s}$"),
        (r"$f = \1_A$", r"$f = {\mathbf{1}}_A$"),
        # an unknown command inside text in a formula stays text, a "$" inside \tag becomes \(..\)
        (r"\begin{align*}a &= b \tag{by $\delta$} \\ b &= c \tag{see \autoref{x} and \foo}\end{align*}",
         r"$$\begin{aligned}a &amp;= b \qquad\text{(by \(\delta\))} \\ b &amp;= c \qquad\text{(see \text{x} and "
         r"{\textrm{foo}})}\end{aligned}$$"),
        (r"$x \iff \mbox{the run $f(x)$ halts}$", r"$x \iff \text{the run \(f(x)\) halts}$"),
        # proof.sty rules, entities copied from a web page, \big{|}, a control space at the end, \@ in text
        (r"$\infer[(\to E)]{B}{A & \quad A \to B}$", r"$\dfrac{\,A \quad A \to B\,}{\,B\,}\;{\scriptstyle (\to E)}$"),
        (r"$\inferrule*{\Gamma \\ \Delta}{C}$", r"$\begin{matrix}\Gamma \quad \Delta\\ \vdots\\ C\end{matrix}$"),
        (r"$f(3)&gt;\phi(3)$", r"$f(3)&gt;\phi(3)$"),
        (r"$p\big{|}|G|$", r"$p\big||G|$"),
        (r"$w = \ $", r"$w = $"),
        (r"i.e.\@ this", "i.e. this"),
        # matrix shorthands and @{..} column specifications
        (r"$\bmat{a & b \\ c & d}$", r"$\begin{bmatrix}a &amp; b \\ c &amp; d\end{bmatrix}$"),
        (r"$\begin{array}{c@{~\vline~}c} a & b \end{array}$", r"$\begin{array}{c|c} a &amp; b \end{array}$"),
    ],
)
def test_planetmath_formulas_become_valid_katex(latex, html_out):
    assert statement_html(latex) == html_out


def test_guessed_planetmath_macros_are_counted():
    dropped: list[str] = []
    statement_html(r"$\c_X = \bmat{1 & 0} \1_A$", dropped=dropped)
    assert dropped == [r"\bmat", r"\c", r"\1"]
