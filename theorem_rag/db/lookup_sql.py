"""SQL text for the look-ups of query understanding, built apart from running it: every value bound.

Definitions named as a term, statements named as a Lean name or its end, documents by arXiv id or DOI, names close
to a misspelt one (pg_trgm).

>>> q, p = definitions_named(Names("theorems"), "metric space", exact=True, filters=Filters(), k=5)
>>> p[0]
['metric space', 'metric spaces']
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from psycopg import sql

from theorem_rag.db.table_names import Names
from theorem_rag.db.table_sql import defined_term, filter_clause
from theorem_rag.filters import Filters
from theorem_rag.query import query_tokens

DEFINITION_KINDS = ["definition"]


def number_forms(term: str) -> list[str]:
    """The term, its plural and its singular (English, last word only), each once: "metric space" <-> "metric
    spaces" (each form is one more index condition of a look-up).

    >>> number_forms("metric spaces"), number_forms("category"), number_forms("iff")
    (['metric spaces', 'metric spacess', 'metric space'], ['category', 'categories', 'categorys'], ['iff', 'iffs'])
    """
    plural = term[:-1] + "ies" if term.endswith("y") and not term.endswith(("ay", "ey", "oy")) else term + "s"
    if term.endswith("ies"):
        singular = term[:-3] + "y"
    elif term.endswith("s") and not term.endswith("ss"):
        singular = term[:-1]
    else:
        singular = term + "s" if not term.endswith("y") else term[:-1] + "ys"
    return list(dict.fromkeys([term, plural, singular]))


# Head nouns a Stacks label often leaves out ("definition-smooth" defines a smooth morphism).
HEAD_NOUNS = {"morphism", "morphisms", "map", "maps", "ring", "rings", "module", "modules", "space", "spaces",
              "group", "groups", "function", "functions", "set", "sets", "functor", "functors", "sheaf", "sheaves",
              "scheme", "schemes", "object", "objects", "extension", "extensions"}  # fmt: skip


def _slug(term: str) -> str:
    return "-".join(query_tokens(term))


def definitions_named(names: Names, term: str, *, exact: bool, filters: Filters, k: int) -> tuple[sql.Composed, list]:
    """Definitions named ``term`` (or its plural or singular): by name, recorded alias, or a label ending in
    ``definition-<term>`` (the Stacks Project names definitions only in labels). With ``exact=False`` also those
    whose name has every word of the term, or whose label has it without a head noun (``definition-smooth`` for
    "smooth morphism"); exact matches first, then shorter names and labels."""
    year = sql.SQL("(SELECT d.year FROM {d} AS d WHERE d.id = t.doc_id)").format(d=sql.Identifier(names.documents))
    where, fparams = filter_clause(filters, "t", year_column=year, documents=names.documents)
    t = term.strip().lower()
    forms = number_forms(t)
    labels = [f"%definition-{_slug(f)}" for f in forms]
    alias = ("EXISTS (SELECT 1 FROM jsonb_array_elements_text(coalesce(t.meta -> 'synonyms', '[]')) AS s(x) "
             "WHERE lower(s.x) = ANY(%s))")  # fmt: skip
    like_labels = " OR ".join("lower(t.label) LIKE %s" for _ in labels)
    exact_sql = f"(lower(t.name) = ANY(%s) OR {alias} OR {like_labels})"
    exact_params: list = [forms, forms, *labels]
    # A recorded alias, by the text table's index of its lowercased aliases (migration 15): one containment per
    # form, so only the statements with that alias are read (the full-text vector has the alias's words too, but
    # at a million statements tens of thousands of statements have them).
    x_conditions = ["lower(x.synonyms::text)::jsonb @> %s::jsonb" for _ in forms]
    x_params: list = [json.dumps([f]) for f in forms]
    loose_t, loose_t_params, loose_x_t, loose_x_params = "", [], "", []
    term_sql, defines_sql = defined_term("t")
    slugs, loose_term, loose_term_params = [_slug(f) for f in forms], "", []
    if not exact:
        words = list(dict.fromkeys(query_tokens(term)))
        core = words[:-1] if len(words) > 1 and words[-1] in HEAD_NOUNS else words
        # Every word of the term in the name (weight A of the full-text vector, so the GIN index serves it); the
        # final check of a candidate reads its text row for that only (by primary key).
        matches = "x.tsv @@ to_tsquery('english', %s)"
        loose_x_params = [" & ".join(f"{w}:A" for w in words) or "''"]
        x_conditions.append(matches)
        x_params += loose_x_params
        loose_x_t = f" OR EXISTS (SELECT 1 FROM {{x}} AS x WHERE x.id = t.id AND {matches})"
        loose_t, loose_t_params = " OR lower(t.label) LIKE %s", [f"%definition-{'-'.join(core)}%"]
        loose_term, loose_term_params = f" OR starts_with({term_sql}, %s)", ["-".join(core)]
    # The candidates, each arm served by an index: names by the lower(name) b-tree and labels by the index of the
    # term they define (migration 24: one range each; a label's suffix by trigrams read every label with
    # "definition-"), aliases and name words by the text table's indexes. So the look-up reads the statements it
    # may return, not every definition; each arm is held to definitions, and the final check is the labels' LIKE.
    arms = [(f"SELECT t.id FROM {{t}} AS t WHERE t.kind = ANY(%s) AND (lower(t.name) = ANY(%s) "
             f"OR ({defines_sql} AND ({term_sql} = ANY(%s){loose_term})))",
             [DEFINITION_KINDS, forms, slugs, *loose_term_params]),
            (f"SELECT x.id FROM {{x}} AS x WHERE x.kind = ANY(%s) AND ({' OR '.join(x_conditions)})",
             [DEFINITION_KINDS, *x_params])]  # fmt: skip
    query = sql.SQL(
        """SELECT t.id, t.doc_id, {exact} AS exact
        FROM {t} AS t
        WHERE t.id IN ({cand}) AND t.kind = ANY(%s) AND ({exact}{loose_x_t}{loose_t}) AND {where}
        ORDER BY exact DESC, length(coalesce(t.name, t.label, '')), t.id LIMIT %s"""
    ).format(t=sql.Identifier(names.theorems), x=sql.Identifier(names.text), exact=sql.SQL(exact_sql),
             cand=sql.SQL(" UNION ALL ").join(sql.SQL(f"({q})").format(t=sql.Identifier(names.theorems),
                                                                   x=sql.Identifier(names.text)) for q, _ in arms),
             loose_x_t=sql.SQL(loose_x_t).format(x=sql.Identifier(names.text)), loose_t=sql.SQL(loose_t),
             where=where)  # fmt: skip
    return query, [*exact_params, *(p for _, ps in arms for p in ps), DEFINITION_KINDS, *exact_params,
                   *loose_x_params, *loose_t_params, *fparams, k]  # fmt: skip


def names_ending(names: Names, suffixes: Sequence[str], *, filters: Filters, k: int) -> tuple[sql.Composed, list]:
    """Statements whose name is one of ``suffixes`` or ends with one after a dot (the last components of a Lean
    name: ``two_le`` ends ``Nat.Prime.two_le``, not ``Nat.xtwo_le``), case aside, as (id, name): those named
    exactly first, then names of fewer components, then shorter ones.

    Reversed, a name that ends with ``s`` starts with ``reverse(s)``: each suffix reads one range of the index of
    reversed lowercased names (migration 23; the C collation orders them byte by byte, so the names that start with
    ``r.`` lie between ``r.`` and ``r/``), whatever the size of the index. One arm per suffix, whose bounds are
    constants when the statement is planned: the planner estimates each range from the index's statistics (joined
    to a list of suffixes, it guessed and scanned the table for four of them).

    >>> q, p = names_ending(Names("theorems"), ["two_le", "prime.two_le"], filters=Filters(), k=5)
    >>> len(p), p[4:6], p[-1]
    (11, ['two_le', 'prime.two_le'], 5)
    """
    year = sql.SQL("(SELECT d.year FROM {d} AS d WHERE d.id = t.doc_id)").format(d=sql.Identifier(names.documents))
    where, fparams = filter_clause(filters, "t", year_column=year, documents=names.documents)
    arm = sql.SQL(
        """SELECT t.id, t.name, {rn} = reverse(lower(%s)) AS exact FROM {t} AS t
        WHERE {rn} >= reverse(lower(%s)) AND {rn} < reverse(lower(%s)) || '/'
            AND ({rn} = reverse(lower(%s)) OR starts_with({rn}, reverse(lower(%s)) || '.')) AND {where}"""
    ).format(rn=sql.SQL('reverse(lower(t.name)) COLLATE "C"'), t=sql.Identifier(names.theorems), where=where)
    forms = list(dict.fromkeys(s.strip() for s in suffixes if s.strip()))
    query = sql.SQL(
        """SELECT id, name FROM (
            SELECT DISTINCT ON (id) id, name, exact FROM ({arms}) AS a ORDER BY id, exact DESC) AS m
        ORDER BY exact DESC, length(name) - length(replace(name, '.', '')), length(name), id LIMIT %s"""
    ).format(arms=sql.SQL(" UNION ALL ").join([arm] * len(forms)) if forms else sql.SQL(
        "SELECT NULL::text AS id, NULL::text AS name, false AS exact WHERE false"))  # fmt: skip
    return query, [*(x for form in forms for x in [form] * 5 + fparams), k]


def documents_by_identifier(names: Names, arxiv_id: str | None, doi: str | None) -> tuple[sql.Composed, list]:
    """Documents whose recorded arXiv id, DOI or URL carries the identifier."""
    query = sql.SQL(
        """SELECT id FROM {d}
        WHERE (%s::text IS NOT NULL AND (meta ->> 'arxiv_id' = %s OR url LIKE %s))
           OR (%s::text IS NOT NULL AND (lower(meta ->> 'doi') = lower(%s) OR lower(url) LIKE lower(%s)))
        ORDER BY id LIMIT 5"""
    ).format(d=sql.Identifier(names.documents))
    return query, [arxiv_id, arxiv_id, f"%{arxiv_id}%", doi, doi, f"%{doi}%"]


def document_titles(names: Names, min_words: int = 3) -> tuple[sql.Composed, list]:
    """Ids and titles of documents with a title of at least ``min_words`` words (papers, books, chapters) that
    hold a statement: a document without any (a withdrawn paper, a chapter whose statements were all deleted)
    would route a query to nothing, and could take a title from a document that has statements."""
    query = sql.SQL(
        "SELECT d.id, d.title FROM {d} AS d WHERE array_length(regexp_split_to_array(trim(d.title), '\\s+'), 1) >= %s"
        " AND EXISTS (SELECT 1 FROM {t} AS t WHERE t.doc_id = d.id) ORDER BY d.id"
    ).format(d=sql.Identifier(names.documents), t=sql.Identifier(names.theorems))
    return query, [min_words]


def similar_names(names: Names, text: str, k: int, threshold: float) -> tuple[sql.Composed, list]:
    """Statement names closest to ``text`` by trigram similarity (pg_trgm), at least ``threshold``."""
    query = sql.SQL(
        """SELECT name, max(similarity(lower(name), %s)) AS sim FROM {t}
        WHERE name IS NOT NULL AND lower(name) %% %s GROUP BY name HAVING max(similarity(lower(name), %s)) >= %s
        ORDER BY sim DESC, name LIMIT %s"""
    ).format(t=sql.Identifier(names.theorems))
    t = text.strip().lower()
    return query, [t, t, t, threshold, k]


def unknown_words(names: Names, texts: list[str]) -> tuple[sql.Composed, list]:
    """Per text (by its position in ``texts``): how many distinct full-text lexemes it has and how many of them
    occur in no statement (absent from the lexicon the triggers keep). Texts without lexemes give no row."""
    query = sql.SQL(
        """SELECT q.i, count(*) AS n, count(*) FILTER (WHERE l.lexeme IS NULL) AS unknown
        FROM (SELECT DISTINCT t.i, unnest(tsvector_to_array(to_tsvector('english', t.text))) AS lexeme
              FROM unnest(%s::text[]) WITH ORDINALITY AS t(text, i)) AS q
        LEFT JOIN {lx} AS l ON l.lexeme = q.lexeme AND l.ndoc > 0
        GROUP BY q.i ORDER BY q.i"""
    ).format(lx=sql.Identifier(names.lexicon))
    return query, [list(texts)]
