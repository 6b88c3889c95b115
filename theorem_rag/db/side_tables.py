"""Side tables of :class:`~theorem_rag.db.store.TheoremStore`: the slogan cache and user feedback (a mixin)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from psycopg import sql

from theorem_rag.db.connection import StorePart
from theorem_rag.errors import InputError
from theorem_rag.slogans.cache import SloganRow

# Slogan cache columns and the SloganRow fields they hold (the token and cost columns keep their first names).
CACHE_COLUMNS = {
    "key": "key", "statement_hash": "statement_hash", "writer": "writer", "prompt_version": "prompt_version",
    "model": "model", "slogan": "slogan", "input_tokens": "prompt_tokens", "output_tokens": "completion_tokens",
    "cost": "cost_usd",
}  # fmt: skip
# The longest feedback fields stored, in characters (the query's limit is the store's max_query_chars): a vote
# comes from anyone who reaches a served app, so no field of it may be of any size.
FEEDBACK_MAX_CHARS = {"theorem_id": 1_000, "answer_id": 1_000, "answer": 20_000, "comment": 2_000}


class SideTableOps(StorePart):
    """Slogan cache and feedback methods."""

    def record_feedback(
        self,
        query: str,
        vote: int,
        theorem_id: str | None = None,
        answer_id: str | None = None,
        comment: str | None = "",
        answer: str | None = None,
    ) -> int:
        """Store a +1/-1 vote on a theorem or on an assistant answer (by id or its text); returns the feedback id.
        Each field is bounded (the query by ``max_query_chars``, the others by :data:`FEEDBACK_MAX_CHARS`): a longer
        one is an InputError and nothing is stored.

        >>> store.record_feedback("nakayama", 1, theorem_id="stacks:00DV")  # doctest: +SKIP
        1
        """
        if vote not in (-1, 1) or isinstance(vote, bool):
            raise InputError("vote must be +1 or -1")
        if theorem_id is None and answer_id is None and answer is None:
            raise InputError("feedback needs a theorem_id, an answer_id or an answer")
        if not isinstance(query, str):
            raise InputError("feedback query must be a string")
        limits = {"query": self.max_query_chars, **FEEDBACK_MAX_CHARS}
        given = {"query": query, "theorem_id": theorem_id, "answer_id": answer_id, "answer": answer, "comment": comment}
        for field, value in given.items():
            if value is not None and len(str(value)) > limits[field]:
                raise InputError(f"feedback {field} is longer than {limits[field]:,} characters")
        with self.connection() as conn:
            return conn.execute(
                sql.SQL(
                    "INSERT INTO {f} (query, theorem_id, answer_id, answer, vote, comment) "
                    "VALUES (%s, %s, %s, %s, %s, %s) RETURNING id"
                ).format(f=sql.Identifier(self.names.feedback)),
                [query, theorem_id, answer_id, answer, vote, comment or ""],
            ).fetchone()[0]

    def cached_slogans(self, keys: Sequence[str]) -> dict[str, SloganRow]:
        """Cached slogans by key (see :func:`theorem_rag.slogans.cache.slogan_key`); absent keys are missing."""
        with self.connection() as conn:
            rows = conn.execute(
                sql.SQL("SELECT {c} FROM {s} WHERE key = ANY(%s)").format(
                    c=sql.SQL(", ").join(map(sql.Identifier, CACHE_COLUMNS)), s=sql.Identifier(self.names.slogan_cache)
                ),
                [list(keys)],
            ).fetchall()
        return {r[0]: SloganRow(**{field: v for field, v in zip(CACHE_COLUMNS.values(), r)}) for r in rows}

    def cache_slogans(self, entries: Iterable[SloganRow]) -> int:
        """Commit a batch of slogans to the cache (first write wins); returns #new. Call once per finished batch,
        so an interrupted run keeps every batch already committed and a rerun resumes from the cache."""
        rows = [tuple(getattr(e, field) for field in CACHE_COLUMNS.values()) for e in entries]
        if not rows:
            return 0
        with self.connection() as conn, conn.transaction():
            cur = conn.cursor()
            cur.executemany(
                sql.SQL("INSERT INTO {s} ({c}) VALUES ({p}) ON CONFLICT (key) DO NOTHING").format(
                    s=sql.Identifier(self.names.slogan_cache),
                    c=sql.SQL(", ").join(map(sql.Identifier, CACHE_COLUMNS)),
                    p=sql.SQL(", ").join(sql.Placeholder() * len(CACHE_COLUMNS)),
                ),
                rows,
                returning=False,
            )
            return max(cur.rowcount, 0)
