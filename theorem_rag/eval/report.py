"""Markdown and JSON renderings of an :class:`~theorem_rag.eval.harness.EvalResult`.

One table per query set, one row per configuration and level, columns Hit@k, MRR@k and Recall@k for every k,
nDCG@10 when 10 is among them, then latency. The heading gives n and how many queries have relevant ids missing from
the corpus. A set whose queries have styles gets a second table: its primary metric per style.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from theorem_rag.eval.metrics import metric_label, metric_names
from theorem_rag.eval.panel import panel_markdown, primary_of

if TYPE_CHECKING:
    from theorem_rag.eval.harness import EvalResult, SweepRow


def markdown_report(result: EvalResult) -> str:
    """The Markdown tables for a result, one per query set.

    >>> from theorem_rag.eval.harness import EvalResult, SetResult
    >>> r = EvalResult(ks=(1,), results={"bm25": {"dev": SetResult(2, {"hit@1": .5, "mrr@1": .5, "recall@1": .5},
    ...     {"hit@1": 1., "mrr@1": 1., "recall@1": 1.}, 1.25)}})
    >>> print(markdown_report(r).splitlines()[4])
    | bm25 | theorem | 0.500 | 0.500 | 0.500 | 1.2 |
    """
    columns = metric_names(result.ks)
    header = "| config | level | " + " | ".join(map(metric_label, columns))
    header += " | ms/query |"
    rule = "|" + "---|" * 2 + "---:|" * (len(columns) + 1)
    parts = []
    for set_name in result.query_sets:
        rows = [(c, by_set[set_name]) for c, by_set in result.results.items() if set_name in by_set]
        first = rows[0][1]
        note = f"n = {first.n}"
        if first.n_missing:
            note += (
                f"; {first.n_missing} with relevant ids missing from the corpus"
                f" ({first.n_unanswerable} with none present, always misses)"
            )
        parts += [f"### {set_name} ({note})", "", header, rule]
        for config, r in rows:
            for level in ("theorem", "paper"):
                scores = getattr(r, level)
                cells = " | ".join(f"{scores[c]:.3f}" for c in columns)
                parts.append(f"| {config} | {level} | {cells} | {r.latency_ms:.1f} |")
        parts.append("")
        parts += _style_table(result, set_name)
    if len(result.query_sets) > 1:
        latency = {c: {s: r.latency_ms for s, r in by_set.items()} for c, by_set in result.results.items()}
        parts += ["### The panel: each set's primary metric (theorem level)", "",
                  panel_markdown(result.panel_scores(), latency), ""]  # fmt: skip
    parts.append(f"Primary metric: {result.primary_metric} (theorem level)"
                 + ("; the panel judges each set by its own." if len(result.query_sets) > 1 else "."))
    if "n_theorems" in result.meta:
        extra = len(result.meta.get("extra_records") or [])
        parts.append(f"Corpus: {result.meta['n_theorems']} statements" + (f", {extra} extra file(s)." if extra else "."))
    return "\n".join(parts) + "\n"


def _style_table(result: EvalResult, set_name: str) -> list[str]:
    """The set's primary metric per query style (theorem level), one row per configuration; nothing for a set
    without styles. A run that did not compute the primary metric (nDCG@10 without 10 among the cut-offs) shows
    the run's own primary metric instead.

    >>> from theorem_rag.eval.harness import EvalResult, SetResult, StyleResult
    >>> styles = {"lean": StyleResult(2, {"hit@1": 1.0}), "latex": StyleResult(1, {"hit@1": 0.0})}
    >>> r = EvalResult(ks=(1,), results={"bm25": {"dev": SetResult(3, {"hit@1": 2 / 3}, {}, 1.0, styles=styles)}})
    >>> print("\\n".join(_style_table(r, "dev")))
    #### dev per style: Hit@1 (theorem level)
    <BLANKLINE>
    | config | lean (n = 2) | latex (n = 1) |
    |---|---:|---:|
    | bm25 | 1.000 | 0.000 |
    <BLANKLINE>
    """
    rows = [(config, by_set[set_name].styles) for config, by_set in result.results.items() if set_name in by_set]
    styles = list(dict.fromkeys(s for _, by_style in rows for s in by_style))
    if not styles:
        return []
    metric = primary_of(set_name)
    if not any(metric in r.theorem for _, by_style in rows for r in by_style.values()):
        metric = result.primary_metric
    n = {s: next(by_style[s].n for _, by_style in rows if s in by_style) for s in styles}
    lines = [f"#### {set_name} per style: {metric_label(metric)} (theorem level)", "",
             "| config | " + " | ".join(f"{s} (n = {n[s]})" for s in styles) + " |",
             "|---|" + "---:|" * len(styles)]  # fmt: skip
    for config, by_style in rows:
        cells = [f"{by_style[s].theorem[metric]:.3f}" if s in by_style else "-" for s in styles]
        lines.append(f"| {config} | " + " | ".join(cells) + " |")
    return lines + [""]


def sweep_markdown(rows: list[SweepRow]) -> str:
    """A Markdown table of a candidate-pool sweep.

    >>> from theorem_rag.eval.harness import SweepRow
    >>> print(sweep_markdown([SweepRow(pool=40, k=10, overlap=0.9, latency_ms=2.0)]).splitlines()[2])
    | 40 | 0.900 | 2.0 |
    """
    k = rows[0].k if rows else 10
    lines = [f"| candidate pool | overlap@{k} with exact | ms/query |", "|---:|---:|---:|"]
    lines += [f"| {r.pool} | {r.overlap:.3f} | {r.latency_ms:.1f} |" for r in rows]
    return "\n".join(lines) + "\n"


def write_report(result: EvalResult, out_dir: str | Path, per_query: bool = True) -> dict[str, Path]:
    """Write ``results.json`` (the scores), ``results.md`` and, unless told otherwise, ``per_query.jsonl`` (one line
    per configuration and query: where its answer ranked) into ``out_dir``.

    The per-query ranks are a file of their own because they are large and a rerun of the command makes them again:
    result folders commit the scores and the Markdown, and ``.gitignore`` leaves ``per_query.jsonl`` out.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "results.json", "markdown": out / "results.md"}
    paths["json"].write_text(json.dumps(result.to_json(), indent=1) + "\n", encoding="utf-8")
    paths["markdown"].write_text(markdown_report(result), encoding="utf-8")
    if per_query:
        paths["per_query"] = out / "per_query.jsonl"
        rows = (json.dumps(asdict(q)) + "\n" for q in result.per_query)
        paths["per_query"].write_text("".join(rows), encoding="utf-8")
    return paths
