"""The Lean adapter on small mathlib-like fixtures: names exactly as Lean gives them, statements that read on their
own, generated declarations, and bad files counted in the report instead of crashing the parse."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from corpus_build.parse import parse_sources

ORDER = """/-
Copyright (c) 2026. All rights reserved.
-/
module

public import Mathlib.Init

/-!
# Orders for the tests

Some *module* documentation.
-/

@[expose] public section

universe u

variable {α : Type u} {β : Type*} [Preorder α] {a b c : α}

namespace Fixture.Order

/-- A type is *dense* when $\\forall a < b, \\exists c, a < c < b$. -/
class Dense (α : Type u) [Preorder α] : Prop where
  /-- Between two points there is a third, $a < c < b$. -/
  exists_between : ∀ a b : α, a < b → ∃ c, a < c ∧ c < b

structure Interval (α : Type u) where
  lo : α
  hi : α

theorem le_refl' : a ≤ a := le_rfl

/-- A statement over
several lines. -/
@[simp, nolint unusedArguments]
protected theorem le_trans'' (h₁ : a ≤ b)
    (h₂ : b ≤ c) :
    a ≤ c :=
  le_trans h₁ h₂

theorem _root_.rootLemma : a ≤ a := le_rfl

private theorem hidden : a ≤ a := le_rfl

open Function in
theorem after_open (x : α) : x ≤ x := le_rfl

theorem le_iff_true : a ≤ a ↔ True := ⟨fun _ => trivial, fun _ => le_rfl⟩

alias ⟨le_self_true, _⟩ := le_iff_true

alias le_refl_alias := le_refl'

@[deprecated le_refl' (since := "2026-01-01")] alias old_le_refl := le_refl'

end Fixture.Order

namespace Fixture
namespace Inner

section Named
variable (n : ℕ)

lemma uses_n : n = n := rfl

end Named

def noVariables : ℕ := 0

variable {α}

theorem implicit_again (x : α) : x ≤ x := le_rfl

end Inner
end Fixture
"""

GROUPS = """module

public import Mathlib.Init

@[expose] public section

/-- A monoid. -/
class MyMonoid (M : Type*) extends Mul M, One M where
  mul_one : ∀ a : M, a * 1 = a

/-- An additive monoid, written by hand. -/
class MyAddMonoid (M : Type*) extends Add M, Zero M where
  add_zero : ∀ a : M, a + 0 = a

attribute [to_additive existing] MyMonoid

namespace MyMonoid

variable {M : Type*} [MyMonoid M]

@[to_additive (attr := simp)]
theorem mul_one' (a : M) : a * 1 = a := mul_one a

@[to_additive add_self_name /-- Adding zero twice. -/]
theorem mul_one_one (a : M) : a * 1 * 1 = a := by simp

@[to_additive existing]
theorem already_there (a : M) : a = a := rfl

end MyMonoid

class Widget (α : Type*) where
  size : α → ℕ

structure Box (α : Type*) where
  item : α

instance : Widget ℕ := ⟨id⟩

instance {α : Type*} [Widget α] : Widget (Box α) := ⟨fun b => Widget.size b.item⟩

instance {α : Type*} [Inhabited α] : Widget (Option α) := ⟨fun _ => 0⟩

instance instWidgetNamed : Widget Bool := ⟨fun _ => 1⟩

namespace Box

instance {α : Type*} [Inhabited α] : Inhabited (Box α) := ⟨⟨default⟩⟩

end Box

instance : Inhabited (Option ℕ) := ⟨none⟩

/-- Notation is not a declaration. -/
notation "⦃⦃" x "⦄⦄" => Box.mk x
"""

MODULE_PRIVATE = """module

public import Mathlib.Init

theorem not_public : True := trivial

public theorem is_public : True := trivial

public section

theorem in_public_section : True := trivial

end
"""

MALFORMED = """module

@[expose] public section

theorem good_before : True := trivial

theorem broken (h : (True ∧ [False) : True := trivial

theorem good_after : True := trivial

/- a comment that never ends
theorem swallowed : True := trivial
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _parse(tmp_path: Path, files: dict[str, str], **kwargs) -> tuple[dict[str, dict], dict, Path]:
    root = _write(tmp_path / "mathlib4", files)
    out = tmp_path / "out"
    parse_sources([root], out, use_plastex=False, progress=False, **kwargs)
    records = [json.loads(line) for line in (out / "theorems.jsonl").read_text(encoding="utf-8").splitlines()]
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))["sources"][0]
    return {r["id"]: r for r in records}, report, out


@pytest.fixture
def order(tmp_path: Path) -> tuple[dict[str, dict], dict, Path]:
    return _parse(tmp_path, {"Mathlib/Order/Fixture.lean": ORDER})


def test_names_follow_namespaces_sections_root_and_privacy(order):
    records, report, _ = order
    assert sorted(records) == sorted([
        "mathlib:Fixture.Order.Dense", "mathlib:Fixture.Order.Dense.exists_between", "mathlib:Fixture.Order.Interval",
        "mathlib:Fixture.Order.Interval.lo", "mathlib:Fixture.Order.Interval.hi", "mathlib:Fixture.Order.le_refl'",
        "mathlib:Fixture.Order.le_trans''", "mathlib:rootLemma", "mathlib:Fixture.Order.after_open",
        "mathlib:Fixture.Order.le_iff_true", "mathlib:Fixture.Order.le_self_true", "mathlib:Fixture.Order.le_refl_alias",
        "mathlib:Fixture.Inner.uses_n", "mathlib:Fixture.Inner.noVariables", "mathlib:Fixture.Inner.implicit_again",
    ])
    assert report["corpus"] == "lean" and report["lean"]["left out"] == {"private": 1, "deprecated alias": 1}
    assert records["mathlib:Fixture.Order.le_trans''"]["meta"]["protected"] is True


def test_statements_carry_the_variables_they_use(order):
    records, _, _ = order
    stmt = {i.split(":", 1)[1]: r["body_latex"] for i, r in records.items()}
    assert stmt["Fixture.Order.le_refl'"] == "theorem Fixture.Order.le_refl' {α : Type u} [Preorder α] {a : α} : a ≤ a"
    assert stmt["Fixture.Order.le_trans''"] == (
        "theorem Fixture.Order.le_trans'' {α : Type u} [Preorder α] {a b c : α} (h₁ : a ≤ b) (h₂ : b ≤ c) : a ≤ c")
    assert stmt["Fixture.Inner.uses_n"] == "lemma Fixture.Inner.uses_n (n : ℕ) : n = n"  # the section's variable
    assert stmt["Fixture.Inner.noVariables"] == "def Fixture.Inner.noVariables : ℕ"
    # `variable {α}` changes the binder of α, it does not add a second one
    assert stmt["Fixture.Inner.implicit_again"] == (
        "theorem Fixture.Inner.implicit_again {α : Type u} [Preorder α] (x : α) : x ≤ x")
    assert records["mathlib:Fixture.Order.le_trans''"]["proof"] == "le_trans h₁ h₂"
    # an alias states its target's statement; one direction of an ↔ says which
    assert stmt["Fixture.Order.le_refl_alias"] == (
        "theorem Fixture.Order.le_refl_alias {α : Type u} [Preorder α] {a : α} : a ≤ a")
    assert stmt["Fixture.Order.le_self_true"] == ("theorem Fixture.Order.le_self_true : the → direction of "
                                                  "theorem Fixture.Order.le_iff_true {α : Type u} [Preorder α] "
                                                  "{a : α} : a ≤ a ↔ True")


def test_records_link_the_source_line_and_the_documentation(order):
    records, _, out = order
    r = records["mathlib:Fixture.Order.le_trans''"]
    assert (r["kind"], r["file"], r["line"], r["parser"]) == ("theorem", "Mathlib/Order/Fixture.lean", 36, "lean")
    assert r["url"] == "https://github.com/leanprover-community/mathlib4/blob/54df8a3/Mathlib/Order/Fixture.lean#L36"
    meta = r["meta"]
    assert meta["docs_url"] == ("https://leanprover-community.github.io/mathlib4_docs/Mathlib/Order/Fixture.html"
                                "#Fixture.Order.le_trans''")
    assert (meta["lean_kind"], meta["module"], meta["attributes"]) == (
        "theorem", "Mathlib.Order.Fixture", ["simp", "nolint unusedArguments"])
    assert meta["docstring"] == "A statement over\nseveral lines."
    dense = records["mathlib:Fixture.Order.Dense"]
    assert dense["meta"]["docstring"] == r"A type is *dense* when $\forall a < b, \exists c, a < c < b$."
    assert dense["body_latex"].startswith("class Fixture.Order.Dense (α : Type u) [Preorder α] : Prop where\n")
    field = records["mathlib:Fixture.Order.Dense.exists_between"]
    assert (field["meta"]["lean_kind"], field["line"], field["meta"]["docstring"]) == (
        "field", 25, r"Between two points there is a third, $a < c < b$.")
    doc = json.loads((out / "documents.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert (doc["id"], doc["title"]) == ("mathlib-module:Mathlib.Order.Fixture", "Orders for the tests")


def test_the_commit_of_source_links_can_be_set(tmp_path: Path):
    records, _, _ = _parse(tmp_path, {"Mathlib/Order/Fixture.lean": ORDER}, lean_commit="abc1234")
    assert "/blob/abc1234/Mathlib/Order/Fixture.lean#L" in records["mathlib:rootLemma"]["url"]


def test_instances_and_to_additive_get_the_names_lean_gives(tmp_path: Path):
    records, report, _ = _parse(tmp_path, {"Mathlib/Algebra/Groups.lean": GROUPS})
    names = {i.split(":", 1)[1] for i in records}
    # As Lean: a constant named once (Widget), binders nothing depends on as `Of...`, the namespace's own type
    # hidden (Box), `_mathlib` when no constant is mathlib's (Option, Nat)
    assert {"instWidgetNat", "instWidgetBox", "instWidgetOptionOfInhabited", "instWidgetNamed", "Box.instInhabited",
            "instInhabitedOptionNat_mathlib"} <= names
    assert {"MyAddMonoid.add_zero'", "MyAddMonoid.add_self_name"} <= names
    assert not {"MyAddMonoid.already_there", "MyMonoid.add_zero'"} & names
    gen = records["mathlib:MyAddMonoid.add_zero'"]
    assert gen["body_latex"] == "theorem MyAddMonoid.add_zero' {M : Type*} [MyAddMonoid M] (a : M) : a + 0 = a"
    assert gen["line"] == records["mathlib:MyMonoid.mul_one'"]["line"]
    assert (gen["meta"]["generated"], gen["meta"]["generated_from"]) == ("to_additive", "MyMonoid.mul_one'")
    assert records["mathlib:MyAddMonoid.add_self_name"]["meta"]["docstring"] == "Adding zero twice."
    anonymous = records["mathlib:instWidgetOptionOfInhabited"]
    assert anonymous["meta"]["anonymous instance"] is True
    assert anonymous["body_latex"] == (
        "instance instWidgetOptionOfInhabited {α : Type*} [Inhabited α] : Widget (Option α)")
    assert report["lean"]["left out"] == {"other commands (notation, syntax, macros...)": 1}
    assert report["lean"]["generated or named by the library"]["to_additive: generated"] == 2



ALIASES = """namespace MyMonoid
@[to_additive] theorem mul_comm' [MyMonoid M] (a b : M) : a * b = b * a := sorry
@[to_additive] alias mul_comm'' := mul_comm'
@[to_additive] theorem mul_eq_one_iff [MyMonoid M] (a b : M) : a * b = 1 ↔ b * a = 1 := sorry
@[to_additive] alias ⟨mul_eq_one_mp, mul_eq_one_mpr⟩ := mul_eq_one_iff
end MyMonoid
"""


def test_an_additive_alias_states_what_the_additive_target_states(tmp_path: Path):
    """`@[to_additive] alias foo := bar`: Lean makes the additive foo an alias of the additive bar, so its statement
    is bar's in additive notation, and one direction of an `↔` stays that direction."""
    records, _, _ = _parse(tmp_path, {"Mathlib/Algebra/Groups.lean": GROUPS, "Mathlib/Algebra/Aliases.lean": ALIASES})
    body = {i.split(":", 1)[1]: r["body_latex"] for i, r in records.items()}
    assert body["MyAddMonoid.add_comm''"] == "theorem MyAddMonoid.add_comm'' [MyAddMonoid M] (a b : M) : a + b = b + a"
    assert body["MyAddMonoid.add_eq_zero_mp"] == (
        "theorem MyAddMonoid.add_eq_zero_mp : the → direction of theorem MyAddMonoid.add_eq_zero_iff [MyAddMonoid M] "
        "(a b : M) : a + b = 0 ↔ b + a = 0")
    assert body["MyAddMonoid.add_eq_zero_mpr"].startswith("theorem MyAddMonoid.add_eq_zero_mpr : the ← direction of ")


def test_the_module_system_hides_what_is_not_public(tmp_path: Path):
    records, report, _ = _parse(tmp_path, {"Mathlib/Logic/Private.lean": MODULE_PRIVATE})
    assert sorted(records) == ["mathlib:in_public_section", "mathlib:is_public"]
    assert report["lean"]["left out"] == {"not public (module system)": 1}


def test_a_name_a_docstring_gives_its_result_in_bold_is_its_synonym(tmp_path: Path):
    """mathlib sets the name a result is known by in bold: recorded as the declaration's synonym (an alias a search
    matches exactly); other bold words are not names."""
    source = ("theorem add_pow' : True := trivial\n\n"
              "/-- The **binomial theorem**, and **Newton's formula** for it. -/\ntheorem add_pow : True := trivial\n\n"
              "/-- A map is **injective** when **not** collapsing. -/\ndef Inj : Prop := True\n")  # fmt: skip
    records, _, _ = _parse(tmp_path, {"Mathlib/Algebra/Binomial.lean": source})
    assert records["mathlib:add_pow"]["meta"]["synonyms"] == ["binomial theorem", "Newton's formula"]
    assert "synonyms" not in records["mathlib:Inj"]["meta"] and "synonyms" not in records["mathlib:add_pow'"]["meta"]


def test_what_the_module_docstring_says_of_a_declaration_is_its_summary(tmp_path: Path):
    """A module docstring lists its main declarations, a line each: that line, and those indented under it, is the
    declaration's ``summary``; an item naming no declaration of the file, or two, gives none."""
    source = ("/-!\n# Intermediate value theorem\n\n## Main results\n\n"
              "* `intermediate_value_Icc`: the intermediate value theorem\n  for a closed interval\n"
              "* `Icc_subset`: a preconnected set holds the interval between two of its points\n"
              "* `Real.exp`: not in this file\n-/\n\n"
              "theorem intermediate_value_Icc : True := trivial\n\n"
              "theorem IsPreconnected.Icc_subset : True := trivial\n\ntheorem other : True := trivial\n")  # fmt: skip
    records, _, _ = _parse(tmp_path, {"Mathlib/Topology/IVT.lean": source})
    summary = {i.split(":", 1)[1]: r["meta"].get("summary") for i, r in records.items()}
    assert summary == {"intermediate_value_Icc": "the intermediate value theorem for a closed interval",
                       "IsPreconnected.Icc_subset": "a preconnected set holds the interval between two of its points",
                       "other": None}  # fmt: skip


def test_a_malformed_file_is_counted_and_the_rest_is_kept(tmp_path: Path):
    records, report, out = _parse(tmp_path, {"Mathlib/Bad.lean": MALFORMED, "Mathlib/Good.lean": ORDER})
    assert {"mathlib:good_before", "mathlib:good_after"} <= set(records)
    assert not {"mathlib:broken", "mathlib:swallowed"} & set(records)
    notes = sorted(n["note"] for n in report["notes"] if n["path"] == "Mathlib/Bad.lean")
    assert notes == ["line 11: unterminated comment", "line 7: bracket '(' never closes"]
    assert report["lean"]["files with problems"] == 1 and report["failed"] == []
    assert "- problems: 2" in (out / "report.md").read_text(encoding="utf-8")


def test_huge_binary_and_outside_files_fail_clearly(tmp_path: Path):
    root = _write(tmp_path / "mathlib4", {"Mathlib/Good.lean": ORDER})
    many = "".join(f"theorem t{k} : {k} = {k} := rfl\n" for k in range(20000))
    (root / "Mathlib" / "Many.lean").write_text(many, encoding="utf-8")
    (root / "Mathlib" / "Huge.lean").write_text("-- x\n" * 300_000, encoding="utf-8")
    (root / "Mathlib" / "Binary.lean").write_bytes(b"theorem \x00\x01\x02")
    outside = tmp_path / "secret.lean"
    outside.write_text("theorem secret : True := trivial\n", encoding="utf-8")
    os.symlink(outside, root / "Mathlib" / "Link.lean")
    out = tmp_path / "out"
    report = parse_sources([root], out, use_plastex=False, progress=False, max_file_bytes=1_000_000)
    failed = {f["path"]: f["reason"] for f in report.sources[0].failed}
    assert failed["Mathlib/Huge.lean"].startswith("file too large")
    assert failed["Mathlib/Binary.lean"].startswith("binary content")
    assert failed["Mathlib/Link.lean"] == "symlink points outside the source folder"
    ids = [json.loads(line)["id"] for line in (out / "theorems.jsonl").read_text(encoding="utf-8").splitlines()]
    assert "mathlib:secret" not in ids and "mathlib:t19999" in ids
    assert len([i for i in ids if i.startswith("mathlib:t") and i[9:].isdigit()]) == 20000


def test_workers_give_the_same_records(tmp_path: Path):
    files = {"Mathlib/Order/Fixture.lean": ORDER, "Mathlib/Algebra/Groups.lean": GROUPS}
    records, _, one = _parse(tmp_path / "a", files, workers=1)
    _, _, two = _parse(tmp_path / "b", files, workers=2)
    assert {"mathlib:rootLemma", "mathlib:MyAddMonoid.add_zero'", "mathlib:instWidgetNat"} <= set(records)
    assert (one / "theorems.jsonl").read_bytes() == (two / "theorems.jsonl").read_bytes()
