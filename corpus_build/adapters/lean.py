"""Lean 4 sources (mathlib): one record per user-facing declaration, named exactly as Lean names it.

A folder is Lean when it holds ``.lean`` files (:func:`is_lean_folder`). Every file is read on
its own, on ``workers`` processes (:func:`read_lean_file`: no Lean toolchain, the text itself,
:mod:`corpus_build.lean`), then the whole library completes the names (:func:`corpus_build.lean.library.complete`).
A record is ``<source>:<FullName>`` (``mathlib:Nat.Prime.two_le``); its statement (``body_latex``) is the Lean
header with the variables it uses, its ``proof`` the proof or body, ``proof_refs`` the declarations that proof or
body names (:mod:`corpus_build.lean.refs`: "uses / used by" as for LaTeX), ``meta`` the Lean kind, module,
docstring, attributes and documentation link; ``url`` points to the line in the source at
:attr:`LeanAdapter.commit`.

A file that cannot be read (too large, binary, not a file of the folder) is a failure in the report; what a read
file could not make sense of (brackets that never close, an unterminated comment) is counted and listed there, and
the rest of the file is kept.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from corpus_build.adapters.base import slug
from corpus_build.lean.additive import Dictionary, read_dictionaries
from corpus_build.lean.decls import LeanDecl, LeanFile, read_file
from corpus_build.lean.library import complete
from corpus_build.lean.refs import resolve_references
from corpus_build.report import SourceReport
from theorem_rag.records import Document, Theorem

MATHLIB_COMMIT = "54df8a3"  # the commit of ../shared/corpora/mathlib4; links point there
SOURCE_URL = "https://github.com/leanprover-community/mathlib4/blob/{commit}/{file}#L{line}"
DOCS_URL = "https://leanprover-community.github.io/mathlib4_docs/{path}.html"
# Lean's kinds onto the record kinds (theorem_rag.records.KINDS); the Lean kind stays in meta["lean_kind"].
RECORD_KINDS = {"theorem": "theorem", "lemma": "lemma", "axiom": "axiom", "alias": "theorem"}
# mathlib's docstrings set the name of a result in bold ("The **binomial theorem**", "**Intermediate Value Theorem**
# for continuous functions on closed intervals"): a bold phrase of at most NAME_MAX_WORDS words with one of these
# words is a name the result is known by, recorded as the declaration's synonym (its alias in a search).
_BOLD = re.compile(r"\*\*([^*\n]+?)\*\*|__([^_\n]+?)__")
RESULT_WORDS = frozenset("theorem theorems lemma inequality principle criterion formula identity equation equations law "
                         "rule test method conjecture".split())  # fmt: skip
NAME_MAX_WORDS = 8
# A module docstring's list of its main declarations, each with a line about it ("* `intermediate_value_Icc`: the
# intermediate value theorem"): an item and the lines indented under it.
_ITEM = re.compile(r"^\s*[*+-]\s+`([^`\s]+)[^`]*`\s*(?:[:：—–-]|\bis\b)\s*(.+)$")
DICTIONARY_MODULES = {"to_additive": "Mathlib.Tactic.Translate.ToAdditive",
                      "to_dual": "Mathlib.Tactic.Translate.ToDual"}


def is_lean_folder(root: Path, depth: int = 3) -> bool:
    """Whether a folder holds Lean 4 sources: a Lake project, or ``.lean`` files and no LaTeX (``.tex``, a papers
    ``MANIFEST.jsonl``) in its first ``depth`` levels; a paper with Lean code beside its LaTeX stays a paper.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); (d / "Mathlib" / "Order").mkdir(parents=True)
    >>> _ = (d / "Mathlib" / "Order" / "Basic.lean").write_text("")
    >>> is_lean_folder(d), is_lean_folder(d / "Mathlib"), is_lean_folder(Path(tempfile.mkdtemp()))
    (True, True, False)
    """
    root = root.resolve()
    if not root.is_dir():
        return False
    if any((root / marker).is_file() for marker in ("lakefile.lean", "lakefile.toml", "lean-toolchain")):
        return True
    lean = False
    for folder, dirs, names in os.walk(root):
        if Path(folder).relative_to(root).parts.__len__() >= depth - 1:
            dirs.clear()
        if any(n.endswith(".tex") or n == "MANIFEST.jsonl" for n in names):
            return False
        lean = lean or any(n.endswith(".lean") for n in names)
    return lean


def lean_files(root: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """The ``.lean`` files under ``root`` (relative paths, sorted) and the ones refused, with why: a link that
    leads out of the folder is never followed."""
    root = root.resolve()
    found, refused = [], []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith(".lean"):
                continue
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                refused.append((rel, "symlink points outside the source folder"))
            elif not path.is_file():
                refused.append((rel, "not a regular file"))
            else:
                found.append(rel)
    return sorted(found), refused


def read_lean_file(job: tuple[str, str, int]) -> tuple[LeanFile | None, str]:
    """``(root, relative path, max bytes)`` -> the file's declarations, or ``(None, why it was not read)``.
    A top-level function of plain arguments, so that a process pool can run it."""
    root, rel, max_bytes = job
    path = Path(root) / rel
    try:
        size = path.stat().st_size
        if size > max_bytes:
            return None, f"file too large: {size} bytes > limit {max_bytes}"
        data = path.read_bytes()
    except OSError as e:
        return None, f"cannot read: {e.strerror or e}"
    if b"\x00" in data[:8192]:
        return None, "binary content (NUL bytes), not Lean source"
    text = data.decode("utf-8", errors="replace")
    out = read_file(text, rel)
    if "\ufffd" in text and b"\xef\xbf\xbd" not in data:
        out.problems.append("not UTF-8: undecodable bytes replaced")
    return out, ""


class LeanAdapter:
    """A folder of Lean 4 sources: a project folder (``mathlib4/``, modules under ``Mathlib/``) or the library
    folder itself (``Mathlib/``, whose name starts every module). ``commit`` (mathlib's pinned one by default) is
    what source links point to; only mathlib gets links and the source ``mathlib``.

    >>> LeanAdapter(Path("/nonexistent/mathlib4")).module("Mathlib/Order/Lattice.lean")
    'Mathlib.Order.Lattice'
    """

    license = "Apache-2.0"

    def __init__(self, root: Path, commit: str | None = None) -> None:
        self.root = Path(root).resolve()
        self.commit = commit or MATHLIB_COMMIT
        self.files, self.refused = lean_files(self.root)
        self.prefix = self.root.name if any("/" not in f for f in self.files) else ""
        projects = sorted({self.module(f).split(".", 1)[0] for f in self.files})
        self.is_mathlib = "Mathlib" in projects or not projects
        self.source = "mathlib" if self.is_mathlib else slug(projects[0])

    def module(self, rel: str) -> str:
        """The module a file is: its path from the project root, dotted, without ``.lean``."""
        path = f"{self.prefix}/{rel}" if self.prefix else rel
        return path[: -len(".lean")].replace("/", ".")

    def repo_path(self, rel: str) -> str:
        return f"{self.prefix}/{rel}" if self.prefix else rel

    def source_url(self, rel: str, line: int) -> str | None:
        if not self.is_mathlib:
            return None
        return SOURCE_URL.format(commit=self.commit, file=self.repo_path(rel), line=line)

    def docs_url(self, module: str, name: str = "") -> str | None:
        if not self.is_mathlib:
            return None
        return DOCS_URL.format(path=module.replace(".", "/")) + (f"#{name}" if name else "")

    def dictionaries(self) -> dict[str, Dictionary]:
        """The translation dictionaries of the library itself, where it has them."""
        by_module = {self.module(rel): rel for rel in self.files}
        out = {}
        for attribute, module in DICTIONARY_MODULES.items():
            if module in by_module:
                text = (self.root / by_module[module]).read_text(encoding="utf-8", errors="replace")
                if (d := read_dictionaries(text)) is not None:
                    out[attribute] = d
        return out

    def parse(self, rep: SourceReport, *, max_bytes: int, workers: int = 1,
              progress: bool = False) -> tuple[list[Theorem], list[Document]]:
        """Every declaration of the folder as records (one per name), its modules as documents; ``rep`` says
        what was read, left out, generated and could not be read."""
        t0 = time.perf_counter()
        rep.files_seen += len(self.files) + len(self.refused)
        for rel, why in self.refused:
            rep.fail(rel, why)
        files = self._read_all(rep, max_bytes, workers, progress)
        generated = complete(files, self.dictionaries())
        refs: Counter = Counter()
        resolve_references(files, refs)
        theorems, documents = self._records(files, rep)
        kinds = Counter(t.meta["lean_kind"] for t in theorems)
        rep.lean = {
            "declarations by Lean kind": dict(kinds.most_common()),
            "generated or named by the library": dict(sorted(generated.items())),
            "left out": dict(sorted(sum((f.skipped for f in files), Counter()).items())),
            "names a proof or body uses, resolved": dict(refs),
            "files with problems": sum(bool(f.problems) for f in files),
            "problems": sum(len(f.problems) for f in files),
        }
        rep.seconds = round(time.perf_counter() - t0, 2)
        return theorems, documents

    def _read_all(self, rep: SourceReport, max_bytes: int, workers: int, progress: bool) -> list[LeanFile]:
        jobs = [(str(self.root), rel, max_bytes) for rel in self.files]
        if workers > 1 and len(jobs) > 1:
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=ctx) as pool:
                results = list(pool.map(read_lean_file, jobs, chunksize=16))
        else:
            results = [read_lean_file(j) for j in jobs]
        files = []
        for (_, rel, _), (f, why) in zip(jobs, results):
            if f is None:
                rep.fail(rel, why)
                continue
            files.append(f)
            rep.notes += [{"path": rel, "note": p} for p in f.problems]
        rep.files_read += len(files)
        return files

    def _records(self, files: list[LeanFile], rep: SourceReport) -> tuple[list[Theorem], list[Document]]:
        theorems: list[Theorem] = []
        documents: list[Document] = []
        seen: set[str] = set()
        for f in files:
            module = self.module(f.path)
            doc_id = f"{self.source}-module:{module}"
            documents.append(Document(
                id=doc_id, source=self.source, title=f.title or module, abstract=f.module_doc[:6000],
                license=self.license if self.is_mathlib else "", url=self.docs_url(module),
                meta={"module": module, "file": self.repo_path(f.path), "language": "lean"},
            ))
            summaries = module_summaries(f.module_doc, [d.name for d in f.decls])
            for d in f.decls:
                rep.statements_found += 1
                if d.name in seen:
                    rep.dropped["duplicate name"] += 1
                    continue
                seen.add(d.name)
                theorems.append(self.record(d, f.path, module, doc_id, summaries.get(d.name, "")))
        rep.documents += len(documents)
        rep.records_kept += len(theorems)
        rep.found_by_parser["lean"] += rep.statements_found
        rep.kept_by_parser["lean"] += len(theorems)
        rep.kept_by_kind.update(t.kind for t in theorems)
        rep.refs_resolved += sum(len(t.proof_refs) for t in theorems)
        return theorems, documents

    def record(self, d: LeanDecl, rel: str, module: str, doc_id: str, summary: str = "") -> Theorem:
        """The record of one declaration of the file ``rel`` (module ``module``); ``summary``: what the module's
        docstring says of it (:func:`module_summaries`)."""
        meta = {"language": "lean", "lean_kind": d.kind, "module": module, "namespace": d.namespace,
                "docstring": d.doc or "", "attributes": list(d.attributes),
                "docs_url": self.docs_url(module, d.name)}
        if "protected" in d.modifiers:
            meta["protected"] = True
        if names := result_names(d.doc or ""):
            meta["synonyms"] = names
        if summary:
            meta["summary"] = summary
        meta.update(d.extra)
        return Theorem(
            id=f"{self.source}:{d.name}", source=self.source, kind=RECORD_KINDS.get(d.kind, "definition"),
            body_latex=d.statement, doc_id=doc_id, name=d.name, label=d.name, url=self.source_url(rel, d.line),
            parser="lean", file=self.repo_path(rel), line=d.line, meta=meta, proof=d.body,
            proof_refs=tuple(f"{self.source}:{r}" for r in d.refs),
        )


def result_names(doc: str) -> list[str]:
    """The names a docstring gives its result in bold (see ``RESULT_WORDS``), in order, each once.

    >>> result_names("The **binomial theorem**"), result_names("**Bézout's lemma**: see also **`gcd`**.")
    (['binomial theorem'], ["Bézout's lemma"])
    >>> result_names("**Remark:** this is **not** an **injective** map.")
    []
    """
    out: list[str] = []
    for m in _BOLD.finditer(doc):
        name = " ".join((m[1] or m[2]).split()).strip(" .,:;")
        words = name.lower().replace("-", " ").split()
        if 0 < len(words) <= NAME_MAX_WORDS and RESULT_WORDS & set(words) and name not in out:
            out.append(name)
    return out


def module_summaries(module_doc: str, names: list[str]) -> dict[str, str]:
    """What a module's docstring says of its main declarations: the items of its lists that name one of ``names``
    (the file's declarations; a name as written or the end of one after a dot, when that end is one declaration's
    only) in code, with the lines indented under each.

    >>> module_summaries("## Main results\\n* `ivt`: the intermediate value theorem\\n  on an interval.\\n"
    ...                  "- `Icc_subset` is a lemma.\\n* `missing`: none", ["ivt", "IsPreconnected.Icc_subset"])
    {'ivt': 'the intermediate value theorem on an interval.', 'IsPreconnected.Icc_subset': 'a lemma.'}
    """
    exact = set(names)
    ends: dict[str, list[str]] = {}
    for name in names:
        parts = name.split(".")
        for i in range(len(parts)):
            ends.setdefault(".".join(parts[i:]), []).append(name)
    out: dict[str, str] = {}
    key: str | None = None
    for line in module_doc.splitlines():
        if m := _ITEM.match(line):
            found = [m[1]] if m[1] in exact else ends.get(m[1], [])
            key = found[0] if len(found) == 1 and found[0] not in out else None
            if key:
                out[key] = m[2].strip()
        elif key and line.startswith(("  ", "\t")) and line.strip():
            out[key] += " " + line.strip()
        else:
            key = None
    return out
