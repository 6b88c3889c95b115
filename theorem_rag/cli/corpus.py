"""``theorem-rag corpus ...``: fetch the corpora, turn LaTeX sources into theorem records."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from corpus_build.corpus_manifest import Manifest


@click.group()
def corpus() -> None:
    """Fetch the open corpora; parse LaTeX sources into theorem records."""


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
@click.option("--lean-commit", envvar="THEOREM_RAG_LEAN_COMMIT",
              help="Commit that source links of Lean (mathlib) records point to (default: the pinned 54df8a3).")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help='Parse here (--workers processes), or each paper as a Ray Data task (pip install '
                   '"theorem-rag[ray]"; RAY_ADDRESS joins a cluster).')  # fmt: skip
def parse(sources: tuple[str, ...], out_dir: str, fmt: str, no_plastex: bool, max_file_mb: float, workers: int | None,
          quiet: bool, lean_commit: str | None, engine: str) -> None:  # fmt: skip
    """Parse SOURCE... (folders, .tar/.tar.gz, .tex or theorem .jsonl files; a folder of Lean 4 sources such as
    mathlib gives one record per declaration) into records under --out.

    Example: theorem-rag corpus parse ../shared/corpora/stacks --out data/records
    """
    kwargs = dict(fmt=fmt, use_plastex=not no_plastex, max_file_bytes=int(max_file_mb * 1024 * 1024))
    if engine == "ray":
        from corpus_build.ray_parse import RayUnavailable, parse_sources_ray

        try:
            report = parse_sources_ray(sources, out_dir, **kwargs)
        except RayUnavailable as e:
            raise click.UsageError(str(e)) from e
    else:
        from corpus_build.parse import parse_sources
        from corpus_build.units import default_workers

        report = parse_sources(sources, out_dir, progress=not quiet, workers=workers or default_workers(),
                               lean_commit=lean_commit, **kwargs)
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


_MIRROR_HELP = ("Fetch from this URL or folder of bare repositories (<owner>/<name>.git) instead of "
                "https://github.com.")  # fmt: skip
_MANIFEST_HELP = "A manifest of your own (repositories, commits, files kept; the shipped one's format)."


@corpus.command("fetch")
@click.argument("names", nargs=-1)
@click.option("--into", type=click.Path(file_okay=False, path_type=Path),
              help="Folder that receives one folder per corpus (default: <data dir>/corpora).")  # fmt: skip
@click.option("--mirror", envvar="THEOREM_RAG_CORPUS_MIRROR", help=_MIRROR_HELP)
@click.option("--manifest", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              envvar="THEOREM_RAG_CORPUS_MANIFEST", help=_MANIFEST_HELP)
def fetch(names: tuple[str, ...], into: Path | None, mirror: str | None, manifest: Path | None) -> None:
    """Fetch the open corpora NAME... (default: all but mathlib4) from their public git repositories at pinned
    commits, text files only, laid out as ../shared/corpora; corpora already fetched and verified are skipped.

    Example: theorem-rag corpus fetch stacks planetmath --into data/corpora
    """
    from corpus_build.fetch import fetch_corpora

    with _fetch_errors():
        fetched = fetch_corpora(names, into or _default_into(), mirror=mirror, manifest=_manifest(manifest),
                                log=_log)  # fmt: skip
    for f in fetched:
        click.echo(f"{f.name}: {f.status}, {f.files} files in {f.path}")


@corpus.command("locate-or-fetch")
@click.argument("names", nargs=-1)
@click.option("--corpora", type=click.Path(file_okay=False, path_type=Path), envvar="THEOREM_RAG_CORPORA",
              help="Use this corpora folder as it is: no look-up, no fetch.")  # fmt: skip
@click.option("--shared", type=click.Path(file_okay=False, path_type=Path), default=Path("../shared/corpora"),
              show_default=True, help="Used when it holds every corpus named.")  # fmt: skip
@click.option("--into", type=click.Path(file_okay=False, path_type=Path),
              help="Where to fetch otherwise (default: <data dir>/corpora).")  # fmt: skip
@click.option("--mirror", envvar="THEOREM_RAG_CORPUS_MIRROR", help=_MIRROR_HELP)
@click.option("--manifest", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              envvar="THEOREM_RAG_CORPUS_MANIFEST", help=_MANIFEST_HELP)
def locate_or_fetch(names: tuple[str, ...], corpora: Path | None, shared: Path, into: Path | None,
                    mirror: str | None, manifest: Path | None) -> None:  # fmt: skip
    """Print the folder holding the corpora NAME...: --corpora, else --shared when it holds them all, else
    --into after fetching them there (what the quickstart parses).

    Example: theorem-rag corpus locate-or-fetch stacks planetmath
    """
    from corpus_build.fetch import locate_or_fetch as locate

    if corpora is not None:
        if not corpora.is_dir():
            raise click.UsageError(f"--corpora / THEOREM_RAG_CORPORA: {corpora} is not a folder")
        click.echo(corpora)
        return
    with _fetch_errors():
        found = locate(names, shared, into or _default_into(), mirror=mirror, manifest=_manifest(manifest), log=_log)
    click.echo(found)


def _default_into() -> Path:
    from theorem_rag.config import Settings

    return Settings().data_dir / "corpora"


def _manifest(path: Path | None) -> Manifest:
    from corpus_build.corpus_manifest import load_manifest

    return load_manifest(path)


def _log(line: str) -> None:
    click.echo(line, err=True)


@contextmanager
def _fetch_errors():
    """A fetch that fails, or an unknown corpus name, ends the command with its message."""
    from corpus_build.fetch import FetchError
    from theorem_rag.errors import InputError

    try:
        yield
    except FetchError as e:
        raise click.ClickException(str(e)) from e
    except InputError as e:
        raise click.UsageError(str(e)) from e


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


@corpus.command("arxiv")
@click.argument("ids", nargs=-1)
@click.option("--ids-file", type=click.File("r"), help="A file of arXiv ids, one a line (with or without version).")
@click.option("--category", help="An arXiv category to list (math.AG, math, ...); needs --from and --to.")
@click.option("--from", "date_from", help="First submission day of the listing (YYYY-MM-DD).")
@click.option("--to", "date_to", help="Last submission day of the listing (YYYY-MM-DD), included.")
@click.option("--archive", "archives", multiple=True, type=click.Path(dir_okay=False, path_type=str),
              help="A bulk source archive arXiv_src_YYMM_NNN.tar on disk; repeat for several.")  # fmt: skip
@click.option("--metadata", type=click.Path(exists=True, dir_okay=False), help="Metadata JSON Lines for bulk archives.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Records folder; papers parsed again replace their earlier records there.")  # fmt: skip
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False),
              help="Where sources and listing state are kept (default: <data dir>/arxiv).")
@click.option("--max-papers", type=click.IntRange(min=1), help="Stop after this many papers of a listing.")
@click.option("--contact", envvar="THEOREM_RAG_ARXIV_CONTACT", help="Contact address for the User-Agent.")
@click.option("--interval", type=click.FloatRange(min=0), envvar="THEOREM_RAG_ARXIV_INTERVAL",
              help="Seconds between requests (default 3, as arXiv asks).")  # fmt: skip
@click.option("--api-url", envvar="THEOREM_RAG_ARXIV_API_URL", help="The Atom export API URL.")
@click.option("--eprint-url", envvar="THEOREM_RAG_ARXIV_EPRINT_URL", help="The e-print URL prefix.")
@click.option("--no-plastex", is_flag=True, envvar="THEOREM_RAG_NO_PLASTEX", help="Use only the regex parser.")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Parse papers in this process or as a Ray Data map (pip install \"theorem-rag[ray]\").")  # fmt: skip
@click.option("--quiet", is_flag=True, help="No progress bars.")
def arxiv(ids, ids_file, category, date_from, date_to, archives, metadata, out_dir, cache_dir, max_papers, contact,
          interval, api_url, eprint_url, no_plastex, engine, quiet) -> None:  # fmt: skip
    """Bring in arXiv papers by id, by category and date range, or from bulk archives; write records to --out.

    Example: theorem-rag corpus arxiv --category math.AG --from 2024-01-01 --to 2024-01-31 --out data/arxiv
    """
    from corpus_build.arxiv.client import ArxivClient
    from corpus_build.arxiv.ingest import ingest_arxiv
    from theorem_rag.config import Settings
    from theorem_rag.errors import InputError

    s = Settings()
    all_ids = list(ids) + ([line.strip() for line in ids_file if line.strip() and not line.startswith("#")]
                           if ids_file else [])  # fmt: skip
    client = ArxivClient(contact=contact if contact is not None else s.arxiv_contact,
                         api_url=api_url or s.arxiv_api_url, eprint_url=eprint_url or s.arxiv_eprint_url,
                         interval=s.arxiv_interval if interval is None else interval, retries=s.arxiv_retries)  # fmt: skip
    mapper = _ray_mapper() if engine == "ray" else None
    try:
        report = ingest_arxiv(out_dir, cache_dir or s.data_dir / "arxiv", ids=all_ids, category=category,
                              date_from=date_from, date_to=date_to, archives=archives, metadata=metadata,
                              client=client, max_papers=max_papers, use_plastex=not no_plastex,
                              progress=not quiet, **({"mapper": mapper} if mapper else {}))  # fmt: skip
    except InputError as e:
        raise click.UsageError(str(e)) from e
    rep = report.sources[0]
    click.echo(f"arxiv: {rep.records_kept} records from {rep.documents} papers; {len(rep.failed)} papers not "
               f"parsed ({client.requests} requests); report in {out_dir}/report.md")  # fmt: skip


def _ray_mapper():
    from corpus_build.ray_parse import RayUnavailable, ray_paper_mapper

    try:
        return ray_paper_mapper()
    except RayUnavailable as e:
        raise click.UsageError(str(e)) from e
