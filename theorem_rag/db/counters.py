"""Derived tables kept current by triggers: trigger DDL, built apart from running it (no driver).

Statement-level triggers with transition tables keep three tables current on every write, in the writing
transaction, at a cost proportional to the rows written (never to the table):

- ``{prefix}_text`` (id, doc_id, source, kind, name, synonyms, tsv): the narrow copy of the statements that
  full-text search reads, with the full-text vector computed once per written row (migration 14; a slogan's
  candidates sit in far fewer pages than in the wide statements table: ``benchmarks/results/text_narrow/``);
- ``{prefix}_lexicon`` (lexeme, ndoc): in how many statements each full-text lexeme occurs, what ``ts_stat``
  over the text table would say (the IDF of long full-text queries), kept by the text table's own triggers;
- ``{prefix}_formula_df`` (key, ndoc): in how many statements each formula key occurs (migration 25), what the
  GIN index of ``formula_keys`` would count (the formula ranking's IDF), kept by the statements table's triggers;
- ``{prefix}_counts`` (key, n): ``theorems``, ``source:<source>``, ``documents`` and ``vectors:<space>`` row
  counts (``/health``, ``stats()``, the IDF's N), so nothing counts a table per query or per poll.

A key or lexeme whose count drops to zero is deleted. :func:`recount` rebuilds both from the tables (the repair
path, O(N), and what the migration seeds them with). A first bulk load counts the lexicon once at its end instead
(:func:`triggers_enabled`), and the formula keys' counts likewise.

>>> [t for t, _ in vector_triggers(Names("theorems"), "minilm_slogan")]
['trag_count_ins', 'trag_count_del', 'trag_count_trunc']
"""

from __future__ import annotations

from collections.abc import Callable

from psycopg import sql

from theorem_rag.db.table_names import Names

THEOREMS_KEY = "theorems"
DOCUMENTS_KEY = "documents"
SOURCE_KEY = "source:"


def vectors_key(space: str) -> str:
    """The counts key of a vector space's table.

    >>> vectors_key("minilm_slogan")
    'vectors:minilm_slogan'
    """
    return f"vectors:{space}"


def count_of(names: Names) -> sql.Composed:
    """The maintained count of one key (the expression's one parameter) as an SQL expression, 0 while the key has
    no row."""
    return sql.SQL("coalesce((SELECT n FROM {c} WHERE key = %s), 0)").format(c=sql.Identifier(names.counts))


def _fn(names: Names, what: str) -> sql.Identifier:
    return sql.Identifier(f"{names.prefix}_{what}")


# What the full-text vector covers: name (A), slogan (B), synonyms from meta (B), statement text (C), over the
# columns of a statements row; 'english' stems, so "groups" finds "group". Schema 1 stored it in a generated
# column of the statements table; since migration 14 the triggers below compute it once per written row into the
# narrow text table (names.text), which is all that full-text search reads.
TSV = """
    setweight(to_tsvector('english', coalesce(name, '')), 'A')
 || setweight(to_tsvector('english', coalesce(slogan, '')), 'B')
 || setweight(to_tsvector('english', coalesce(meta ->> 'synonyms', '')), 'B')
 || setweight(to_tsvector('english', left(coalesce(nullif(body_expanded, ''), body_latex), 100000)), 'C')
"""
# A statement's recorded alternative names (PlanetMath's pmsynonym) as a JSON array: what look-ups by alias read.
SYNONYMS = "CASE WHEN jsonb_typeof(meta -> 'synonyms') = 'array' THEN meta -> 'synonyms' ELSE '[]'::jsonb END"
TEXT_COLUMNS = ("id", "doc_id", "source", "kind", "name", "synonyms", "tsv")


def text_rows(relation: str, tsv: str = TSV) -> sql.Composed:
    """The text table's rows (``TEXT_COLUMNS``) of the statements in ``relation`` (a transition table, or the
    statements table itself); ``tsv``: the vector's expression (migration 14 reads the stored column instead)."""
    return sql.SQL("SELECT id, doc_id, source, kind, name, {syn} AS synonyms, {tsv} AS tsv FROM {r}").format(
        syn=sql.SQL(SYNONYMS), tsv=sql.SQL(tsv), r=sql.Identifier(relation)
    )


def _text_sync(names: Names, insert: bool, delete: bool) -> sql.Composed:
    """PL/pgSQL statements that write the new statements' (``nt``) text rows and remove those of statements no
    longer there (``ot`` without ``nt``); an unchanged text row is not rewritten. New statements (``insert``
    alone) get new text rows by a plain ``INSERT``: the bulk load's path, where an upsert's speculative insertion
    and a sort by id would cost per row."""
    x = sql.Identifier(names.text)
    cols = sql.SQL(", ").join(map(sql.Identifier, TEXT_COLUMNS))
    others = [sql.Identifier(c) for c in TEXT_COLUMNS if c != "id"]
    parts = []
    if insert and not delete:
        parts.append(sql.SQL("INSERT INTO {x} ({cols}) {rows};").format(x=x, cols=cols, rows=text_rows("nt")))
    elif insert:
        parts.append(sql.SQL(
            "INSERT INTO {x} AS x ({cols}) {rows} ORDER BY id ON CONFLICT (id) DO UPDATE SET {set} WHERE ({old}) IS "
            "DISTINCT FROM ({new});"
        ).format(x=x, cols=cols, rows=text_rows("nt"),
                 set=sql.SQL(", ").join(sql.SQL("{c} = EXCLUDED.{c}").format(c=c) for c in others),
                 old=sql.SQL(", ").join(sql.SQL("x.{c}").format(c=c) for c in others),
                 new=sql.SQL(", ").join(sql.SQL("EXCLUDED.{c}").format(c=c) for c in others)))  # fmt: skip
    if delete:
        gone = sql.SQL(" AND NOT EXISTS (SELECT 1 FROM nt WHERE nt.id = ot.id)") if insert else sql.SQL("")
        parts.append(sql.SQL("DELETE FROM {x} AS x USING ot WHERE x.id = ot.id{gone};").format(x=x, gone=gone))
    return sql.SQL(" ").join(parts)


def _sum_delta(table: str, key: str, count: str, side: Callable[[str, str], sql.Composable], plus: bool, minus: bool,
               emptied: sql.Composable) -> sql.Composed:
    """PL/pgSQL statements that add to ``table``'s ``count`` per ``key`` what the new rows (``nt``) bring and take
    away what the old rows (``ot``) had: ``side(relation, sign)`` is the ``(key, n)`` rows of one side. With old
    rows, the keys ``emptied`` (a query over ``ot``) whose count fell to zero are deleted."""
    t, k, n = sql.Identifier(table), sql.Identifier(key), sql.Identifier(count)
    sides = [("nt", "1")] * plus + [("ot", "-1")] * minus
    rows = sql.SQL(" UNION ALL ").join(side(r, s) for r, s in sides)
    # ORDER BY: concurrent writers lock the rows they share in one order, so they wait instead of deadlocking.
    parts = [
        sql.SQL(
            "INSERT INTO {t} AS t ({k}, {n}) SELECT k, sum(n) FROM ({rows}) AS d(k, n) GROUP BY 1 "
            "HAVING sum(n) <> 0 ORDER BY 1 ON CONFLICT ({k}) DO UPDATE SET {n} = t.{n} + EXCLUDED.{n};"
        ).format(t=t, k=k, n=n, rows=rows),
    ]
    if minus:
        parts.append(sql.SQL("DELETE FROM {t} AS t USING ({emptied}) AS d(k) WHERE t.{k} = d.k AND t.{n} <= 0;").format(
            t=t, k=k, n=n, emptied=emptied))  # fmt: skip
    return sql.SQL(" ").join(parts)


def _lexeme_delta(names: Names, plus: bool, minus: bool) -> sql.Composed:
    """PL/pgSQL statements that add the new text rows' (``nt``) lexemes and subtract the old rows' (``ot``)."""
    side = lambda r, s: sql.SQL(  # noqa: E731
        "SELECT x.lexeme, {s} FROM {r}, unnest(tsvector_to_array({r}.tsv)) AS x(lexeme)"
    ).format(r=sql.Identifier(r), s=sql.SQL(s))
    emptied = sql.SQL("SELECT DISTINCT x.lexeme FROM ot, unnest(tsvector_to_array(ot.tsv)) AS x(lexeme)")
    return _sum_delta(names.lexicon, "lexeme", "ndoc", side, plus, minus, emptied)


def _formula_delta(names: Names, plus: bool, minus: bool) -> sql.Composed:
    """PL/pgSQL statements that add the new statements' (``nt``) formula keys and subtract the old ones' (``ot``),
    each key once per statement; an update that keeps a statement's keys writes nothing."""
    side = lambda r, s: sql.SQL(  # noqa: E731
        "SELECT x.k, {s} FROM {r}, LATERAL (SELECT DISTINCT unnest({r}.formula_keys)) AS x(k)"
    ).format(r=sql.Identifier(r), s=sql.SQL(s))
    emptied = sql.SQL("SELECT DISTINCT unnest(ot.formula_keys) FROM ot")
    return _sum_delta(names.formula_df, "key", "ndoc", side, plus, minus, emptied)


def _key_delta(names: Names, plus: bool, minus: bool) -> sql.Composed:
    """PL/pgSQL statements that add the new statements' (``nt``) counts and subtract the old ones' (``ot``)."""
    side = lambda r, s: sql.SQL(  # noqa: E731
        "SELECT v.k, {s} FROM {r}, LATERAL (VALUES ({all}), ({src} || {r}.source)) AS v(k)"
    ).format(r=sql.Identifier(r), s=sql.SQL(s), all=sql.Literal(THEOREMS_KEY), src=sql.Literal(SOURCE_KEY))
    emptied = sql.SQL("SELECT DISTINCT {src} || ot.source FROM ot UNION ALL SELECT {all}").format(
        src=sql.Literal(SOURCE_KEY), all=sql.Literal(THEOREMS_KEY))
    return _sum_delta(names.counts, "key", "n", side, plus, minus, emptied)


def _function(name: sql.Identifier, body: sql.Composable) -> sql.Composed:
    return sql.SQL(
        "CREATE OR REPLACE FUNCTION {f}() RETURNS trigger LANGUAGE plpgsql AS $trag$ BEGIN {body} RETURN NULL; END $trag$"
    ).format(f=name, body=body)


def _trigger(name: str, event: str, table: str, function: sql.Identifier, referencing: str = "", arg: str | None = None) -> sql.Composed:
    args = sql.Literal(arg) if arg is not None else sql.SQL("")
    return sql.SQL(
        "CREATE OR REPLACE TRIGGER {n} AFTER {e} ON {t} {ref} FOR EACH STATEMENT EXECUTE FUNCTION {f}({a})"
    ).format(n=sql.Identifier(name), e=sql.SQL(event), t=sql.Identifier(table), ref=sql.SQL(referencing), f=function, a=args)


def functions(names: Names) -> list[sql.Composed]:
    """The trigger functions of one prefix (``CREATE OR REPLACE``: safe to run again)."""
    c = sql.Identifier(names.counts)
    count = lambda sign, rel: sql.SQL(  # noqa: E731
        "INSERT INTO {c} AS c (key, n) SELECT TG_ARGV[0], {s} count(*) FROM {r} HAVING count(*) > 0 "
        "ON CONFLICT (key) DO UPDATE SET n = c.n + EXCLUDED.n; DELETE FROM {c} WHERE key = TG_ARGV[0] AND n <= 0;"
    ).format(c=c, s=sql.SQL(sign), r=sql.Identifier(rel))
    stats = lambda plus, minus: sql.SQL(" ").join(  # noqa: E731
        [_text_sync(names, insert=plus, delete=minus), _key_delta(names, plus, minus)])
    lexemes = lambda plus, minus: _lexeme_delta(names, plus, minus)  # noqa: E731
    return [
        _function(_fn(names, "stats_ins"), stats(True, False)),
        _function(_fn(names, "stats_upd"), stats(True, True)),
        _function(_fn(names, "stats_del"), stats(False, True)),
        _function(_fn(names, "stats_trunc"), sql.SQL("TRUNCATE {x}; DELETE FROM {c} WHERE key = {all} OR key LIKE {src};").format(
            x=sql.Identifier(names.text), c=c, all=sql.Literal(THEOREMS_KEY), src=sql.Literal(SOURCE_KEY + "%"))),
        _function(_fn(names, "lex_ins"), lexemes(True, False)),
        _function(_fn(names, "lex_upd"), lexemes(True, True)),
        _function(_fn(names, "lex_del"), lexemes(False, True)),
        _function(_fn(names, "lex_trunc"), sql.SQL("TRUNCATE {lx};").format(lx=sql.Identifier(names.lexicon))),
        _function(_fn(names, "count_ins"), count("", "nt")),
        _function(_fn(names, "count_del"), count("-", "ot")),
        _function(_fn(names, "count_trunc"), sql.SQL("DELETE FROM {c} WHERE key = TG_ARGV[0];").format(c=c)),
    ]  # fmt: skip


def formula_functions(names: Names) -> list[sql.Composed]:
    """The trigger functions that keep the formula keys' counts (migration 25; ``CREATE OR REPLACE``)."""
    keys = lambda plus, minus: _formula_delta(names, plus, minus)  # noqa: E731
    return [
        _function(_fn(names, "formula_ins"), keys(True, False)),
        _function(_fn(names, "formula_upd"), keys(True, True)),
        _function(_fn(names, "formula_del"), keys(False, True)),
        _function(_fn(names, "formula_trunc"), sql.SQL("TRUNCATE {df};").format(df=sql.Identifier(names.formula_df))),
    ]


def function_names(names: Names) -> list[str]:
    """Every trigger function of a prefix, for dropping."""
    return [f"{names.prefix}_{w}" for w in ("stats_ins", "stats_upd", "stats_del", "stats_trunc", "lex_ins", "lex_upd",
                                            "lex_del", "lex_trunc", "count_ins", "count_del", "count_trunc",
                                            "formula_ins", "formula_upd", "formula_del", "formula_trunc")]  # fmt: skip


# The events of a table's write triggers ``trag_<what>_<suffix>``: (suffix, event, transition tables read).
_WRITE_EVENTS = [
    ("ins", "INSERT", "REFERENCING NEW TABLE AS nt"),
    ("upd", "UPDATE", "REFERENCING OLD TABLE AS ot NEW TABLE AS nt"),
    ("del", "DELETE", "REFERENCING OLD TABLE AS ot"),
    ("trunc", "TRUNCATE", ""),
]


def _write_triggers(names: Names, table: str, what: str) -> list[sql.Composed]:
    """``trag_<what>_{ins,upd,del,trunc}`` on ``table``, each calling ``<prefix>_<what>_...`` with the transition
    tables it reads."""
    return [_trigger(f"trag_{what}_{e}", event, table, _fn(names, f"{what}_{e}"), ref)
            for e, event, ref in _WRITE_EVENTS]


def theorem_triggers(names: Names) -> list[sql.Composed]:
    """Triggers that keep the text table and the statement counts in step with the theorems table."""
    return _write_triggers(names, names.theorems, "stats")


def formula_triggers(names: Names) -> list[sql.Composed]:
    """Triggers that keep the formula keys' counts in step with the theorems table (migration 25)."""
    return _write_triggers(names, names.theorems, "formula")


def text_triggers(names: Names) -> list[sql.Composed]:
    """Triggers that keep the lexicon in step with the text table (migration 14)."""
    return _write_triggers(names, names.text, "lex")


# The text table's triggers that keep the lexicon, and the statements table's that keep the formula keys' counts
# (each truncate trigger stays on: it only empties its table).
LEXICON_TRIGGERS = tuple(f"trag_lex_{e}" for e, _, _ in _WRITE_EVENTS if e != "trunc")
FORMULA_TRIGGERS = tuple(f"trag_formula_{e}" for e, _, _ in _WRITE_EVENTS if e != "trunc")


def triggers_enabled(table: str, triggers: tuple[str, ...], enabled: bool) -> list[sql.Composed]:
    """``ALTER TABLE`` statements that turn ``triggers`` of ``table`` off for a first bulk load, which counts what
    they keep once at its end, or back on. The lexicon (:data:`LEXICON_TRIGGERS`, :func:`recount_lexicon`): one
    ``ts_stat`` pass, 4 us a statement at 200k, against about 20 us a statement of PostgreSQL's CPU for the
    triggers' per-batch upserts (``benchmarks/results/load_cost_20261205/``); the formula keys' counts
    (:data:`FORMULA_TRIGGERS`, :func:`recount_formula_keys`): their triggers add 54 us to each statement's insert
    at 16 keys a statement, 21 % of it (``benchmarks/experiments/2026-12-07-definition-lookup/``). Either takes a
    lock that waits for the table's writers and holds off new ones until the transaction ends."""
    action, t = sql.SQL("ENABLE" if enabled else "DISABLE"), sql.Identifier(table)
    alter = sql.SQL("ALTER TABLE {t} {a} TRIGGER {g}")
    return [alter.format(t=t, a=action, g=sql.Identifier(g)) for g in triggers]


def _count_triggers(names: Names, table: str, key: str) -> list[tuple[str, sql.Composed]]:
    return [
        ("trag_count_ins", _trigger("trag_count_ins", "INSERT", table, _fn(names, "count_ins"), "REFERENCING NEW TABLE AS nt", key)),
        ("trag_count_del", _trigger("trag_count_del", "DELETE", table, _fn(names, "count_del"), "REFERENCING OLD TABLE AS ot", key)),
        ("trag_count_trunc", _trigger("trag_count_trunc", "TRUNCATE", table, _fn(names, "count_trunc"), arg=key)),
    ]  # fmt: skip


def document_triggers(names: Names) -> list[sql.Composed]:
    return [q for _, q in _count_triggers(names, names.documents, DOCUMENTS_KEY)]


def vector_triggers(names: Names, space: str) -> list[tuple[str, sql.Composed]]:
    """(trigger name, DDL) pairs that keep ``vectors:<space>`` equal to the row count of the space's table."""
    return _count_triggers(names, names.vectors(space), vectors_key(space))


def rebuild_text(names: Names) -> list[tuple[sql.Composed, list]]:
    """Statements that write the text table afresh from the statements table (every vector computed again: O(N))."""
    x = sql.Identifier(names.text)
    return [
        (sql.SQL("TRUNCATE {x}").format(x=x), []),
        (sql.SQL("INSERT INTO {x} ({cols}) {rows}").format(
            x=x, cols=sql.SQL(", ").join(map(sql.Identifier, TEXT_COLUMNS)), rows=text_rows(names.theorems)), []),
    ]


def recount_lexicon(names: Names) -> list[tuple[sql.Composed, list]]:
    """Statements (with parameters) that rebuild the lexicon from the text table (``ts_stat``: O(N))."""
    lx = sql.Identifier(names.lexicon)
    return [
        (sql.SQL("DELETE FROM {lx}").format(lx=lx), []),
        (sql.SQL("INSERT INTO {lx} (lexeme, ndoc) SELECT word, ndoc FROM ts_stat(%s)").format(lx=lx),
         [sql.SQL("SELECT tsv FROM {x}").format(x=sql.Identifier(names.text))]),
    ]


def recount_formula_keys(names: Names) -> list[tuple[sql.Composed, list]]:
    """Statements that rebuild the formula keys' counts from the statements table (O(N))."""
    df = sql.Identifier(names.formula_df)
    return [
        (sql.SQL("DELETE FROM {df}").format(df=df), []),
        (sql.SQL("INSERT INTO {df} (key, ndoc) SELECT x.k, count(*) FROM {t} AS t, "
                 "LATERAL (SELECT DISTINCT unnest(t.formula_keys)) AS x(k) GROUP BY 1").format(
            df=df, t=sql.Identifier(names.theorems)), []),
    ]  # fmt: skip


def recount(names: Names, spaces: list[str], lexicon: bool = True) -> list[tuple[sql.Composed, list]]:
    """Statements (with parameters) that rebuild the lexicon (from the text table; ``lexicon=False``: not) and the
    counts from the tables: O(N), for repair."""
    t, c = sql.Identifier(names.theorems), sql.Identifier(names.counts)
    out = recount_lexicon(names) if lexicon else []
    out += [
        (sql.SQL("DELETE FROM {c}").format(c=c), []),
        (sql.SQL("INSERT INTO {c} (key, n) SELECT %s || source, count(*) FROM {t} GROUP BY source").format(c=c, t=t),
         [SOURCE_KEY]),
        (sql.SQL("INSERT INTO {c} (key, n) SELECT %s, count(*) FROM {t} HAVING count(*) > 0").format(c=c, t=t),
         [THEOREMS_KEY]),
        (sql.SQL("INSERT INTO {c} (key, n) SELECT %s, count(*) FROM {d} HAVING count(*) > 0").format(
            c=c, d=sql.Identifier(names.documents)), [DOCUMENTS_KEY]),
    ]  # fmt: skip
    for space in spaces:
        out.append((sql.SQL("INSERT INTO {c} (key, n) SELECT %s, count(*) FROM {v} HAVING count(*) > 0").format(
            c=c, v=sql.Identifier(names.vectors(space))), [vectors_key(space)]))  # fmt: skip
    return out
