"""Orchestration: SOURCE paths in, ``theorems.jsonl``/``documents.jsonl``/``report.json``/``report.md`` out.

>>> import tempfile, pathlib
>>> src = pathlib.Path(tempfile.mkdtemp()); out = pathlib.Path(tempfile.mkdtemp())
>>> _ = (src / "main.tex").write_text(r"\\documentclass{article}\\newtheorem{thm}{Theorem}\\begin{document}"
...     r"\\begin{thm}\\label{t:one}Every prime $p>2$ is odd.\\end{thm}\\end{document}")
>>> rep = parse_sources([src], out, use_plastex=False, progress=False)
>>> rep.sources[0].records_kept, (out / "theorems.jsonl").read_text().count("\\n")
(1, 1)
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from corpus_build.adapters import Adapter, Unit, adapter_class
from corpus_build.adapters.base import slug
from corpus_build.adapters.lean import LeanAdapter, is_lean_folder
from corpus_build.adapters.papers import PaperAdapter, read_manifest
from corpus_build.cleanup import readable
from corpus_build.extract import Extraction, plastex_available
from corpus_build.filters import apply_filters, normalized
from corpus_build.macros import collect_macros, expand_macros
from corpus_build.report import Report, SourceReport
from corpus_build.sources import SourceTree, detect_corpus, extract_tar, is_tar, walk_tree
from corpus_build.texfiles import DEFAULT_MAX_FILE_BYTES, BadFile, flatten, read_tex, strip_comments
from corpus_build.theorems import DEFAULT_ENVS, parse_theorem_decls, theorem_wrappers
from corpus_build.units import UnitJob, UnitMapper, finish_statement, run_units
from corpus_build.writer import write_outputs
from theorem_rag.record_files import read_records
from theorem_rag.records import Document, Theorem


def _read_texts(tree: SourceTree, rep: SourceReport, max_bytes: int) -> dict[str, str]:
    """Every LaTeX file of the tree, comment-stripped; unreadable ones go to the report."""
    texts: dict[str, str] = {}
    rep.files_seen += len(tree.files)
    rep.files_not_latex += tree.other_files
    for p in tree.problems:
        rep.fail(p.path, p.reason)
    for rel in tree.files:
        try:
            raw, note = read_tex(tree.root / rel, max_bytes)
        except BadFile as e:
            rep.fail(rel, str(e))
            continue
        if note:
            rep.notes.append({"path": rel, "note": note})
        texts[rel] = strip_comments(raw)
    rep.files_read += len(texts)
    return texts


def _declarations(texts: dict[str, str]) -> tuple[dict, dict, dict]:
    """Theorem environments, user macros and theorem-declaring wrapper macros of a whole tree (``.sty`` first)."""
    ordered = sorted(texts, key=lambda r: (not r.endswith((".sty", ".cls")), r))
    envs, macros, wrappers = dict(DEFAULT_ENVS), {}, {}
    for rel in ordered:
        wrappers.update(theorem_wrappers(texts[rel]))
    for rel in ordered:
        envs = parse_theorem_decls(texts[rel], envs, wrappers)
        macros.update(collect_macros(texts[rel].split("\\begin{document}", 1)[0]))
    return envs, macros, wrappers


def _units(
    adapter: Adapter, texts: dict[str, str], envs: dict, rep: SourceReport, max_bytes: int, unread: set[str]
) -> list[Unit]:
    """Main files flattened with their includes, then every file no main file reached that holds statements; a
    file that cannot be flattened goes to the report and to ``unread``."""
    root = adapter.tree.root
    units: list[Unit] = []
    reached: set[str] = set()
    begin_any = re.compile(r"\\begin\s*\{(" + "|".join(re.escape(n) for n in envs) + r")\}") if envs else None
    mains = adapter.main_files(texts)
    rest = [r for r in sorted(texts) if r.endswith((".tex", ".ltx")) and r not in mains]
    for rel in mains + rest:
        standalone = rel not in mains
        if standalone and rel in reached:
            continue
        if standalone and (begin_any is None or not begin_any.search(texts[rel])):
            rep.without_statements.append(rel)
            continue
        try:
            flat = flatten(root / rel, root, max_bytes=max_bytes)
        except BadFile as e:
            rep.fail(rel, str(e))
            unread.add(rel)
            continue
        reached.update(flat.files)
        units.append(Unit(adapter.doc_id(rel), rel, flat))
        for f, why in flat.problems:
            rep.notes.append({"path": f, "note": why})
    return units


def _to_theorem(adapter: Adapter, unit: Unit, s, index: int, parser: str, macros: dict) -> Theorem:
    """The record for one parsed statement: the adapter names it, links it and adds its metadata.

    ``index`` is the statement's place among those of its file; it names no statement any more, but where the
    id is the adapter's :meth:`~corpus_build.adapters.base.Adapter.unlabelled_id`, the positional id it stood
    for is kept as ``meta["legacy_id"]`` (old references, such as evaluation sets, resolve through it).
    """
    finish_statement(s, macros)  # done already where a worker parsed it
    expanded = adapter.printed(s.text)
    tid = adapter.theorem_id(s, unit, index)
    meta = adapter.meta(s, unit)
    if not s.label and tid == adapter.unlabelled_id(s, unit):
        meta = {**meta, "legacy_id": adapter.legacy_id(s, unit, index)}
    return Theorem(
        id=tid,
        source=adapter.source,
        kind=s.kind,
        body_latex=s.body,
        doc_id=unit.doc_id,
        body_expanded=expanded if expanded != s.body else "",
        number=adapter.number(s, unit),
        name=adapter.printed(s.name) if s.name else s.name,
        label=s.label,
        section=tuple(adapter.printed(t) for t in s.section),
        proof_refs=tuple(adapter.ref_ids(s, unit)),
        url=adapter.url(s, tid, unit),
        parser=s.parser or parser,
        file=s.file,
        line=s.line,
        meta=meta,
        proof=readable(expand_macros(s.proof, macros)) if s.proof else "",
        formula_keys=s.formula_keys,
    )


@dataclass
class TreePlan:
    """One source tree read and split into documents: what :func:`finish_tree` needs once the jobs are parsed.

    ``own`` holds the statements an adapter reads itself (PlanetMath entries) with the seconds it took, by unit
    index; ``jobs`` the LaTeX parse of every other unit, by unit index; ``unread`` the files of the tree that
    could not be read.
    """

    adapter: Adapter
    rep: SourceReport
    units: list[Unit]
    macros: dict
    unread: set[str] = field(default_factory=set)
    own: dict[int, tuple[list, float]] = field(default_factory=dict)
    jobs: dict[int, UnitJob] = field(default_factory=dict)


def plan_tree(adapter: Adapter, rep: SourceReport, *, use_plastex: bool, max_bytes: int) -> TreePlan:
    """Read one source tree, find its declarations and documents, and make a :class:`UnitJob` per document."""
    tree = adapter.tree
    texts = _read_texts(tree, rep, max_bytes)
    pm = adapter.source == "planetmath"
    envs, macros, wrappers = ({}, {}, {}) if pm else _declarations(texts)
    adapter.learn(texts)
    unread = set(tree.files) - set(texts)
    plan = TreePlan(adapter, rep, _units(adapter, texts, envs, rep, max_bytes, unread), macros, unread=unread)
    for i, unit in enumerate(plan.units):
        t0 = time.perf_counter()
        stmts = adapter.statements(unit)
        if stmts is not None:
            plan.own[i] = (stmts, time.perf_counter() - t0)
        else:
            plan.jobs[i] = UnitJob(unit.flat.text, envs, macros, wrappers, use_plastex, str(tree.root))
    return plan


def _failed_files(plan: TreePlan, parsed: dict[int, Extraction]) -> dict[str, set[str]]:
    """Per document id, the files of the tree this parse could not read statements from: a LaTeX file that could
    not be read (on its own or included by one of the document's units), and every file a unit whose parse failed
    reached."""
    failed: dict[str, set[str]] = defaultdict(set)
    for rel in plan.unread:
        if rel.endswith((".tex", ".ltx")):
            failed[plan.adapter.doc_id(rel)].add(rel)
    for i, unit in enumerate(plan.units):
        if i in parsed and parsed[i].parser == "failed":
            failed[unit.doc_id].update(unit.flat.files)
        failed[unit.doc_id].update(f for f, _ in unit.flat.problems if f in plan.unread)
    return failed


def _with_failed_files(doc: Document, files: set[str]) -> Document:
    """``doc`` listing ``files`` in ``meta.failed_files``: ``index build`` keeps what the index holds of them."""
    return replace(doc, meta={**doc.meta, "failed_files": sorted(files)}) if files else doc


def finish_tree(plan: TreePlan, parsed: dict[int, Extraction]) -> tuple[list[Theorem], list[Document]]:
    """Records and documents of a planned tree, in document order, from the parses of its jobs."""
    adapter, rep = plan.adapter, plan.rep
    found: list[Theorem] = []
    docs: dict[str, Document] = {}
    for i, unit in enumerate(plan.units):
        parser = "fallback"
        if i in plan.own:
            stmts, secs = plan.own[i]
            rep.parser_runs["fallback"] += len(stmts)
            rep.parser_seconds["fallback"] += secs
            if not stmts:
                rep.without_statements.append(unit.main)
        else:
            ext = parsed[i]
            stmts, parser = ext.statements, ext.parser
            if parser == "failed":  # an engine's task that crashed, timed out or lost its worker (ray_parse)
                rep.fail(unit.main, ext.reason or "parse failed")
            rep.parser_runs.update(ext.found_by)
            rep.parser_seconds.update(ext.seconds)
            if ext.reason and ext.statements and ext.reason not in ("plasTeX disabled", "plasTeX not installed"):
                rep.fallback_units.append({"file": unit.main, "reason": ext.reason})
            for k, v in ext.fallback.unknown_kind.items():
                rep.dropped[f"unknown_kind:{k}"] += v
            rep.unterminated += [{"file": unit.main, "env": e, "line": ln} for e, ln in ext.fallback.unterminated]
            if ext.refused:  # the names the document asked for, never what those files hold
                rep.notes.append({"path": unit.main, "note": "plasTeX was refused: " + "; ".join(ext.refused[:20])})
            if not stmts and parser != "failed":
                rep.without_statements.append(unit.main)
        rep.found_by_parser[parser] += len(stmts)
        # Every document read is written, statements or none: its record tells `index build` that the statements
        # stored for it are all it has now (a document whose last statement was deleted loses the others too). A
        # document whose parse failed says nothing about its statements and gets none from this unit (written from
        # its other units, it lists the files not read in ``meta.failed_files``, whose statements a rebuild keeps).
        if parser != "failed" and unit.doc_id not in docs:
            docs[unit.doc_id] = adapter.document(unit)
        per_file: Counter = Counter()
        for s in stmts:
            if s.file is None and s.line is not None:
                s.file, s.line = unit.flat.line_map.locate(s.line)
            key = s.file or unit.main
            found.append(_to_theorem(adapter, unit, s, per_file[key], parser, plan.macros))
            per_file[key] += 1
    rep.statements_found += len(found)
    rep.documents += len(docs)
    failed = _failed_files(plan, parsed)
    return found, [_with_failed_files(d, failed.get(doc_id, set())) for doc_id, d in docs.items()]


def parse_tree(
    adapter: Adapter, rep: SourceReport, *, use_plastex: bool, max_bytes: int, progress: bool, workers: int = 1
) -> tuple[list[Theorem], list[Document]]:
    """Parse every document of one source tree with its adapter; filters and id checks apply per source."""
    plan = plan_tree(adapter, rep, use_plastex=use_plastex, max_bytes=max_bytes)
    keys = list(plan.jobs)
    results = run_units([plan.jobs[i] for i in keys], workers=workers, progress=progress)
    return finish_tree(plan, dict(zip(keys, results)))


def _finish(theorems: list[Theorem], rep: SourceReport) -> list[Theorem]:
    """Filters, unique ids and proof references resolved to statements of the same source."""
    from dataclasses import replace

    known = {t.id for t in theorems}
    kept = list(apply_filters(theorems, lambda t: t.body_latex, rep.dropped, lambda t: t.doc_id))
    seen: Counter = Counter()
    bodies: dict[str, str] = {}
    out = []
    for t in kept:
        if bodies.get(t.id) == normalized(t.body_latex):
            rep.dropped["duplicate"] += 1
            continue
        bodies.setdefault(t.id, normalized(t.body_latex))
        seen[t.id] += 1
        tid = t.id if seen[t.id] == 1 else f"{t.id}#{seen[t.id]}"
        rep.id_collisions += seen[t.id] > 1
        refs = tuple(dict.fromkeys(r for r in t.proof_refs if r in known and r != t.id))
        rep.refs_resolved += len(refs)
        rep.refs_unresolved += len(set(t.proof_refs)) - len(refs)
        out.append(replace(t, id=tid, proof_refs=refs))
    rep.records_kept += len(out)
    rep.kept_by_parser.update(t.parser for t in out)
    rep.kept_by_kind.update(t.kind for t in out)
    return out


def adapters_for(path: Path, scratch: Path, rep: SourceReport, max_bytes: int) -> list[Adapter]:
    """The adapters (one per paper for a manifest folder) for a folder, tarball or single file."""
    if is_tar(path):
        dest = Path(tempfile.mkdtemp(prefix="src-", dir=scratch))
        for p in extract_tar(path, dest, max_member_bytes=max_bytes):
            rep.fail(p.path, p.reason)
        root = dest
        entries = [e for e in dest.iterdir()]
        if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
            root = entries[0]
        tree = walk_tree(root)
        rep.corpus = detect_corpus(root)
    elif path.is_file():
        tree = SourceTree(path.parent.resolve(), [path.name], label=path.stem)
        rep.corpus = "paper"
    else:
        tree = walk_tree(path)
        rep.corpus = detect_corpus(tree.root)
    if rep.corpus == "papers":
        entries, bad = read_manifest(tree.root / "MANIFEST.jsonl")
        for n, why in bad:
            rep.fail(f"MANIFEST.jsonl:{n}", why)
        out, covered = [], set()
        for e in entries:
            sub = tree.root / e["id"]
            if not sub.is_dir():
                rep.fail(e["id"], "paper folder named in MANIFEST.jsonl is missing")
                continue
            covered.add(e["id"])
            out.append(PaperAdapter(walk_tree(sub, label=e["id"]), e["id"], e))
        for f in tree.files:
            if f.split("/", 1)[0] not in covered:
                rep.fail(f, "not in a paper folder listed in MANIFEST.jsonl")
        return out
    cls = adapter_class(rep.corpus)
    return [cls(tree, source=None if cls is not Adapter else slug(tree.label))]


def parse_sources(
    paths: Iterable[str | os.PathLike],
    out_dir: str | os.PathLike,
    *,
    fmt: str = "jsonl",
    use_plastex: bool = True,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    progress: bool = True,
    workers: int = 1,
    map_units: UnitMapper | None = None,
    lean_commit: str | None = None,
) -> Report:
    """Parse every SOURCE (folder, tarball, ``.tex`` or ``.jsonl``) into records written under ``out_dir``.

    Every source is read and split into documents first; the documents of all sources are then parsed together
    on ``workers`` processes (:func:`corpus_build.units.run_units`), or by ``map_units`` (any function from a
    list of :class:`~corpus_build.units.UnitJob` to their :func:`~corpus_build.units.parse_unit` results, in
    order: another engine), and the records are assembled in source and document order, so they are the same
    bytes whatever the number of workers. Nothing is written outside ``out_dir``: tarballs are unpacked in a
    scratch folder inside it, removed after.

    A folder of Lean 4 sources (:func:`~corpus_build.adapters.lean.is_lean_folder`) is read by
    :class:`~corpus_build.adapters.lean.LeanAdapter` on the same ``workers``, its links pointing to ``lean_commit``
    (mathlib's pinned commit by default).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".scratch-", dir=out))
    start = time.perf_counter()
    report = Report([], plastex_available=use_plastex and plastex_available())
    theorems: list[Theorem] = []
    documents: list[Document] = []
    # Per SOURCE: ("rows", rows, documents) read from JSON Lines, ("plans", plans, seconds spent reading), or
    # ("records", theorems, documents) an adapter made whole (Lean).
    pending: list[tuple[SourceReport, str, list, float]] = []
    try:
        for raw_path in paths:
            path = Path(raw_path)
            t0 = time.perf_counter()
            rep = SourceReport(path.name, str(path), "paper")
            report.sources.append(rep)
            if not path.exists():
                rep.fail(str(path), "no such file or folder")
                continue
            if path.is_file() and path.suffix == ".jsonl":
                rep.corpus, rep.source = "jsonl", path.stem
                records = read_records(path, strict=False)
                for rejected in records.rejected:
                    rep.fail(f"{rejected.path}:{rejected.line}", rejected.reason)
                rep.files_seen = rep.files_read = 1
                rep.statements_found = len(records.theorems)
                rep.found_by_parser["jsonl"] = len(records.theorems)
                pending.append((rep, "rows", [records.theorems, records.documents], 0.0))
                continue
            if path.is_file() and not is_tar(path) and path.suffix.lower() not in (".tex", ".ltx"):
                rep.fail(str(path), "not a folder, tarball, .tex or .jsonl file")
                continue
            if path.is_dir() and is_lean_folder(path):
                lean = LeanAdapter(path, commit=lean_commit)
                rep.corpus, rep.source = "lean", lean.source
                found = lean.parse(rep, max_bytes=max_file_bytes, workers=workers, progress=progress)
                pending.append((rep, "records", list(found), 0.0))
                continue
            plans = []
            for adapter in adapters_for(path, scratch, rep, max_file_bytes):
                rep.source = adapter.source if rep.corpus != "papers" else "papers"
                plans.append(plan_tree(adapter, rep, use_plastex=use_plastex, max_bytes=max_file_bytes))
            pending.append((rep, "plans", plans, time.perf_counter() - t0))
        jobs = [plan.jobs[i] for _, what, plans, _ in pending if what == "plans" for plan in plans for i in plan.jobs]
        parsed = map_units(jobs) if map_units is not None else run_units(jobs, workers=workers, progress=progress)
        if len(parsed) != len(jobs):
            raise RuntimeError(f"{len(jobs)} documents to parse, {len(parsed)} results")
        results = iter(parsed)
        for rep, what, items, seconds in pending:
            if what == "records":
                theorems += items[0]
                documents += items[1]
                continue
            if what == "rows":
                rows, docs = items
                theorems += _finish(rows, rep)
                documents += docs
                continue
            t0 = time.perf_counter()
            found: list[Theorem] = []
            for plan in items:
                ts, ds = finish_tree(plan, {i: next(results) for i in plan.jobs})
                found += ts
                documents += ds
            theorems += _finish(found, rep)
            # Reading and assembling, plus every document's parse time (wall time when one worker parses).
            rep.seconds = round(seconds + time.perf_counter() - t0 + sum(rep.parser_seconds.values()), 2)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report.seconds = time.perf_counter() - start
    write_outputs(out, theorems, documents, report, fmt)
    return report
