"""Full-text and formula search of :class:`~theorem_rag.db.store.TheoremStore` (a mixin; SQL in ``lexical_sql``).

Full-text search reads the narrow text table (schema 14): keyword queries rank every statement with their words by
``ts_rank_cd``; long queries score the candidates of their rarest words by IDF share (``lexical_sql.text_search``).
Formula search ranks statements by the IDF-weighted formula keys they share with a query.
"""

from __future__ import annotations

from collections.abc import Sequence

from psycopg import Connection, sql

from theorem_rag.db import counters, lexical_sql
from theorem_rag.db.connection import StorePart
from theorem_rag.db.dense import check_k
from theorem_rag.filters import Filters
from theorem_rag.query import SHORT_QUERY_TOKENS, query_tokens, validate_query
from theorem_rag.formula_keys import key_weights
from theorem_rag.query_understanding.names import about_a_result
from theorem_rag.records import Hit


class TextOps(StorePart):
    """Full-text and formula search."""

    def search_text(self, query: str, k: int = 10, filters: Filters | dict | None = None) -> list[Hit]:
        """Full-text search (English stemming) over name, slogan, synonyms and statement; exact names first.

        A long query first looks its rarest lexemes up in the lexicon, then searches with them bound as values,
        so the planner sees which words it matches (a GIN index scan, never a scan of the table).
        """
        text = validate_query(query, self.max_query_chars)
        check_k(k, k)
        f = Filters.from_mapping(filters)
        with self.connection() as conn:
            sql_query, params = self._text_query(conn, text, f, k)
            rows = conn.execute(sql_query, params).fetchall()
        return [Hit(tid, float(score), rank=i, doc_id=doc, lexical_rank=i) for i, (tid, doc, score) in enumerate(rows, 1)]

    def search_formula(self, keys: Sequence[str], k: int = 10, filters: Filters | dict | None = None) -> list[Hit]:
        """Statements that share formula keys with a query (:mod:`theorem_rag.formula_keys`),
        ranked by the IDF-weighted keys they share (entries about a result, such as "proof of X", count less); the
        rarest keys only, so the work per query is bounded. A hit's score is its share of those keys' weight, at
        most 1."""
        check_k(k, k)
        if not keys:
            return []
        f = Filters.from_mapping(filters)
        with self.connection() as conn, conn.transaction():
            # Each key's statements through the GIN index, whatever the planner estimates: a sequential scan tests
            # every key against every statement (lexical_sql.formula_search). For this transaction only.
            conn.execute("SELECT set_config('enable_seqscan', 'off', true)")
            count_sql, count_params = lexical_sql.formula_key_counts(self.names, keys)
            counts = {key: int(n) for key, n in conn.execute(count_sql, count_params)}
            total = conn.execute(sql.SQL("SELECT {n}").format(n=counters.count_of(self.names)),
                                 [counters.THEOREMS_KEY]).fetchone()[0]
            weighted = key_weights(counts, max(int(total), 1), lexical_sql.FORMULA_BUDGET, lexical_sql.FORMULA_DF_CAP)
            if not weighted:
                return []
            query, params = lexical_sql.formula_search(self.names, [w[0] for w in weighted], [w[1] for w in weighted], f,
                                                    k + lexical_sql.FORMULA_EXTRA_ROWS)  # fmt: skip
            rows = conn.execute(query, params).fetchall()
        # scored by the share of the searched keys' weight a statement has (1: every key), so that a caller can
        # tell a formula found from a few common symbols shared
        whole = sum(w for _, w in weighted) or 1.0
        scored = [
            (tid, doc, float(score) / whole * (lexical_sql.FORMULA_DERIVED_FACTOR if about_a_result(name, kind) else 1.0))
            for tid, doc, name, kind, score in rows
        ]  # fmt: skip
        scored.sort(key=lambda r: (-r[2], r[0]))
        return [Hit(tid, score, rank=i, doc_id=doc) for i, (tid, doc, score) in enumerate(scored[:k], 1)]

    def _text_query(self, conn: Connection, text: str, filters: Filters, k: int) -> tuple[sql.Composable, list]:
        terms = None
        if len(query_tokens(text)) > SHORT_QUERY_TOKENS:
            terms_sql, terms_params = lexical_sql.query_terms(self.names, text)
            terms = [lexical_sql.QueryTerm(lx, int(n), idf, int(total)) for lx, n, idf, total in conn.execute(terms_sql, terms_params)]
        return lexical_sql.text_search(self.names, text, filters, k, terms=terms)
