"""What query understanding routes a query to among Lean declarations (issue 56), against the real store: the
declaration mathlib names a term by, and the module whose title the query names.

A digest embedding that knows nothing about words, so only the routing and full-text search can order these.
"""

from __future__ import annotations

import pytest

from db_helpers import offline_retriever
from theorem_rag.records import Document, Theorem

pytestmark = pytest.mark.db

IVT = "Mathlib.Topology.Order.IntermediateValue"
MONOIDAL = "Mathlib.CategoryTheory.Monoidal.Category"
# full name -> (Lean kind, statement, module, line, docstring); real mathlib declarations, shortened
DECLARATIONS = {
    "IsPreconnected.Icc_subset": ("theorem", "theorem IsPreconnected.Icc_subset {s : Set α} (hs : IsPreconnected s) "
                                  "{a b : α} (ha : a ∈ s) (hb : b ∈ s) : Icc a b ⊆ s", IVT, 40, ""),
    "IsPreconnected.ordConnected": ("theorem", "theorem IsPreconnected.ordConnected {s : Set α} "
                                    "(h : IsPreconnected s) : OrdConnected s", IVT, 60, ""),
    "intermediate_value_Icc": ("theorem", "theorem intermediate_value_Icc {a b : α} (hab : a ≤ b) {f : α → δ} "
                               "(hf : ContinuousOn f (Icc a b)) : Icc (f a) (f b) ⊆ f '' Icc a b", IVT, 90,
                               "**Intermediate Value Theorem** for continuous functions on closed intervals."),
    "ModuleCat.monoidalCategory": ("def", "instance ModuleCat.monoidalCategory : MonoidalCategory (ModuleCat R)",
                                   MONOIDAL, 10, ""),
    "CategoryTheory.MonoidalCategory": ("class", "class CategoryTheory.MonoidalCategory (C : Type u) [Category C] "
                                        "extends MonoidalCategoryStruct C", MONOIDAL, 20,
                                        "In a monoidal category, we can take the tensor product of objects."),
}  # fmt: skip
TITLES = {IVT: "Intermediate value theorem", MONOIDAL: "Monoidal categories"}


def _declaration(name: str, kind: str, statement: str, module: str, doc: str, line: int | None = None,
                 **meta) -> Theorem:  # fmt: skip
    """A Lean declaration's record as the Lean adapter writes it (``meta``: more of its meta, synonyms)."""
    return Theorem(id=f"mathlib:{name}", source="mathlib", kind="theorem" if kind == "theorem" else "definition",
                   body_latex=statement, doc_id=f"mathlib-module:{module}", name=name, label=name, line=line,
                   meta={"language": "lean", "lean_kind": kind, "module": module, "docstring": doc, **meta})


def _records() -> tuple[list[Theorem], list[Document]]:
    theorems = [_declaration(name, kind, statement, module, doc, line)
                for name, (kind, statement, module, line, doc) in DECLARATIONS.items()]  # fmt: skip
    documents = [Document(id=f"mathlib-module:{m}", source="mathlib", title=title, license="Apache-2.0",
                          meta={"module": m, "language": "lean"}) for m, title in TITLES.items()]  # fmt: skip
    return theorems, documents


@pytest.fixture
def retriever(store):
    return offline_retriever(store, *_records())


def _ids(retriever, query, **options):
    return [h.theorem_id for h in retriever.search(query, **options)]


@pytest.mark.parametrize("filters", [None, {"formal": True}])
def test_a_term_finds_the_type_mathlib_names_by_it_not_an_instance_named_alike(retriever, filters):
    """``ModuleCat.monoidalCategory`` (an instance) and ``CategoryTheory.MonoidalCategory`` (the class) both end
    with "monoidalcategory" case aside; the notion is the one in UpperCamelCase, though its name is longer."""
    assert _ids(retriever, "monoidal category", filters=filters)[0] == "mathlib:CategoryTheory.MonoidalCategory"


@pytest.mark.parametrize("filters", [None, {"formal": True}])
def test_a_module_routed_to_by_its_title_puts_the_declaration_the_query_names_first(retriever, filters):
    """"Intermediate value theorem" is the title of the module that proves it: its declarations still come first,
    but in the order the search ranks them, not in the file's (whose first one is a lemma about intervals)."""
    ids = _ids(retriever, "intermediate value theorem", filters=filters)
    assert ids[0] == "mathlib:intermediate_value_Icc"
    assert set(ids[:3]) == {f"mathlib:{n}" for n, d in DECLARATIONS.items() if d[2] == IVT}
    # in the file, the lemma about intervals comes first
    assert retriever.store.theorems_of(f"mathlib-module:{IVT}", limit=1)[0].id == "mathlib:IsPreconnected.Icc_subset"


def test_a_name_in_a_docstrings_bold_finds_its_declaration(store):
    """The Lean adapter records the names a docstring sets in bold as synonyms (tests/corpus/test_lean_adapter.py):
    a query that is one of them is an exact match, as a LaTeX statement's recorded alias is; words alone put
    another declaration that says "binomial theorem" first."""
    module = "Mathlib.Data.Nat.Choose.Sum"
    decls = {
        "add_pow": ("theorem add_pow (x y : R) (n : ℕ) : (x + y) ^ n = ∑ m ∈ range (n + 1), x ^ m * y ^ (n - m) * "
                    "n.choose m", ""),
        "ProbabilityTheory.binomial_mean": ("theorem ProbabilityTheory.binomial_mean : the binomial distribution's "
                                            "binomial mean is n p", "The binomial theorem for the binomial mean."),
    }  # fmt: skip
    theorems = [_declaration(name, "theorem", statement, module, doc,
                             **({"synonyms": ["binomial theorem"]} if name == "add_pow" else {}))
                for name, (statement, doc) in decls.items()]  # fmt: skip
    documents = [Document(id=f"mathlib-module:{module}", source="mathlib", title=module, meta={"language": "lean"})]
    retriever = offline_retriever(store, theorems, documents)
    assert _ids(retriever, "binomial theorem")[0] == "mathlib:add_pow"
    assert _ids(retriever, "Binomial Theorem", filters={"formal": True})[0] == "mathlib:add_pow"


def test_a_query_for_a_notion_finds_its_definition_before_the_lemmas_about_it(store, monkeypatch):
    """mathlib defines a filter once and states lemmas about filters in the same words: a query that describes the
    notion puts the structure before them; one that asserts a result does not; a LaTeX statement keeps its place."""
    module = "Mathlib.Order.Filter.Defs"
    decls = {
        "Filter.inter_mem": ("theorem", "theorem Filter.inter_mem {f : Filter α} {s t : Set α} (hs : s ∈ f) "
                             "(ht : t ∈ f) : s ∩ t ∈ f", "The intersection of two sets of a filter of sets is in "
                             "the filter: a filter of sets is closed under intersections."),
        "Filter.mem_of_superset": ("theorem", "theorem Filter.mem_of_superset {f : Filter α} {x y : Set α} "
                                   "(hx : x ∈ f) (hxy : x ⊆ y) : y ∈ f", "A filter of sets is closed under "
                                   "supersets: a superset of a set of a filter of sets is in it."),
        "Filter": ("structure", "structure Filter (α : Type*) where sets : Set (Set α) univ_sets : Set.univ ∈ sets "
                   "sets_of_superset {x y} : x ∈ sets → x ⊆ y → y ∈ sets inter_sets {x y} : x ∈ sets → y ∈ sets "
                   "→ x ∩ y ∈ sets", "A filter on a type is a collection of its sets."),
    }  # fmt: skip
    theorems = [_declaration(name, kind, statement, module, doc) for name, (kind, statement, doc) in decls.items()]
    theorems.append(Theorem(id="notes:filters", source="notes", kind="definition", doc_id="notes",
                            body_latex="A filter of sets is a family of sets closed under supersets and "
                                       "intersections, with the whole set in it."))  # fmt: skip
    documents = [Document(id=f"mathlib-module:{module}", source="mathlib", title=module, meta={"language": "lean"}),
                 Document(id="notes", source="notes", title="Notes")]  # fmt: skip
    retriever = offline_retriever(store, theorems, documents)
    notion, result = "filter of sets closed under supersets and intersections", "a filter is closed under supersets"
    ranked, asserted = _ids(retriever, notion), _ids(retriever, result)
    assert [i for i in ranked if i.startswith("mathlib:")][0] == "mathlib:Filter"
    import theorem_rag.query_understanding.plan as plan

    monkeypatch.setattr(plan, "asks_for_notion", lambda query: False)
    before = _ids(retriever, notion)
    assert [i for i in before if i.startswith("mathlib:")][0] != "mathlib:Filter"  # the rule is what put it first
    assert ranked.index("notes:filters") == before.index("notes:filters")
    assert _ids(retriever, result) == asserted  # a result asserted is ranked as before


def test_a_query_that_states_a_result_puts_the_types_it_names_after_the_results(store, monkeypatch):
    """"The field of the complex numbers is algebraically closed" states a result: the class it names goes after the
    theorem and the instance (an instance is a result), which keep their order."""
    module = "Mathlib.Analysis.Complex.Polynomial.Basic"
    decls = {
        "IsAlgClosed": ("class", "class IsAlgClosed (k : Type u) [Field k] : Prop where splits : ∀ p : k[X], p.Splits",
                        "An algebraically closed field: the complex numbers are algebraically closed, every "
                        "polynomial over an algebraically closed field splits."),
        "Complex.isAlgClosed": ("instance", "instance Complex.isAlgClosed : IsAlgClosed ℂ",
                                "The fundamental theorem of algebra: ℂ is algebraically closed."),
        "Complex.exists_root": ("theorem", "theorem Complex.exists_root {f : ℂ[X]} (hf : 0 < degree f) : "
                                "∃ z, IsRoot f z", "A nonconstant polynomial over the complex numbers has a root."),
    }  # fmt: skip
    theorems = [_declaration(name, kind, statement, module, doc) for name, (kind, statement, doc) in decls.items()]
    documents = [Document(id=f"mathlib-module:{module}", source="mathlib", title=module, meta={"language": "lean"})]
    retriever = offline_retriever(store, theorems, documents)
    query = "the field of the complex numbers is algebraically closed"
    after = _ids(retriever, query)
    import theorem_rag.query_understanding.plan as plan

    monkeypatch.setattr(plan, "asserts_a_result", lambda q: False)
    before = _ids(retriever, query)
    assert before.index("mathlib:IsAlgClosed") < 2 and after[-1] == "mathlib:IsAlgClosed"
    assert [i for i in after if i != "mathlib:IsAlgClosed"] == [i for i in before if i != "mathlib:IsAlgClosed"]
