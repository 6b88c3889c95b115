"""``theorem-rag corpus ...``: turn LaTeX sources into theorem records."""

from __future__ import annotations

import click


@click.group()
def corpus() -> None:
    """Parse LaTeX sources into theorem records."""


@corpus.command("parse")
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output folder.")
@click.option(
    "--format", "fmt", type=click.Choice(["jsonl", "parquet"]), default="jsonl", show_default=True,
    help="Record file format.",
)
@click.option("--no-plastex", is_flag=True, envvar="THEOREM_RAG_NO_PLASTEX", help="Use only the regex parser.")
@click.option(
    "--max-file-mb", type=click.FloatRange(min=0.001), default=20.0, show_default=True,
    envvar="THEOREM_RAG_MAX_FILE_MB", help="Skip (and report) LaTeX files larger than this.",
)
@click.option(
    "--workers", type=click.IntRange(min=1), envvar="THEOREM_RAG_PARSE_WORKERS",
    help="Processes that parse documents at once (default: the cores available); the records are the same.",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def parse(sources: tuple[str, ...], out_dir: str, fmt: str, no_plastex: bool, max_file_mb: float, workers: int | None,
          quiet: bool) -> None:  # fmt: skip
    """Parse SOURCE... (folders, .tar/.tar.gz, .tex or theorem .jsonl files) into records under --out.

    Example: theorem-rag corpus parse ../shared/corpora/stacks --out data/records
    """
    from corpus_build.parse import parse_sources
    from corpus_build.units import default_workers

    report = parse_sources(
        sources,
        out_dir,
        fmt=fmt,
        use_plastex=not no_plastex,
        max_file_bytes=int(max_file_mb * 1024 * 1024),
        progress=not quiet,
        workers=workers or default_workers(),
    )
    totals = report.to_dict()["totals"]
    for s in report.sources:
        click.echo(
            f"{s.source}: {s.records_kept} records from {s.statements_found} statements, "
            f"{s.files_read} files read, {len(s.failed)} failed"
        )
    click.echo(
        f"total: {totals['records_kept']} records, parsers {totals['kept_by_parser']}, "
        f"{totals['files_failed']} files failed; report in {out_dir}/report.md"
    )


@corpus.command("lint")
@click.argument("records", type=click.Path(exists=True, path_type=str))
@click.option("--katex/--no-katex", default=True, show_default=True,
              help="Check every formula with KaTeX (needs node and libjs-katex, or THEOREM_RAG_KATEX_JS).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Write the full report (with examples) here.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def lint(records: str, katex: bool, json_out: str | None, quiet: bool) -> None:
    """Render every statement of RECORDS as its result card does; count, per source, statements whose rendering
    still shows raw LaTeX commands, a diagram as source or a KaTeX error.

    Example: theorem-rag corpus lint data/records --json lint.json
    """
    import json

    from tqdm import tqdm

    from theorem_rag.record_files import read_records
    from theorem_rag.ui.katex_check import KatexChecker
    from theorem_rag.ui.lint import lint_theorems
    from theorem_rag.ui.refs import label_index

    found = read_records(records)
    resolver = label_index(found.theorems)
    report = lint_theorems(found.theorems, katex=KatexChecker() if katex else None, resolve=resolver,
                           progress=None if quiet else lambda xs: tqdm(xs, desc="render", unit="stmt"))  # fmt: skip
    click.echo(report.markdown())
    click.echo(f"\nformulas checked with: {report.katex}")
    for name, row in sorted(report.rows.items()):
        top = ", ".join(f"{c} {n}" for c, n in row.commands.most_common(6))
        if top:
            click.echo(f"{name}: most common raw commands: {top}")
    if json_out:
        with open(json_out, "w", encoding="utf-8") as f:
            json.dump(report.to_dict(), f, indent=1, ensure_ascii=False)
