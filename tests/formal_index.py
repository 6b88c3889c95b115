"""A few Lean 4 declarations (written as the Lean adapter writes mathlib's records) beside a few LaTeX statements,
for the Lean query, name and formal filter tests; and a real ``TheoremSearch`` over them for the surfaces.

The declarations are real mathlib ones, chosen so that names share their ends (``Nat.Prime.two_le`` and
``IsPrimePow.two_le`` end with ``two_le``; ``Nat.two_le_iff``, ``Nat.two_le_radical_iff`` and others only hold it,
some saying "2 ≤" twice) and the LaTeX statements say the same things in LaTeX (a prime is at least 2, a divisor is
at most the number, join and multiplication commute).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from theorem_rag.records import Document, Theorem

MODULES = {"prime": "Mathlib.Data.Nat.Prime.Defs", "lattice": "Mathlib.Order.Lattice",
           "group": "Mathlib.Algebra.Group.Defs"}  # fmt: skip
# full name -> (Lean kind, statement, module key, docstring)
DECLARATIONS = {
    "Nat.Prime": ("def", "def Nat.Prime (p : ℕ) : Prop", "prime",
                  "`Nat.Prime p` means that `p` is a prime number, that is, a natural number at least 2 whose only "
                  "divisors are `p` and `1`."),
    "Nat.Prime.two_le": ("theorem", "theorem Nat.Prime.two_le : ∀ {p : ℕ}, Prime p → 2 ≤ p", "prime", ""),
    "Nat.Prime.one_lt": ("theorem", "theorem Nat.Prime.one_lt {p : ℕ} (hp : p.Prime) : 1 < p", "prime", ""),
    "Nat.Prime.five_le_of_ne_two_of_ne_three": (
        "theorem", "theorem Nat.Prime.five_le_of_ne_two_of_ne_three {p : ℕ} (hp : p.Prime) (h_two : p ≠ 2) "
                   "(h_three : p ≠ 3) : 5 ≤ p", "prime", ""),
    "Nat.two_le_iff": ("lemma", "lemma Nat.two_le_iff {n : ℕ} : 2 ≤ n ↔ n ≠ 0 ∧ n ≠ 1", "prime", ""),
    "Nat.two_le_radical_iff": ("lemma", "lemma Nat.two_le_radical_iff {n : ℕ} : 2 ≤ radical n ↔ 2 ≤ n", "prime", ""),
    "Nat.two_le_of_mem_primesBelow": (
        "lemma", "lemma Nat.two_le_of_mem_primesBelow {p n : ℕ} (hp : p ∈ primesBelow n) : 2 ≤ p", "prime", ""),
    "IsPrimePow.two_le": ("theorem", "theorem IsPrimePow.two_le {n : ℕ} (hn : IsPrimePow n) : 2 ≤ n", "prime", ""),
    "Nat.le_of_dvd": ("theorem", "theorem Nat.le_of_dvd {m n : ℕ} (h1 : 0 < n) : m ∣ n → m ≤ n", "prime", ""),
    "sup_comm": ("theorem", "theorem sup_comm {α : Type u} [SemilatticeSup α] (a b : α) : a ⊔ b = b ⊔ a",
                 "lattice", ""),
    "mul_comm": ("theorem", "theorem mul_comm {G : Type*} [CommMagma G] (a b : G) : a * b = b * a", "group", ""),
    "Nat.mul_comm": ("theorem", "theorem Nat.mul_comm : ∀ (n m : ℕ), n * m = m * n", "group", ""),
    "mul_comm_div": ("theorem", "theorem mul_comm_div {α : Type*} [DivisionCommMonoid α] (a b c : α) : "
                                "a / b * c = a * (c / b)", "group", ""),
}  # fmt: skip
LATEX = {
    "planetmath:PrimesAreAtLeastTwo": ("primes are at least two", "theorem",
                                       r"Every prime number $p$ satisfies $p \geq 2$."),
    "planetmath:DivisorBound": ("divisor bound", "theorem", r"If $a \mid b$ and $b > 0$ then $a \le b$."),
    "planetmath:JoinIsCommutative": ("join is commutative", "theorem", r"In a lattice, $a \vee b = b \vee a$."),
    "planetmath:Multiplication": ("commutativity of multiplication", "theorem",
                                  r"Multiplication of integers is commutative: $ab = ba$ for all $a, b$."),
    "planetmath:PrimeNumber": ("prime number", "definition",
                               r"A natural number $p > 1$ is prime if its only divisors are $1$ and $p$."),
}  # fmt: skip
LEAN_IDS = sorted(f"mathlib:{name}" for name in DECLARATIONS)
LATEX_IDS = sorted(LATEX)
_BUILT: dict[str, object] = {}


def _lean_record(name: str) -> Theorem:
    lean_kind, statement, module, doc = DECLARATIONS[name]
    return Theorem(id=f"mathlib:{name}", source="mathlib", kind="definition" if lean_kind == "def" else lean_kind,
                   body_latex=statement, doc_id=f"mathlib-module:{MODULES[module]}", name=name, label=name,
                   meta={"language": "lean", "lean_kind": lean_kind, "module": MODULES[module], "docstring": doc,
                         "namespace": name.rpartition(".")[0]})  # fmt: skip


def records() -> tuple[list[Theorem], list[Document]]:
    """The declarations and statements, and their documents (a Lean module each, one PlanetMath document)."""
    theorems = [_lean_record(name) for name in DECLARATIONS] + [
        Theorem(id=tid, source="planetmath", kind=kind, body_latex=body, doc_id="planetmath:elementary", name=name)
        for tid, (name, kind, body) in LATEX.items()
    ]  # fmt: skip
    documents = [Document(id=f"mathlib-module:{m}", source="mathlib", title=m, license="Apache-2.0",
                          meta={"module": m, "language": "lean"}) for m in MODULES.values()]  # fmt: skip
    documents.append(Document(id="planetmath:elementary", source="planetmath", title="Elementary facts"))
    return theorems, documents


def write_record_folders(root: Path) -> None:
    """The records as two folders of ``theorem-rag corpus parse`` output under ``root``: ``latex`` (the LaTeX
    statements) and ``lean`` (the declarations), for builds that add mathlib after the LaTeX corpora."""
    theorems, documents = records()
    lean_docs = {d.id for d in documents if d.meta.get("language") == "lean"}
    for name, part in (("latex", [t for t in theorems if t.doc_id not in lean_docs]),
                       ("lean", [t for t in theorems if t.doc_id in lean_docs])):  # fmt: skip
        folder = root / name
        folder.mkdir()
        docs = {t.doc_id for t in part}
        (folder / "theorems.jsonl").write_text("".join(json.dumps(t.to_dict()) + "\n" for t in part))
        (folder / "documents.jsonl").write_text("".join(json.dumps(d.to_dict()) + "\n" for d in documents
                                                        if d.id in docs))  # fmt: skip


def formal_search(dsn: str):
    """A ``TheoremSearch`` over the records in the database at ``dsn`` (own table prefix), indexed with the bundled
    MiniLM model and the offline slogan writer; built once per DSN."""
    if dsn in _BUILT:
        return _BUILT[dsn]
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.db.table_names import space_name
    from theorem_rag.embed import Embedder
    from theorem_rag.indexing.ingest import build_index
    from theorem_rag.search import TheoremSearch
    from theorem_rag.slogans.offline import OfflineSloganWriter

    store = TheoremStore(dsn, table=f"formal_{uuid.uuid4().hex[:8]}")
    embedder = Embedder()
    space = space_name(embedder.model_name, "slogan")
    theorems, documents = records()
    build_index(store, embedder, theorems, documents, writer=OfflineSloganWriter(), space=space, progress=False)
    _BUILT[dsn] = TheoremSearch(store, embedder, space=space, k=10, max_k=50)
    return _BUILT[dsn]
