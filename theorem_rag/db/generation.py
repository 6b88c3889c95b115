"""A change marker for long-running readers: a counter the database bumps whenever what they cache changes.

A server keeps a few things between requests: each space's registration (its index kind, model and backend), the
index of document titles that routes "the paper <title>" queries, the documents of the statements it showed. Another
process can change each of them: ``index build`` ingests new papers or switches a space's index kind, ``index
delete-source`` removes documents. Rather than re-read them on a timer, readers compare one number:
``{prefix}_generation.n``, bumped by triggers on the documents and spaces tables in the transaction that changed
them (so the new number is visible exactly when the change is). Reading it is one primary-key lookup per request
(:meth:`GenerationOps.refresh`); when it moved, the store drops its caches, and a caller that caches
(``TheoremSearch``, the app's handlers) drops its own when the number differs from the one it last saw.

The counter moves once per transaction that changed a row, when the transaction commits (migration 22: a deferred
constraint trigger per changed row, of which only the first bumps). Migration 18 bumped it at the end of every SQL
statement that changed a row, one per document of an upsert: a writer then held the counter's row lock from its
first document to its commit, so concurrent builds waited for each other's whole transaction, and a build that went
on to write a document the waiting build had written deadlocked with it. Taken at commit, after every other row
lock, it is held only while the transaction commits.

A statement that changes no row (an upsert that finds every document unchanged, a space registered again) does not
bump it.
"""

from __future__ import annotations

from psycopg import Connection, sql

from theorem_rag.db.connection import StorePart
from theorem_rag.db.table_names import Names

TRIGGER = "trag_generation"
# Migration 22's trigger on each watched table: one deferred firing per changed row, at commit.
COMMIT_TRIGGER = f"{TRIGGER}_at_commit"
# Migration 18's statement-level triggers that migration 22 replaces (its TRUNCATE trigger stays).
_STATEMENT_TRIGGERS = [f"{TRIGGER}_{event}" for event in ("insert", "update", "delete")]


def table(names: Names) -> str:
    """The one-row table of the counter.

    >>> table(Names("theorems"))
    'theorems_generation'
    """
    return names.generation


def function_name(names: Names) -> str:
    return f"{names.prefix}_bump_generation"


def _setting(names: Names) -> str:
    """The transaction-local setting that records that this transaction has bumped the counter already.

    >>> _setting(Names("theorems"))
    'theorem_rag.generation_bumped_theorems'
    """
    return f"theorem_rag.generation_bumped_{names.prefix}"


def migration(names: Names) -> list[sql.Composed]:
    """Migration 18: the counter, its trigger function, and the triggers on the documents and spaces tables."""
    g, f = sql.Identifier(table(names)), sql.Identifier(function_name(names))
    steps = [
        sql.SQL("CREATE TABLE IF NOT EXISTS {g} (id smallint PRIMARY KEY CHECK (id = 1), n bigint NOT NULL)").format(g=g),
        sql.SQL("INSERT INTO {g} (id, n) VALUES (1, 1) ON CONFLICT (id) DO NOTHING").format(g=g),
        # Each branch reads only the transition table its event has (a statement is planned when it runs).
        sql.SQL(
            "CREATE OR REPLACE FUNCTION {f}() RETURNS trigger LANGUAGE plpgsql AS $trag$ DECLARE changed boolean; BEGIN "
            "IF TG_OP = 'TRUNCATE' THEN changed := true; "
            "ELSIF TG_OP = 'DELETE' THEN changed := EXISTS (SELECT 1 FROM ot); "
            "ELSE changed := EXISTS (SELECT 1 FROM nt); END IF; "
            "IF changed THEN UPDATE {g} SET n = n + 1 WHERE id = 1; END IF; "
            "RETURN NULL; END $trag$"
        ).format(f=f, g=g),
    ]
    events = [("INSERT", "REFERENCING NEW TABLE AS nt"), ("UPDATE", "REFERENCING NEW TABLE AS nt"),
              ("DELETE", "REFERENCING OLD TABLE AS ot"), ("TRUNCATE", "")]  # fmt: skip
    for watched in (names.documents, names.spaces):
        for event, referencing in events:
            steps.append(sql.SQL(
                "CREATE OR REPLACE TRIGGER {n} AFTER {e} ON {t} {r} FOR EACH STATEMENT EXECUTE FUNCTION {f}()"
            ).format(n=sql.Identifier(f"{TRIGGER}_{event.lower()}"), e=sql.SQL(event), t=sql.Identifier(watched),
                     r=sql.SQL(referencing), f=f))  # fmt: skip
    return steps


def per_transaction(names: Names) -> list[sql.Composed]:
    """Migration 22: the counter bumped once per transaction, at commit, instead of per statement.

    Constraint triggers can only be row-level, so each changed row queues one deferred firing; the first to run
    bumps the counter and sets a transaction-local setting that the rest return on (a savepoint rolled back undoes
    both together). ``TRUNCATE`` keeps migration 18's statement-level trigger, which now calls the same function."""
    g, f, flag = sql.Identifier(table(names)), sql.Identifier(function_name(names)), sql.Literal(_setting(names))
    steps = [
        sql.SQL(
            "CREATE OR REPLACE FUNCTION {f}() RETURNS trigger LANGUAGE plpgsql AS $trag$ BEGIN "
            "IF current_setting({flag}, true) IS DISTINCT FROM 'on' THEN "
            "PERFORM set_config({flag}, 'on', true); UPDATE {g} SET n = n + 1 WHERE id = 1; END IF; "
            "RETURN NULL; END $trag$"
        ).format(f=f, g=g, flag=flag),
    ]
    for watched in map(sql.Identifier, (names.documents, names.spaces)):
        drop = sql.SQL("DROP TRIGGER IF EXISTS {n} ON {t}")
        steps += [drop.format(n=sql.Identifier(n), t=watched) for n in [*_STATEMENT_TRIGGERS, COMMIT_TRIGGER]]
        steps.append(sql.SQL(
            "CREATE CONSTRAINT TRIGGER {n} AFTER INSERT OR UPDATE OR DELETE ON {t} DEFERRABLE INITIALLY DEFERRED "
            "FOR EACH ROW EXECUTE FUNCTION {f}()"
        ).format(n=sql.Identifier(COMMIT_TRIGGER), t=watched, f=f))  # fmt: skip
    return steps


class GenerationOps(StorePart):
    """The change marker's reads; the store also provides the caches it drops (``_spaces``, a
    :class:`~theorem_rag.db.generation_cache.GenerationCache` that also records the marker it last
    saw, and ``_titles`` of :class:`~theorem_rag.db.lookup.LookupOps`)."""

    def generation(self) -> int:
        """The index's change marker now: it grows whenever documents or vector spaces change."""
        with self.connection() as conn:
            return self._read_generation(conn)

    def _read_generation(self, conn: Connection) -> int:
        query = sql.SQL("SELECT n FROM {g} WHERE id = 1").format(g=sql.Identifier(table(self.names)))
        row = conn.execute(query).fetchone()
        return int(row[0]) if row else 0

    def refresh(self) -> int:
        """Read the change marker and return it; when it moved since the store last read it (or on the first read),
        drop what the store caches from the database first (space registrations, the title index). Callers that
        cache too keep the number they last saw and drop their caches when it differs. One primary-key lookup."""
        now = self.generation()
        if self._spaces.advance(now):  # type: ignore[attr-defined]
            with self._titles_lock:  # type: ignore[attr-defined]
                self._titles = None
        return now


__all__ = ["GenerationOps", "function_name", "migration", "per_transaction", "table"]
