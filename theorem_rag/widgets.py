"""Notebook search: an ipywidgets search box with filters and results whose mathematics Jupyter renders.

>>> from theorem_rag.widgets import SearchWidget          # doctest: +SKIP
>>> w = SearchWidget(TheoremSearch.from_settings())       # doctest: +SKIP
>>> w  # displays the widget                              # doctest: +SKIP
>>> w.selected.theorem.body_latex  # the theorem picked   # doctest: +SKIP
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from theorem_rag.query import graph_query
from theorem_rag.records import Hit

_NOTEBOOK_EXTRA = 'pip install "theorem-rag[notebook]"'


def hit_html(hit: Hit, used_by: int | None = None) -> str:
    """One result as HTML for ``ipywidgets.HTMLMath``: text is escaped, ``$...$`` is left for MathJax to render;
    ``uses n · used by m`` names the queries (``uses:ID``, ``used-by:ID``) that list those statements."""
    t = hit.theorem
    if t is None:
        return f"<p>{html.escape(hit.theorem_id)}</p>"
    title = " ".join(x for x in (t.kind.capitalize(), t.number or "") if x)
    name = f" ({html.escape(t.name)})" if t.name else ""
    link = f' <a href="{html.escape(t.url, quote=True)}" target="_blank">link</a>' if t.url else ""
    slogan = f"<div><i>{html.escape(hit.slogan)}</i></div>" if hit.slogan else ""
    conf = f" &middot; confidence {hit.confidence:.2f}" if hit.confidence is not None else ""
    graph = [f'<span title="query: uses:{html.escape(t.id)}">uses {len(t.proof_refs)}</span>' if t.proof_refs else "",
             f'<span title="query: used-by:{html.escape(t.id)}">used by {used_by}</span>' if used_by else ""]
    graph_html = " &middot; ".join(g for g in graph if g)
    slogan += f'<div style="font-size:.85em;color:#555">{graph_html}</div>' if graph_html else ""
    return (
        f'<div style="border:1px solid #ddd;border-radius:6px;padding:6px 10px;margin:4px 0">'
        f"<div><b>{hit.rank}. {html.escape(title)}{name}</b> &middot; <code>{html.escape(t.id)}</code>{link}{conf}</div>"
        f"{slogan}<div>{html.escape(t.body_latex)}</div></div>"
    )


def _no_match_notice(assessment: Any) -> str:
    """A plain notice above the cards when the first result is not a close match."""
    if assessment.confident:
        return ""
    tips = "; ".join(html.escape(s) for s in assessment.suggestions)
    return f'<p class="trag-nomatch" style="color:#a60"><b>{html.escape(assessment.message or "")}</b> Try: {tips}</p>'


class SearchWidget:
    """A search box, source, kind and arXiv-category filters and k, showing result cards; ``selected`` is the
    chosen :class:`Hit`.

    Construct with a :class:`~theorem_rag.search.TheoremSearch`; display it as the last expression of a cell.
    ``run(query)`` searches programmatically (what the button does) and returns the hits.
    """

    def __init__(self, search: Any, *, sources: Sequence[str] = (), kinds: Sequence[str] = (), k: int = 10) -> None:
        try:
            import ipywidgets as w
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError(f"the notebook widget needs ipywidgets: {_NOTEBOOK_EXTRA}") from e
        self.search = search
        self.hits: list[Hit] = []
        self.assessment: Any = None
        self.query = w.Text(placeholder="a statement, keywords or LaTeX", description="Query", layout={"width": "60%"})
        self.sources = w.SelectMultiple(options=list(sources), description="Sources", rows=min(6, max(2, len(sources))))
        self.kinds = w.SelectMultiple(options=list(kinds), description="Kinds", rows=min(6, max(2, len(kinds))))
        self.categories = w.Text(placeholder="math.AG, hep-th", description="arXiv",
                                 tooltip="Only papers listed in these arXiv categories (comma separated)")
        self.k = w.IntSlider(value=k, min=1, max=50, description="k")
        self.button = w.Button(description="Search", button_style="primary")
        self.choice = w.Dropdown(options=[], description="Select")
        self.results = w.HTMLMath(value="")
        self.button.on_click(lambda _: self._on_search())
        self.query.on_submit(lambda _: self._on_search())
        self.box = w.VBox([w.HBox([self.query, self.button]), w.HBox([self.sources, self.kinds, self.k]),
                           self.categories, self.choice, self.results])  # fmt: skip

    def _on_search(self) -> None:
        try:
            self.run(self.query.value)
        except Exception as e:  # the widget must keep working whatever the search raised; show why instead
            self.results.value = f'<p style="color:#b00">{html.escape(str(e))}</p>'

    def run(self, query: str) -> list[Hit]:
        """Search for ``query`` with the widget's filters, show the cards, and return the hits.

        ``uses:ID`` and ``used-by:ID`` list the statements a proof cites or whose proofs cite ``ID``."""
        self.query.value = query
        graph = graph_query(query)
        plan = None
        if graph:
            self.hits = self.search.graph_search(*graph, self.k.value)[0]
        else:
            categories = [c.strip() for c in self.categories.value.split(",") if c.strip()]
            found = self.search.results(query, self.k.value, sources=list(self.sources.value) or None,
                                        kinds=list(self.kinds.value) or None, categories=categories or None)
            self.hits, plan = found.hits, found.plan
        counts = self.search.used_by_counts([h.theorem_id for h in self.hits])
        self.choice.options = [(f"{h.rank}. {h.theorem_id}", i) for i, h in enumerate(self.hits)]
        self.choice.value = 0 if self.hits else None
        self.assessment = None if graph else self.search.assess(query, self.hits, plan)
        notice = _no_match_notice(self.assessment) if self.assessment is not None else ""
        self.results.value = notice + ("".join(hit_html(h, counts.get(h.theorem_id)) for h in self.hits)
                                       or "<p>no results</p>")
        return self.hits

    @property
    def selected(self) -> Hit | None:
        """The hit chosen in the drop-down (the first one until the user picks another)."""
        if not self.hits or self.choice.value is None:
            return None
        return self.hits[self.choice.value]

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.box._repr_mimebundle_(**kwargs)
