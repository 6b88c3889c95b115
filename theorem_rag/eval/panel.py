"""The development panel: every dev query set, each judged by its own primary metric, and the rule a ranking or
model change must pass on it (no set may drop by more than ``TOLERANCE``). Pure.

A query set is judged by what it tests: Stacks slogans (a summary in words) by Hit@20, PlanetMath synonyms (a
name) by Hit@1, proof references (many right answers) by Recall@20, the probes (one per query pattern) by Hit@1,
research queries (a mathematician describing one result of a paper) by MRR@20, on the indexed papers
(``research_dev``) and on papers in no index and no training (``unseen_dev``, added for the run), the mathlib queries
(one Lean declaration each, in six styles) by nDCG@10, the figure Lean search engines are compared by. A set the
table does not name is judged by Hit@20.

>>> primary_of("research_dev"), primary_of("my_queries")
('mrr@20', 'hit@20')
>>> panel_files(["/e/stacks_slogans_dev.jsonl", "/e/README.md", "/e/research_dev.jsonl"])
['/e/research_dev.jsonl', '/e/stacks_slogans_dev.jsonl']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from theorem_rag.eval.metrics import metric_label

PRIMARY = {
    "stacks_slogans_dev": "hit@20",
    "planetmath_synonyms": "hit@1",
    "stacks_proof_refs": "recall@20",
    "dev_probes": "hit@1",
    "research_dev": "mrr@20",
    "unseen_dev": "mrr@20",
    "mathlib_dev": "ndcg@10",
    "mathlib_titles_dev": "ndcg@10",
}
DEFAULT_PRIMARY = "hit@20"
# A change ships only if no dev set's primary metric falls by more than this (side by side, one index, one run).
TOLERANCE = 0.01


def primary_of(query_set: str) -> str:
    """The primary metric of a query set, by its name."""
    return PRIMARY.get(query_set, DEFAULT_PRIMARY)


def panel_files(paths: Iterable[str | Path]) -> list[str]:
    """The query files of a panel among ``paths`` (the ``.jsonl`` files, sorted by name)."""
    return sorted((str(p) for p in paths if str(p).endswith(".jsonl")), key=lambda p: Path(p).name)


@dataclass(frozen=True)
class Drop:
    """A query set on which ``candidate`` fails the panel rule against ``baseline``: its primary metric fell by more
    than the tolerance, or only one of the two scored it (the other's figure is ``None``), so nothing shows it held.

    >>> str(Drop("dev_probes", "hit@1", 0.83, 0.81)), str(Drop("research_dev", "mrr@20", 0.82, None))
    ('dev_probes hit@1 0.830 -> 0.810', 'research_dev mrr@20 0.820 -> not scored')
    """

    query_set: str
    metric: str
    baseline: float | None
    candidate: float | None

    @property
    def change(self) -> float | None:
        """``candidate - baseline``; ``None`` when either did not score the set."""
        if self.baseline is None or self.candidate is None:
            return None
        return self.candidate - self.baseline

    def __str__(self) -> str:
        def figure(x: float | None) -> str:
            return "not scored" if x is None else f"{x:.3f}"

        return f"{self.query_set} {self.metric} {figure(self.baseline)} -> {figure(self.candidate)}"


def panel_drops(scores: Mapping[str, Mapping[str, Mapping[str, float]]], baseline: str, candidate: str,
                tolerance: float = TOLERANCE) -> list[Drop]:  # fmt: skip
    """The sets on which ``candidate`` falls below ``baseline`` by more than ``tolerance`` on their primary metric,
    and the sets whose primary metric only one of the two has (a set left out must not pass the rule unseen).

    ``scores[config][query_set][metric]`` (theorem level), as :meth:`EvalResult.panel_scores` gives them.

    >>> s = {"old": {"research_dev": {"mrr@20": .68}, "dev_probes": {"hit@1": .83}},
    ...      "new": {"research_dev": {"mrr@20": .82}, "dev_probes": {"hit@1": .81}}}
    >>> [(d.query_set, round(d.change, 3)) for d in panel_drops(s, "old", "new")]
    [('dev_probes', -0.02)]
    >>> [str(d) for d in panel_drops({"old": s["old"], "new": {"research_dev": {"mrr@20": .82}}}, "old", "new")]
    ['dev_probes hit@1 0.830 -> not scored']
    """
    old_sets, new_sets = scores[baseline], scores[candidate]
    out = []
    for name in dict.fromkeys([*old_sets, *new_sets]):
        metric = primary_of(name)
        old, new = old_sets.get(name, {}).get(metric), new_sets.get(name, {}).get(metric)
        if old is None or new is None or new < old - tolerance - 1e-12:
            out.append(Drop(name, metric, old, new))
    return out


def panel_markdown(scores: Mapping[str, Mapping[str, Mapping[str, float]]], latency: Mapping[str, Mapping[str, float]]
                   | None = None) -> str:  # fmt: skip
    """One row per configuration, one column per query set: its primary metric (and ms/query when given); ``-``
    where a configuration did not score the set or the run did not compute its primary metric (nDCG@10 without 10
    among the cut-offs).

    >>> print(panel_markdown({"hybrid": {"research_dev": {"mrr@20": 0.8}}}, {"hybrid": {"research_dev": 41.0}}))
    | config | research_dev MRR@20 | ms/query |
    |---|---:|---|
    | hybrid | 0.800 | 41 |
    """
    sets = list(dict.fromkeys(s for by_set in scores.values() for s in by_set))
    heads = [f"{s} {metric_label(primary_of(s))}" for s in sets]
    lines = ["| config | " + " | ".join(heads) + (" | ms/query |" if latency else " |"),
             "|---|" + "---:|" * len(sets) + ("---|" if latency else "")]  # fmt: skip
    for config, by_set in scores.items():
        figures = [by_set.get(s, {}).get(primary_of(s)) for s in sets]
        cells = ["-" if x is None else f"{x:.3f}" for x in figures]
        row = f"| {config} | " + " | ".join(cells) + " |"
        if latency:
            row += " " + " / ".join(f"{latency[config][s]:.0f}" for s in sets if s in latency.get(config, {})) + " |"
        lines.append(row)
    return "\n".join(lines)
