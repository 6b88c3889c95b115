"""SQL text of the tables, built apart from running it: their columns, metadata filters, indexes, writes and reads
by key; every value is a bound parameter (dense search is in :mod:`theorem_rag.db.dense_sql`, lexical search, full
text and formulas, in :mod:`theorem_rag.db.lexical_sql`).

Each builder returns ``(query, params)``; identifiers go through ``psycopg.sql.Identifier``. Nothing here
connects, so the text can be checked without a server.

>>> q, p = filter_clause(Filters(source=("stacks",)), alias="v")
>>> q.as_string(None), p
('"v"."source" = ANY(%s)', [['stacks']])
"""

from __future__ import annotations

from collections.abc import Sequence

from psycopg import sql
from psycopg.types.json import Jsonb

from theorem_rag.db.table_names import Names
from theorem_rag.filters import FORMAL_LANGUAGES, Filters
from theorem_rag.formula_keys import keys_for, lean_keys
from theorem_rag.records import Theorem, is_lean
from theorem_rag.slogans.lean_text import statement_formulas
from theorem_rag.slogans.lean_words import PROPOSITIONS

THEOREM_COLUMNS = (
    "id", "source", "kind", "doc_id", "body_latex", "body_expanded", "number", "name", "label", "section",
    "proof_refs", "url", "parser", "file", "line", "meta", "proof",
)  # fmt: skip
# What a write sends per statement: the record's columns, its content hash and its formula keys (derived from the
# statement by theorem_rag.formula_keys, kept in step by every write: the ones its record carries from the parse
# while they match its text, else computed here).
WRITE_COLUMNS = (*THEOREM_COLUMNS, "content_hash", "formula_keys")
DOCUMENT_COLUMNS = ("id", "source", "title", "authors", "abstract", "introduction", "license", "url", "year", "meta")


_ARRAY_COLUMNS = frozenset({"section", "proof_refs"})


def text_array(items: Sequence[str]) -> str:
    r"""A ``text[]`` value in PostgreSQL's input syntax, every element quoted, for ``COPY``: psycopg dumps a list
    element by element in Python, the largest cost of a bulk load after the records themselves.

    >>> print(text_array(["a", 'say "hi", \\o/', "NULL", "{x}"]), text_array([]))
    {"a","say \"hi\", \\o/","NULL","{x}"} {}
    """
    if not items:
        return "{}"
    # Escaped once over the whole list, joined by a character no text value holds (PostgreSQL's text has no NUL):
    # element by element, this was half of what a bulk load spends in Python per statement (its ~100 formula keys).
    joined = "\0".join(items)
    if joined.count("\0") != len(items) - 1:  # an element with a NUL: PostgreSQL refuses it, not split in two
        return '{"' + '","'.join(map(_array_escape, items)) + '"}'
    return '{"' + _array_escape(joined).replace("\0", '","') + '"}'


def _array_escape(text: str) -> str:
    """A quoted array element's inside: backslashes and double quotes escaped."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def statement_keys(t: Theorem) -> list[str]:
    """The formula keys a write stores for a statement: a Lean declaration's from the formulas of its statement (the
    hypotheses and type of a theorem or lemma) and the LaTeX of its docstring (``formula_keys.lean_keys``); any
    other's by ``formula_keys.keys_for`` (the ones its record carries while they are current)."""
    if not is_lean(t):
        return keys_for(t.text, t.formula_keys)
    meta = t.meta or {}
    stated = meta.get("lean_kind", t.kind) in (*PROPOSITIONS, "structure", "class")
    return lean_keys(statement_formulas(t.text) if stated else [], str(meta.get("docstring") or ""))


def theorem_row(t: Theorem) -> list:
    """The values of ``WRITE_COLUMNS`` for one statement: what ``COPY`` writes (arrays as :func:`text_array`)."""
    return [*map(_column_value, THEOREM_COLUMNS, [getattr(t, c) for c in THEOREM_COLUMNS]), t.content_hash,
            text_array(statement_keys(t))]


def _column_value(column: str, value: object) -> object:
    return text_array(value) if column in _ARRAY_COLUMNS else Jsonb(value) if column == "meta" else value


def filter_clause(filters: Filters, alias: str, year_column: sql.Composable | None = None,
                  documents: str | None = None) -> tuple[sql.Composable, list]:  # fmt: skip
    """``WHERE`` conditions (joined by AND, ``TRUE`` when empty) over columns source, kind, doc_id, year of ``alias``.

    A category filter is a condition on ``doc_id`` too: the documents (table ``documents``) listed in one of the
    categories, found in the same statement through their categories' GIN index (migration 17), so neither the
    documents nor their ids travel to the client and back. So is the formal filter: the statements of documents in
    a formal language (``meta.language``, one of :data:`~theorem_rag.filters.FORMAL_LANGUAGES`: the partial index of
    migration 23 holds their ids), or of the others.

    >>> q, p = filter_clause(Filters(category=("math.AG",)), alias="v", documents="theorems_documents")
    >>> print(q.as_string(None)); p
    "v"."doc_id" IN (SELECT c.id FROM "theorems_documents" AS c WHERE c.meta -> 'categories' ?| %s)
    [['math.AG']]
    """
    col = lambda c: sql.Identifier(alias, c)  # noqa: E731
    year = year_column if year_column is not None else col("year")
    parts: list[sql.Composable] = []
    params: list = []
    for name in ("source", "kind", "doc_id"):
        values = getattr(filters, name)
        if values:
            parts.append(sql.SQL("{} = ANY(%s)").format(col(name)))
            params.append(list(values))
    if filters.year_min is not None:
        parts.append(sql.SQL("{} >= %s").format(year))
        params.append(filters.year_min)
    if filters.year_max is not None:
        parts.append(sql.SQL("{} <= %s").format(year))
        params.append(filters.year_max)
    if filters.category:
        if documents is None:
            raise ValueError("a category filter needs the documents table: filter_clause(..., documents=...)")
        parts.append(sql.SQL("{} IN (SELECT c.id FROM {} AS c WHERE c.meta -> 'categories' ?| %s)").format(
            col("doc_id"), sql.Identifier(documents)))  # fmt: skip
        params.append(list(filters.category))
    if filters.formal is not None:
        if documents is None:
            raise ValueError("a formal filter needs the documents table: filter_clause(..., documents=...)")
        parts.append(sql.SQL("{} {} (SELECT c.id FROM {} AS c WHERE c.meta ->> 'language' = ANY(%s))").format(
            col("doc_id"), sql.SQL("IN" if filters.formal else "NOT IN"), sql.Identifier(documents)))  # fmt: skip
        params.append(list(FORMAL_LANGUAGES))
    if not parts:
        return sql.SQL("TRUE"), []
    return sql.SQL(" AND ").join(parts), params


def text_index_name(names: Names) -> str:
    """The full-text GIN index of the text table (migration 14 names it so)."""
    return f"{names.text}_tsv"


def category_index_name(names: Names) -> str:
    """The documents table's GIN index on ``meta->'categories'`` (migration 17): what a category filter reads."""
    return f"{names.documents}_categories"


def formal_index_name(names: Names) -> str:
    """The documents table's index of the ids of documents in a formal language (migration 23): what the formal
    filter reads."""
    return f"{names.documents}_formal"


def reversed_name_index_name(names: Names) -> str:
    """The theorems table's index on reversed lowercased names (migration 23): the look-up of a name's end."""
    return f"{names.theorems}_name_end"


def defined_term_index_name(names: Names) -> str:
    """The theorems table's index of the term a label defines (migration 24): definition look-ups by label."""
    return f"{names.theorems}_defined_term"


# The term a label defines: what follows its last "definition-", lowercased ("morphisms-definition-smooth" defines
# "smooth"); compared byte by byte (the C collation), so a prefix of it is a range of migration 24's index. (A label
# with "definition-" twice is found by what follows the last: none of the Stacks Project's 1,727 has two.)
DEFINED_TERM = "(substring(lower({alias}label) from '.*definition-(.*)$')) COLLATE \"C\""
# The labels that index holds (a constant, so the planner sees that a look-up's condition implies it).
DEFINES_A_TERM = "lower({alias}label) LIKE '%definition-%'"


def defined_term(alias: str = "") -> tuple[str, str]:
    """The SQL of :data:`DEFINED_TERM` and of :data:`DEFINES_A_TERM` on the theorems table under ``alias``, for a
    statement that binds parameters (``%`` doubled).

    >>> defined_term("t")[1]
    "lower(t.label) LIKE '%%definition-%%'"
    """
    prefix = f"{alias}." if alias else ""
    return (DEFINED_TERM.format(alias=prefix).replace("%", "%%"),
            DEFINES_A_TERM.format(alias=prefix).replace("%", "%%"))  # fmt: skip


def doc_index_name(names: Names) -> str:
    """The theorems table's index on ``doc_id`` (schema v1 names it so): document writes find their statements by it."""
    return f"{names.theorems}_doc"


# The pending list of a GIN index (kB; the full-text index's since migration 16, every other GIN index of the
# statements and text tables since migration 26): GIN adds new entries to an unsorted list that every search reads
# in full until VACUUM (or an insert past this size) merges it into the index. PostgreSQL's default, 4 MB, let 3,000
# updated statements add 24 % to the median long query (benchmarks/results/text_inline/).
TEXT_GIN_PENDING_KB = 256


def create_text_index(names: Names) -> sql.Composed:
    """The full-text GIN index over the text table's ``tsv`` column (migration 14; its pending list bounded since
    migration 16)."""
    return sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} USING gin (tsv) WITH (gin_pending_list_limit = {kb})").format(
        i=sql.Identifier(text_index_name(names)), t=sql.Identifier(names.text), kb=sql.Literal(TEXT_GIN_PENDING_KB)
    )


def _update_if_changed(cols: Sequence[str], alias: str) -> tuple[sql.Composed, sql.Composed]:
    """``SET`` list and ``WHERE`` condition of an upsert that rewrites a row only when some column differs."""
    others = [sql.Identifier(c) for c in cols if c != "id"]
    updates = sql.SQL(", ").join(sql.SQL("{c} = EXCLUDED.{c}").format(c=c) for c in others)
    changed = sql.SQL(" OR ").join(
        sql.SQL("{a}.{c} IS DISTINCT FROM EXCLUDED.{c}").format(a=sql.Identifier(alias), c=c) for c in others
    )
    return updates, changed


def upsert_theorems(names: Names) -> sql.Composed:
    """Insert or update from the staging table; rows whose content hash and fields are unchanged are not touched.

    Returns one row per inserted or updated statement with ``inserted`` (xmax = 0) and the previous hash.
    """
    cols = list(WRITE_COLUMNS)
    ident = sql.SQL(", ").join(map(sql.Identifier, cols))
    updates, changed = _update_if_changed(cols, "t")
    return sql.SQL(
        """INSERT INTO {t} AS t ({cols}) SELECT {cols} FROM _stage_theorems
        ON CONFLICT (id) DO UPDATE SET {updates}, updated_at = now() WHERE {changed}
        RETURNING t.id, (xmax = 0) AS inserted"""
    ).format(t=sql.Identifier(names.theorems), cols=ident, updates=updates, changed=changed)


def sync_document_years(names: Names, space: str) -> sql.Composed:
    """Copy the year of the given documents (bound: a list of ids) into the vectors of their statements.

    The statements are found through the theorems' ``doc_id`` index and their vectors by primary key, so the
    cost follows the statements of those documents, not the size of the vector table (which has no ``doc_id``
    index).
    """
    return sql.SQL(
        """UPDATE {v} AS v SET year = d.year FROM {t} AS t JOIN {d} AS d ON d.id = t.doc_id
        WHERE t.doc_id = ANY(%s) AND v.theorem_id = t.id AND v.year IS DISTINCT FROM d.year"""
    ).format(v=sql.Identifier(names.vectors(space)), t=sql.Identifier(names.theorems), d=sql.Identifier(names.documents))


def upsert_documents(names: Names) -> sql.Composed:
    cols = sql.SQL(", ").join(map(sql.Identifier, DOCUMENT_COLUMNS))
    placeholders = sql.SQL(", ").join(sql.Placeholder() * len(DOCUMENT_COLUMNS))
    updates, changed = _update_if_changed(DOCUMENT_COLUMNS, "d")
    return sql.SQL(
        """INSERT INTO {d} AS d ({cols}) VALUES ({ph})
        ON CONFLICT (id) DO UPDATE SET {updates}, updated_at = now() WHERE {changed}
        RETURNING d.id, (xmax = 0) AS inserted"""
    ).format(d=sql.Identifier(names.documents), cols=cols, ph=placeholders, updates=updates, changed=changed)


def used_by(names: Names) -> sql.Composed:
    """Ids of the statements whose proofs cite ``%s``, in id order (uses the GIN index on ``proof_refs``)."""
    return sql.SQL("SELECT id FROM {t} WHERE proof_refs @> ARRAY[%s]::text[] ORDER BY id LIMIT %s").format(
        t=sql.Identifier(names.theorems)
    )


def used_by_counts(names: Names) -> sql.Composed:
    """``(id, how many proofs cite it)`` for the ids in ``%s``."""
    return sql.SQL(
        "SELECT r, count(*) FROM {t}, unnest(proof_refs) AS r WHERE proof_refs && %s::text[] AND r = ANY(%s) "
        "GROUP BY r"
    ).format(t=sql.Identifier(names.theorems))


def documented(names: Names) -> sql.Composed:
    """The ids in ``%s`` whose statement carries a docstring (a Lean declaration's ``meta.docstring``)."""
    return sql.SQL("SELECT id FROM {t} WHERE id = ANY(%s) AND meta ->> 'docstring' <> ''").format(
        t=sql.Identifier(names.theorems)
    )


def by_labels(names: Names) -> sql.Composed:
    """Statements of source ``%s`` whose label or full label is in ``%s``: what references may name."""
    cols = sql.SQL(", ").join(map(sql.Identifier, THEOREM_COLUMNS))
    return sql.SQL(
        "SELECT {c} FROM {t} WHERE source = %s AND (label = ANY(%s) OR meta ->> 'full_label' = ANY(%s))"
    ).format(c=cols, t=sql.Identifier(names.theorems))
