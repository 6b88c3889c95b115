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
