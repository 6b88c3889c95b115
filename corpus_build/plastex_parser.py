"""Parse theorem-like environments out of LaTeX with plasTeX, in a child process with a time and memory limit.

plasTeX runs TeX macros for real, so it expands user macros, follows shared counters and ``\\numberwithin`` and
knows which section a statement sits in. It is also slow on big files and can loop forever on exotic macros
(``\\def\\x{\\x}\\x``), so :func:`parse_with_plastex` runs it in a fresh interpreter that is killed after
``timeout_s`` and runs under address-space and CPU-time limits.

plasTeX keeps no source positions and its ``.source`` is the *expanded* text, so the statement as written
(``body``), its ``[name]`` and its line come from a scan of the caller's text, paired with plasTeX's theorem
nodes by environment name and order (by labels where the counts differ); plasTeX supplies ``body_expanded``,
``number``, ``labels``, ``section`` and the proof's ``refs``.
"""

from __future__ import annotations

import bisect
import difflib
import io
import math
import os
import pickle
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

from corpus_build.raw import RawStatement

# Environments whose content TeX does not read as commands: masked before looking for \begin/\end or comments.
_VERBATIM_ENVS = ("verbatim", "verbatim*", "lstlisting", "minted", "comment", "Verbatim")
_MASK_RE = re.compile(
    r"\\\\|\\%"  # consumed first so that "\\%" starts a comment and "\%" does not
    r"|(?P<verb>\\verb\*?([^a-zA-Z\s*]).*?\2)"
    r"|(?P<venv>\\begin\{(" + "|".join(re.escape(e) for e in _VERBATIM_ENVS) + r")\}.*?\\end\{\4\})"
    r"|(?P<comment>%[^\n]*)",
    re.S,
)
_DECLARETHEOREM_RE = re.compile(r"\\declaretheorem\s*(?:\[(?P<opts>[^\]]*)\])?\s*\{(?P<env>[^{}]+)\}")
_THEOREM_SETUP_RE = re.compile(
    r"\s*\\(documentclass|usepackage|RequirePackage|newtheorem|theoremstyle|declaretheorem|numberwithin"
    r"|counterwithin|newcounter|setcounter|swapnumbers)\b"
)
_LABEL_RE = re.compile(r"\\label\s*\{([^{}]*)\}")
_REF_RE = re.compile(r"\\(?:ref|cref|Cref|autoref)\*?\s*\{([^{}]*)\}")
_SECTIONING = ("part", "chapter", "section", "subsection", "subsubsection")
_MEMORY_LIMIT_BYTES = 4 << 30


@dataclass
class PlastexResult:
    """What :func:`parse_with_plastex` found in one document.

    ``truncated`` is true when plasTeX gave back fewer theorem environments than the text opens (it stopped
    early or lost part of the document) or when an environment is never closed; ``error`` is ``None`` on
    success and a one-line reason when plasTeX failed, timed out or died. ``warning`` says when the first
    attempt failed and the statements come from a second one run without the user's macros.
    """

    statements: list[RawStatement]
    truncated: bool
    error: str | None
    seconds: float
    warning: str | None = None


@dataclass
class TheoremSpan:
    """One ``\\begin{env}`` in the caller's text: its line, ``[name]``, body as written, and whether it ends."""

    env: str
    line: int
    name: str | None
    body: str
    closed: bool
    labels: tuple[str, ...] = ()


def mask_text(text: str) -> tuple[str, list[tuple[int, int]]]:
    """Blank out comments and verbatim material, keeping length and newlines; also return the comment spans.

    >>> mask_text("a % b\\n\\\\% c")[0]
    'a    \\n\\\\% c'
    """
    chars = list(text)
    comments = []
    for m in _MASK_RE.finditer(text):
        if m.lastgroup is None:
            continue
        start, end = m.span()
        if m.lastgroup == "comment":
            comments.append((start, end))
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars), comments


def _drop_spans(text: str, offset: int, spans: list[tuple[int, int]]) -> str:
    """``text`` (which starts at ``offset`` in the full text) without the parts covered by sorted ``spans``."""
    out, pos = [], offset
    for start, end in spans[max(bisect.bisect_left(spans, (offset, 0)) - 1, 0) :]:
        if start >= offset + len(text):
            break
        if end <= pos:
            continue
        out.append(text[pos - offset : max(start, pos) - offset])
        pos = max(pos, end)
    out.append(text[pos - offset :])
    return "".join(out)


def _optional_arg(text: str, masked: str, pos: int) -> tuple[str | None, int]:
    """Read a ``[...]`` argument at ``pos`` (after blanks), balancing braces; return it and the position after."""
    i = pos
    while i < len(masked) and masked[i] in " \t\n":
        i += 1
    if i >= len(masked) or masked[i] != "[" or text.count("\n", pos, i) > 1:
        return None, pos
    depth = 0
    for j in range(i + 1, len(masked)):
        c = masked[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "]" and depth == 0:
            return text[i + 1 : j].strip(), j + 1
    return None, pos


def scan_environments(text: str, envs: list[str] | tuple[str, ...]) -> list[TheoremSpan]:
    """Find every ``\\begin{env}`` of the given environments, in order, with body as written and line (1-based).

    Comments and verbatim material are ignored; the body loses its ``[name]``, ``\\label``s and comments.
    An environment that is never closed runs to ``\\end{document}`` or the end of the text.

    >>> [span] = scan_environments("x\\n\\\\begin{lemma}[A]\\\\label{l} B\\\\end{lemma}", ["lemma"])
    >>> (span.env, span.name, span.body, span.line, span.labels)
    ('lemma', 'A', 'B', 2, ('l',))
    """
    if not envs:
        return []
    masked, comments = mask_text(text)
    pattern = re.compile(
        r"\\(begin|end)\s*\{(" + "|".join(re.escape(e) for e in sorted(envs, key=len, reverse=True)) + r")\}"
    )
    end_doc = masked.find("\\end{document}")
    stop = end_doc if end_doc >= 0 else len(text)
    opened: list[tuple[int, int]] = []  # (index in spans, body start) of environments not yet closed
    spans: list[TheoremSpan] = []
    line, counted = 1, 0
    for m in pattern.finditer(masked):
        env = m.group(2)
        if m.group(1) == "begin":
            name, body_start = _optional_arg(text, masked, m.end())
            line, counted = line + text.count("\n", counted, m.start()), m.start()
            spans.append(TheoremSpan(env, line, name, "", False))
            opened.append((len(spans) - 1, body_start))
            continue
        for k in range(len(opened) - 1, -1, -1):
            idx, body_start = opened[k]
            if spans[idx].env == env:
                _fill(spans[idx], _drop_spans(text[body_start : m.start()], body_start, comments))
                spans[idx].closed = True
                del opened[k]
                break
    for idx, body_start in opened:
        _fill(spans[idx], _drop_spans(text[body_start:stop], body_start, comments))
    return spans


def _fill(span: TheoremSpan, raw_body: str) -> None:
    span.labels = tuple(m.strip() for m in _LABEL_RE.findall(raw_body))
    span.body = _clean_body(raw_body)


def _clean_body(body: str) -> str:
    body = _LABEL_RE.sub("", body)
    body = re.sub(r"[ \t]+\n", "\n", body)
    body = re.sub(r"\n{3,}", "\n\n", body)
    return body.strip()


def theorem_preamble(preamble: str) -> str:
    """Only the lines of ``preamble`` that set up theorem environments and their counters (comments dropped).

    >>> theorem_preamble("\\\\def\\\\x{\\\\x}\\n\\\\newtheorem{lemma}{Lemma}[section] % numbered in sections")
    '\\\\newtheorem{lemma}{Lemma}[section]'
    """
    lines = mask_text(preamble)[0].splitlines()
    # A line with a macro parameter (#1) is the inside of some definition and means nothing on its own.
    keep = [line.rstrip() for line in lines if _THEOREM_SETUP_RE.match(line) and "#" not in line]
    return "\n".join(keep)


def compose_document(text: str, preamble: str, theorem_envs: dict[str, str]) -> str:
    """Build the full document plasTeX reads: default ``\\newtheorem``s, class, user preamble, the body.

    An environment the preamble does not ``\\newtheorem`` gets a plain one (a name ending in ``*`` is
    unnumbered) ahead of ``\\documentclass``, which plasTeX allows, so that a definition the preamble makes
    through its own macros still replaces it. thmtools' ``\\declaretheorem``, which plasTeX lacks, becomes
    the equivalent ``\\newtheorem`` at the end of the preamble.

    >>> print(compose_document("Hi.", "", {"lemma": "lemma"}))
    \\newtheorem{lemma}{Lemma}
    \\documentclass{article}
    <BLANKLINE>
    <BLANKLINE>
    \\begin{document}
    Hi.
    \\end{document}
    <BLANKLINE>
    """
    # Loading the comment package in plasTeX would also change \comment inside user environments (Stacks'
    # reference environment), so comment environments go here, as the text scan skips them.
    text = _MASK_RE.sub(lambda m: "\n" * m.group(0).count("\n") if m.group(4) == "comment" else m.group(0), text)
    masked = mask_text(text)[0]
    begin = masked.find("\\begin{document}")
    if begin >= 0:
        head, body = text[:begin], text[begin:]
        if "\\end{document}" not in masked[begin:]:
            body += "\n\\end{document}\n"
    else:
        head, body = "", "\\begin{document}\n" + text + "\n\\end{document}\n"
    declared_in = mask_text(preamble + "\n" + head)[0]
    # Only for environments without a \newtheorem of their own: a second \newcounter would not take the
    # user's numbering (shared counter, reset by section) over a counter that already exists.
    defined = set(re.findall(r"\\newtheorem\*?\s*\{([^{}#]+)\}", declared_in))
    parts = [f"\\newtheorem{'*' if env.endswith('*') else ''}{{{env}}}{{{kind.capitalize()}}}"
             for env, kind in theorem_envs.items() if env not in defined]
    if "\\documentclass" in masked[: max(begin, 0)]:
        parts += [head, preamble]
    else:
        parts += [] if "\\documentclass" in mask_text(preamble)[0] else ["\\documentclass{article}"]
        parts += [preamble, head]
    declared = set()
    for m in _DECLARETHEOREM_RE.finditer(declared_in):
        if m.group("env") in theorem_envs and m.group("env") not in declared:
            declared.add(m.group("env"))
            parts.append(_declared_to_newtheorem(m.group("env"), theorem_envs[m.group("env")], m.group("opts") or ""))
    return "\n".join(parts) + "\n" + body


def _declared_to_newtheorem(env: str, kind: str, options: str) -> str:
    """The ``\\newtheorem`` that thmtools' ``\\declaretheorem[options]{env}`` amounts to."""
    opts = dict(re.findall(r"(\w+)\s*=\s*(\{[^{}]*\}|[^,]*)", options))
    opts = {k: v.strip().strip("{}").strip() for k, v in opts.items()}
    header = opts.get("name") or opts.get("title") or kind.capitalize()
    if opts.get("numbered") == "no":
        return f"\\newtheorem*{{{env}}}{{{header}}}"
    shared = opts.get("sibling") or opts.get("sharenumber") or opts.get("numberlike")
    if shared:
        return f"\\newtheorem{{{env}}}[{shared}]{{{header}}}"
    within = opts.get("numberwithin") or opts.get("parent")
    return f"\\newtheorem{{{env}}}{{{header}}}" + (f"[{within}]" if within else "")


def _text_of(fragment: Any) -> str | None:
    if fragment is None:
        return None
    value = " ".join(fragment.source.split()) if hasattr(fragment, "source") else str(fragment)
    return value or None


def _descendants(node: Any):
    for child in node.childNodes or ():
        yield child
        yield from _descendants(child)


def _first_block(node: Any) -> Any:
    """``node`` itself, or for a paragraph wrapper its first non-blank descendant; ``None`` if all blank."""
    if node.nodeName == "#text":
        return node if str(node).strip() else None
    if node.nodeName != "par":
        return node
    for child in node.childNodes or ():
        found = _first_block(child)
        if found is not None:
            return found
    return None


def _next_block(node: Any) -> Any:
    """The first non-blank node after ``node`` in document order, looking through paragraph wrappers."""
    while node is not None:
        sibling = node.nextSibling
        while sibling is not None:
            found = _first_block(sibling)
            if found is not None:
                return found
            sibling = sibling.nextSibling
        node = node.parentNode
    return None


def _node_record(node: Any) -> dict[str, Any]:
    """What the parent needs from one theorem node, as plain data."""
    number = node.ref.textContent.strip() if getattr(node, "counter", None) and node.ref is not None else None
    labels = [str(d.attributes["label"]) for d in _descendants(node) if d.nodeName == "label"]
    section = []
    parent = node.parentNode
    while parent is not None:
        if parent.nodeName in _SECTIONING:
            section.append(_text_of(parent.attributes.get("title")) or "")
        parent = parent.parentNode
    refs: list[str] = []
    proof = _next_block(node)
    if proof is not None and proof.nodeName == "proof":
        for group in _REF_RE.findall(proof.source):
            for target in (r.strip() for r in group.split(",")):
                if target and target not in refs:
                    refs.append(target)
    return {
        "env": node.thmName,
        "number": number or None,
        "title": _text_of(node.attributes.get("title")),
        "labels": labels,
        "section": section[::-1],
        "refs": refs,
        "body_expanded": _clean_body("".join(c.source for c in node.childNodes)),
    }


def _missing_macros() -> dict[str, type]:
    """``\\@ifnextchar``, ``\\@ifstar`` and ``\\newaliascnt`` for plasTeX, which lacks them.

    Without them both branches run; a macro that calls itself from one, such as the HoTT book's ``\\lam``
    (``\\@ifnextchar\\bgroup{\\lam}{.}``), then recurses until plasTeX dies, and every ``\\@ifnextchar[``
    optional argument comes out wrong.
    """
    from plasTeX import Command
    from plasTeX.Tokenizer import Token

    def peek(tex: Any) -> Any:
        for token in tex.itertokens():
            if token.catcode != Token.CC_SPACE:
                tex.pushToken(token)
                return token
        return None

    class IfNextChar(Command):
        macroName = "@ifnextchar"

        def invoke(self, tex: Any) -> list:
            target = tex.readArgument(type="Tok")
            yes, no = tex.readArgument(type="nox") or [], tex.readArgument(type="nox") or []
            token = peek(tex)
            if getattr(target, "macroName", None) == "bgroup" or target.catcode == Token.CC_BGROUP:
                hit = token is not None and token.catcode == Token.CC_BGROUP
            else:
                hit = token is not None and token == target and token.catcode == target.catcode
            tex.pushTokens(yes if hit else no)
            return []

    class IfStar(Command):
        macroName = "@ifstar"

        def invoke(self, tex: Any) -> list:
            yes, no = tex.readArgument(type="nox") or [], tex.readArgument(type="nox") or []
            token = peek(tex)
            hit = token is not None and str(token) == "*" and token.catcode == Token.CC_OTHER
            if hit:
                next(tex.itertokens())
            tex.pushTokens(yes if hit else no)
            return []

    class NewAliasCnt(Command):
        """aliascnt's ``\\newaliascnt{alias}{counter}``: one counter under two names (HoTT shares thm's)."""

        macroName = "newaliascnt"
        args = "alias:str counter:str"

        def invoke(self, tex: Any) -> list:
            self.parse(tex)
            context, alias, counter = self.ownerDocument.context, self.attributes["alias"], self.attributes["counter"]
            if counter in context.counters:
                context.counters[alias] = context.counters[counter]
                context.newcommand("the" + alias, 0, "\\the" + counter)
            return []

    return {"@ifnextchar": IfNextChar, "@ifstar": IfStar, "newaliascnt": NewAliasCnt}


def _parse_source(source: str, envs: list[str]) -> list[dict[str, Any]]:
    from plasTeX.TeX import TeX

    stream = io.StringIO(source)
    stream.name = "document.tex"
    tex = TeX(file=stream)
    # The AMS classes load amsthm in real LaTeX; plasTeX's do not, which would leave \theoremstyle and
    # the proof environment undefined.
    tex.ownerDocument.context.loadPackage(tex, "amsthm.sty")
    for name, macro in _missing_macros().items():
        tex.ownerDocument.context.addGlobal(name, macro)
    doc = tex.parse()
    nodes = [d for d in _descendants(doc) if d.nodeName == "thmenv" and d.thmName in envs]
    for node in nodes:
        # .source writes \begin{<nodeName>}, which is "thmenv" for every theorem class.
        node.nodeName = node.thmName
    return [_node_record(n) for n in nodes]


def _child_main() -> None:
    """Child process: read a pickled job on stdin, write a pickled ``(status, payload)`` on stdout.

    plasTeX prints to stdout and stderr, so both go to /dev/null and the answer goes to a copy of stdout.
    """
    import resource

    source, envs, base_dir, memory_bytes, cpu_seconds = pickle.load(sys.stdin.buffer)
    answer = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        # Ends the child even when the parent dies before it can kill it.
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
        if base_dir:
            os.chdir(base_dir)
        result: tuple[str, Any] = ("ok", _parse_source(source, envs))
    except MemoryError:
        result = ("error", f"plasTeX ran out of memory (limit {memory_bytes >> 20} MiB)")
    except RecursionError:
        result = ("error", "plasTeX recursed too deeply (a macro that expands to itself?)")
    except BaseException as exc:  # noqa: BLE001 - any failure of plasTeX is reported to the parent, not raised
        result = ("error", f"plasTeX failed: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
    pickle.dump(result, answer)
    answer.close()


def _run_child(source: str, envs: list[str], base_dir: str | None, timeout_s: float) -> tuple[str, Any]:
    """Run :func:`_child_main` in a fresh interpreter; kill it after ``timeout_s``.

    A plain subprocess rather than multiprocessing's spawn: spawn re-imports ``__main__``, which fails from
    stdin, notebooks and some CLIs.
    """
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
    job = pickle.dumps((source, envs, base_dir, _MEMORY_LIMIT_BYTES, math.ceil(timeout_s) + 10))
    proc = subprocess.Popen(
        [sys.executable, "-c", "from corpus_build.plastex_parser import _child_main; _child_main()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        out, err = proc.communicate(job, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return "error", f"plasTeX timed out after {timeout_s:g} s"
    if proc.returncode != 0 or not out:
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        return "error", f"plasTeX process died (exit code {proc.returncode}) {last[0]}".strip()
    return pickle.loads(out)


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
    plasTeX runs in. Never raises on bad LaTeX: failures come back in ``error``.

    >>> r = parse_with_plastex("\\\\begin{lemma}[Easy] $1+1=2$. \\\\end{lemma}", theorem_envs={"lemma": "lemma"})
    >>> (r.statements[0].name, r.statements[0].body, r.statements[0].number, r.error)
    ('Easy', '$1+1=2$.', '1', None)
    """
    started = time.perf_counter()
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    try:
        import plasTeX  # noqa: F401 - fail here, with the extra to install, rather than in every child
    except ImportError as exc:
        raise ImportError('parse_with_plastex needs plasTeX: pip install "theorem-rag[corpus]"') from exc
    envs = list(theorem_envs)
    spans = scan_environments(text, envs)
    if not text.strip() or not spans:
        return PlastexResult([], False, None, time.perf_counter() - started)
    status, payload = _run_child(compose_document(text, preamble, theorem_envs), envs, base_dir, timeout_s)
    warning = None
    bare = theorem_preamble(preamble)
    if status != "ok" and bare != preamble:
        # A user macro plasTeX cannot run (it loops, or uses a primitive plasTeX lacks) sinks the whole file;
        # numbers, sections and refs still come out without the macros.
        warning = f"{payload}; parsed again with only the theorem set-up of the preamble, macros unexpanded"
        status, payload = _run_child(compose_document(text, bare, theorem_envs), envs, base_dir, timeout_s)
    if status != "ok":
        return PlastexResult([], True, payload, time.perf_counter() - started, warning)
    statements = _merge(payload, spans, theorem_envs)
    truncated = len(statements) < len(spans) or not all(s.closed for s in spans)
    return PlastexResult(statements, truncated, None, time.perf_counter() - started, warning)


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
