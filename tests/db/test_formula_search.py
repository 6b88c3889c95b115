"""Formula queries against the statements' formula keys, on a real database: a formula typed in LaTeX or ASCII
finds the statement that contains it, keys follow every write, and the look-up is an index scan."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from psycopg import sql

from theorem_rag.filters import Filters
from theorem_rag.query_understanding import understand
from theorem_rag.records import Theorem
from theorem_rag.retrieval.retriever import TheoremRetriever

from db_helpers import load, make_embedding

pytestmark = pytest.mark.db


def _thm(i: str, body: str, name: str | None = None) -> Theorem:
    return Theorem(id=f"pm:{i}", source="planetmath", kind="theorem", doc_id=f"pm:{i}", body_latex=body, name=name)


FORMULAS = [
    _thm("flt", r"If $p$ is a prime and $p \nmid a$, then $$a^{p-1} \equiv 1 \pmod{p}.$$", "Fermat's little theorem"),
    _thm("wilson", r"Wilson's theorem states that $$ (p-1)! \equiv -1 \pmod{p} $$ iff $p$ is prime."),
    _thm("basel", r"Euler proved that $$\frac{\pi^2}{6} = \zeta(2) = \sum_{i = 1}^{\infty}\frac{1}{i^2}.$$"),
    _thm("cs", r"For $x, y$ in an inner product space, $|\langle x,y\rangle|\leq \|x\|\,\|y\|$.", "Cauchy-Schwarz"),
    # Same formula, and first by id on a tie: an entry about the result still comes after the result.
    _thm("a-flt-proof", r"By Lagrange, $a^{p-1} \equiv 1 \pmod{p}$ since $|G| = p - 1$.", "proof of Fermat's little theorem"),
    _thm("prose", "Every group of prime order is cyclic, and the order of an element divides the order."),
    _thm("order", r"For a finite group $G$ and $a \in G$ we have $a^{|G|} = 1$; for $p$ prime, $p \mid |G|$."),
]  # fmt: skip


@pytest.mark.parametrize(
    "query, expected",
    [
        (r"$a^{p-1} \equiv 1 \pmod p$", "pm:flt"),
        ("a^(p-1) = 1 mod p", "pm:flt"),
        ("(p-1)! = -1 mod p", "pm:wilson"),
        (r"$\sum_{n=1}^\infty \frac{1}{n^2} = \frac{\pi^2}{6}$", "pm:basel"),
        ("sum 1/n^2 = pi^2/6", "pm:basel"),
        ("|<x,y>| <= ||x|| ||y||", "pm:cs"),
    ],
)
def test_a_formula_query_finds_the_statement_with_that_formula(store, query, expected):
    store.upsert_theorems(FORMULAS)
    hits = store.search_formula(understand(query).formula_keys, k=3)
    assert hits and hits[0].theorem_id == expected, [(h.theorem_id, h.score) for h in hits]
    assert "pm:prose" not in {h.theorem_id for h in hits}  # no formula, no formula match


def _lean(name: str, statement: str, docstring: str = "", lean_kind: str = "theorem") -> Theorem:
    kind = "theorem" if lean_kind == "theorem" else "definition"
    return Theorem(id=f"mathlib:{name}", source="mathlib", kind=kind, doc_id="mathlib-module:M", name=name,
                   body_latex=statement, meta={"language": "lean", "lean_kind": lean_kind, "docstring": docstring})


DECLARATIONS = [
    _lean("geom_sum_eq", "theorem geom_sum_eq {K : Type*} [DivisionRing K] {x : K} (h : x ≠ 1) (n : ℕ) : "
                         "∑ i ∈ range n, x ^ i = (x ^ n - 1) / (x - 1)"),
    _lean("ZMod.pow_card_sub_one_eq_one", "theorem ZMod.pow_card_sub_one_eq_one {p : ℕ} [Fact p.Prime] {a : ZMod p} "
                                          "(ha : a ≠ 0) : a ^ (p - 1) = 1"),
    _lean("sum_inv_sq", "theorem sum_inv_sq : HasSum (fun n : ℕ => 1 / (n : ℝ) ^ 2) (π ^ 2 / 6)",
          "Euler's $\\sum_{n=1}^\\infty \\frac{1}{n^2} = \\frac{\\pi^2}{6}$."),
    _lean("EuclideanDomain", "class EuclideanDomain (R : Type u) extends CommRing R where\n"
                             "quotient : R → R → R\nremainder : R → R → R\n"
                             "quotient_mul_add_remainder_eq : ∀ a b,\n  b * quotient a b + remainder a b = a",
          lean_kind="class"),
]  # fmt: skip


@pytest.mark.parametrize("query, expected", [
    (r"$\sum_{i=0}^{n-1} x^i = \frac{x^n-1}{x-1}$ for $x \neq 1$", "mathlib:geom_sum_eq"),
    (r"$a^{p-1} = 1$ when $a \neq 0$", "mathlib:ZMod.pow_card_sub_one_eq_one"),
    ("`(p - 1)! ≡ -1 [ZMOD p]`", "pm:wilson"),
    ("`∀ a b, b * q a b + r a b = a`", "mathlib:EuclideanDomain"),  # a class's fields state propositions too
])  # fmt: skip
def test_a_formula_in_latex_finds_a_lean_declaration_and_lean_finds_latex(store, query, expected):
    """Lean's notation is read into the symbols LaTeX's control words read as (``≤`` and ``\\le``, ``x ^ (n + 1)``
    and ``x^{n+1}``), so one formula ranking serves both worlds; a declaration's formulas are its hypotheses and
    its type, its variables and classes (``{K : Type*}``, ``[DivisionRing K]``) none."""
    store.upsert_theorems(FORMULAS + DECLARATIONS)
    hits = store.search_formula(understand(query).formula_keys, k=3)
    assert hits and hits[0].theorem_id == expected, [(h.theorem_id, h.score) for h in hits]


def test_a_declarations_docstring_formulas_are_keys_too(store):
    store.upsert_theorems(DECLARATIONS)
    hits = store.search_formula(understand("sum 1/n^2 = pi^2/6").formula_keys, k=3)
    assert hits[0].theorem_id == "mathlib:sum_inv_sq"


def test_keys_follow_writes_and_filters_apply(store):
    store.upsert_theorems(FORMULAS)
    keys = understand("(p-1)! = -1 mod p").formula_keys
    assert store.search_formula(keys, k=1)[0].theorem_id == "pm:wilson"
    # The statement rewritten without its formula: its keys go with it.
    changed = Theorem(**{**FORMULAS[1].to_dict(), "body_latex": "Wilson's theorem: a congruence for factorials."})
    store.upsert_theorems([changed])
    assert "pm:wilson" not in {h.theorem_id for h in store.search_formula(keys, k=5)}
    # Filters narrow formula matches as they do every other ranking.
    flt_keys = understand("a^(p-1) = 1 mod p").formula_keys
    assert store.search_formula(flt_keys, k=5, filters={"source": ["stacks"]}) == []
    # A query without formulas has no keys and finds nothing this way.
    assert understand("every group of prime order is cyclic").formula_keys == ()
    assert store.search_formula((), k=5) == []


def test_copy_path_writes_keys_too(store):
    store.copy_theorems(FORMULAS)
    assert store.search_formula(understand("a^(p-1) = 1 mod p").formula_keys, k=1)[0].theorem_id == "pm:flt"


def test_formula_look_up_uses_the_index(store):
    from theorem_rag.db import lexical_sql

    store.upsert_theorems(FORMULAS)
    keys = list(understand("a^(p-1) = 1 mod p").formula_keys)
    query, params = lexical_sql.formula_search(store.names, keys, [1.0] * len(keys), Filters(), 5)
    with store.connection() as conn:
        # The table is tiny: ask whether the GIN index can serve the join, one bitmap look-up per key.
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_indexscan = off")
        plan = json.dumps(conn.execute(sql.SQL("EXPLAIN (FORMAT JSON) ") + query, params).fetchone()[0])
    assert f"{store.names.theorems}_formula" in plan


def test_the_retriever_fuses_formula_matches(store):
    load(store)  # six statements with vectors and slogans, none with a formula of the query
    store.upsert_theorems(FORMULAS)  # no vectors: only the formula ranking can bring these in
    query = "(p-1)! = -1 mod p"
    ids = [h.theorem_id for h in TheoremRetriever(store, make_embedding(), space="toy", k=12, pool=20).search(query)]
    assert "pm:wilson" in ids and "pm:flt" in ids and ids.index("pm:wilson") < ids.index("pm:flt")
    plain = TheoremRetriever(store, make_embedding(), space="toy", k=12, pool=20, understand=False).search(query)
    assert "pm:wilson" not in {h.theorem_id for h in plain}


@contextmanager
def executed_plans(store) -> Iterator[list[dict]]:
    """The plans of the statements run on ``store`` inside the block, as PostgreSQL's auto_explain reports them:
    what the planner chose under the settings the code under test makes, none added (auto_explain only logs)."""
    plans: list[dict] = []

    def keep(diag) -> None:
        message = diag.message_primary or ""
        if "{" in message:
            plans.append(json.loads(message[message.index("{"):])["Plan"])

    with store.pinned(), store.connection() as conn:
        conn.execute("LOAD 'auto_explain'")
        conn.execute("SET auto_explain.log_format = json")
        conn.execute("SET auto_explain.log_level = notice")  # to this client, not the server's log
        conn.add_notice_handler(keep)
        conn.execute("SET auto_explain.log_min_duration = 0")
        try:
            yield plans
        finally:
            conn.execute("RESET auto_explain.log_min_duration")
            conn.remove_notice_handler(keep)


def plan_nodes(plan: dict) -> Iterator[dict]:
    """Every node of a JSON plan, depth first."""
    yield plan
    for child in plan.get("Plans", []):
        yield from plan_nodes(child)


def test_a_formula_query_of_many_keys_looks_each_key_up_in_the_index(store):
    """On a table of realistic size, analyzed as autovacuum would: the plans the search runs, under the one setting
    it makes itself (no sequential scan, for its transaction) and none from the test, read the statements through
    the formula index, key by key, never the whole table. Joined to the keys directly, the planner read every
    statement and tested each key against it (4.4 s on the quickstart's index; here, with sequential scans off, a
    full scan of the primary key with the keys as a join filter)."""
    bodies = [
        r"For every $n \geq {i}$ we have $a_{{n}}^{{{i}}} + b_{{n}} \leq c \cdot n^{{{i}}} - \log n$.",
        r"If $x \in X_{{{i}}}$ then $f(x + {i}) = g(x)^{{2}} \bmod {i}$ and $\sum_{{k \le {i}}} x_k = 0$.",
        r"Let $G$ be a group of order $p^{{{i}}} q$; then $|G : H| \mid {i}$ and $\mathrm{{rk}}(G) \le {i}$.",
    ]
    store.upsert_theorems([_thm(f"m{i}", bodies[i % 3].format(i=i)) for i in range(6000)])
    query_text = r"$a_n^{7} + b_n \leq c \cdot n^{7} - \log n$ and $f(x + 7) = g(x)^2 \bmod 7$, $|G : H| \mid 7$"
    keys = list(understand(query_text).formula_keys)
    assert len(keys) >= 40
    table = store.names.theorems
    with store.connection() as conn:
        conn.execute(sql.SQL("ANALYZE {t}").format(t=sql.Identifier(table)))
    with executed_plans(store) as plans, store.connection() as conn:
        hits = store.search_formula(keys, k=3)
        assert conn.execute("SHOW enable_seqscan").fetchone()[0] == "on"  # the setting ends with the search
    assert hits[0].theorem_id == "pm:m7" and 0 < hits[0].score <= 1.0
    nodes = [node for plan in plans for node in plan_nodes(plan)]
    reads = [(n["Node Type"], n.get("Index Name"), n.get("Index Cond"))
             for n in nodes if n.get("Relation Name") == table]  # fmt: skip
    # a read of the statements without an index condition reads every one: a sequential or a full index scan
    assert reads and all(kind == "Bitmap Heap Scan" or cond for kind, _, cond in reads), reads
    assert any(n.get("Index Name") == f"{table}_formula" for n in nodes), reads
