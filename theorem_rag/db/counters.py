"""Maintained counts and lexeme document frequencies: trigger DDL, built apart from running it (no driver).

Statement-level triggers with transition tables keep two small tables current on every write, in the writing
transaction, at a cost proportional to the rows written (never to the table):

- ``{prefix}_lexicon`` (lexeme, ndoc): in how many statements each full-text lexeme occurs, what ``ts_stat``
  over the whole table would say (the IDF of long full-text queries);
- ``{prefix}_counts`` (key, n): ``theorems``, ``source:<source>``, ``documents`` and ``vectors:<space>`` row
  counts (``/health``, ``stats()``, the IDF's N), so nothing counts a table per query or per poll.

A key or lexeme whose count drops to zero is deleted. :func:`recount` rebuilds both from the tables (the repair
path, O(N), and what the migration seeds them with).

>>> [t for t, _ in vector_triggers(Names("theorems"), "minilm_slogan")]
['trag_count_ins', 'trag_count_del', 'trag_count_trunc']
"""

from __future__ import annotations

from psycopg import sql

from theorem_rag.db.names import Names

THEOREMS_KEY = "theorems"
DOCUMENTS_KEY = "documents"
SOURCE_KEY = "source:"


def vectors_key(space: str) -> str:
    """The counts key of a vector space's table.

    >>> vectors_key("minilm_slogan")
    'vectors:minilm_slogan'
    """
    return f"vectors:{space}"


def _fn(names: Names, what: str) -> sql.Identifier:
    return sql.Identifier(f"{names.prefix}_{what}")


def _delta(names: Names, plus: bool, minus: bool) -> sql.Composed:
    """PL/pgSQL statements that add the new rows' (``nt``) lexemes and counts and subtract the old rows' (``ot``)."""
    lx, c = sql.Identifier(names.lexicon), sql.Identifier(names.counts)
    sides = [("nt", "1")] * plus + [("ot", "-1")] * minus
    lexemes = sql.SQL(" UNION ALL ").join(
        sql.SQL("SELECT x.lexeme, {s} AS n FROM {r}, unnest(tsvector_to_array({r}.tsv)) AS x(lexeme)").format(
            r=sql.Identifier(r), s=sql.SQL(s)
        )
        for r, s in sides
    )
    keys = sql.SQL(" UNION ALL ").join(
        sql.SQL("SELECT v.k, {s} AS n FROM {r}, LATERAL (VALUES ({all}), ({src} || {r}.source)) AS v(k)").format(
            r=sql.Identifier(r), s=sql.SQL(s), all=sql.Literal(THEOREMS_KEY), src=sql.Literal(SOURCE_KEY)
        )
        for r, s in sides
    )
    # ORDER BY: concurrent writers lock the rows they share in one order, so they wait instead of deadlocking.
    parts = [
        sql.SQL(
            "INSERT INTO {lx} AS l (lexeme, ndoc) SELECT lexeme, sum(n) FROM ({lexemes}) AS d GROUP BY 1 "
            "HAVING sum(n) <> 0 ORDER BY 1 ON CONFLICT (lexeme) DO UPDATE SET ndoc = l.ndoc + EXCLUDED.ndoc;"
        ).format(lx=lx, lexemes=lexemes),
        sql.SQL(
            "INSERT INTO {c} AS c (key, n) SELECT k, sum(n) FROM ({keys}) AS d GROUP BY 1 "
            "HAVING sum(n) <> 0 ORDER BY 1 ON CONFLICT (key) DO UPDATE SET n = c.n + EXCLUDED.n;"
        ).format(c=c, keys=keys),
    ]
    if minus:
        parts += [
            sql.SQL(
                "DELETE FROM {lx} AS l USING (SELECT DISTINCT x.lexeme FROM ot, unnest(tsvector_to_array(ot.tsv)) "
                "AS x(lexeme)) AS d WHERE l.lexeme = d.lexeme AND l.ndoc <= 0;"
            ).format(lx=lx),
            sql.SQL(
                "DELETE FROM {c} AS c USING (SELECT DISTINCT {src} || ot.source AS k FROM ot "
                "UNION ALL SELECT {all}) AS d WHERE c.key = d.k AND c.n <= 0;"
            ).format(c=c, src=sql.Literal(SOURCE_KEY), all=sql.Literal(THEOREMS_KEY)),
        ]
    return sql.SQL(" ").join(parts)


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
    return [
        _function(_fn(names, "stats_ins"), _delta(names, plus=True, minus=False)),
        _function(_fn(names, "stats_upd"), _delta(names, plus=True, minus=True)),
        _function(_fn(names, "stats_del"), _delta(names, plus=False, minus=True)),
        _function(_fn(names, "stats_trunc"), sql.SQL("TRUNCATE {lx}; DELETE FROM {c} WHERE key = {all} OR key LIKE {src};").format(
            lx=sql.Identifier(names.lexicon), c=c, all=sql.Literal(THEOREMS_KEY), src=sql.Literal(SOURCE_KEY + "%"))),
        _function(_fn(names, "count_ins"), count("", "nt")),
        _function(_fn(names, "count_del"), count("-", "ot")),
        _function(_fn(names, "count_trunc"), sql.SQL("DELETE FROM {c} WHERE key = TG_ARGV[0];").format(c=c)),
    ]  # fmt: skip


def function_names(names: Names) -> list[str]:
    """Every trigger function of a prefix, for dropping."""
    return [f"{names.prefix}_{w}" for w in ("stats_ins", "stats_upd", "stats_del", "stats_trunc", "count_ins",
                                            "count_del", "count_trunc")]  # fmt: skip


def theorem_triggers(names: Names) -> list[sql.Composed]:
    """Triggers that keep the lexicon and the statement counts in step with the theorems table."""
    t = names.theorems
    return [
        _trigger("trag_stats_ins", "INSERT", t, _fn(names, "stats_ins"), "REFERENCING NEW TABLE AS nt"),
        _trigger("trag_stats_upd", "UPDATE", t, _fn(names, "stats_upd"), "REFERENCING OLD TABLE AS ot NEW TABLE AS nt"),
        _trigger("trag_stats_del", "DELETE", t, _fn(names, "stats_del"), "REFERENCING OLD TABLE AS ot"),
        _trigger("trag_stats_trunc", "TRUNCATE", t, _fn(names, "stats_trunc")),
    ]


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


def recount(names: Names, spaces: list[str]) -> list[tuple[sql.Composed, list]]:
    """Statements (with parameters) that rebuild the lexicon and the counts from the tables: O(N), for repair."""
    t, lx, c = sql.Identifier(names.theorems), sql.Identifier(names.lexicon), sql.Identifier(names.counts)
    out: list[tuple[sql.Composed, list]] = [
        (sql.SQL("DELETE FROM {lx}").format(lx=lx), []),
        (sql.SQL("INSERT INTO {lx} (lexeme, ndoc) SELECT word, ndoc FROM ts_stat(%s)").format(lx=lx),
         [sql.SQL("SELECT tsv FROM {t}").format(t=t)]),
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
