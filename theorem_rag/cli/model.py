"""``theorem-rag model``: mine training pairs from the records, fine-tune the embedder, write its model card."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import click

from theorem_rag.cli.index import settings_from, with_db_options
from theorem_rag.config import DEFAULT_BASE_MODEL


def _limits(values: tuple[str, ...]) -> dict[str, int]:
    out: dict[str, int] = {}
    for value in values:
        kind, sep, n = value.partition("=")
        if not sep or not n.isdigit():
            raise click.BadParameter(f"{value!r}: expected KIND=N, e.g. proof=6000")
        out[kind.strip()] = int(n)
    return out


def _proof_instruction(value: str | None) -> str:
    """``--proof-instruction`` as mining and the model's settings use it: the default when not given, spaces
    collapsed."""
    from theorem_rag.training.pairs import PREMISE_INSTRUCTION

    return PREMISE_INSTRUCTION if value is None else " ".join(value.split())


def _mine(records: Path, eval_dir: Path | None, kinds: tuple[str, ...], seed: int, proof_instruction: str,
          query_instruction: str, exclude_sources: tuple[str, ...] = ()):  # fmt: skip
    from theorem_rag.record_files import read_records
    from theorem_rag.training.pairs import PAIR_KINDS, EvalExclusions, mine_pairs

    recs = read_records(records)
    docs = recs.documents.values() if isinstance(recs.documents, dict) else recs.documents
    unknown = set(exclude_sources) - {t.source for t in recs.theorems}
    if unknown:
        raise click.BadParameter(f"no statement of source(s) {', '.join(sorted(unknown))} in {records}",
                                 param_hint="--exclude-source")  # fmt: skip
    # An excluded source lends no pair, no negative and no paper title: the model never sees its statements.
    theorems = [t for t in recs.theorems if t.source not in exclude_sources]
    docs = [d for d in docs if d.source not in exclude_sources]
    try:
        return mine_pairs(theorems, docs, exclusions=EvalExclusions.from_dir(eval_dir),
                          kinds=kinds or PAIR_KINDS, seed=seed, proof_instruction=proof_instruction,
                          query_instruction=query_instruction)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--kind") from e


records_option = click.option(
    "--records", type=click.Path(exists=True, file_okay=False, path_type=Path), default=Path("data/records"),
    show_default=True, help="Folder written by `theorem-rag corpus parse`.")
eval_option = click.option(
    "--eval-dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
    help="Folder of evaluation query sets (e.g. ../shared/eval): their queries never become training pairs and "
         "the proof-reference queries never train premises. Required unless --no-eval-exclusion.")
exclude_source_option = click.option(
    "--exclude-source", "exclude_sources", multiple=True, metavar="SOURCE",
    help="Mine nothing from this source (its statements play the part of papers the model never saw, as a "
         "user's arXiv papers are); repeat for several.")
kind_option = click.option("--kind", "kinds", multiple=True,
                           help="Pair kinds to mine (name, label, synonym, defines, proof, paper); default all.")
instruction_option = click.option(
    "--proof-instruction", default=None, metavar="TEXT",
    help="Put before the citing statement of a proof pair (default 'premises:', which premise search then puts "
         "before its queries); '' for none, so that ordinary search learns the proof graph too.")
query_instruction_option = click.option(
    "--query-instruction", default="", metavar="TEXT", callback=lambda _ctx, _param, value: " ".join(value.split()),
    help="Put before every other anchor (names, label words, synonyms, paper titles), e.g. 'query:'; the model's "
         "settings record it and search puts it before queries in words. Default: none.")


@click.group()
def model() -> None:
    """Adapt the embedding model to mathematics: mine pairs from the records and fine-tune."""


@model.command("pairs")
@records_option
@eval_option
@kind_option
@exclude_source_option
@instruction_option
@query_instruction_option
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the pairs as JSON Lines.")
def pairs_command(records, eval_dir, kinds, exclude_sources, proof_instruction, query_instruction, seed, out) -> None:
    """Mine training pairs and print how many of each kind (and what was dropped, and why)."""
    if eval_dir is None:
        raise click.UsageError("give --eval-dir (the evaluation sets whose queries must not become training pairs)")
    pair_set = _mine(records, eval_dir, kinds, seed, _proof_instruction(proof_instruction), query_instruction,
                     exclude_sources)
    click.echo(pair_set.report())
    if out:
        pair_set.write(out)
        click.echo(f"wrote {len(pair_set.pairs):,} pairs to {out}", err=True)


@model.command("train")
@records_option
@eval_option
@kind_option
@exclude_source_option
@instruction_option
@query_instruction_option
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for the trained model (fp16 weights, theorem_rag.json, README.md model card).")
@click.option("--base-model", default=DEFAULT_BASE_MODEL, show_default=True,
              help="sentence-transformers model (name or local path) to start from.")
@click.option("--max-pairs", "max_pairs", multiple=True, metavar="KIND=N",
              help="At most N pairs of a kind (seeded sample), e.g. --max-pairs proof=6000; repeat.")
@click.option("--epochs", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--batch-size", type=click.IntRange(min=2), default=64, show_default=True)
@click.option("--learning-rate", type=float, default=2e-5, show_default=True)
@click.option("--max-seq-length", type=click.IntRange(min=16), default=128, show_default=True)
@click.option("--hard-negatives/--no-hard-negatives", default=False, show_default=True,
              help="Add a statement of the same section as a third column (50% more compute per step).")
@click.option("--matryoshka", is_flag=True, help="Train with MatryoshkaLoss (384/256/128/64).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--device", default="auto", show_default=True, help="auto (CUDA when present), cpu, cuda.")
@click.option("--fp16/--fp32", default=True, show_default=True, help="Weights as saved in --out.")
def train_command(records, eval_dir, kinds, exclude_sources, proof_instruction, query_instruction, out, base_model,
                  max_pairs, epochs, batch_size, learning_rate, max_seq_length, hard_negatives, matryoshka, seed, device,
                  fp16) -> None:
    """Mine pairs, fine-tune BASE_MODEL with in-batch (and optionally hard) negatives, save it with its card.

    An interrupted run resumes from the last checkpoint when rerun with the same options.
    """
    from theorem_rag.training.card import export_model, model_card, pair_sources
    from theorem_rag.training.train import TrainConfig, subsample, train

    if eval_dir is None:
        raise click.UsageError("give --eval-dir (the evaluation sets whose queries must not become training pairs)")
    limits = _limits(max_pairs)
    instruction = _proof_instruction(proof_instruction)
    pair_set = _mine(records, eval_dir, kinds, seed, instruction, query_instruction, exclude_sources)
    chosen = subsample(pair_set.pairs, limits, seed=seed)
    click.echo(pair_set.report(), err=True)
    click.echo(f"training on {len(chosen):,} of {len(pair_set.pairs):,} pairs", err=True)
    config = TrainConfig(base_model=base_model, epochs=epochs, batch_size=batch_size, learning_rate=learning_rate,
                         max_seq_length=max_seq_length, hard_negatives=hard_negatives, matryoshka=matryoshka,
                         seed=seed, device=device, extra={"max_pairs": limits, "kinds": list(kinds) or "all",
                                                  "exclude_sources": list(exclude_sources),
                                                  "proof_instruction": instruction,
                                                  "query_instruction": query_instruction})
    work = out.with_name(out.name + ".work")
    summary = train(chosen, config, work)
    counts: dict[str, int] = {}
    for p in chosen:
        counts[p.kind] = counts.get(p.kind, 0) + 1
    report = pair_set.report() + "\n\nUsed for training (after --max-pairs): " + ", ".join(
        f"{k} {v:,}" for k, v in sorted(counts.items()))
    meta = {
        "premise_instruction": instruction if counts.get("proof") else "", "proof_pairs": counts.get("proof", 0),
        "query_instruction": query_instruction,
        "sources": pair_sources(chosen), "excluded_sources": sorted(exclude_sources),
        "recipe": summary["config"], "training": summary, "pair_report": report,
        "command": "theorem-rag model " + " ".join(shlex.quote(a) for a in sys.argv[2:]),
    }
    export_model(work, out, meta, model_card(out.name, meta, report), fp16=fp16)
    shutil.rmtree(work, ignore_errors=True)
    click.echo(f"saved {out} ({summary['steps']} steps in {summary['seconds']:.0f} s)")


@model.command("card")
@click.argument("model_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--metrics", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A Markdown table of evaluation results to put in the card.")
def card_command(model_dir, metrics) -> None:
    """Rewrite MODEL_DIR/README.md from its theorem_rag.json (and a metrics table)."""
    from theorem_rag.training.card import model_card, read_model_meta

    meta = read_model_meta(model_dir)
    if not meta:
        raise click.ClickException(f"{model_dir} has no theorem_rag.json: not a model written by `model train`")
    text = metrics.read_text(encoding="utf-8") if metrics else ""
    (model_dir / "README.md").write_text(model_card(model_dir.name, meta, meta.get("pair_report", ""), text),
                                         encoding="utf-8")
    click.echo(f"wrote {model_dir / 'README.md'}")


@model.command("premise-head")
@eval_option
@click.option("--queries", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Training statements (a seeded sample of the training split; 0 for all).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--no-eval-exclusion", is_flag=True, help="Fit without --eval-dir (the head may then read the proofs "
              "of evaluation queries: never for an evaluation).")
@click.option("--clear", is_flag=True, help="Remove the index's premise head (premise search ranks by text alone).")
@with_db_options
def premise_head_command(eval_dir, queries, seed, no_eval_exclusion, clear, database_url, table, data_dir, embed_model,
                         embed_field) -> None:  # fmt: skip
    """Fit the premise head of the index: premise search then widens and reorders its text ranking with what the
    proofs near the statement cite (training split of the proof references only)."""
    from theorem_rag.db.connection import StoreUnavailable
    from theorem_rag.errors import InputError
    from theorem_rag.search import TheoremSearch
    from theorem_rag.search_spaces import IndexNotBuilt
    from theorem_rag.training.pairs import EvalExclusions

    engine = TheoremSearch.from_settings(settings_from(database_url=database_url, table=table, data_dir=data_dir,
                                                       embed_model=embed_model, embed_field=embed_field))  # fmt: skip
    if clear:
        engine.store.save_premise_head(None)
        click.echo("removed the premise head: premise search ranks by text alone")
        return
    if eval_dir is None and not no_eval_exclusion:
        raise click.UsageError("give --eval-dir (the proof-reference queries whose proofs the head must not read), "
                               "or --no-eval-exclusion")  # fmt: skip
    holdout = sorted(EvalExclusions.from_dir(eval_dir).proof_queries)
    from tqdm import tqdm

    try:
        head = engine.fit_premise_head(holdout=holdout, queries=queries, seed=seed,
                                       progress=lambda xs: tqdm(xs, desc="premise head", unit="statement"))  # fmt: skip
    except (InputError, IndexNotBuilt, StoreUnavailable) as e:
        raise click.ClickException(str(e)) from e
    meta = head["meta"]
    click.echo(f"fitted the premise head on {meta['queries']:,} statements ({meta['candidates']:,} candidates, "
               f"{meta['cited_candidates']:,} cited) in {meta['seconds']} s; {meta['holdout']:,} held out")
    for name, w in zip(head["features"], head["weights"]):
        click.echo(f"  {name:22s} {w:+.3f}")
    click.echo(f"  {'(bias)':22s} {head['bias']:+.3f}")
