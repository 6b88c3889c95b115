"""Result cards and statement HTML: escaping, math kept for KaTeX, links, citations (pure, fast)."""

from __future__ import annotations

import re

from theorem_rag.records import Document, Hit, PaperHit, Theorem
from theorem_rag.ui.cards import citation, hit_card, message_html, paper_card, results_html, sources_html
from theorem_rag.ui.latex_html import statement_html


def _thm(**kw) -> Theorem:
    base = dict(id="stacks:00AC", source="stacks", kind="lemma", body_latex="Let $R$ be a local ring.",
                doc_id="stacks:algebra", number="10.18.2", url="https://stacks.math.columbia.edu/tag/00AC",
                meta={"tag": "00AC"})  # fmt: skip
    base.update(kw)
    return Theorem(**base)


def test_text_is_escaped_and_math_is_kept_for_katex():
    out = statement_html(r"If $a<b$ then <script>alert(1)</script> & \emph{so} $$x_1 & y$$")
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "$a&lt;b$" in out
    assert "$$x_1 &amp; y$$" in out
    assert "<em>so</em>" in out


def test_dollar_outside_math_cannot_open_a_formula():
    out = statement_html(r"It costs \$5 and $x$.")
    assert out.count("$") == 2 and "&#36;5" in out


def test_display_environments_become_katex_blocks():
    out = statement_html(r"We have \begin{align*} a &= b \label{eq} \\ c &= d \end{align*} and \[ e \]")
    assert r"$$\begin{aligned} a &amp;= b  \\ c &amp;= d \end{aligned}$$" in out
    assert "$$e$$" in out and "label" not in out


def test_lists_refs_and_diagrams():
    out = statement_html(r"\begin{enumerate}\item[(a)] $x$, see Lemma \ref{lemma-foo}\item ok\end{enumerate}")
    assert out.startswith("<ol><li><strong>(a)</strong> $x$, see Lemma <span class=\"trag-ref\"")
    assert out.endswith("<li>ok</li></ol>")
    assert statement_html(r"$$\xymatrix{A \ar[r] & B}$$") == r"$$\begin{array}{ccc}A &amp; \xrightarrow{} &amp; B\end{array}$$"


def test_output_has_no_blank_line_so_markdown_keeps_one_html_block():
    assert "\n" not in statement_html("First paragraph $x$.\n\n\nSecond\nline.")


def test_truncation_never_cuts_a_formula():
    out = statement_html("word " * 10 + "$" + "x+" * 50 + "y$ tail", max_chars=70)
    assert out.endswith("\u2026") and out.count("$") % 2 == 0


def test_card_shows_kind_number_link_citation_and_votes():
    t = _thm(name="Nakayama's <lemma>")
    html = hit_card(Hit(t.id, 0.5, rank=3, theorem=t, slogan="a <b>local</b> ring", dense_rank=1, lexical_rank=4))
    assert 'id="trag-hit-3"' in html and 'data-theorem-id="stacks:00AC"' in html
    assert "Lemma 10.18.2 (Nakayama's &lt;lemma&gt;)" in html
    assert 'href="https://stacks.math.columbia.edu/tag/00AC"' in html and "Tag 00AC" in html
    assert "a &lt;b&gt;local&lt;/b&gt; ring" in html
    assert re.search(r'data-copy="Stacks Project, Lemma 10.18.2 \(Nakayama&#x27;s &lt;lemma&gt;\) \(Tag 00AC\)"', html)
    assert html.count('class="trag-vote"') == 2 and "dense #1" in html and "text #4" in html


def test_unsafe_links_are_dropped():
    t = _thm(url="javascript:alert(1)")
    assert "javascript:" not in hit_card(Hit(t.id, 0.1, rank=1, theorem=t))


def test_paper_citation_and_card_use_the_document():
    doc = Document(id="p1", source="p1", title=r"Rank of \\ groups", authors=("A~B", "C D"), year=2016,
                   url="https://arxiv.org/abs/1601.00001")  # fmt: skip
    t = _thm(id="p1:lem", source="p1", kind="theorem", number="6.1", url=None, doc_id="p1", meta={})
    assert citation(t, doc) == "A B and C D, Rank of groups (2016), Theorem 6.1, https://arxiv.org/abs/1601.00001"
    card = hit_card(Hit(t.id, 0.2, rank=1, theorem=t), doc)
    assert 'href="https://arxiv.org/abs/1601.00001"' in card and ">arXiv \u2197<" in card
    paper = paper_card(PaperHit("p1", 0.3, rank=2, document=doc, hits=(Hit(t.id, 0.2, rank=1, theorem=t),)))
    assert 'data-doc-id="p1"' in paper and 'id="trag-p2-1"' in paper and "Rank of groups" in paper


def test_lists_and_messages():
    assert "No statements matched" in results_html([], query="x")
    t = _thm()
    src = sources_html([Hit(t.id, 0.1, rank=7, theorem=t)])
    assert 'id="trag-src-1"' in src  # numbered by position, not by search rank
    assert message_html("<b>", "nope") == '<div class="trag-msg trag-msg-error" role="status">&lt;b&gt;</div>'
