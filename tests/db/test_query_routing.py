"""Query understanding against the real store: each rule changes the ranking it should, and only with it on.

Hand-written statements and a digest embedding that knows nothing about words, so only the rules (and full-text
search) can bring the right statement first; every test also checks that the same query without query
understanding does not.
"""

from __future__ import annotations

import json

import pytest

from db_helpers import DIM, make_embedding, text_vector
from theorem_rag.records import Document, Theorem
from theorem_rag.retrieval.retriever import TheoremRetriever

pytestmark = pytest.mark.db

DOCS = [
    Document(id="nt", source="planetmath", title="Number theory"),
    Document(id="top", source="planetmath", title="Topology"),
    Document(id="sag", source="papers", title="A Foundation for Synthetic Algebraic Geometry",
             url="https://arxiv.org/abs/2307.00073", meta={"arxiv_id": "2307.00073"}),
]  # fmt: skip
THEOREMS = [
    Theorem(id="crt", source="planetmath", kind="theorem", doc_id="nt", name="Chinese remainder theorem",
            body_latex="If $m, n$ are coprime then $\\mathbb{Z}/mn \\cong \\mathbb{Z}/m \\times \\mathbb{Z}/n$."),
    Theorem(id="flt", source="planetmath", kind="theorem", doc_id="nt", name="Fermat's little theorem",
            body_latex="If $p$ is prime and $p \\nmid a$ then $a^{p-1} \\equiv 1 \\pmod p$."),
    Theorem(id="nak", source="stacks", kind="lemma", doc_id="nt", name="Nakayama's lemma",
            body_latex="Let $M$ be a finite module with $IM = M$ ..."),
    Theorem(id="metric-def", source="planetmath", kind="definition", doc_id="top", name="metric space",
            body_latex="A metric space is a set $X$ with a distance function $d$ ..."),
    Theorem(id="metric-thm", source="planetmath", kind="theorem", doc_id="top", name="metric spaces are Hausdorff",
            body_latex="Every metric space is a Hausdorff space; a metric space metric space is normal."),
    Theorem(id="sag:1", source="papers", kind="definition", doc_id="sag", number="1.1", file="a.tex", line=1,
            body_latex="A scheme is a type with a cover by open affines."),
    Theorem(id="sag:2", source="papers", kind="lemma", doc_id="sag", number="1.2", file="a.tex", line=9,
            body_latex="Open subschemes of affine schemes are schemes."),
] + [
    Theorem(id=f"filler{i}", source="stacks", kind="lemma", doc_id="nt", body_latex=f"Filler statement {i} about rings.")
    for i in range(12)
]  # fmt: skip
SLOGANS = {
    # What the slogans' LaTeX reader makes of the formula: the digest embedding of the same text is the same vector.
    "flt": "a p-1 equivalent to 1 modulo p",
    "crt": "Chinese remainder theorem: coprime moduli give a product of rings.",
}


def _load(store):
    store.upsert_documents(DOCS)
    store.upsert_theorems(THEOREMS, slogans=SLOGANS)
    store.vector_space("toy", DIM)
    store.write_vectors("toy", [t.id for t in THEOREMS], [text_vector(SLOGANS.get(t.id, t.body_latex)) for t in THEOREMS])
    store.build_index("toy")


def _index(store, docs, theorems):
    """Documents and statements (no slogans) with the digest vectors of their statements, index built."""
    store.upsert_documents(docs)
    store.upsert_theorems(theorems)
    store.vector_space("toy", DIM)
    store.write_vectors("toy", [t.id for t in theorems], [text_vector(t.body_latex) for t in theorems])
    store.build_index("toy")


@pytest.fixture
def retrievers(store):
    _load(store)
    on = TheoremRetriever(store, make_embedding(), space="toy", k=5, pool=20)
    return on, on.with_options(understand=False)


def _top(retriever, query):
    hits = retriever.search(query)
    return hits[0].theorem_id if hits else None


@pytest.mark.parametrize("query, expected", [
    ("CRT", "crt"),                                   # acronym expanded
    ("théorème chinois des restes", "crt"),           # French name through the glossary
    ("Chinesischer Restsatz", "crt"),                 # German compound
    ("a^(p-1) = 1 mod p", "flt"),                     # ASCII math read as the slogans read LaTeX
    ("what is a metric space", "metric-def"),         # the definition first
    ("2307.00073", "sag:1"),                          # arXiv id: the paper's statements, in source order
    ("A foundation for synthetic algebraic geometry", "sag:1"),  # the paper's title
    ("Nakayma lemma", "nak"),                         # did you mean (pg_trgm)
])  # fmt: skip
def test_each_rule_brings_the_right_statement_first(retrievers, query, expected):
    on, off = retrievers
    assert _top(on, query) == expected
    # Without the rule (and with rank fusion alone: on this toy index the scores' margins also find Fermat's little
    # theorem for the ASCII formula without its reading) the statement is not first.
    assert _top(off.with_options(fusion="ranks"), query) != expected


def test_a_bare_term_puts_its_definition_first_and_statements_keep_their_order(retrievers):
    on, off = retrievers
    assert [h.theorem_id for h in on.search("metric spaces")][0] == "metric-def"
    # A statement asks for the result: the definition of its words goes after the other statements, which keep
    # their order.
    statement = "every metric space is a Hausdorff space"
    before, after = (r.search(statement, k=20) for r in (off, on))
    kinds = [h.theorem.kind for h in after]
    assert "definition" in kinds and kinds == sorted(kinds, key=lambda k: k == "definition")  # definitions last
    assert [h.theorem_id for h in before][1] == "metric-def"  # second without the rule
    others = [[h.theorem_id for h in hits if h.theorem.kind != "definition"] for hits in (before, after)]
    assert others[0] == others[1]


def test_lookups(store):
    _load(store)
    assert store.definitions_named("metric spaces", exact=True) == ["metric-def"]
    assert store.definitions_named("space", exact=True) == []
    assert store.documents_by_identifier("2307.00073", None) == ["sag"]
    assert store.documents_by_identifier(None, "10.1/none") == []
    assert store.similar_names("nakayma lemma")[0][0] == "Nakayama's lemma"


def test_did_you_mean_respells_the_query_and_drops_none_of_its_words(store):
    """The closest name is suggested (and searched) only as a respelling: "metric space" is close to "Lipschitz metric
    space" by trigrams, but leaves out a word the user typed."""
    from theorem_rag.retrieval.routing import close_name

    _load(store)
    assert close_name(store, "Nakayma lemma") == "Nakayama's lemma"
    assert store.similar_names("lipschitz metric space")[0][0] == "metric space"
    assert close_name(store, "lipschitz metric space") is None


def test_hits_carry_confidence_and_evidence(retrievers):
    on, _ = retrievers
    hits = on.search("Chinese remainder theorem")
    assert hits[0].theorem_id == "crt" and hits[0].named and hits[0].cosine is not None
    assert all(0 <= h.confidence <= 1 for h in hits) and hits[0].confidence > hits[-1].confidence


def test_words_no_statement_contains_discount_the_confidence(retrievers):
    from theorem_rag.retrieval.confidence import hit_confidence

    on, _ = retrievers
    # "rings" is in the fillers; "chocolate" and "cookies" are in no statement: two of the three words unknown.
    assert on.store.unknown_share(["chocolate rings cookies"]) == pytest.approx(2 / 3)
    assert on.store.unknown_share(["chocolate rings cookies", "Nakayama lemma"]) == 0.0  # the best text counts
    assert on.store.unknown_share(["the of"]) == 0.0  # no indexed word: nothing to judge by
    hits = on.search("chocolate rings cookies")
    top = hits[0]
    assert top.unknown == pytest.approx(0.6667)
    lexical = top.lexical_rank is not None and top.lexical_rank <= 10
    plain = hit_confidence(top.cosine, lexical, top.named, dense_lead=top.dense_lead, lexical_lead=top.lexical_lead)
    assert top.confidence == pytest.approx(plain * (1 - 0.6667), abs=1e-3)
    # An acronym whose expansion the index knows is not unknown ("CRT" itself is in no statement).
    assert on.store.unknown_share(["CRT"]) == 1.0 and on.search("CRT")[0].unknown == 0.0


def test_a_name_query_puts_the_statement_before_exercises_and_entries_about_it(store):
    docs = [Document(id="an", source="planetmath", title="Analysis"), Document(id="nb", source="napkin", title="Napkin")]
    theorems = [
        # The exercise repeats the name, so full-text search ranks it first without the rule.
        Theorem(id="ex", source="napkin", kind="exercise", doc_id="nb", name="Banach fixed point theorem",
                body_latex="Prove the Banach fixed point theorem: Banach, fixed point, fixed point, Banach."),
        Theorem(id="cor", source="planetmath", kind="theorem", doc_id="an", name="corollary of Banach fixed point theorem",
                body_latex="A corollary of the Banach fixed point theorem on fixed point iteration."),
        Theorem(id="thm", source="planetmath", kind="theorem", doc_id="an", name="Banach fixed point theorem",
                body_latex="A contraction of a complete metric space has a unique fixed point."),
        Theorem(id="other", source="planetmath", kind="lemma", doc_id="an", name="Zorn's lemma",
                body_latex="Every chain has an upper bound: fixed point theorem Banach remark."),
    ]  # fmt: skip
    _index(store, docs, theorems)
    on = TheoremRetriever(store, make_embedding(), space="toy", k=4, pool=10)
    off = on.with_options(understand=False)
    before = [h.theorem_id for h in off.search("banach fixed point")]
    after = [h.theorem_id for h in on.search("banach fixed point")]
    assert before.index("thm") > 0 and before.index("thm") > before.index("ex")
    assert after[0] == "thm"
    # Only the hits named with every query word move, among their own places; the rest keep theirs.
    assert {i for i, x in enumerate(after) if x == "other"} == {i for i, x in enumerate(before) if x == "other"}
    assert after.index("ex") > after.index("thm") and after.index("cor") > after.index("thm")
    assert on.search("banach fixed point", k=1)[0].theorem_id == "thm"  # the same first hit whatever k is


DESCRIPTION = "the supremum of a nonnegative submartingale is bounded by its final value"


def test_a_description_finds_the_statement_before_the_entries_about_it(store):
    docs = [Document(id="pr", source="planetmath", title="Probability"),
            Document(id="nb", source="napkin", title="Napkin")]  # fmt: skip
    theorems = [
        # The proof is the description word for word (the same digest vector) and the exercise repeats its words,
        # so they rank before the statements without the rule.
        Theorem(id="proof", source="planetmath", kind="remark", doc_id="pr", name="proof of Doob's maximal inequality",
                body_latex=DESCRIPTION),
        Theorem(id="ex", source="napkin", kind="exercise", doc_id="nb", name=None,
                body_latex="Show that the supremum of a nonnegative submartingale is bounded by its final value, "
                           "supremum bounded."),
        Theorem(id="thm", source="planetmath", kind="theorem", doc_id="pr", name="Doob's maximal inequality",
                body_latex="If $X \\ge 0$ is a submartingale then "
                           "$\\|\\sup_{s \\le t} X_s\\|_p \\le \\frac{p}{p-1} \\|X_t\\|_p$."),
        Theorem(id="other", source="planetmath", kind="lemma", doc_id="pr", name="optional stopping",
                body_latex="A bounded stopping time of a submartingale: supremum, bounded, nonnegative."),
    ]  # fmt: skip
    _index(store, docs, theorems)
    on = TheoremRetriever(store, make_embedding(), space="toy", k=4, pool=10)
    query = DESCRIPTION
    before = [h.theorem_id for h in on.with_options(understand=False).search(query)]
    assert before.index("thm") > before.index("proof") and before.index("other") > before.index("ex")
    after = [h.theorem_id for h in on.search(query)]
    # The statements first, each group in its own order; the entries about a result after them.
    statements = [x for x in before if x in ("thm", "other")]
    assert after == statements + [x for x in before if x in ("proof", "ex")]
    assert on.search(query, k=1)[0].theorem_id == after[0]  # the same first hit whatever k is


def test_a_description_lifts_its_statement_over_the_entries_about_results_among_its_first_30(store):
    """Fourteen exercises that repeat the description put the statement last without the rule (the statement shares
    no word with it); the about tie-break reads the first ABOUT_DEPTH (30) places, so it comes first, from beyond
    the first 10 as well."""
    docs = [Document(id="nb", source="napkin", title="Napkin")]
    exercises = [Theorem(id=f"ex{i}", source="napkin", kind="exercise", doc_id="nb", body_latex=f"Show: {DESCRIPTION}.")
                 for i in range(14)]  # fmt: skip
    statement = Theorem(id="thm", source="napkin", kind="theorem", doc_id="nb", name="Doob's maximal inequality",
                        body_latex="Doob: an estimate for martingales in $L^p$.")  # fmt: skip
    _index(store, docs, [*exercises, statement])
    on = TheoremRetriever(store, make_embedding(), space="toy", k=20, pool=40)
    before = [h.theorem_id for h in on.with_options(understand=False).search(DESCRIPTION)]
    assert before.index("thm") == 14
    assert [h.theorem_id for h in on.search(DESCRIPTION)][0] == "thm"
    assert on.search(DESCRIPTION, k=1)[0].theorem_id == "thm"  # whatever k is


def test_among_statements_named_alike_the_entry_devoted_to_the_result_comes_first(store):
    docs = [Document(id="book", source="lebl-ra", title="Basic Analysis"),
            Document(id="entry", source="planetmath", title="mean-value theorem")]  # fmt: skip
    theorems = [
        # The book's statement repeats the words, so full-text search ranks it first without the rule.
        Theorem(id="book:mvt", source="lebl-ra", kind="theorem", doc_id="book", name="Mean value theorem",
                body_latex="Mean value theorem: the mean value of a derivative, mean value, value theorem."),
        Theorem(id="pm:mvt", source="planetmath", kind="theorem", doc_id="entry", name="mean-value theorem",
                body_latex="If $f$ is continuous on $[a,b]$ and differentiable on $(a,b)$ then $f(b)-f(a) = f'(c)(b-a)$."),
        Theorem(id="pm:other", source="planetmath", kind="lemma", doc_id="book", name="Rolle's theorem",
                body_latex="A differentiable function with equal values at the ends has a critical point."),
    ]  # fmt: skip
    _index(store, docs, theorems)
    on = TheoremRetriever(store, make_embedding(), space="toy", k=3, pool=10)
    before = [h.theorem_id for h in on.with_options(understand=False).search("mean value theorem")]
    assert before.index("book:mvt") < before.index("pm:mvt")
    assert on.search("mean value theorem")[0].theorem_id == "pm:mvt"
    # The acronym's expansion names the result: the same order for "MVT".
    assert on.search("MVT")[0].theorem_id == "pm:mvt"


@pytest.mark.parametrize("exact", [True, False])
def test_definition_look_up_is_served_by_indexes_not_a_scan_of_every_definition(store, exact):
    import json

    from psycopg import sql

    from theorem_rag.db import lookup_sql
    from theorem_rag.filters import Filters

    _load(store)
    assert store.definitions_named("metric space", exact=exact)[:1] == ["metric-def"]
    query, params = lookup_sql.definitions_named(store.names, "metric space", exact=exact, filters=Filters(), k=5)
    with store.connection() as conn:
        # A tiny table: ask whether every arm of the condition can use an index (the old one checked each alias).
        conn.execute("SET enable_seqscan = off")
        plan = json.dumps(conn.execute(sql.SQL("EXPLAIN (FORMAT JSON) ") + query, params).fetchone()[0])
    assert "Seq Scan" not in plan and "BitmapOr" in plan


def _rows_from(plan: dict, relation: str) -> float:
    """Rows the scans of ``relation`` returned in an EXPLAIN ANALYZE plan (JSON), over all loops."""
    node = plan.get("Plan", plan)
    own = node.get("Actual Rows", 0) * node.get("Actual Loops", 1) if node.get("Relation Name") == relation else 0
    return own + sum(_rows_from(child, relation) for child in node.get("Plans", []))


def test_an_alias_is_looked_up_by_its_own_index_not_by_its_words(store):
    """Hundreds of definitions have the word "iff" in their text; one records "IFF" as an alias, one the stop word
    "NOR": each look-up reads the statements with that alias, not the ones with its words, and needs no scan."""
    from psycopg import sql

    from theorem_rag.db import lookup_sql
    from theorem_rag.filters import Filters

    docs = [Document(id="d", source="a")]
    wordy = [Theorem(id=f"w{i:03d}", source="a", kind="definition", doc_id="d", name=f"Property {i}",
                     body_latex=f"A ring $R_{i}$ is good iff it is neither bad nor ugly.") for i in range(300)]  # fmt: skip
    iff = Theorem(id="iff-def", source="a", kind="definition", doc_id="d", name="Biconditional",
                  body_latex="$P \\leftrightarrow Q$.", meta={"synonyms": ["IFF", "if and only if"]})
    nor = Theorem(id="nor-def", source="a", kind="definition", doc_id="d", name="Joint denial",
                  body_latex="Neither P nor Q.", meta={"synonyms": ["NOR"]})
    store.upsert_documents(docs)
    store.upsert_theorems([*wordy, iff, nor])
    assert store.definitions_named("iff") == ["iff-def"]
    assert store.definitions_named("If and only if", exact=False) == ["iff-def"]
    assert store.definitions_named("NOR") == ["nor-def"]
    with store.connection() as conn:
        # A small table: ask whether the alias arm can use an index (the planner would read 302 rows anyway).
        conn.execute("SET enable_seqscan = off")
        for term in ("iff", "NOR"):
            query, params = lookup_sql.definitions_named(store.names, term, exact=True, filters=Filters(), k=5)
            plan = conn.execute(sql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) ") + query, params).fetchone()[0][0]
            text = json.dumps(plan)
            assert _rows_from(plan, store.names.text) <= 2, term  # the old arm read all 300 with the word "iff"
            assert f"{store.names.text}_synonyms" in text and "Seq Scan" not in text, term


def test_a_definition_named_only_in_its_label_is_found_by_the_index_of_the_term_it_defines(store):
    """The Stacks Project names definitions in labels alone (``definition-smooth``): the look-up finds them by the
    term the label defines, its plural or singular, and with ``exact=False`` without the head noun; a lemma with
    such a label is no definition; and each label arm reads migration 24's index, not the trigrams of every label
    with "definition-" in it."""
    from psycopg import sql

    from theorem_rag.db import lookup_sql
    from theorem_rag.filters import Filters

    docs = [Document(id="s", source="stacks", title="Stacks")]
    theorems = [Theorem(id="smooth", source="stacks", kind="definition", doc_id="s", label="morphisms-definition-smooth",
                        body_latex="A morphism is smooth if it is flat with smooth fibres."),
                Theorem(id="noeth", source="stacks", kind="definition", doc_id="s", label="Algebra-Definition-Noetherian-Ring",
                        body_latex="A ring is Noetherian if its ideals are finitely generated."),
                Theorem(id="noeth-lemma", source="stacks", kind="lemma", doc_id="s", label="algebra-definition-noetherian-ring",
                        body_latex="Not a definition, whatever its label says."),
                Theorem(id="finite", source="stacks", kind="definition", doc_id="s", label="definition-finite-type-definition-finite",
                        body_latex="A label with two definitions in it: it defines what follows the last."),
                *[Theorem(id=f"d{i}", source="stacks", kind="definition", doc_id="s", label=f"topology-definition-thing-{i}",
                          body_latex=f"Thing {i}.") for i in range(40)]]  # fmt: skip
    _index(store, docs, theorems)
    assert store.definitions_named("smooth") == ["smooth"]
    assert store.definitions_named("smooth morphism") == []  # exact: the label says "smooth", not "smooth morphism"
    assert store.definitions_named("smooth morphism", exact=False) == ["smooth"]
    assert store.definitions_named("Noetherian rings") == ["noeth"]
    assert store.definitions_named("noetherian", exact=False) == ["noeth"]
    assert store.definitions_named("finite") == ["finite"]
    assert store.definitions_named("thing 7") == ["d7"] and len(store.definitions_named("thing", exact=False, k=50)) == 40
    with store.connection() as conn:
        conn.execute("SET enable_seqscan = off")  # a small table: ask whether the label arms can use the index
        for term, exact in [("smooth", True), ("smooth morphism", False)]:
            query, params = lookup_sql.definitions_named(store.names, term, exact=exact, filters=Filters(), k=5)
            plan = json.dumps(conn.execute(sql.SQL("EXPLAIN (FORMAT JSON) ") + query, params).fetchone()[0])
            assert f"{store.names.theorems}_defined_term" in plan and "label_trgm" not in plan, term
