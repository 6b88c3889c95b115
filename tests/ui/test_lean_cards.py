"""A Lean declaration's card (pure): statement as code, docstring rendered, Lean kind, module, links, proof collapsed;
LaTeX cards keep their own tests (test_cards.py, test_card_features.py)."""

from __future__ import annotations

import re

from theorem_rag.records import Hit, Theorem
from theorem_rag.ui.cards import CardExtras, hit_card
from theorem_rag.ui.lean_card import docstring_html

SOURCE = "https://github.com/leanprover-community/mathlib4/blob/54df8a3/Mathlib/Order/Basic.lean#L36"
DOCS = "https://leanprover-community.github.io/mathlib4_docs/Mathlib/Order/Basic.html#le_trans''"
LEAN = Theorem(
    id="mathlib:le_trans''", source="mathlib", kind="theorem", doc_id="mathlib-module:Mathlib.Order.Basic",
    body_latex="theorem le_trans'' {α : Type u} [Preorder α] {a b c : α} (h₁ : a ≤ b) (h₂ : b ≤ c) :\n"
               "    a ≤ c -- `$x$` \\emph{not LaTeX} s \\ t <script>",
    name="le_trans''", label="le_trans''", url=SOURCE, parser="lean", proof="by\n  exact le_trans h₁ h₂",
    proof_refs=("mathlib:le_trans",),
    meta={"language": "lean", "lean_kind": "theorem", "module": "Mathlib.Order.Basic", "docs_url": DOCS,
          "docstring": "Transitivity of `≤` over *two* steps: $a \\le b \\le c$ gives $a \\le c$."},
)  # fmt: skip


def _card(t: Theorem = LEAN, **kw) -> str:
    return hit_card(Hit(t.id, 0.5, rank=1, theorem=t, slogan=None), **kw)


def test_the_statement_is_monospace_lean_never_latex():
    card = _card()
    code = re.search(r'<div class="trag-statement trag-lean-statement"><pre class="trag-lean"><code>(.*?)</code>',
                     card).group(1)  # fmt: skip
    # Lean's Unicode and primes as written (the LaTeX renderer makes '' a closing quote), `$` and line breaks
    # escaped so that neither KaTeX nor the page's Markdown sees them, HTML escaped
    assert code == ("theorem le_trans'' {α : Type u} [Preorder α] {a b c : α} (h₁ : a ≤ b) (h₂ : b ≤ c) :"
                    "&#10;"
                    "    a ≤ c -- `&#36;x&#36;` \\emph{not LaTeX} s \\ t &lt;script&gt;")  # fmt: skip
    assert "<script>" not in card and "\n" not in card


def test_the_card_shows_lean_kind_name_module_and_both_links():
    card = _card()
    assert '<span class="trag-kind trag-kind-theorem">theorem <code class="trag-lean-name">le_trans\'\'</code>' in card
    assert '<span class="trag-where">Mathlib.Order.Basic</span>' in card
    assert f'href="{SOURCE}"' in card and ">source \u2197</a>" in card
    assert 'href="{}"'.format(DOCS.replace("'", "&#x27;")) in card
    assert ">docs \u2197</a>" in card
    assert 'data-copy="le_trans&#x27;&#x27;"' in card and ">Statement</button>" in card  # to `exact` or restate
    assert ">uses 1</a>" in card  # uses / used by as for LaTeX


def test_the_docstring_is_rendered_with_code_and_formulas():
    card = _card()
    doc = re.search(r'<div class="trag-doc">(.*?)</div>', card).group(1)
    assert doc == ("<p>Transitivity of <code>≤</code> over <em>two</em> steps: $a \\le b \\le c$ gives "
                   "$a \\le c$.</p>")  # fmt: skip
    assert docstring_html("Use `f $ x` for $f(x)$, $$\\sum_i a_i$$ and\n\n```lean\nexample : 1 = 1 := rfl\n```") == (
        '<p>Use <code>f &#36; x</code> for $f(x)$, $$\\sum_i a_i$$ and</p><pre class="trag-lean"><code>'
        "example : 1 = 1 := rfl</code></pre>")
    assert docstring_html("[home](javascript:alert) and [docs](https://x.org/a?b=1&c=2)") == (
        '<p>home and <a href="https://x.org/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">docs</a></p>')


def test_a_long_docstring_is_cut_before_a_formula_it_would_split():
    doc = "word " * 10 + "$a + b = c$ after"
    assert docstring_html(doc, max_chars=55) == "<p>" + ("word " * 10).strip() + " \u2026</p>"


def test_the_proof_is_lean_code_collapsed_and_a_definition_says_so():
    card = _card()
    assert ('<details class="trag-proof"><summary>Proof</summary><pre class="trag-lean"><code>by&#10;  exact '
            "le_trans h₁ h₂</code></pre></details>") in card
    definition = Theorem(id="mathlib:Nat.Prime", source="mathlib", kind="definition", doc_id="m",
                         body_latex="def Nat.Prime (p : ℕ) : Prop", name="Nat.Prime", proof="Irreducible p",
                         meta={"language": "lean", "lean_kind": "def"})  # fmt: skip
    card = _card(definition, extras=CardExtras(used_by=3))
    assert "<summary>Definition</summary>" in card and ">used by 3</a>" in card
    assert '<span class="trag-kind trag-kind-definition">def <code class="trag-lean-name">Nat.Prime</code>' in card
    assert "trag-doc" not in card and "docs \u2197" not in card  # no docstring, no documentation link


def test_a_lean_declaration_is_cited_by_its_full_name_in_the_mathlib_paper():
    from theorem_rag.citations import bibtex, citation, heading, markdown, source_cite
    from theorem_rag.ui.cards import link_label, source_label
    from theorem_rag.ui.lint import source_group

    assert heading(LEAN) == "theorem le_trans''"
    assert citation(LEAN) == f"Mathlib, theorem le_trans'' (Mathlib.Order.Basic), {SOURCE}"
    assert markdown(LEAN).endswith(f"]({SOURCE})")
    # one entry for every declaration, the paper the mathlib community asks users to cite; the name set as written
    assert source_cite(LEAN) == r"\cite[\texttt{le\_trans''}]{mathlib}"
    entry = bibtex(LEAN)
    assert entry.startswith("@inproceedings{mathlib,") and "The {L}ean Mathematical Library" in entry
    assert "10.1145/3372885.3373824" in entry
    from pybtex.database import parse_string

    parsed = parse_string(entry, "bibtex").entries["mathlib"]
    assert parsed.fields["year"] == "2020" and parsed.type == "inproceedings"
    # the card copies \cite with its entry, as a LaTeX statement's card does
    card = _card()
    assert ">BibTeX</button>" in card and 'data-copy="\\cite[\\texttt{le\\_trans&#x27;&#x27;}]{mathlib}' in card
    # a declaration the adapter generated (an instance's name) is cited the same way
    generated = Theorem(id="mathlib:instFooBar", source="mathlib", kind="definition", doc_id="m", body_latex="",
                        name="instFooBar", meta={"language": "lean", "lean_kind": "instance"})
    assert source_cite(generated) == r"\cite[\texttt{instFooBar}]{mathlib}"
    assert source_label("mathlib") == "Mathlib" and link_label(LEAN, SOURCE) == "Mathlib"
    assert source_group("mathlib") == "mathlib"
