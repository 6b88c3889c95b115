"""Uses / used by for Lean: the declarations a proof or body names, resolved as Lean resolves names, become the
records' ``proof_refs`` (tests/fixtures/lean: two small modules whose proofs name each other)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus_build.lean.refs import Library, mentions
from corpus_build.parse import parse_sources

LEAN = Path(__file__).resolve().parents[1] / "fixtures" / "lean"


@pytest.fixture(scope="module")
def parsed(tmp_path_factory) -> tuple[dict[str, dict], dict]:
    out = tmp_path_factory.mktemp("lean-refs")
    parse_sources([LEAN], out, use_plastex=False, progress=False)
    records = [json.loads(line) for line in (out / "theorems.jsonl").read_text(encoding="utf-8").splitlines()]
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))["sources"][0]
    return {r["id"]: r for r in records}, report


def _refs(records: dict[str, dict]) -> dict[str, list[str]]:
    return {i.split(":", 1)[1]: [r.split(":", 1)[1] for r in rec["proof_refs"]]
            for i, rec in records.items() if rec["proof_refs"]}  # fmt: skip


def test_names_resolve_through_namespaces_opens_root_and_protection(parsed):
    records, _ = parsed
    refs = _refs(records)
    assert refs["Fix.Prime.one_lt"] == ["Fix.Prime.two_le"]  # `Prime.two_le` in namespace Fix
    assert refs["Fix.Prime.three_le_or"] == ["Fix.Prime.two_le"]  # declared as Fix.Prime.x: read inside Fix.Prime
    assert refs["Fix.Prime.ne_zero"] == ["Fix.Prime.pos"]  # protected, named with a dot
    assert "Fix.Prime.pos_again" not in refs  # protected, `pos` alone does not reach it
    assert refs["opened"] == ["Fix.Prime.one_lt"]  # `open Fix`
    assert refs["by_term"] == ["Fix.ext"]
    assert refs["from_root"] == ["trivial_fact"]  # `_root_.trivial_fact`
    assert refs["projection"] == ["prime_two"]  # `prime_two.two_le`: `.two_le` needs the type of prime_two
    assert refs["Fix.Prime.not_in_comments_or_strings"] == ["Fix.Prime.two_le"]  # `@Fix.Prime.two_le`
    assert refs["two_le_of_prime"] == ["Fix.Prime.two_le"]  # an alias uses its target
    # ids of records of the same source, as LaTeX proof references are
    assert all(r in records for rec in records.values() for r in rec["proof_refs"])


def test_locals_tactics_fields_comments_and_the_declaration_itself_are_not_references(parsed):
    records, _ = parsed
    refs = _refs(records)
    # a binder named like a declaration (`two_le`, and `prime_two`, `fib` bound in a tactic proof), the `ext`
    # tactic (not Fix.ext), fields defined in a `where` body (`one_lt n := ...`), names in comments and strings, a
    # dotted access on a local hypothesis (`hp.two_le`), a recursive call
    for name in ["Fix.Prime.shadowed", "bound_in_the_proof", "by_tactic", "Fix.Prime.bounds", "local_projection",
                 "fib", "Fix.Prime.pos", "prime_two"]:  # fmt: skip
        assert name not in refs, (name, refs.get(name))
    assert set(refs) == {"Fix.Prime.one_lt", "Fix.Prime.three_le_or", "Fix.Prime.ne_zero", "opened", "by_term",
                         "from_root", "projection", "Fix.Prime.not_in_comments_or_strings", "two_le_of_prime"}


def test_the_report_counts_declarations_with_references_and_references(parsed):
    _, report = parsed
    assert report["lean"]["names a proof or body uses, resolved"] == {"declarations with references": 9,
                                                                      "references": 9}  # fmt: skip
    assert report["refs_resolved"] == 9


def test_a_name_under_a_namespace_the_library_lacks_is_no_projection():
    lib = Library({"Equiv", "Equiv.symm", "Nat.prime_two"})
    # `@[simps]` makes Equiv.Set.image_apply, which the text does not declare: not a field of the type Equiv
    assert lib.resolve("Equiv.Set.image_apply", "", ()) == ()
    assert lib.resolve("Nat.prime_two.two_le", "", ()) == ("Nat.prime_two",)
    assert mentions("(h.trans Nat.prime_two.two_le).le", {"h"}) == ("Nat.prime_two.two_le",)
