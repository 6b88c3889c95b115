"""The offline writer on Lean declarations: name, docstring and statement read as words, exact outputs on
hand-written records shaped like the Lean adapter's (``meta["lean_kind"]``, source ``mathlib``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from theorem_rag.records import Theorem
from theorem_rag.slogans.cache import MemorySloganCache
from theorem_rag.slogans.lean_text import code_words, name_words
from theorem_rag.slogans.offline import OfflineSloganWriter, offline_slogan
from theorem_rag.slogans.writer import write_slogans


def lean(name: str, statement: str, lean_kind: str, module: str, doc: str = "", **meta) -> Theorem:
    """A record as :class:`corpus_build.adapters.lean.LeanAdapter` makes it."""
    kind = lean_kind if lean_kind in ("theorem", "lemma") else "definition"
    return Theorem(id=f"mathlib:{name}", source="mathlib", kind=kind, body_latex=statement,
                   doc_id=f"mathlib-module:{module}", name=name, label=name, parser="lean",
                   meta={"language": "lean", "lean_kind": lean_kind, "module": module, "namespace": "",
                         "docstring": doc, "attributes": [], **meta})  # fmt: skip


BERNOULLI = lean(
    "one_add_mul_le_pow",
    "theorem one_add_mul_le_pow {R : Type*} [Ring R] [PartialOrder R] [IsOrderedRing R] {a : R} (H : -2 ≤ a) "
    "(n : ℕ) : 1 + n * a ≤ (1 + a) ^ n",
    "theorem", "Mathlib.Algebra.Order.Ring.Lemmas",
    "**Bernoulli's inequality**: $1 + n a \\le (1 + a)^n$ for $-2 \\le a$,\n"
    "see [Wikipedia](https://en.wikipedia.org/wiki/Bernoulli%27s_inequality).\n\n"
    "For `a ≥ 0` see `one_add_mul_le_pow'`.",
)
TWO_LE = lean("Nat.Prime.two_le", "theorem Nat.Prime.two_le {p : ℕ} (hp : p.Prime) : 2 ≤ p", "theorem",
              "Mathlib.Data.Nat.Prime.Defs")  # fmt: skip
CASES = {
    "theorem with LaTeX in its docstring": (
        BERNOULLI,
        "One addition multiplication less than or equal power. Theorem in algebra, order, ring. "
        "Bernoulli's inequality: 1 + n a at most (1 + a) n for -2 at most a, see Wikipedia. "
        "For ring, partial order, is ordered ring: if -2 less than or equal to a, "
        "then 1 + n * a less than or equal to (1 + a) to the power n.",
    ),
    "theorem without docstring": (
        TWO_LE,
        "Natural number prime two less than or equal. Theorem in data, natural number, prime. "
        "If p prime, then 2 less than or equal to p.",
    ),
    "theorem with two hypotheses": (
        lean("Nat.Coprime.dvd_of_dvd_mul_left",
             "theorem Nat.Coprime.dvd_of_dvd_mul_left {k n m : ℕ} (H1 : Nat.Coprime k n) (H2 : k ∣ m * n) : k ∣ m",
             "theorem", "Mathlib.Data.Nat.GCD.Basic"),  # fmt: skip
        "Natural number coprime divides if divides multiplication left. Theorem in data, natural number, "
        "greatest common divisor. If natural number coprime k n and k divides m * n, then k divides m.",
    ),
    "theorem in quantifiers": (
        lean("Metric.continuous_iff",
             "theorem Metric.continuous_iff {α β : Type*} [PseudoMetricSpace α] [PseudoMetricSpace β] {f : α → β} : "
             "Continuous f ↔ ∀ b, ∀ ε > 0, ∃ δ > 0, ∀ a, dist a b < δ → dist (f a) (f b) < ε",
             "theorem", "Mathlib.Topology.MetricSpace.Pseudo.Basic"),  # fmt: skip
        "Metric continuous if and only if. Theorem in topology, metric space, pseudo. For pseudo metric space: "
        "continuous f if and only if for all b, for all epsilon greater than 0, there exists delta greater than 0, "
        "for all a, distance a b less than delta implies distance (f a) (f b) less than epsilon.",
    ),
    "anonymous instance": (
        lean("RingCat.instInhabited", "instance RingCat.instInhabited : Inhabited RingCat", "instance",
             "Mathlib.Algebra.Category.Ring.Basic", **{"anonymous instance": True}),  # fmt: skip
        "Ring category inhabited. Instance in algebra, category, ring. Inhabited ring category.",
    ),
    "structure": (
        lean("CategoryTheory.NatTrans",
             "structure CategoryTheory.NatTrans {C : Type u₁} [Category.{v₁} C] {D : Type u₂} [Category.{v₂} D] "
             "(F G : C ⥤ D) : Type max u₁ v₂ where\n/-- The component of a natural transformation. -/\n"
             "app (X : C) : F.obj X ⟶ G.obj X\n/-- The naturality square for a given morphism. -/\n"
             "naturality ⦃X Y : C⦄ (f : X ⟶ Y) : F.map f ≫ app Y = app X ≫ G.map f := by cat_disch",
             "structure", "Mathlib.CategoryTheory.NatTrans",
             "`NatTrans F G` represents a natural transformation between functors `F` and `G`.\n\n"
             "The field `app` provides the components of the natural transformation."),  # fmt: skip
        "Category theory natural transformation. Structure in category theory, natural transformation. "
        "Natural transformation F G represents a natural transformation between functors F and G. "
        "For category: with fields app, naturality.",
    ),
    "class": (
        lean("NegMemClass",
             "class NegMemClass (S : Type*) (G : outParam Type*) [Neg G] [SetLike S G] : Prop where\n"
             "/-- `s` is closed under negation -/\nneg_mem : ∀ {s : S} {x}, x ∈ s → -x ∈ s",
             "class", "Mathlib.Algebra.Group.Subgroup.Defs",
             "`NegMemClass S G` states `S` is a type of subsets `s ⊆ G` closed under negation."),  # fmt: skip
        "Negative member of class. Class in algebra, group, subgroup. Negative member of class S G states S is a "
        "type of subsets s subset of G closed under negation. For negative, set like: with fields negative member of.",
    ),
    "def": (
        lean("Multiset.gcd",
             "def Multiset.gcd {α : Type*} [CommMonoidWithZero α] [NormalizedGCDMonoid α] (s : Multiset α) : α",
             "def", "Mathlib.Algebra.GCDMonoid.Multiset", "Greatest common divisor of a multiset"),  # fmt: skip
        "Multiset greatest common divisor. Definition in algebra, greatest common divisor monoid, multiset. "
        "Greatest common divisor of a multiset. For commutative monoid with zero, normalized greatest common "
        "divisor monoid: alpha.",
    ),
    "abbrev with a bundled map": (
        lean("CommRingCat.ofHom",
             "abbrev CommRingCat.ofHom {R S : Type u} [CommRing R] [CommRing S] (f : R →+* S) : of R ⟶ of S",
             "abbrev", "Mathlib.Algebra.Category.Ring.Basic", "Typecheck a `RingHom` as a morphism in `CommRingCat`."),
        "Commutative ring category of homomorphism. Definition in algebra, category, ring. Typecheck a ring "
        "homomorphism as a morphism in commutative ring category. For commutative ring: of R morphism to of S.",
    ),
    "to_additive generated": (
        lean("eq_of_add_neg_eq_zero",
             "lemma eq_of_add_neg_eq_zero {α : Type*} [SubtractionMonoid α] {a b : α} (h : a + -b = 0) : a = b",
             "lemma", "Mathlib.Algebra.Group.Basic", generated="to_additive", generated_from="eq_of_mul_inv_eq_one"),
        "Equals if addition negative equals zero. Theorem in algebra, group. "
        "For subtraction monoid: if a + - b = 0, then a = b.",
    ),
    "inductive type": (
        lean("CategoryTheory.Limits.WalkingParallelPair",
             "inductive CategoryTheory.Limits.WalkingParallelPair : Type\n| zero\n| one\n"
             "deriving DecidableEq, Inhabited",
             "inductive", "Mathlib.CategoryTheory.Limits.Shapes.Equalizers",
             "The type of objects for the diagram indexing a (co)equalizer."),  # fmt: skip
        "Category theory limits walking parallel pair. Inductive type in category theory, limits, shapes, "
        "equalizers. The type of objects for the diagram indexing a (co)equalizer. With constructors zero, one.",
    ),
}


@pytest.mark.parametrize("record,expected", CASES.values(), ids=CASES.keys())
def test_a_declaration_reads_as_its_name_kind_docstring_and_statement(record: Theorem, expected: str):
    assert offline_slogan(record) == expected


@pytest.mark.parametrize("name,words", [
    ("mul_comm", "multiplication commutative"),
    ("le_of_lt", "less than or equal if less than"),
    ("add_pow_le_pow_mul_pow_of_sq_le_sq",
     "addition power less than or equal power multiplication power if square less than or equal square"),
    ("Finset.card_union_add_card_inter", "finite set cardinality union addition cardinality intersection"),
    ("Set.mem_compl_iff", "set member of complement if and only if"),
    ("Nat.Prime.dvd_mul", "natural number prime divides multiplication"),
    ("AddSubgroup.zmultiples_le", "additive subgroup zmultiples less than or equal"),
    ("instCommRingZMod", "commutative ring integers modulo"),
    ("Rep.of", "rep of"),
])  # fmt: skip
def test_a_name_reads_by_mathlibs_naming_convention(name: str, words: str):
    assert name_words(name) == words


@pytest.mark.parametrize("code,words", [
    ("a ⊔ b ⊓ c = ⊤ ∨ s = ⊥", "a sup b inf c = top or s = bottom"),
    ("s ⊆ t ∪ u ∩ v ∧ x ∉ s", "s subset of t union u intersection v and x not in s"),
    ("f⁻¹ ∘ g ≠ id", "f inverse composed with g not equal to identity"),
    ("(ℕ ≃ ℤ) ≅ (ℚ ≃+* ℝ) → ℂ",
     "(natural numbers equivalent to integers) isomorphic to (rationals ring isomorphic to real numbers) implies "
     "complex numbers"),
    ("‖x - y‖ ≤ |a|", "norm of x - y less than or equal to absolute value of a"),
    ("∑ i ∈ range n, i ≥ ∏ i ∈ s, f i", "sum i in range n, i greater than or equal to product i in s, f i"),
    ("∫ x in a..b, f x ∂μ", "integral x in a b, f x with respect to mu"),
    ("n ! ∣ (2 * n)!", "n factorial divides (2 * n) factorial"),
    ("∀ᶠ x in 𝓝 a, f x ∈ sᶜ", "eventually for all x in neighborhoods of a, f x in s complement"),
    ("∃ x, p x ↔ ¬∀ x, ¬p x", "there exists x, p x if and only if not for all x, not p x"),
])  # fmt: skip
def test_lean_notation_reads_as_words(code: str, words: str):
    assert code_words(code) == words


def test_the_options_of_the_offline_writer_hold_for_lean():
    assert offline_slogan(TWO_LE, context=False) == "If p prime, then 2 less than or equal to p."
    assert offline_slogan(TWO_LE, context=False, variables=False) == "If prime, then 2 less than or equal to."
    assert offline_slogan(BERNOULLI, max_words=6).endswith("Bernoulli's inequality: 1 + n a ...")


def test_the_writer_rewrites_a_lean_slogan_when_its_docstring_changes():
    writer, cache = OfflineSloganWriter(), MemorySloganCache()
    first = write_slogans([BERNOULLI], writer, cache, progress=False)
    assert first.slogans[BERNOULLI.id] == CASES["theorem with LaTeX in its docstring"][1]
    edited = replace(BERNOULLI, meta={**BERNOULLI.meta, "docstring": "Bernoulli's inequality."})
    second = write_slogans([edited], writer, cache, progress=False)
    assert (second.stats.written, second.stats.cached) == (1, 0)
    assert "Bernoulli's inequality. For ring" in second.slogans[BERNOULLI.id]


def test_a_change_to_the_lean_rules_rewrites_the_declarations_slogans_only(monkeypatch):
    """The Lean rules' version is part of a declaration's cache key, not of a LaTeX statement's: bumped, the
    declarations' slogans are written again and the LaTeX ones come from the cache."""
    import theorem_rag.slogans.offline as offline

    latex = Theorem(id="x:1", source="x", kind="lemma", doc_id="x:d", body_latex="$a$", name="N")
    writer, cache = OfflineSloganWriter(), MemorySloganCache()
    write_slogans([BERNOULLI, latex], writer, cache, progress=False)
    monkeypatch.setattr(offline, "LEAN_RULES_VERSION", offline.LEAN_RULES_VERSION + "-next")
    again = write_slogans([BERNOULLI, latex], writer, cache, progress=False)
    assert (again.stats.written, again.stats.cached) == (1, 1)


def test_what_the_module_says_of_a_declaration_comes_after_its_statement():
    t = replace(TWO_LE, meta={**TWO_LE.meta, "summary": "every prime is at least `2`", "docstring": "Two bounds."})
    assert offline_slogan(t, context=False) == ("Two bounds. If p prime, then 2 less than or equal to p. "
                                               "Every prime is at least 2.")  # fmt: skip


def test_a_latex_record_keeps_its_inputs():
    """What keys a LaTeX slogan in the cache is unchanged, so no cached LaTeX slogan is written again."""
    t = Theorem(id="x:1", source="x", kind="lemma", doc_id="x:d", body_latex="$a$", name="N", label="L",
                section=("S",), meta={"language": "latex"})  # fmt: skip
    assert OfflineSloganWriter().inputs(t) == ("lemma", "N", "L", "S", "$a$")
