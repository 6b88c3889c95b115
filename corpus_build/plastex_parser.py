"""Parse theorem-like environments out of LaTeX with plasTeX, in a child process with a time and memory limit.

plasTeX runs TeX macros for real, so it expands user macros, follows shared counters and ``\\numberwithin`` and
knows which section a statement sits in. It is also slow on big files and can loop forever on exotic macros
(``\\def\\x{\\x}\\x``), so :func:`parse_with_plastex` runs it in a child process under an address-space
limit that is stopped after ``timeout_s`` seconds of CPU time (:mod:`corpus_build.plastex_child`: a fork of the
calling process where it may fork, else a fresh interpreter).

plasTeX keeps no source positions and its ``.source`` is the *expanded* text, so the statement as written
(``body``), its ``[name]`` and its line come from a scan of the caller's text (:mod:`corpus_build.tex_scan`),
paired with plasTeX's theorem nodes by environment name and order (by labels where the counts differ); plasTeX
supplies ``body_expanded``, ``number``, ``labels``, ``section`` and the proof's ``refs``.
"""

from __future__ import annotations

import difflib
import importlib.util
import time
from dataclasses import dataclass, field
from typing import Any

from corpus_build.plastex_child import run_child
from corpus_build.raw import RawStatement
from corpus_build.tex_scan import (
    TheoremSpan,
    compose_document,
    mask_text,
    scan_environments,
    theorem_preamble,
)

# The text scan's public names stay importable from here, where they lived first.
__all__ = [
    "PlastexResult", "parse_with_plastex",
    "TheoremSpan", "compose_document", "mask_text", "scan_environments", "theorem_preamble",
]


@dataclass
class PlastexResult:
    """What :func:`parse_with_plastex` found in one document.

    ``truncated`` is true when plasTeX gave back fewer theorem environments than the text opens (it stopped
    early or lost part of the document) or when an environment is never closed; ``error`` is ``None`` on
    success and a one-line reason when plasTeX failed, timed out or died. ``warning`` says when the first
    attempt failed and the statements come from a second one run without the user's macros. ``opened`` lists the
    files of the folder plasTeX read, ``refused`` what the sandbox refused it (:mod:`corpus_build.sandbox`: a file
    outside the folder, a program, ...), as asked.
    """

    statements: list[RawStatement]
    truncated: bool
    error: str | None
    seconds: float
    warning: str | None = None
    opened: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)



def parse_with_plastex(
    text: str,
    *,
    theorem_envs: dict[str, str],
    preamble: str = "",
    base_dir: str | None = None,
    timeout_s: float = 60.0,
) -> PlastexResult:
    """Parse the theorem-like environments of one LaTeX document with plasTeX.

    ``text`` is a body or a whole document with ``\\input`` already resolved; ``theorem_envs`` maps environment
    names to kinds; ``preamble`` holds the user's macro and theorem definitions; ``base_dir`` is the directory
    plasTeX runs in. ``timeout_s`` is CPU seconds per attempt (a second attempt without the preamble's macros
    follows a failed first one). Never raises on bad LaTeX: failures come back in ``error``.

    >>> r = parse_with_plastex("\\\\begin{lemma}[Easy] $1+1=2$. \\\\end{lemma}", theorem_envs={"lemma": "lemma"})
    >>> (r.statements[0].name, r.statements[0].body, r.statements[0].number, r.error)
    ('Easy', '$1+1=2$.', '1', None)
    """
    started = time.perf_counter()
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    # Fail here, with the extra to install, rather than in every child; found, not imported: plasTeX sets logging's
    # logger class for the whole process on import, so only the processes that run it (and a forking worker,
    # which preloads it for its forks) import it.
    if importlib.util.find_spec("plasTeX") is None:
        raise ImportError('parse_with_plastex needs plasTeX: pip install "theorem-rag[corpus]"')
    envs = list(theorem_envs)
    spans = scan_environments(text, envs)
    if not text.strip() or not spans:
        return PlastexResult([], False, None, time.perf_counter() - started)
    status, payload, access = run_child(compose_document(text, preamble, theorem_envs), envs, base_dir, timeout_s)
    opened, refused = list(access.get("opened", ())), list(access.get("refused", ()))
    warning = None
    bare = theorem_preamble(preamble)
    if status != "ok" and bare != preamble:
        # A user macro plasTeX cannot run (it loops, or uses a primitive plasTeX lacks) sinks the whole file;
        # numbers, sections and refs still come out without the macros.
        warning = f"{payload}; parsed again with only the theorem set-up of the preamble, macros unexpanded"
        status, payload, access = run_child(compose_document(text, bare, theorem_envs), envs, base_dir, timeout_s)
        opened = list(dict.fromkeys(opened + list(access.get("opened", ()))))
        refused = list(dict.fromkeys(refused + list(access.get("refused", ()))))
    if status != "ok":
        return PlastexResult([], True, payload, time.perf_counter() - started, warning, opened, refused)
    statements = _merge(payload, spans, theorem_envs)
    truncated = len(statements) < len(spans) or not all(s.closed for s in spans)
    return PlastexResult(statements, truncated, None, time.perf_counter() - started, warning, opened, refused)


def _pair(records: list[dict[str, Any]], spans: list[TheoremSpan]) -> list[TheoremSpan | None]:
    """The text's environment for each plasTeX record of one environment name, ``None`` where there is none.

    In order when the counts agree. Otherwise (plasTeX ran an environment the scan skipped, or lost one) the
    two sequences are aligned on their labels, so that one extra or missing environment does not shift every
    body and line after it.
    """
    if len(records) == len(spans):
        return list(spans)
    paired: list[TheoremSpan | None] = [None] * len(records)
    keys_a = [tuple(r["labels"]) for r in records]
    keys_b = [s.labels for s in spans]
    for block in difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_matching_blocks():
        for i in range(block.size):
            paired[block.a + i] = spans[block.b + i]
    return paired


def _merge(records: list[dict[str, Any]], spans: list[TheoremSpan], theorem_envs: dict[str, str]) -> list[RawStatement]:
    """Join plasTeX's records with the text's environments of the same name (see :func:`_pair`)."""
    paired: dict[int, TheoremSpan | None] = {}
    for env in theorem_envs:
        indices = [i for i, r in enumerate(records) if r["env"] == env]
        matches = _pair([records[i] for i in indices], [s for s in spans if s.env == env])
        paired.update(zip(indices, matches))
    statements = []
    for i, rec in enumerate(records):
        span = paired.get(i)
        body = span.body if span else rec["body_expanded"]
        expanded = rec["body_expanded"]
        statements.append(
            RawStatement(
                env=rec["env"],
                kind=theorem_envs[rec["env"]],
                body=body,
                parser="plastex",
                # Same text up to plasTeX's re-spacing means nothing was expanded.
                body_expanded="" if "".join(expanded.split()) == "".join(body.split()) else expanded,
                name=span.name if span and span.name is not None else rec["title"],
                label=rec["labels"][0] if rec["labels"] else None,
                labels=rec["labels"],
                number=rec["number"],
                section=rec["section"],
                refs=rec["refs"],
                line=span.line if span else None,
            )
        )
    return statements
