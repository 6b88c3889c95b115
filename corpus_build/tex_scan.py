"""Pure text work on LaTeX source for the plasTeX parser: mask comments, find theorem environments, build the document.

plasTeX keeps no source positions, so the statement as written, its ``[name]``, ``\\label``s and line come from
:func:`scan_environments` over the caller's text; :func:`compose_document` builds the full document plasTeX reads.
Nothing here imports plasTeX, so it runs in milliseconds.

>>> [span] = scan_environments("\\\\begin{lemma} % why\\n  $x$ \\\\end{lemma}", ["lemma"])
>>> (span.body, span.closed)
('$x$', True)
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

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
                _fill(spans[idx], _drop_spans(text[body_start : m.start()], body_start, comments), spans[idx + 1 :])
                spans[idx].closed = True
                del opened[k]
                break
    for idx, body_start in opened:
        _fill(spans[idx], _drop_spans(text[body_start:stop], body_start, comments), spans[idx + 1 :])
    return spans


def _fill(span: TheoremSpan, raw_body: str, nested: list[TheoremSpan]) -> None:
    """Body and labels of ``span``; the labels of the environments ``nested`` in it (begun after it, before its end)
    are theirs, not its own."""
    labels = [m.strip() for m in _LABEL_RE.findall(raw_body)]
    for label in (x for inner in nested for x in inner.labels):
        if label in labels:
            labels.remove(label)
    span.labels = tuple(labels)
    span.body = clean_body(raw_body)


def clean_body(body: str) -> str:
    """``body`` without ``\\label``s, trailing blanks on a line, runs of blank lines, or outer whitespace.

    >>> clean_body("  A\\label{a} \\n\\n\\n\\nB  ")
    'A\\n\\nB'
    """
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

