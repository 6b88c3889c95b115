"""One document's LaTeX parse as a pure, picklable job, and the process pool that maps it over many documents.

:func:`parse_unit` is a top-level function of one :class:`UnitJob` (the flattened text and the declarations it
needs), with no shared state: the single-process path, the process pool of :func:`run_units` and any other
engine (Ray Data's ``map``) call exactly it, and :func:`corpus_build.parse.parse_sources` merges the results in
document order, so the records do not depend on how many workers ran.

>>> from corpus_build.theorems import DEFAULT_ENVS
>>> job = UnitJob(r"\\begin{document}\\begin{lemma}A lemma about sets.\\end{lemma}\\end{document}",
...               DEFAULT_ENVS, {}, {}, use_plastex=False)
>>> [s.kind for s in parse_unit(job).statements]
['lemma']
>>> [[s.body for s in ext.statements] for ext in run_units([job, job], workers=1, progress=False)]
[['A lemma about sets.'], ['A lemma about sets.']]
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from corpus_build.cleanup import readable
from corpus_build.extract import Extraction, extract_statements
from corpus_build.macros import Macro, expand_macros
from corpus_build.raw import RawStatement
from corpus_build.theorems import TheoremEnv, parse_theorem_decls
from theorem_rag.formula_keys import carry

UnitMapper = Callable[[Sequence["UnitJob"]], list[Extraction]]


@dataclass(frozen=True)
class UnitJob:
    """What parsing one document needs: its flattened, comment-stripped text and the tree's declarations.

    ``base_dir`` is the folder plasTeX resolves relative paths in (the source tree's root).
    """

    text: str
    envs: dict[str, TheoremEnv]
    macros: dict[str, Macro]
    wrappers: dict
    use_plastex: bool = True
    base_dir: str | None = None


def parse_unit(job: UnitJob) -> Extraction:
    """The statements of one document: its own theorem declarations on top of the tree's, plasTeX, then regex;
    each with its readable text and formula keys (:func:`finish_statement`), so that the workers compute them."""
    local_envs = parse_theorem_decls(job.text, job.envs, job.wrappers)
    ext = extract_statements(job.text, local_envs, job.macros, use_plastex=job.use_plastex, base_dir=job.base_dir)
    for s in ext.statements:
        finish_statement(s, job.macros)
    return ext


def finish_statement(s: RawStatement, macros: dict[str, Macro]) -> RawStatement:
    """Fill ``s.text`` (the statement with macros expanded, made readable: what the record's text will be) and
    ``s.formula_keys`` (its keys, carried by the record so that loading does not compute them), once."""
    if s.text is None:
        s.text = readable(s.body_expanded or expand_macros(s.body, macros))
    if s.formula_keys is None:
        s.formula_keys = carry(s.text)
    return s


def default_workers() -> int:
    """The cores this process may use (the affinity mask where the platform has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def run_units(jobs: Sequence[UnitJob], *, workers: int = 1, progress: bool = True) -> list[Extraction]:
    """:func:`parse_unit` of every job, in the order given, on ``workers`` processes (1: in this process).

    The pool starts its workers with ``spawn`` (no inherited threads or open connections) and is handed the
    largest documents first, so one long document does not finish alone at the end; results are put back in
    job order.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        from theorem_rag.errors import InputError

        raise InputError(f"workers must be a positive integer, got {workers!r}")
    bar = _bar(len(jobs), progress)
    results: list[Extraction | None] = [None] * len(jobs)
    try:
        if workers == 1 or len(jobs) <= 1:
            for i, job in enumerate(jobs):
                results[i] = parse_unit(job)
                if bar:
                    bar.update(1)
        else:
            order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i].text))
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=ctx) as pool:
                futures = {pool.submit(parse_unit, jobs[i]): i for i in order}
                for fut in as_completed(futures):
                    results[futures[fut]] = fut.result()
                    if bar:
                        bar.update(1)
    finally:
        if bar:
            bar.close()
    return results  # type: ignore[return-value]


def _bar(total: int, progress: bool):
    if not progress or not total:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc="parse", unit="doc", leave=False)
