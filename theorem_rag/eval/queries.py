"""Query sets: JSON Lines files of queries with their gold answers, in the format of ``shared/eval/README.md``.

One JSON object per line: ``id``, ``query``, ``relevant`` (theorem ids, at least one), and optionally
``relevant_papers`` (document ids for paper-level scoring) and ``exclude`` (theorem ids dropped from the ranking).
Blank lines are skipped; anything else that is wrong stops loading with the file and line in the message.
A set may say each query's style in ``FILE.styles.tsv`` beside ``FILE.jsonl`` (:func:`load_styles`).

>>> import json, tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "q.jsonl"
>>> _ = p.write_text(json.dumps({"id": "q1", "query": "bijective", "relevant": ["planetmath:Bijection"]}) + "\\n")
>>> load_queries(p)[0].relevant
('planetmath:Bijection',)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from theorem_rag.errors import InputError

_FIELDS = {"id", "query", "relevant", "relevant_papers", "exclude"}


class QueryFileError(InputError):
    """A query file that cannot be read as a query set; the message names the file and line."""


@dataclass(frozen=True)
class Query:
    """One evaluation query with its gold answers.

    >>> Query(id="q1", query="null set", relevant=("planetmath:EmptySet",)).exclude
    ()
    """

    id: str
    query: str
    relevant: tuple[str, ...]
    relevant_papers: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


def parse_query(obj: Any) -> Query:
    """Validate one decoded JSON line and build a :class:`Query`; raises InputError saying what is wrong.

    >>> parse_query({"id": "q", "query": "x", "relevant": ["a"], "exclude": ["b"]}).exclude
    ('b',)
    """
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {type(obj).__name__}")
    unknown = set(obj) - _FIELDS
    if unknown:
        raise InputError(f"unknown field(s) {sorted(unknown)}; allowed: {sorted(_FIELDS)}")
    for name in ("id", "query"):
        if not isinstance(obj.get(name), str) or not obj[name].strip():
            raise InputError(f"field {name!r} must be a non-empty string")
    lists = {name: _id_list(obj, name) for name in ("relevant", "relevant_papers", "exclude")}
    if not lists["relevant"]:
        raise InputError("field 'relevant' must list at least one theorem id")
    return Query(id=obj["id"], query=obj["query"], **lists)


def load_queries(path: str | Path) -> list[Query]:
    """Read a JSON Lines query set; raises :class:`QueryFileError` with ``file:line`` for the first bad line.

    Query ids must be unique within a file, so that per-query results can be joined across configurations.
    """
    path = Path(path)
    queries: list[Query] = []
    seen: dict[str, int] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise QueryFileError(f"{path}: cannot read query file: {e}") from e
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            query = parse_query(json.loads(line))
        except json.JSONDecodeError as e:
            raise QueryFileError(f"{path}:{lineno}: not valid JSON: {e.msg}") from e
        except InputError as e:
            raise QueryFileError(f"{path}:{lineno}: {e}") from e
        if query.id in seen:
            raise QueryFileError(f"{path}:{lineno}: duplicate query id {query.id!r} (first on line {seen[query.id]})")
        seen[query.id] = lineno
        queries.append(query)
    if not queries:
        raise QueryFileError(f"{path}: no queries in file")
    return queries


def legacy_aliases(theorems: Iterable[Any]) -> dict[str, str]:
    """``{old id: id}`` from the records' ``meta["legacy_id"]``: the positional id (``<file>#<n>``) an unlabelled
    statement had before ids were made stable (:mod:`corpus_build.adapters.base`). An old id that is also the id
    of a record is left out: a record's own id always wins.

    >>> class T:
    ...     def __init__(self, id, meta): self.id, self.meta = id, meta
    >>> legacy_aliases([T("p:a.tex#lemma-1f2e3d4c", {"legacy_id": "p:a.tex#0"}), T("p:lab", {})])
    {'p:a.tex#0': 'p:a.tex#lemma-1f2e3d4c'}
    """
    theorems = list(theorems)
    ids = {t.id for t in theorems}
    out: dict[str, str] = {}
    for t in theorems:
        old = (t.meta or {}).get("legacy_id")
        if isinstance(old, str) and old and old not in ids:
            out.setdefault(old, t.id)
    return out


def resolve_ids(queries: Sequence[Query], aliases: Mapping[str, str]) -> list[Query]:
    """The queries with every ``relevant`` and ``exclude`` id found in ``aliases`` replaced by the id it stands
    for (:func:`legacy_aliases`), so that query sets written against positional ids score the same statements.

    >>> resolve_ids([Query("q", "x", ("p:a.tex#0", "p:lab"))], {"p:a.tex#0": "p:a.tex#lemma-1f2e3d4c"})[0].relevant
    ('p:a.tex#lemma-1f2e3d4c', 'p:lab')
    """
    if not aliases:
        return list(queries)

    def ids(values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(aliases.get(v, v) for v in values))

    return [replace(q, relevant=ids(q.relevant), exclude=ids(q.exclude)) for q in queries]


def styles_file(path: str | Path) -> Path:
    """Where a query set keeps its queries' styles: ``FILE.styles.tsv`` beside ``FILE.jsonl``.

    >>> styles_file("/e/mathlib_dev.jsonl").name
    'mathlib_dev.styles.tsv'
    """
    return Path(path).with_name(query_set_name(path) + ".styles.tsv")


def load_styles(path: str | Path) -> dict[str, str]:
    """``{query id: style}`` from the styles file beside the query set ``path`` (tab-separated, a header row naming
    an ``id`` and a ``style`` column among others); ``{}`` when the set has none. Raises :class:`QueryFileError`
    with ``file:line`` for a row without both, or a query id given twice.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q.styles.tsv").write_text("id\\tstyle\\tkind\\nq1\\tlean\\ttheorem\\nq2\\tlatex\\tdef\\n")
    >>> load_styles(d / "q.jsonl"), load_styles(d / "other.jsonl")
    ({'q1': 'lean', 'q2': 'latex'}, {})
    """
    tsv = styles_file(path)
    if not tsv.is_file():
        return {}
    try:
        lines = tsv.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise QueryFileError(f"{tsv}: cannot read styles file: {e}") from e
    header = lines[0].split("\t") if lines else []
    if "id" not in header or "style" not in header:
        raise QueryFileError(f"{tsv}:1: the header must name an 'id' and a 'style' column, got {header!r}")
    id_at, style_at = header.index("id"), header.index("style")
    styles: dict[str, str] = {}
    for lineno, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) <= max(id_at, style_at) or not cells[id_at] or not cells[style_at]:
            raise QueryFileError(f"{tsv}:{lineno}: expected a query id and a style, got {line!r}")
        if cells[id_at] in styles:
            raise QueryFileError(f"{tsv}:{lineno}: query id {cells[id_at]!r} given a style twice")
        styles[cells[id_at]] = cells[style_at]
    return styles


def query_set_name(path: str | Path) -> str:
    """The name a query set is reported under: the file name without ``.jsonl``.

    >>> query_set_name("/x/stacks_slogans_dev.jsonl")
    'stacks_slogans_dev'
    """
    name = Path(path).name
    return name[: -len(".jsonl")] if name.endswith(".jsonl") else Path(path).stem


def _id_list(obj: dict, name: str) -> tuple[str, ...]:
    value = obj.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InputError(f"field {name!r} must be a list of non-empty strings")
    return tuple(dict.fromkeys(value))
