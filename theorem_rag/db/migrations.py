"""The migrations of the versioned schema: each version's DDL, in :data:`MIGRATIONS`, which
:func:`~theorem_rag.db.schema.migrate` applies in order.

Migrations only ever add (but migration 24, which drops an index that nothing reads any more), and every step is
idempotent: a database at any version reaches the newest by running the steps it has not applied. A step is a
statement, or a callable for a step that must read the database first.

>>> [v for v, _, _ in MIGRATIONS]
[1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 21, 22, 23, 24, 25, 26]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Union

from psycopg import Connection, sql

from theorem_rag.db import counters, generation, legacy_ids, table_sql
from theorem_rag.db.table_names import Names
from theorem_rag.filters import FORMAL_LANGUAGES

# A migration step is a statement, or a callable for a step that must read the database first (existing spaces).
Step = Union[sql.Composable, Callable[[Connection], None]]


def execute_all(conn: Connection, statements: list[tuple[sql.Composable, list]]) -> None:
    """Run (statement, parameters) pairs such as :func:`counters.recount` builds; a parameter that is SQL text
    itself (the query ``ts_stat`` reads) is bound as its string."""
    for stmt, params in statements:
        conn.execute(stmt, [p.as_string(conn) if isinstance(p, sql.Composable) else p for p in params])


def _v1(n: Names) -> list[sql.Composed]:
    I = sql.Identifier  # noqa: E741
    return [
        sql.SQL("CREATE EXTENSION IF NOT EXISTS vector"),
        sql.SQL(
            """CREATE TABLE IF NOT EXISTS {docs} (
                id text PRIMARY KEY, source text NOT NULL, title text NOT NULL DEFAULT '',
                authors text[] NOT NULL DEFAULT '{{}}', abstract text NOT NULL DEFAULT '',
                introduction text NOT NULL DEFAULT '', license text NOT NULL DEFAULT '', url text, year int,
                meta jsonb NOT NULL DEFAULT '{{}}', updated_at timestamptz NOT NULL DEFAULT now())"""
        ).format(docs=I(n.documents)),
        sql.SQL(
            """CREATE TABLE IF NOT EXISTS {thm} (
                id text PRIMARY KEY, source text NOT NULL, kind text NOT NULL, doc_id text NOT NULL,
                body_latex text NOT NULL, body_expanded text NOT NULL DEFAULT '', number text, name text,
                label text, section text[] NOT NULL DEFAULT '{{}}', proof_refs text[] NOT NULL DEFAULT '{{}}',
                url text, parser text NOT NULL DEFAULT 'fallback', file text, line int,
                meta jsonb NOT NULL DEFAULT '{{}}', content_hash text NOT NULL, slogan text,
                updated_at timestamptz NOT NULL DEFAULT now(),
                tsv tsvector GENERATED ALWAYS AS ({tsv}) STORED)"""
        ).format(thm=I(n.theorems), tsv=sql.SQL(counters.TSV)),
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} USING gin (tsv)").format(
            i=I(f"{n.theorems}_tsv"), t=I(n.theorems)
        ),
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} (source)").format(i=I(f"{n.theorems}_source"), t=I(n.theorems)),
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} (doc_id)").format(i=I(f"{n.theorems}_doc"), t=I(n.theorems)),
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} (lower(name))").format(
            i=I(f"{n.theorems}_lname"), t=I(n.theorems)
        ),
        sql.SQL(
            """CREATE TABLE IF NOT EXISTS {sp} (
                name text PRIMARY KEY, dim int NOT NULL CHECK (dim BETWEEN 1 AND 16000),
                half boolean NOT NULL, field text NOT NULL DEFAULT 'slogan', model text NOT NULL DEFAULT '',
                created_at timestamptz NOT NULL DEFAULT now())"""
        ).format(sp=I(n.spaces)),
        sql.SQL(
            """CREATE TABLE IF NOT EXISTS {sc} (
                key text PRIMARY KEY, statement_hash text NOT NULL, writer text NOT NULL,
                prompt_version text NOT NULL, model text NOT NULL, slogan text NOT NULL,
                input_tokens int NOT NULL DEFAULT 0, output_tokens int NOT NULL DEFAULT 0,
                cost double precision NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now())"""
        ).format(sc=I(n.slogan_cache)),
        sql.SQL(
            """CREATE TABLE IF NOT EXISTS {fb} (
                id bigserial PRIMARY KEY, query text NOT NULL, theorem_id text, answer_id text,
                vote smallint NOT NULL CHECK (vote IN (-1, 1)), comment text NOT NULL DEFAULT '',
                created_at timestamptz NOT NULL DEFAULT now(),
                CHECK (theorem_id IS NOT NULL OR answer_id IS NOT NULL))"""
        ).format(fb=I(n.feedback)),
    ]


def _v2(n: Names) -> list[sql.Composed]:
    """Feedback on an assistant answer may carry the answer text instead of an id."""
    fb = sql.Identifier(n.feedback)
    return [
        sql.SQL("ALTER TABLE {fb} ADD COLUMN IF NOT EXISTS answer text").format(fb=fb),
        sql.SQL("ALTER TABLE {fb} DROP CONSTRAINT IF EXISTS {c}").format(fb=fb, c=sql.Identifier(f"{n.feedback}_check")),
        sql.SQL(
            "ALTER TABLE {fb} ADD CONSTRAINT {c} CHECK (theorem_id IS NOT NULL OR answer_id IS NOT NULL OR answer IS NOT NULL)"
        ).format(fb=fb, c=sql.Identifier(f"{n.feedback}_target")),
    ]


def _v3(n: Names) -> list[sql.Composed]:
    """Document frequencies of full-text lexemes, for IDF-weighted ranking of long queries."""
    return [
        sql.SQL("CREATE TABLE IF NOT EXISTS {lx} (lexeme text PRIMARY KEY, ndoc int NOT NULL)").format(
            lx=sql.Identifier(n.lexicon)
        )
    ]


def _v6(n: Names) -> list[sql.Composed]:
    """Cards: the proof that follows a statement; indexes for "used by" (proof references) and label look-ups."""
    t, I = sql.Identifier(n.theorems), sql.Identifier  # noqa: E741
    return [
        sql.SQL("ALTER TABLE {t} ADD COLUMN IF NOT EXISTS proof text NOT NULL DEFAULT ''").format(t=t),
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} USING gin (proof_refs)").format(i=I(f"{n.theorems}_refs"), t=t),
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} (source, label)").format(i=I(f"{n.theorems}_label"), t=t),
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} (source, (meta ->> 'full_label'))").format(
            i=I(f"{n.theorems}_full_label"), t=t
        ),
    ]


def _v4(n: Names) -> list[Step]:
    """Counts and lexicon kept current by triggers, per written row, instead of recounted per write or query."""

    def existing_spaces(conn: Connection) -> None:
        spaces = [r[0] for r in conn.execute(sql.SQL("SELECT name FROM {s}").format(s=sql.Identifier(n.spaces)))]
        # A registered space whose vector table is gone has nothing to count (a partly dropped index).
        spaces = [s for s in spaces if conn.execute("SELECT to_regclass(%s) IS NOT NULL", [n.vectors(s)]).fetchone()[0]]
        for space in spaces:
            for _, ddl in counters.vector_triggers(n, space):
                conn.execute(ddl)
        # Triggers first, then the seed: the triggers' table locks keep writers out until this commits. The lexicon
        # is counted from the text table, which an index older than migration 14 does not have yet (14 counts it).
        has_text = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [n.text]).fetchone()[0]
        execute_all(conn, counters.recount(n, spaces, lexicon=has_text))

    return [
        sql.SQL("CREATE TABLE IF NOT EXISTS {c} (key text PRIMARY KEY, n bigint NOT NULL)").format(
            c=sql.Identifier(n.counts)
        ),
        *counters.functions(n),
        *counters.theorem_triggers(n),
        *counters.document_triggers(n),
        existing_spaces,
    ]


def _v5(n: Names) -> list[sql.Composed]:
    """Trigram matching on statement names (pg_trgm, in PostgreSQL's contrib): "did you mean" for misspelt names."""
    return [
        sql.SQL("CREATE EXTENSION IF NOT EXISTS pg_trgm"),
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} USING gin (lower(name) gin_trgm_ops)").format(
            i=sql.Identifier(f"{n.theorems}_name_trgm"), t=sql.Identifier(n.theorems)
        ),
    ]


def _v8(n: Names) -> list[sql.Composed]:
    """Which backend ran the model of a space (torch, onnx-int8); every space built before ran torch."""
    return [
        sql.SQL("ALTER TABLE {sp} ADD COLUMN IF NOT EXISTS backend text NOT NULL DEFAULT 'torch'").format(
            sp=sql.Identifier(n.spaces)
        )
    ]


def _v9(n: Names) -> list[sql.Composed]:
    """Formula keys per statement (theorem_rag.formula_keys) and their GIN index, for formula queries.

    Every write sets them; statements written before this version get theirs when ``index build`` next runs
    (the upsert rewrites a row whose keys differ), and until then formula queries simply do not match them.
    """
    t = sql.Identifier(n.theorems)
    return [
        sql.SQL("ALTER TABLE {t} ADD COLUMN IF NOT EXISTS formula_keys text[] NOT NULL DEFAULT '{{}}'").format(t=t),
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} USING gin (formula_keys)").format(
            i=sql.Identifier(f"{n.theorems}_formula"), t=t
        ),
    ]


def _v10(n: Names) -> list[sql.Composed]:
    """A trigram index on statement labels: definition look-ups by label suffix (``definition-<term>``) use it."""
    return [
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} USING gin (lower(label) gin_trgm_ops)").format(
            i=sql.Identifier(f"{n.theorems}_label_trgm"), t=sql.Identifier(n.theorems)
        ),
    ]


def _v11(n: Names) -> list[sql.Composed]:
    """The kind of a space's HNSW index (bit: binary-quantized, Hamming; halfvec: half precision, cosine); every
    space built before is bit."""
    return [
        sql.SQL("ALTER TABLE {sp} ADD COLUMN IF NOT EXISTS index_kind text NOT NULL DEFAULT 'bit'").format(
            sp=sql.Identifier(n.spaces)
        )
    ]


def _v12(n: Names) -> list[sql.Composed]:
    """Where a bulk load keeps the definitions of the indexes it dropped (``TheoremStore.defer_indexes``), so they
    are built again even after a crash (``restore_indexes``)."""
    return [
        sql.SQL("CREATE TABLE IF NOT EXISTS {d} (name text PRIMARY KEY, definition text NOT NULL, "
                "deferred_at timestamptz NOT NULL DEFAULT now())").format(d=sql.Identifier(n.deferred_indexes))
    ]  # fmt: skip


def _v13(n: Names) -> list[sql.Composed]:
    """The premise head fitted on the proof graph (``theorem-rag model premise-head``): one row, its weights and
    holdout as JSON."""
    return [
        sql.SQL("CREATE TABLE IF NOT EXISTS {h} (id smallint PRIMARY KEY CHECK (id = 1), head jsonb NOT NULL, "
                "fitted_at timestamptz NOT NULL DEFAULT now())").format(h=sql.Identifier(n.premise_head))
    ]  # fmt: skip


def _v14(n: Names) -> list[Step]:
    """Full-text search reads a narrow table (id, doc_id, source, kind, name, synonyms, tsv) instead of the wide
    statements table, whose rows put the vector behind kilobytes of LaTeX, proof and metadata: a long query's
    candidates sit in about a fifth of the pages (``benchmarks/results/text_narrow/``). The statements' triggers
    write it, computing the vector once per row; its own triggers keep the lexicon. The generated column and its
    index go, so nothing computes or stores the vector twice."""
    I, t, x = sql.Identifier, sql.Identifier(n.theorems), sql.Identifier(n.text)  # noqa: E741

    def fill(conn: Connection) -> None:
        # From the stored vectors (no second to_tsvector pass), before the text table has triggers; then the
        # lexicon counted from it once (an index migrated from schema 3 has none yet).
        has_tsv = conn.execute("SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() "
                               "AND table_name = %s AND column_name = 'tsv'", [n.theorems]).fetchone()[0]  # fmt: skip
        rows = counters.text_rows(n.theorems, tsv="tsv" if has_tsv else counters.TSV)
        conn.execute(sql.SQL("INSERT INTO {x} {rows} ON CONFLICT (id) DO NOTHING").format(x=x, rows=rows))
        execute_all(conn, counters.recount_lexicon(n))

    return [
        sql.SQL("""CREATE TABLE IF NOT EXISTS {x} (id text PRIMARY KEY, doc_id text NOT NULL, source text NOT NULL,
            kind text NOT NULL, name text, synonyms jsonb NOT NULL DEFAULT '[]', tsv tsvector NOT NULL)""").format(x=x),
        fill,
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {x} USING gin (tsv)").format(i=I(f"{n.text}_tsv"), x=x),
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {x} (lower(name))").format(i=I(f"{n.text}_lname"), x=x),
        *counters.functions(n),
        *counters.theorem_triggers(n),
        *counters.text_triggers(n),
        sql.SQL("ALTER TABLE {t} DROP COLUMN IF EXISTS tsv").format(t=t),
        # A bulk load interrupted before this version may have left the old index's definition to build again.
        sql.SQL("DELETE FROM {d} WHERE name = {i}").format(d=I(n.deferred_indexes), i=sql.Literal(f"{n.theorems}_tsv")),
        sql.SQL("ANALYZE {x}").format(x=x),
    ]


def _v15(n: Names) -> list[Step]:
    """An index of each text row's recorded aliases, lowercased (jsonb containment), for the definition look-up:
    it found a statement by alias through the full-text index, which returns every statement with the alias's
    words (at a million statements tens of thousands for "iff", each read to be discarded)."""
    x = sql.Identifier(n.text)
    return [
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {x} USING gin ((lower(synonyms::text)::jsonb) jsonb_path_ops)").format(
            i=sql.Identifier(f"{n.text}_synonyms"), x=x),
        sql.SQL("ANALYZE {x}").format(x=x),
    ]  # fmt: skip


def _v16(n: Names) -> list[Step]:
    """The text table keeps a row whole up to 8,160 bytes (``toast_tuple_target``; PostgreSQL's default moves the
    largest values out of line once a row passes about 2 kB): a long query matches each candidate's vector against
    up to eight terms and ranks the best again, and a vector stored out of line is fetched from the TOAST table for
    each. The rows already stored out of line are written again, so they move into the row (their lexemes do not
    change, so the lexicon does not either). The full-text index's pending list, which every search reads, is
    bounded (``table_sql.TEXT_GIN_PENDING_KB``) and emptied. ``benchmarks/results/text_inline/``."""
    x, index = sql.Identifier(n.text), table_sql.text_index_name(n)

    def rewrite(conn: Connection) -> None:
        # pg_column_toast_chunk_id (PostgreSQL 17) says exactly which values are out of line; before it, the vectors
        # long enough to have been moved.
        out_of_line = ("pg_column_toast_chunk_id(tsv) IS NOT NULL" if conn.info.server_version >= 170000
                       else "pg_column_size(tsv) > 1000")  # fmt: skip
        conn.execute(sql.SQL("UPDATE {x} SET tsv = tsv || ''::tsvector WHERE {w}").format(x=x, w=sql.SQL(out_of_line)))
        if conn.execute("SELECT to_regclass(%s) IS NOT NULL", [index]).fetchone()[0]:
            conn.execute(sql.SQL("ALTER INDEX {i} SET (gin_pending_list_limit = {kb})").format(
                i=sql.Identifier(index), kb=sql.Literal(table_sql.TEXT_GIN_PENDING_KB)))
            conn.execute("SELECT gin_clean_pending_list(%s::regclass)", [index])
        else:  # dropped by a bulk load still under way: built again as create_text_index says
            conn.execute(sql.SQL("UPDATE {d} SET definition = %s WHERE name = %s").format(d=sql.Identifier(n.deferred_indexes)),
                         [table_sql.create_text_index(n).as_string(conn), index])  # fmt: skip

    return [sql.SQL("ALTER TABLE {x} SET (toast_tuple_target = 8160)").format(x=x), rewrite]


def _v17(n: Names) -> list[Step]:
    """A GIN index on the documents' arXiv categories (``meta->'categories'``): a category filter finds its
    documents through it, inside the search's own statement, instead of scanning every document on every
    sub-query (``table_sql.filter_clause``). Without a pending list (``fastupdate = off``): every search would read
    the list of entries not yet merged in full (after a load of 60,000 documents, 416 pages and 21 ms for 600
    rows, so the planner preferred a scan of the table); a document write merges its two or three entries at once."""
    d = sql.Identifier(n.documents)
    return [
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {d} USING gin ((meta -> 'categories')) WITH (fastupdate = off)").format(
            i=sql.Identifier(table_sql.category_index_name(n)), d=d),
        sql.SQL("ANALYZE {d}").format(d=d),
    ]  # fmt: skip


def _v23(n: Names) -> list[Step]:
    """Two indexes for Lean declarations: reversed lowercased names (in the C collation, so that a range of them is
    the names ending with a suffix: ``lookup_sql.names_ending``), and the ids of the documents in a formal language
    (``filters.FORMAL_LANGUAGES``; a new one needs a migration that rebuilds it): the formal filter of
    ``table_sql.filter_clause`` reads them from it alone (an index-only scan; a scan of the documents took 15-20 ms
    at 20,000 of them, 8,000 in Lean). Statistics on the language tell the planner how many documents that is
    (without, it guessed 0.5 % and looked the statements of each Lean module up instead of each candidate's
    document)."""
    t, d = sql.Identifier(n.theorems), sql.Identifier(n.documents)
    return [
        sql.SQL("""CREATE INDEX IF NOT EXISTS {i} ON {t} ((reverse(lower(name))) COLLATE "C")""").format(
            i=sql.Identifier(table_sql.reversed_name_index_name(n)), t=t),
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {d} (id) WHERE meta ->> 'language' = ANY({languages})").format(
            i=sql.Identifier(table_sql.formal_index_name(n)), d=d, languages=sql.Literal(list(FORMAL_LANGUAGES))),
        sql.SQL("CREATE STATISTICS IF NOT EXISTS {s} ON (meta ->> 'language') FROM {d}").format(
            s=sql.Identifier(f"{n.documents}_language"), d=d),
        sql.SQL("ANALYZE {d}").format(d=d),
    ]  # fmt: skip


def _v24(n: Names) -> list[Step]:
    """An index of the term each definition label defines (``table_sql.DEFINED_TERM``: "definition-smooth" defines
    "smooth"), over the labels that define one: a definition look-up by label reads one range of it. The trigram
    index of migration 10 served those look-ups from the trigrams of "definition-", which every such label has:
    10-12 ms a form at 314,000 statements (two or three forms a look-up), where this reads a few index pages. Nothing
    else reads that trigram index: it goes (and so does its definition, should a bulk load have deferred it)."""
    trigrams = f"{n.theorems}_label_trgm"
    return [
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} (({term})) WHERE {defines}").format(
            i=sql.Identifier(table_sql.defined_term_index_name(n)), t=sql.Identifier(n.theorems),
            term=sql.SQL(table_sql.DEFINED_TERM.format(alias="")),
            defines=sql.SQL(table_sql.DEFINES_A_TERM.format(alias=""))),
        sql.SQL("DROP INDEX IF EXISTS {i}").format(i=sql.Identifier(trigrams)),
        sql.SQL("DELETE FROM {d} WHERE name = {i}").format(d=sql.Identifier(n.deferred_indexes), i=sql.Literal(trigrams)),
    ]  # fmt: skip


def _v25(n: Names) -> list[Step]:
    """In how many statements each formula key occurs (``{prefix}_formula_df``), kept by statement triggers and
    counted once from the table here: the formula ranking weighs its keys by it. Counted per query instead (the GIN
    index, up to 2,000 statements a key), a formula query of 57 keys spent 135 ms counting at 314,000 statements."""
    df = sql.Identifier(n.formula_df)
    return [
        sql.SQL("CREATE TABLE IF NOT EXISTS {df} (key text PRIMARY KEY, ndoc bigint NOT NULL)").format(df=df),
        *counters.formula_functions(n),
        *counters.formula_triggers(n),
        lambda conn: execute_all(conn, counters.recount_formula_keys(n)),
    ]


def bound_gin_pending_lists(conn: Connection, n: Names) -> list[str]:
    """Bound the pending list of every GIN index of the statements and text tables (``table_sql.
    TEXT_GIN_PENDING_KB``; those without one are left as they are) and empty it; returns their names.

    GIN adds new entries to an unsorted list that every look-up reads in full until VACUUM, or an insert past the
    limit, merges it in. PostgreSQL's default limit is 4 MB: after mathlib was added to an index by upserts, the
    formula keys' index had 367 pages pending, read by each of a formula query's 30-60 key look-ups (370 buffers
    each), and the indexes of aliases, proof references and names 453, 506 and 242."""
    rows = conn.execute(
        "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
        "WHERE i.indrelid IN (to_regclass(%s), to_regclass(%s)) AND a.amname = 'gin' "
        "AND NOT coalesce(c.reloptions @> ARRAY['fastupdate=off'], false) ORDER BY 1", [n.theorems, n.text]).fetchall()  # fmt: skip
    for (index,) in rows:
        conn.execute(sql.SQL("ALTER INDEX {i} SET (gin_pending_list_limit = {kb})").format(
            i=sql.Identifier(index), kb=sql.Literal(table_sql.TEXT_GIN_PENDING_KB)))  # fmt: skip
        conn.execute("SELECT gin_clean_pending_list(%s::regclass)", [index])
    return [index for (index,) in rows]


def _v26(n: Names) -> list[Step]:
    """Every GIN index of the statements and text tables with its pending list bounded, as migration 16 bounded the
    full-text index's (:func:`bound_gin_pending_lists`); a bulk load's index builds keep the bound."""
    return [lambda conn: bound_gin_pending_lists(conn, n)]


# (version, description, statements): append only; never edit a released step.
MIGRATIONS: list[tuple[int, str, Callable[[Names], list[Step]]]] = [
    (1, "documents, theorems with full-text vector, spaces registry, slogan cache, feedback", _v1),
    (2, "feedback.answer (answer text)", _v2),
    (3, "lexicon: document frequency per full-text lexeme", _v3),
    (4, "counts and lexicon maintained by statement triggers (no recount per write or query)", _v4),
    (5, "pg_trgm and a trigram index on statement names", _v5),
    (6, "theorems.proof; indexes on proof_refs (used by) and labels (references)", _v6),
    (8, "spaces.backend: the backend that ran the embedding model (torch, onnx-int8)", _v8),
    (9, "theorems.formula_keys and their GIN index (formula queries)", _v9),
    (10, "trigram index on lower(label) (definition look-ups by label)", _v10),
    (11, "spaces.index_kind: the kind of a space's HNSW index (bit, halfvec)", _v11),
    (12, "deferred_indexes: indexes a bulk load dropped, until they are built again", _v12),
    (13, "premise_head: the fitted premise head (weights, holdout)", _v13),
    (14, "text: the narrow table full-text search reads (tsv computed by trigger; theorems.tsv dropped)", _v14),
    (15, "text: an index of the lowercased aliases (definition look-ups by alias)", _v15),
    (16, "text: rows kept whole up to 8,160 bytes (full-text vectors in the row)", _v16),
    (17, "documents: a GIN index on meta->'categories' (the category filter)", _v17),
    (18, "generation: a change marker bumped by any change of documents or spaces", generation.migration),
    (21, "theorems: a partial index of meta->>'legacy_id' (look-ups by an old positional id)", legacy_ids.migration),
    (22, "generation: bumped once per transaction, at commit (was: per changed statement)", generation.per_transaction),
    (23, "theorems: an index of reversed lower(name) (a name's end); documents: the ids of formal ones", _v23),
    (24, "theorems: an index of the term a definition label defines (replaces the labels' trigram index)", _v24),
    (25, "formula_df: statements per formula key, kept by statement triggers (the formula ranking's weights)", _v25),
    (26, "every GIN index of the statements and text tables: its pending list bounded and emptied", _v26),
]
LATEST = max(version for version, _, _ in MIGRATIONS)  # numbers are reserved ahead and may land in any order
