"""SQL text of lexical search, built apart from running it: full-text search (keyword queries by prefix, long
queries by the IDF share of their rarest lexemes, with bounded candidates) and formula search by symbol keys. Every
value is a bound parameter; nothing here connects (the mixin that runs it is :mod:`theorem_rag.db.lexical`).
Column lists, filters and writes are in :mod:`theorem_rag.db.table_sql`, dense search in :mod:`theorem_rag.db.dense_sql`.

>>> tsquery_text("Zorn's lemma")
'zorn:* & lemma:*'
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from psycopg import sql

from theorem_rag.db.counters import THEOREMS_KEY, count_of
from theorem_rag.db.table_names import Names
from theorem_rag.db.table_sql import filter_clause
from theorem_rag.filters import Filters
from theorem_rag.query import SHORT_QUERY_TOKENS, query_tokens


def tsquery_text(query: str) -> str:
    r"""A ``to_tsquery`` expression from the query's words, safe by construction (only ``[^\W_]+`` tokens).

    Short keyword queries (at most ``SHORT_QUERY_TOKENS`` words) need every word, each as a prefix, so "Noeth"
    finds "Noetherian"; longer queries need any word, and ``ts_rank_cd`` rewards covering many of them.

    >>> tsquery_text("Nakayama lemma"), tsquery_text("every finite group of prime order is cyclic")
    ('nakayama:* & lemma:*', 'every | finite | group | of | prime | order | is | cyclic')
    """
    tokens = list(dict.fromkeys(query_tokens(query)))
    # A lone letter ("s" of "Zorn's", "p" of "p-group") as a required prefix would match nearly anything.
    tokens = [t for t in tokens if len(t) > 1] or tokens
    if not tokens:
        return ""
    if len(tokens) <= SHORT_QUERY_TOKENS:
        return " & ".join(f"{t}:*" for t in tokens)
    return " | ".join(tokens)


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# Long queries keep their rarest lexemes (at most this many, each in at most MAX_DF_SHARE of the statements):
# common words ("let", "scheme" in the Stacks Project) match most rows, cost time and carry no information.
MAX_QUERY_LEXEMES = 8
MAX_DF_SHARE = 0.2
# Candidates of a long query come from its rarest lexemes whose document frequencies sum to at most this; the
# best RANK_CAP of them by IDF share get the (costlier) ts_rank_cd tie-breaker. Both bound the work per query
# whatever the size of the index. Each candidate costs a heap row and its (often TOASTed) vector: at 20,000 the
# full index's slowest slogan queries scored 12,000 rows by a sequential scan (full-text p95 113 ms); at 5,000 the
# dev-set table is unchanged (hybrid, every metric within 0.0025) and the p95 is 51 ms; at 4,000 still within
# 0.0025 of 5,000's, full-text p50 -14 %; 3,000 and 2,000 lose 1-2 of the 80 Stacks slogan queries
# (benchmarks/results/text_budget/).
CANDIDATE_BUDGET = 4_000
RANK_CAP = 2_000
# A long query's words all in a row in a statement (``phraseto_tsquery``: its common words too, which the IDF share
# leaves out; "fundamental theorem of algebra" is "fundament" alone by IDF on an index with mathlib, where
# "theorem" and "algebra" are in most declarations): that much more share, so it outranks statements that only
# hold the rare words.
PHRASE_SHARE = 0.5
# A text row's full-text vector up to this size (pg_column_size) is matched where it lies: the text table keeps
# rows of up to 8,160 bytes whole (toast_tuple_target, migration 16), so such a vector is in the row unless its
# other columns are long too (then it is fetched once per term: slower, the same result). A longer one, which
# PostgreSQL stores out of line, is fetched once and matched in memory. 82 of the shared corpora's 29,467 vectors
# are longer (46 of them out of line).
INLINE_TSV_BYTES = 6_000
# The tie-breaker of a long query counts ts_rank_cd(tsv, query, 1) up to this much (0.1 times it: at most 0.2 of
# an IDF share of 1). Half of the best 50 statements of a dev query rank below 0.8 and 6.7 % above 2 (long entries
# that repeat the query's words: up to 8.2); the cap is what lets the second pass of text_search skip every
# candidate that trails the k-th best score by more than 0.1 * RANK_BOUND of a share, exactly.
RANK_BOUND = 2.0
# A keyword query ranks at most this many of the statements that contain its words (by ts_rank_cd, which reads
# positions); only a very common word matches more ("morphism": 5,949 of the 20,745 regex-extracted statements),
# and then which ones are ranked is up to the index scan (exact-name matches always are).
KEYWORD_CAP = 5_000


# Added to the full-text score of a statement whose name (or alias) is the query: a look-up by name. Full-text
# scores stay far below it, so a score at least this large marks an exact name match.
EXACT_NAME_BOOST = 10

# A query equal to one of a statement's recorded alternative names (PlanetMath's pmsynonym) is a look-up by name;
# the text table keeps them as a JSON array.
_ALIAS_SQL = "EXISTS (SELECT 1 FROM jsonb_array_elements_text({a}.synonyms) AS s(x) WHERE lower(s.x) = %s)"


@dataclass(frozen=True)
class QueryTerm:
    """A lexeme of a long query with its document frequency and its IDF (computed in SQL, as the ranking uses it)."""

    lexeme: str
    ndoc: int
    idf: Decimal
    n_total: int = 0  # statements in the index when the term was looked up (0: unknown)


def query_terms(names: Names, query: str) -> tuple[sql.Composed, list]:
    """The query's rarest lexemes (at most ``MAX_QUERY_LEXEMES``, each in at most ``MAX_DF_SHARE`` of the
    statements), rarest first, with their IDF and the number of statements (the columns of :class:`QueryTerm`): a
    few index look-ups in the lexicon and the maintained count."""
    query_sql = sql.SQL(
        """SELECT l.lexeme, l.ndoc, ln(1 + (total.n - l.ndoc + 0.5) / (l.ndoc + 0.5)) AS idf, total.n
        FROM (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english', %s))) AS lexeme) AS u
        JOIN {lx} AS l USING (lexeme), (SELECT {count} AS n) AS total
        WHERE l.lexeme ~ '^[a-z0-9]+$' AND l.ndoc <= %s * total.n
        ORDER BY l.ndoc, l.lexeme LIMIT %s"""
    ).format(lx=sql.Identifier(names.lexicon), count=count_of(names))
    return query_sql, [query, THEOREMS_KEY, MAX_DF_SHARE, MAX_QUERY_LEXEMES]


def candidate_terms(terms: Sequence[QueryTerm], budget: int) -> int:
    """How many of the (rarest first) terms select candidates: the longest prefix whose document frequencies
    sum to at most ``budget``, and at least one. The other terms still count in every candidate's score.

    >>> t = [QueryTerm("a", 10, Decimal(7)), QueryTerm("b", 300, Decimal(4)), QueryTerm("c", 5000, Decimal("1.5"))]
    >>> candidate_terms(t, 1000), candidate_terms(t, 5), candidate_terms(t, 10**6)
    (2, 1, 3)
    """
    total, n = 0, 0
    for term in terms:
        total += term.ndoc
        if total > budget and n:
            break
        n += 1
    return n


def candidate_tsquery(terms: Sequence[QueryTerm], budget: int) -> str:
    """The ``tsquery`` that selects a long query's candidates (terms rarest first): the rarest terms whose document
    frequencies sum to at most ``budget`` (:func:`candidate_terms`), any of them.

    When even the rarest term is in more statements than the budget (common at a million statements: "respect" is
    in 26,507), a candidate must have two of the rarest terms, or three, ...: the first pattern whose expected
    number of statements (terms taken as independent) fits the budget, over as many of the rarest terms as fit. The
    GIN index intersects the posting lists, so only statements that match are read from the table.

    >>> t = [QueryTerm("a", 10, Decimal(7), 1000), QueryTerm("b", 300, Decimal(4), 1000)]
    >>> candidate_tsquery(t, 5000)
    'a | b'
    >>> t = [QueryTerm(x, n, Decimal(1), 10**6) for x, n in [("a", 26_000), ("b", 44_000), ("c", 62_000), ("d", 99_000)]]
    >>> candidate_tsquery(t, 5_000)
    '(a & b)'
    >>> candidate_tsquery(t, 6_000)
    '(a & b) | (a & c) | (b & c)'
    """
    n_total = max((t.n_total for t in terms), default=0)
    if not terms or terms[0].ndoc <= budget or len(terms) < 2 or n_total <= 0:
        return " | ".join(t.lexeme for t in terms[: candidate_terms(terms, budget)])
    for r in range(2, len(terms) + 1):
        for width in range(min(len(terms), r + 2), r - 1, -1):
            combos = list(itertools.combinations(terms[:width], r))
            expected = sum(math.prod(t.ndoc / n_total for t in c) for c in combos) * n_total
            if expected <= budget:
                return " | ".join("(" + " & ".join(t.lexeme for t in c) + ")" for c in combos)
    return " & ".join(t.lexeme for t in terms)


def text_search(
    names: Names, query: str, filters: Filters, k: int, terms: Sequence[QueryTerm] | None = None,
    budget: int | None = None, rank_cap: int | None = None,
) -> tuple[sql.Composed, list]:
    """Full-text search over name, slogan, synonyms and statement (the text table: migration 14); a name equal to
    (or containing) the query wins.

    Keyword queries (at most ``SHORT_QUERY_TOKENS`` words) need every word as a prefix and rank by ``ts_rank_cd``.
    Longer queries are scored like BM25 without term frequency: the share of the IDF of the query's rare lexemes
    (``terms``, from :func:`query_terms`) that a statement contains (so at most 1), ``PHRASE_SHARE`` more when it
    holds the query's words in a row (common words included), plus a small ``ts_rank_cd`` to
    break ties. The name boost matters for keyword queries such as "Yoneda lemma": the statement named so should
    come first; a query equal to one of a statement's recorded alternative names (``meta.synonyms``) counts as its
    name.

    What a long query costs is bounded: candidates are the statements that contain one of the rarest terms whose
    document frequencies sum to at most ``budget`` (or two of them, ...: :func:`candidate_tsquery`), or whose name
    is the query; every candidate is scored on all terms, and ``ts_rank_cd`` (which reads positions, capped at
    ``RANK_BOUND``) runs on the best 2 k of them and then only on those that can still reach the top k (at most
    ``rank_cap`` in all).
    """
    if len(query_tokens(query)) <= SHORT_QUERY_TOKENS:
        return _keyword_search(names, query, filters, k)
    if terms is None:
        raise ValueError("a long full-text query needs its terms: run query_terms() first")
    if not terms:
        return sql.SQL("SELECT NULL::text, NULL::text, NULL::float8 WHERE FALSE"), []
    cand_query = candidate_tsquery(terms, CANDIDATE_BUDGET if budget is None else budget)
    where, fparams = filter_clause(filters, "t", year_column=sql.Identifier("d", "year"), documents=names.documents)
    # The IDF share as one CASE per term, in float8 (added in the terms' order, so a row's sum is the same on every
    # run; numeric cost 2-3 % more). The text table keeps vectors in the row up to about 8 kB (migration 16), so the
    # terms are matched against the row's vector itself; a vector stored out of line (longer, or in a table not yet
    # rewritten) is matched against one in-memory copy (OFFSET 0 keeps the planner from inlining the copy), since each
    # match on t.tsv would fetch it again (benchmarks/results/text_inline/). The candidates within reach of the top k
    # are read again for ts_rank_cd by their row address (ctid: one statement, one snapshot, so it still points at
    # the same row), not through the primary key's b-tree: the same rows, 4-6 % less time for long queries
    # (benchmarks/results/text_ctid/).
    # The phrase's tsquery is made once, in a sub-select: as a function call in the CASE it was made again for every
    # candidate (4-8 word queries, full-text p50 10.2 -> 16.1 ms; in a sub-select 10.9: results/phrase_share/).
    phrase = PHRASE_SHARE > 0

    def share(v: sql.Composable) -> sql.Composed:
        match = sql.SQL("CASE WHEN {v} @@ %s::tsquery THEN %s::float8 ELSE 0 END").format(v=v)
        in_a_row = sql.SQL("CASE WHEN {v} @@ (SELECT phraseto_tsquery('english', %s)) THEN %s::float8 ELSE 0 END"
                           ).format(v=v)  # fmt: skip
        return sql.SQL(" + ").join([match] * len(terms) + [in_a_row] * phrase)

    # Two passes keep ts_rank_cd (the costly part: it reads positions) to the rows that can still reach the top k.
    # The first ranks the best 2 k candidates by IDF share (at least k + 20), which gives a k-th best final score; a
    # later candidate can gain at most 0.1 * RANK_BOUND from the tie-breaker, so only those whose share comes within
    # that of the k-th best final score are ranked in the second (at most ``rank_cap`` in all). A statement named as
    # the query is a candidate whatever its share and is ranked first; one whose recorded alias is the query gets
    # the same boost when it is ranked (as before the two passes).
    ranked = sql.SQL(
        """SELECT c.id, x.doc_id,
            c.s / %s + 0.1 * least(x.rank, {bound}) + CASE WHEN c.named OR x.alias THEN {boost} ELSE 0 END AS score
        FROM ({rows}) AS c CROSS JOIN LATERAL (
            SELECT t.doc_id, ts_rank_cd(t.tsv, %s::tsquery, 1) AS rank, {alias} AS alias
            FROM {t} AS t WHERE t.ctid = c.tid OFFSET 0) AS x"""
    )
    fmt = dict(t=sql.Identifier(names.text), boost=sql.Literal(EXACT_NAME_BOOST), bound=sql.Literal(RANK_BOUND),
               alias=sql.SQL(_ALIAS_SQL.format(a="t")))
    head_rows = sql.SQL("SELECT id, tid, named, s FROM cand ORDER BY named DESC, s DESC, id LIMIT %s")
    rest_rows = sql.SQL(
        """SELECT id, tid, named, s FROM cand
        WHERE (named OR s >= (coalesce((SELECT score FROM kth), 0) - %s) * %s) AND id NOT IN (SELECT id FROM head)
        ORDER BY named DESC, s DESC, id LIMIT %s""")
    query_sql = sql.SQL(
        """WITH cand AS MATERIALIZED (
            SELECT t.id, t.ctid AS tid, coalesce(lower(t.name) = %s, false) AS named,
                CASE WHEN pg_column_size(t.tsv) <= {inline} THEN {share}
                     ELSE (SELECT {share_copy} FROM (SELECT t.tsv || ''::tsvector AS v OFFSET 0) AS dv) END AS s
            FROM {t} AS t {year_join}
            WHERE (t.tsv @@ %s::tsquery OR lower(t.name) = %s) AND {where}),
        head AS MATERIALIZED ({head}),
        kth AS (SELECT score FROM head ORDER BY score DESC LIMIT 1 OFFSET %s),
        rest AS ({rest})
        SELECT id, doc_id, score FROM head UNION ALL SELECT id, doc_id, score FROM rest
        ORDER BY score DESC, id LIMIT %s"""
    ).format(t=sql.Identifier(names.text), share=share(sql.Identifier("t", "tsv")), share_copy=share(sql.Identifier("dv", "v")),
             inline=sql.Literal(INLINE_TSV_BYTES), year_join=_year_join(names, filters), where=where,
             head=ranked.format(rows=head_rows, **fmt), rest=ranked.format(rows=rest_rows, **fmt))  # fmt: skip
    lowered = query.strip().lower()
    lexemes, idfs = [t.lexeme for t in terms], [t.idf for t in terms]
    total = sum(idfs, Decimal(0))
    cap = max(RANK_CAP if rank_cap is None else rank_cap, k)
    head = min(cap, max(2 * k, k + 20))
    rank_query = " | ".join(lexemes)
    # Lexemes are [a-z0-9]+ (query_terms keeps no other), so each is a tsquery literal as it stands.
    # The query's words in a row, as a phrase (common words included): a share of PHRASE_SHARE more
    shares = [*(x for term in terms for x in (term.lexeme, term.idf)),
              *([query, total * Decimal(str(PHRASE_SHARE))] if phrase else [])]  # fmt: skip
    return query_sql, [
        lowered, *shares * 2, cand_query, lowered, *fparams,
        total, head, rank_query, lowered, k - 1,
        total, Decimal(str(0.1 * RANK_BOUND)), total, cap - head, rank_query, lowered, k,
    ]  # fmt: skip


def _year_join(names: Names, filters: Filters) -> sql.Composable:
    if filters.year_min is None and filters.year_max is None:
        return sql.SQL("")
    return sql.SQL("LEFT JOIN {d} AS d ON d.id = t.doc_id").format(d=sql.Identifier(names.documents))


def _keyword_search(names: Names, query: str, filters: Filters, k: int, cap: int | None = None) -> tuple[sql.Composed, list]:
    """Every word as a prefix, ranked by ``ts_rank_cd``; a name equal to the query first, one containing it next.

    ``ts_rank_cd`` reads each candidate's positions, so at most ``KEYWORD_CAP`` of the statements that contain the
    words are ranked (all of them unless a word is very common: then which ones is up to the index scan), plus
    every statement whose name is the query.
    """
    where, fparams = filter_clause(filters, "t", year_column=sql.Identifier("d", "year"), documents=names.documents)
    lowered = query.strip().lower()
    cols = sql.SQL("t.id, t.doc_id, t.tsv, t.name, t.synonyms")
    query_sql = sql.SQL(
        """SELECT c.id, c.doc_id,
            ts_rank_cd(c.tsv, q.q, 1)
            + CASE WHEN lower(c.name) = %s OR {alias} THEN {boost} WHEN lower(c.name) LIKE %s THEN 1 ELSE 0 END AS score
        FROM (
            (SELECT {cols} FROM {t} AS t {year_join}
             WHERE t.tsv @@ to_tsquery('english', %s) AND lower(t.name) IS DISTINCT FROM %s AND {where} LIMIT %s)
            UNION ALL
            (SELECT {cols} FROM {t} AS t {year_join} WHERE lower(t.name) = %s AND {where})
        ) AS c, to_tsquery('english', %s) AS q(q)
        ORDER BY score DESC, c.id LIMIT %s"""
    ).format(t=sql.Identifier(names.text), year_join=_year_join(names, filters), where=where, cols=cols,
             alias=sql.SQL(_ALIAS_SQL.format(a="c")), boost=sql.Literal(EXACT_NAME_BOOST))  # fmt: skip
    pattern = f"%{_like_escape(lowered)}%"
    tsq = tsquery_text(query)
    return query_sql, [lowered, lowered, pattern, tsq, lowered, *fparams, KEYWORD_CAP if cap is None else cap,
                       lowered, *fparams, tsq, k]  # fmt: skip


# Formula search (theorem_rag.formula_keys): a key in more statements than this weighs as if in this many (its
# IDF is already small), and candidates come from the rarest keys whose statements number at most the budget in
# all. (Until 2026-12-07 the budget summed the capped counts too, so a query of common keys read every statement of
# each: with mathlib's 197,000 declarations' keys, 195 ms at the 95th percentile of --formal Lean queries.)
FORMULA_DF_CAP = 2_000
FORMULA_BUDGET = 6_000
# A formula query asks for a result: an entry about one ("proof of X", an example) that has the same formulas
# counts this much of its score, and the store ranks this many more rows than asked, to reorder them.
FORMULA_DERIVED_FACTOR = 0.6
FORMULA_EXTRA_ROWS = 50


def formula_key_counts(names: Names, keys: Sequence[str]) -> tuple[sql.Composed, list]:
    """How many statements have each key, from the maintained counts (migration 25): one primary-key look-up per
    key. (``FORMULA_DF_CAP`` caps them in the weights: what the ranking was tuned with, when each key's statements
    were counted through the GIN index up to it.)"""
    query = sql.SQL(
        "SELECT k, coalesce((SELECT f.ndoc FROM {df} AS f WHERE f.key = k), 0) FROM unnest(%s::text[]) AS k"
    ).format(df=sql.Identifier(names.formula_df))
    return query, [list(keys)]


def formula_search(names: Names, keys: Sequence[str], weights: Sequence[float], filters: Filters, k: int) -> tuple[sql.Composed, list]:
    """Statements ranked by the summed weights of the given keys they have (one index look-up per key), with their
    name and kind.

    The statements of each key are looked up on their own (``OFFSET 0`` keeps the planner from merging the look-up
    into a join): joined directly, the planner estimated the keys' matches blindly and, with many keys, scanned the
    whole table testing every key against every statement (4.4 s for a query of 51 keys over 29,467 statements,
    37 ms this way)."""
    where, fparams = filter_clause(filters, "t", year_column=sql.Identifier("d", "year"), documents=names.documents)
    query = sql.SQL(
        """SELECT t.id, t.doc_id, t.name, t.kind, m.score
        FROM (SELECT x.id, sum(q.w) AS score
              FROM unnest(%s::text[], %s::float8[]) AS q(k, w)
              CROSS JOIN LATERAL (SELECT s.id FROM {t} AS s WHERE s.formula_keys @> ARRAY[q.k] OFFSET 0) AS x
              GROUP BY x.id) AS m
        JOIN {t} AS t ON t.id = m.id {year_join}
        WHERE {where}
        ORDER BY m.score DESC, t.id LIMIT %s"""
    ).format(t=sql.Identifier(names.theorems), year_join=_year_join(names, filters), where=where)
    return query, [list(keys), [float(w) for w in weights], *fparams, k]
