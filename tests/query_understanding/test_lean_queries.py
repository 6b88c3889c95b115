"""Queries in Lean 4 (issue 56, section 2): notation read as the Lean slogans read it, names to look up (pure)."""

from __future__ import annotations

import pytest

from theorem_rag.query_understanding import understand
from theorem_rag.query_understanding.lean import is_lean_notation, lean_formula_keys, lean_text, name_suffixes
from theorem_rag.query_understanding.math_text import formula_text
from theorem_rag.records import Theorem
from theorem_rag.slogans.lean_text import code_words, lean_slogan

TWO_LE = Theorem(id="mathlib:Nat.Prime.two_le", source="mathlib", kind="theorem", doc_id="mathlib-module:M",
                 name="Nat.Prime.two_le", body_latex="theorem Nat.Prime.two_le {p : ℕ} (hp : p.Prime) : 2 ≤ p",
                 meta={"language": "lean", "lean_kind": "theorem", "module": "Mathlib.Data.Nat.Prime.Defs"})


@pytest.mark.parametrize("query", [
    "∀ ε > 0, ∃ δ > 0, |f x - f y| < ε",
    "a ∣ b → a ≤ b",
    "s ⊔ t",
    "p.Prime → 2 ≤ p",
    "Continuous f → IsCompact s → IsCompact (f '' s)",
    "3 ∣ n ↔ 3 ∣ (Nat.digits 10 n).sum",
])  # fmt: skip
def test_lean_notation_is_a_formal_statement_read_by_the_lean_slogans_reader(query):
    """Routed as a formula (the formula tie-break, no 'did you mean'), read by the reader and dictionary of the Lean
    slogans, and searched as typed beside (the statement text of a declaration is Lean); its formula keys are in the
    symbols LaTeX is read into (``≤`` as ``le``), so they meet the declarations' and the LaTeX statements' keys."""
    plan = understand(query)
    assert is_lean_notation(query)
    assert plan.formula and plan.lean and plan.text == code_words(query) and plan.variants == (query,)
    assert plan.formula_keys == lean_formula_keys(query) and plan.formula_keys and plan.names == ()
    assert not any("≤" in k or "→" in k or "∣" in k for k in plan.formula_keys)
    assert plan.notes == (f"Lean read as: {plan.text}",)


def test_a_lean_query_meets_the_slogan_of_its_declaration_in_the_same_words():
    reading = understand("p.Prime → 2 ≤ p").text
    assert reading == "p prime implies 2 less than or equal to p"
    assert "2 less than or equal to p" in lean_slogan(TWO_LE) and "p prime" in lean_slogan(TWO_LE).lower()


def test_code_spans_are_read_as_lean_and_the_prose_around_them_kept():
    query = "`a ≠ 0 → a ^ (p - 1) = 1` for `a : ZMod p` with `[Fact p.Prime]`, ℤ"
    plan = understand(query)
    assert plan.formula and plan.variants == (query,)
    # the arrow of a proposition reads "implies", the arrow of a typing "to"; the prose's symbols read too
    assert plan.text == ("a not equal to 0 implies a to the power (p - 1) = 1 for a: integers modulo p with fact p "
                         "prime, integers")  # fmt: skip
    assert lean_text("`f : α → α` in a set") == "f: alpha to alpha in a set"


@pytest.mark.parametrize("query", [
    r"$a^{p-1} \equiv 1 \pmod p$",
    r"$\forall \varepsilon > 0$ ∃ δ",                # LaTeX with Unicode is LaTeX
    "a^(p-1) = 1 mod p",                             # ASCII math
    "x^n + y^n = z^n no solutions n>2",
])  # fmt: skip
def test_latex_and_ascii_math_are_read_as_before(query):
    plan = understand(query)
    assert not is_lean_notation(query) and lean_text(query) is None
    assert plan.formula and plan.text == formula_text(query) and plan.formula_keys and plan.names == ()


@pytest.mark.parametrize("query", [
    "closed form of 1 + x + ... + x^(n-1) as a quotient, x ≠ 1, in a field",
    "every continuous function on a compact set ℝ is bounded",
    "Nakayama lemma",
])  # fmt: skip
def test_a_sentence_with_a_symbol_or_two_is_no_lean(query):
    assert not is_lean_notation(query) and not understand(query).formula


@pytest.mark.parametrize("query, names", [
    ("Nat.Prime.two_le", ("Nat.Prime.two_le",)),
    ("two_le", ("two_le",)),
    ("Prime.two_le", ("Prime.two_le",)),
    ("_root_.mul_comm", ("mul_comm",)),
    ("IsCompact", ("IsCompact",)),
    ("prime two le", ("prime.two.le", "prime.two_le", "prime_two.le", "prime_two_le")),
    ("Continuous", ()),                              # a plain word: the exact-name rule of full-text search
    ("metric space", ()),                            # no word of a Lean name
    ("Nakayama's lemma", ()),
    ("prime two le of lt five", ()),                 # too many words for a name's words
])  # fmt: skip
def test_lean_names_and_their_words_are_looked_up_as_names(query, names):
    assert name_suffixes(query) == names and understand(query).names == names
