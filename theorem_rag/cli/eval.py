"""``theorem-rag eval``: score retrieval configurations side by side on query sets; write JSON, Markdown, plots."""

from __future__ import annotations

from pathlib import Path

import click

DEFAULT_KS = (1, 5, 10, 20)


def _split(values: tuple[str, ...]) -> list[str]:
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def _set_corpora(query_files: tuple[Path, ...], cache_dir: Path) -> list[Path]:
    """The records of the sources that query sets bring beside them (parsed once, cached under ``cache_dir``)."""
    from theorem_rag.eval.set_corpora import parsed_records, set_corpus

    folders = list(dict.fromkeys(f for f in map(set_corpus, query_files) if f is not None))
    out = []
    for folder in folders:
        click.echo(f"{folder}: its statements join the corpus for this run only", err=True)
        out.append(parsed_records(folder, cache_dir))
    return out


def _answerable(query_sets: dict, corpus_ids: set[str]) -> dict:
    """``query_sets`` less the sets none of whose answers is in the corpus (said out loud, with how to add them)."""
    kept = {}
    for name, queries in query_sets.items():
        if any(set(q.relevant) & corpus_ids for q in queries):
            kept[name] = queries
        else:
            click.echo(f"{name}: skipped, none of its {len(queries)} queries has an answer in the corpus evaluated "
                       "(index its sources, or pass them with --extra-records)", err=True)  # fmt: skip
    if not kept:
        raise click.ClickException("no query set has an answer in the corpus evaluated")
    return kept


@click.command("eval")
@click.option(
    "--queries", "query_files", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Query set (JSON Lines: id, query, relevant[, relevant_papers, exclude]); repeat for several. None: the "
    "panel, every query set in --eval-dir.",
)
@click.option("--eval-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("../shared/eval"),
              envvar="THEOREM_RAG_EVAL_DIR", show_default=True,
              help="Folder of the dev query sets that make the panel (used when no --queries is given).")
@click.option("--config", "configs", multiple=True, default=("bm25-latex",), show_default=True,
              help="Configuration to evaluate; repeat or separate by commas (see --list-configs).")
@click.option("--k", "ks", multiple=True, type=click.IntRange(min=1), help="Cut-offs; default 1, 5, 10, 20.")
@click.option("--records", type=click.Path(file_okay=False, path_type=Path), default=Path("data/records"),
              envvar="THEOREM_RAG_RECORDS", show_default=True, help="Folder with theorems.jsonl (+ documents.jsonl).")
@click.option("--extra-records", multiple=True, type=click.Path(exists=True, path_type=Path),
              help="Theorem records (a JSON Lines file or a records folder) added to the evaluated corpus for this "
              "run only. A query set with its own sources beside it (unseen_dev.jsonl and unseen/) adds them itself.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("eval-results"),
              show_default=True, help="Folder for results.json, results.md, per_query.jsonl and the plots.")
@click.option("--plots/--no-plots", default=True, show_default=True, help="Draw the Hit@k and Recall@k curves.")
@click.option("--embedding-map", type=click.IntRange(min=0), default=0, show_default=True,
              help="Also embed a sample of this many statements and draw the 2-D map (needs [models]); 0: off.")
@click.option("--projection", type=click.Choice(["pca", "tsne"]), default="pca", show_default=True)
@click.option("--limit", type=click.IntRange(min=1), help="Score only the first N queries of each set (quick runs).")
@click.option("--baseline", help="A configuration the others are checked against by the panel rule: no set's primary "
              "metric may fall by more than 0.01.")
@click.option("--list-configs", is_flag=True, help="List the available configurations and exit.")
def eval_command(query_files, eval_dir, configs, ks, records, extra_records, out, plots, embedding_map, projection,
                 limit, baseline, list_configs) -> None:
    """Evaluate configurations on query sets: Hit@k, MRR@k, Recall@k (and nDCG@10) at theorem and paper level, the
    panel (each set's primary metric side by side), and a set's primary metric per query style where FILE.jsonl has
    FILE.styles.tsv beside it."""
    from theorem_rag.config import Settings
    from theorem_rag.errors import InputError
    from theorem_rag.eval import configs as registry
    from theorem_rag.eval.harness import evaluate
    from theorem_rag.eval.queries import legacy_aliases, load_queries, load_styles, query_set_name, resolve_ids
    from theorem_rag.eval.report import markdown_report, write_report
    from theorem_rag.record_files import read_records

    if list_configs:
        for name in registry.available_configs():
            spec = registry.config_spec(name)
            click.echo(f"{name}\t{spec.description}{' (needs the index)' if spec.needs_index else ''}")
        return
    if not query_files:
        from theorem_rag.eval.panel import panel_files

        query_files = tuple(Path(p) for p in panel_files(eval_dir.glob("*.jsonl"))) if eval_dir.is_dir() else ()
        if not query_files:
            raise click.UsageError(f"no --queries given and no query sets (*.jsonl) in --eval-dir {eval_dir}")
    names = list(dict.fromkeys(_split(configs)))
    if baseline and baseline not in names:
        raise click.UsageError(f"--baseline {baseline} is not one of the configurations evaluated ({', '.join(names)})")
    settings = Settings()
    try:
        specs = [registry.config_spec(n) for n in names]
        query_sets, styles = {}, {}
        for path in query_files:
            name = query_set_name(path)
            if name in query_sets:
                raise click.UsageError(f"two query files are both named {name!r}")
            query_sets[name] = load_queries(path)[:limit]
            styles[name] = load_styles(path)
        context = registry.load_context(records)
        extra_records = (*extra_records, *_set_corpora(query_files, settings.data_dir / "eval-corpora"))
        extras = [t for path in extra_records for t in read_records(path).theorems]
        # Query sets written against the old positional ids of unlabelled statements score the same statements.
        aliases = legacy_aliases(context.theorems + extras)
        query_sets = {name: resolve_ids(queries, aliases) for name, queries in query_sets.items()}
    except (InputError, FileNotFoundError) as e:
        raise click.ClickException(str(e)) from e
    query_sets = _answerable(query_sets, {t.id for t in context.theorems} | {t.id for t in extras})
    if any(spec.needs_index for spec in specs):
        from theorem_rag.eval.index_configs import EvalIndex

        context.index = EvalIndex(settings)
    try:
        searchers = {spec.name: spec.factory(settings, context) for spec in specs}
    except InputError as e:
        raise click.ClickException(str(e)) from e
    targets = list(searchers.values()) + ([context.index] if context.index is not None else [])
    doc_of = registry.merge_doc_of(context.doc_of, extras)
    with registry.extra_records(targets, extras):
        result = evaluate(query_sets, searchers, doc_of, ks=tuple(ks) or DEFAULT_KS, styles=styles)
    result.meta.update(
        records=str(records), n_theorems=len(doc_of), extra_records=[str(p) for p in extra_records],
        query_files=[str(p) for p in query_files],
    )
    paths = write_report(result, out)
    if plots:
        from theorem_rag.eval.plots import plot_hit_curves

        paths["hit_curves"] = plot_hit_curves(result, out / "hit_at_k.png")
        paths["recall_curves"] = plot_hit_curves(result, out / "recall_at_k.png", metric="recall")
    if embedding_map:
        from theorem_rag.eval.plots import embed_statements, plot_embedding_map, sample_statements, subjects_of

        sample = sample_statements(context.theorems + extras, embedding_map)
        vectors = embed_statements(sample, settings.embed_model, settings.doc_instruction)
        paths["embedding_map"] = plot_embedding_map(
            vectors, {"source": [t.source for t in sample], "subject": subjects_of(sample)},
            out / f"embedding_map_{projection}.png", method=projection,
            title=f"{projection.upper()} of {len(sample)} statements embedded by {settings.embed_model}",
        )
    click.echo(markdown_report(result))
    if baseline:
        from theorem_rag.eval.panel import TOLERANCE, panel_drops

        for config in result.configs:
            if config != baseline:
                drops = panel_drops(result.panel_scores(), baseline, config)
                verdict = "; ".join(map(str, drops))
                click.echo(f"panel rule, {config} against {baseline}: "
                           + (f"FAILS ({verdict})" if drops else f"passes (no set down by more than {TOLERANCE})"))
    click.echo("wrote " + ", ".join(str(p) for p in paths.values()), err=True)
