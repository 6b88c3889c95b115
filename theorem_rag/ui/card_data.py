"""What the search tab needs beyond the ranked hits: "uses / used by" searches, card extras, the page URL.

- ``uses:ID``, ``used-by:ID`` and ``id:ID`` are searches of the proof graph (and a look-up), run by the cards'
  links and shareable like any other query.
- :func:`card_extras` gives each card its reference resolver (labels looked up in the index) and its "used by"
  count, in two queries for the whole page.
- :func:`state_from_params` reads a search from the page URL (``?q=...&level=papers&source=stacks``);
  :data:`URL_SYNC_JS` writes it back when a search runs.

>>> parse_graph_query("used-by: stacks:00DV"), parse_graph_query("Nakayama")
(('used-by', 'stacks:00DV'), None)
>>> state_from_params({"q": "local ring", "source": "stacks,planetmath", "level": "papers", "k": "5"})
('local ring', 'Papers', 5, ['stacks', 'planetmath'], [], '', '', 'All')
>>> state_from_params({"q": "two_le", "statements": "formal"})[-1], formal_choice("Informal (LaTeX)")
('Formal (Lean)', False)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from theorem_rag.query import graph_query
from theorem_rag.records import KINDS, Hit
from theorem_rag.ui.cards import CardExtras, results_html
from theorem_rag.ui.refs import label_index

if TYPE_CHECKING:
    from theorem_rag.query_understanding import QueryPlan

_LABELS = re.compile(r"\\(?:eqref|ref|cref|Cref|autoref|vref|olref|thmref)\*?(?:\[[^\]]*\])?\{([^{}]*)\}")


parse_graph_query = graph_query


def graph_hits(search: Any, relation: str, theorem_id: str, k: int) -> tuple[list[Hit], str]:
    """The statements a graph query names, as hits in order, and a line that says what they are."""
    hits, ids = search.graph_search(relation, theorem_id, k)
    what = {"uses": f"statements the proof of {theorem_id} cites", "used-by": f"statements whose proofs cite "
            f"{theorem_id}", "id": theorem_id}[relation]  # fmt: skip
    return hits, (f"of {len(ids)} {what}" if relation != "id" else what)


def card_extras(search: Any, hits: Sequence[Hit]) -> dict[str, CardExtras]:
    """Per theorem id: its reference resolver and "used by" count (two database queries per page)."""
    theorems = [h.theorem for h in hits if h.theorem is not None]
    if not theorems:
        return {}
    counts = search.used_by_counts([t.id for t in theorems])
    by_source: dict[str, set[str]] = {}
    for t in theorems:
        for group in _LABELS.findall(t.text + "\n" + (getattr(t, "proof", "") or "")):
            by_source.setdefault(t.source, set()).update(x.strip() for x in group.split(",") if x.strip())
    targets = [x for source, labels in by_source.items() for x in search.theorems_by_labels(source, sorted(labels))]
    index = label_index(targets)
    return {t.id: CardExtras(resolve=index(t), used_by=counts.get(t.id, 0)) for t in theorems}


def theorem_cards(handlers: Any, query: str, k: int,
                  filters: dict[str, Any]) -> tuple[list[Hit], QueryPlan | None, str, str]:  # fmt: skip
    """``(hits, the plan the search read, cards html, what they are)`` for the search tab: a ranked search, or a
    graph query (no plan)."""
    graph = parse_graph_query(query)
    plan = None
    if graph:
        hits, what = graph_hits(handlers.search, *graph, k)
    else:
        found = handlers.search.results(query, k, **filters)
        hits, plan, what = found.hits, found.plan, "statements"
    extras = card_extras(handlers.search, hits)
    return hits, plan, results_html(hits, handlers.documents_for(hits), query=query, extras=extras), what


def _items(value: Any) -> list[str]:
    if value is None:
        return []
    values = value if isinstance(value, list | tuple) else [value]
    return [x.strip() for v in values for x in str(v).split(",") if x.strip()]


# The app's choice of formal (Lean) or informal (LaTeX) statements: its label, and the ``formal`` filter it sets.
STATEMENT_CHOICES = {"All": None, "Formal (Lean)": True, "Informal (LaTeX)": False}
# The same choice in the page URL (``statements=formal``), both ways.
_URL_STATEMENTS = {"formal": "Formal (Lean)", "informal": "Informal (LaTeX)"}


def formal_choice(choice: Any) -> bool | None:
    """The ``formal`` filter of a choice of :data:`STATEMENT_CHOICES` (``None``, both, for anything else)."""
    return STATEMENT_CHOICES.get(choice) if isinstance(choice, str) else None


def state_from_params(params: Mapping[str, Any]) -> tuple[str, str, int, list[str], list[str], str, str, str]:
    """``(query, level, k, sources, kinds, papers, categories, statements)`` from URL parameters: ``q``, ``level``
    (``theorems`` or ``papers``), ``k``, ``source``, ``kind``, ``paper``, ``category`` (repeated or comma
    separated), ``statements`` (``formal`` or ``informal``; a choice of :data:`STATEMENT_CHOICES`). Unknown kinds
    are dropped; a bad ``k`` falls back to 10."""
    level = "Papers" if str(params.get("level", "")).lower().startswith("paper") else "Theorems"
    try:
        k = max(1, min(50, int(str(params.get("k", "10")))))
    except ValueError:
        k = 10
    kinds = [x for x in _items(params.get("kind")) if x in KINDS]
    statements = _URL_STATEMENTS.get(str(params.get("statements", "")).lower(), "All")
    return (str(params.get("q", "") or "").strip(), level, k, _items(params.get("source")), kinds,
            ",".join(_items(params.get("paper"))), ",".join(_items(params.get("category"))), statements)  # fmt: skip


def restore_search(request: Any) -> tuple[str, str, int, list[str], list[str], str, str, str]:
    """The search inputs a page URL asks for (the box, level, k and filters), for ``demo.load``."""
    return state_from_params(query_params(request))


def query_params(request: Any) -> dict[str, Any]:
    """A Gradio request's URL parameters, repeated keys as lists."""
    if request is None:
        return {}
    qp = getattr(request, "query_params", None) or {}
    multi = getattr(qp, "multi_items", None)
    out: dict[str, Any] = {}
    for key, value in (multi() if multi else qp.items()):
        out.setdefault(key, []).append(value)
    return {k: v if len(v) > 1 else v[0] for k, v in out.items()}


# Run in the page before each search: put the query, level and filters into the URL, so it can be shared.
URL_SYNC_JS = """
(query, level, k, sources, kinds, papers, categories, statements) => {
  const p = new URLSearchParams();
  if (query) p.set('q', query);
  if (level === 'Papers') p.set('level', 'papers');
  if (k && Number(k) !== 10) p.set('k', String(k));
  for (const s of (sources || [])) p.append('source', s);
  for (const s of (kinds || [])) p.append('kind', s);
  if (papers) p.set('paper', papers);
  if (categories) p.set('category', categories);
  if (statements && statements !== 'All') p.set('statements', statements.startsWith('Formal') ? 'formal' : 'informal');
  const qs = p.toString();
  history.replaceState(null, '', window.location.pathname + (qs ? '?' + qs : ''));
  return [query, level, k, sources, kinds, papers, categories, statements];
}
"""
