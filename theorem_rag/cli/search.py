"""``theorem-rag search "query"``: rank, id, confidence, name, slogan and link, or JSON.

The number shown is the calibrated confidence (0..1) that a result is what was asked for, not the fusion score;
when the first result is not a close match the command says so and suggests what to try.
"""

from __future__ import annotations

import json
import textwrap

import click

from theorem_rag.cli.index import settings_from, with_db_options


def _one_line(text: str | None, width: int) -> str:
    return textwrap.shorten(" ".join((text or "").split()), width=width, placeholder=" ...")


@click.command()
@click.argument("query")
@click.option("-k", "--k", type=click.IntRange(min=1), help="Number of results (default: THEOREM_RAG_K or 10).")
@click.option("--source", "sources", multiple=True, help="Only these sources (repeat).")
@click.option("--kind", "kinds", multiple=True, help="Only these kinds: lemma, theorem, definition, ... (repeat).")
@click.option("--paper", "papers", multiple=True, help="Only statements of these document ids (repeat).")
@click.option("--category", "categories", multiple=True, help="Only arXiv papers in these categories (repeat).")
@click.option("--formal/--informal", default=None, help="Only formal statements (Lean declarations, e.g. mathlib) or "
              "only informal ones (LaTeX); both by default.")
@click.option("--papers", "paper_level", is_flag=True, help="Rank papers (documents) instead of statements.")
@click.option("--premises", is_flag=True, help="Premise search: QUERY is a statement (LaTeX), a goal to prove or a "
              "statement id (e.g. stacks:0D09); list what a proof of it is likely to use, the statement left out.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--no-hybrid", is_flag=True, help="Dense ranking only (no full-text fusion).")
@with_db_options
def search(query, k, sources, kinds, papers, categories, formal, paper_level, premises, as_json, no_hybrid,
           database_url, table, data_dir, embed_model, embed_field) -> None:  # fmt: skip
    """Search the index for QUERY (natural language, keywords or LaTeX)."""
    from theorem_rag.db.connection import StoreUnavailable
    from theorem_rag.errors import InputError
    from theorem_rag.search import TheoremSearch
    from theorem_rag.search_spaces import IndexNotBuilt

    s = settings_from(database_url=database_url, table=table, data_dir=data_dir, embed_model=embed_model,
                      embed_field=embed_field, hybrid=False if no_hybrid else None)  # fmt: skip
    engine = TheoremSearch.from_settings(s)
    filters = dict(sources=list(sources) or None, kinds=list(kinds) or None, papers=list(papers) or None,
                   categories=list(categories) or None, formal=formal)
    if premises and paper_level:
        raise click.UsageError("--premises ranks statements; it does not combine with --papers")
    if premises:
        try:
            results = engine.premises(query, k, **filters)
        except (InputError, IndexNotBuilt, StoreUnavailable) as e:
            raise click.ClickException(str(e)) from e
        if as_json:
            click.echo(json.dumps({"statement": query, "results": [_as_dict(r, False) for r in results]},
                                  indent=2, ensure_ascii=False))  # fmt: skip
        else:
            _print_hits(results)
        return
    try:
        found = (engine.paper_results if paper_level else engine.results)(query, k, **filters)
        results, assessment = found.hits, engine.assess(query, found.hits, found.plan)
    except (InputError, IndexNotBuilt, StoreUnavailable) as e:
        raise click.ClickException(str(e)) from e
    if as_json:
        click.echo(json.dumps({"query": query, "confident": assessment.confident,
                               "confidence": assessment.confidence, "message": assessment.message,
                               "suggestions": list(assessment.suggestions),
                               "results": [_as_dict(r, paper_level) for r in results]},
                              indent=2, ensure_ascii=False))  # fmt: skip
        return
    _say_assessment(assessment)
    if not results:
        click.echo("no results")
    for r in results:
        if paper_level:
            doc = r.document
            conf = max((h.confidence or 0.0 for h in r.hits), default=0.0)
            click.echo(f"{r.rank:>3}  {r.doc_id}  {conf:.2f}  {_one_line(doc.title if doc else '', 70)}")
            for h in r.hits:
                click.echo(f"       {h.theorem_id}  {_one_line(h.slogan, 90)}")
            if doc and doc.url:
                click.echo(f"       {doc.url}")
            continue
        _print_hits([r])


def _print_hits(hits) -> None:
    if not hits:
        click.echo("no results")
    for r in hits:
        t = r.theorem
        title = " ".join(x for x in (t.kind.capitalize(), t.number or "", f"({t.name})" if t.name else "") if x)
        click.echo(f"{r.rank:>3}  {r.theorem_id}  {r.confidence or 0.0:.2f}  {title}")
        click.echo(f"     {_one_line(r.slogan or t.text, 110)}")
        if t.url:
            click.echo(f"     {t.url}")


def _say_assessment(assessment) -> None:
    """A plain line when nothing matches well, with what to try; the notes say how the query was read."""
    for note in assessment.notes:
        click.echo(f"  ({note})")
    if not assessment.confident:
        click.echo(f"{assessment.message} Showing the nearest results anyway (confidence {assessment.confidence:.2f}).")
        for s in assessment.suggestions:
            click.echo(f"  - try: {s}")


def _as_dict(r, paper_level: bool) -> dict:
    if paper_level:
        return {"rank": r.rank, "doc_id": r.doc_id, "score": r.score,
                "title": r.document.title if r.document else None,
                "url": r.document.url if r.document else None,
                "theorems": [h.theorem_id for h in r.hits]}  # fmt: skip
    t = r.theorem
    return {"rank": r.rank, "id": r.theorem_id, "confidence": r.confidence, "score": r.score, "kind": t.kind, "number": t.number,
            "name": t.name, "slogan": r.slogan, "statement": t.body_latex, "url": t.url, "doc_id": t.doc_id}  # fmt: skip
