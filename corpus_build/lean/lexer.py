"""Lean 4 source text masked and cut into top-level commands, with no Lean toolchain.

:func:`mask` blanks comments and the insides of strings and character literals (every offset and newline kept), so
that brackets, ``:=`` and keywords can be found with regular expressions; documentation comments keep their
delimiters (``/-- -/``, ``/-! -/``) and their text is kept apart. :func:`commands` cuts the masked text where a
line starts at column 0 with something that begins a command: mathlib's style indents everything else.

>>> m = mask('/-- The answer. -/\\ntheorem t : "-- no" = "x" := rfl -- why\\n')
>>> m.code.splitlines()[1]
'theorem t : "     " = " " := rfl       '
>>> m.docs
{0: 'The answer.'}
>>> [(c.line, m.code[c.start:c.end].split()[0]) for c in commands(m)]
[(1, '/--')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SPECIAL = re.compile(r"/-|--|\"|'")
_NEST = re.compile(r"/-|-/")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_CHAR = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)|[^'\\\n])'")
_BLANK = re.compile(r"[^\n]+")
# A quote after one of these (or at the start) may open a character literal; anywhere else it is a prime (x', f '' s).
_BEFORE_CHAR = " \t\n([{⟨,"

# Words at column 0 that continue the command above rather than start one.
CONTINUATIONS = frozenset({
    "termination_by", "decreasing_by", "where", "with", "then", "else", "at", "in", "fun", "by", "do", "from",
    "using", "to", "for", "if", "match", "let", "have", "show", "calc", "exact", "intro", "simp", "rw", "all_goals",
})
# Words that start a command even inside a bracket left open.
COMMAND_WORDS = frozenset({
    "theorem", "lemma", "def", "abbrev", "instance", "class", "structure", "inductive", "axiom", "opaque", "example",
    "alias", "irreducible_def", "namespace", "section", "end", "variable", "open", "universe", "attribute",
    "private", "protected", "public", "noncomputable", "nonrec", "partial", "unsafe", "meta", "scoped", "local",
    "set_option", "include", "omit", "mutual", "import", "module",
})
_LINE = re.compile(r"^(/--|/-!|@\[|#\S*|[^\W\d][\w'.!?]*|\S)", re.M)
# A command that only prefixes the next one: documentation, attributes and modifiers, or `open ... in` and the like.
_MODIFIERS = r"private|protected|public|noncomputable|nonrec|partial|unsafe|meta|scoped|local"
_PREFIX_ONLY = re.compile(rf"(?:\s|/--\s*-/|@\[(?:[^\[\]]|\[[^\[\]]*\])*\]|(?:{_MODIFIERS})\b)*")
_ENDS_IN = re.compile(r"\sin\s*$")
_OPENING = re.compile(r"[(\[{⟨⦃⟦⁅]")
_CLOSING = re.compile(r"[)\]}⟩⦄⟧⁆]")


@dataclass
class Masked:
    """A file's text and its mask: ``code`` is ``text`` with comment and string contents blanked (same length).

    ``clean`` blanks only the comments that are not documentation (what a statement is printed from);
    ``docs`` maps the offset of each ``/--`` to its documentation text; ``module_docs`` holds the ``/-! -/`` texts
    in order; ``problems`` says what could not be read (an unterminated comment or string), with its line.
    """

    text: str
    code: str
    clean: str = ""
    docs: dict[int, str] = field(default_factory=dict)
    module_docs: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Command:
    """One top-level command: ``[start, end)`` offsets into the file and the line (1-based) it starts on."""

    start: int
    end: int
    line: int


def _blank(text: str) -> str:
    return _BLANK.sub(lambda m: " " * len(m.group()), text)


def _comment_end(text: str, start: int) -> int:
    """The offset after the ``-/`` closing the (nested) block comment opened at ``start``; -1 if none closes it."""
    depth, pos = 0, start
    while True:
        m = _NEST.search(text, pos)
        if m is None:
            return -1
        depth += 1 if m.group() == "/-" else -1
        pos = m.end()
        if depth == 0:
            return pos


def mask(text: str) -> Masked:
    """Blank the comments, strings and character literals of Lean source ``text`` (see the module docs)."""
    out = Masked(text, "")
    pieces: list[str] = []  # the code
    kept: list[str] = []  # the clean text: where it differs from the code, what the code blanks and it keeps
    pos = 0
    while True:
        m = _SPECIAL.search(text, pos)
        if m is None:
            pieces.append(text[pos:])
            kept.append(text[pos:])
            break
        s, tok = m.start(), m.group()
        if tok == "'":
            lit = _CHAR.match(text, s) if s == 0 or text[s - 1] in _BEFORE_CHAR else None
            e = lit.end() if lit else s + 1
            pieces.append(text[pos:s] + ("'" + _blank(text[s + 1 : e - 1]) + "'" if lit else "'"))
            kept.append(text[pos:e])
            pos = e
            continue
        pieces.append(text[pos:s])
        kept.append(text[pos:s])
        if tok == "--":
            e = _line_end(text, s)
            pieces.append(" " * (e - s))
            kept.append(pieces[-1])
        elif tok == '"':
            lit = _STRING.match(text, s)
            e = lit.end() if lit else _line_end(text, s)
            if lit is None:
                out.problems.append(f"line {text.count(chr(10), 0, s) + 1}: unterminated string")
            pieces.append('"' + _blank(text[s + 1 : e - 1]) + '"' if lit else _blank(text[s:e]))
            kept.append(text[s:e])
        else:
            e = _comment_end(text, s)
            if e < 0:
                out.problems.append(f"line {text.count(chr(10), 0, s) + 1}: unterminated comment")
            piece = _blank(text[s:]) if e < 0 else _doc_piece(text, s, e, out)
            e = len(text) if e < 0 else e
            pieces.append(piece)
            kept.append(text[s:e] if piece.startswith("/--") else piece)
        pos = e
    out.code, out.clean = "".join(pieces), "".join(kept)
    return out


def _line_end(text: str, s: int) -> int:
    e = text.find("\n", s)
    return len(text) if e < 0 else e


def _doc_piece(text: str, s: int, e: int, out: Masked) -> str:
    """The mask of the block comment ``text[s:e]``: documentation keeps its delimiters and is recorded."""
    mark = text[s + 2 : s + 3]
    if mark not in ("-", "!") or e - s < 5:
        return _blank(text[s:e])
    inner = text[s + 3 : e - 2]
    if mark == "-":
        out.docs[s] = inner.strip()
    else:
        out.module_docs.append(inner.strip())
    return text[s : s + 3] + _blank(inner) + "-/"


def commands(masked: Masked) -> list[Command]:
    """The top-level commands of a masked file, in order: each starts at column 0 with a word that is not a
    :data:`CONTINUATIONS` word (or with ``/--``, ``/-!``, ``@[``, ``#...``) and runs to the next one."""
    code = masked.code
    starts: list[tuple[int, int]] = []
    line, last, depth = 1, 0, 0
    for m in _LINE.finditer(code):
        word = m.group(1)
        if not (word[0].isalpha() or word[0] in "_/@#") or word in CONTINUATIONS:
            continue
        if word == "deriving" and not code.startswith("deriving instance", m.start()):
            continue
        seen = code[last : m.start()]
        depth += len(_OPENING.findall(seen)) - len(_CLOSING.findall(seen))
        line += seen.count("\n")
        last = m.start()
        # Inside an open bracket (a long attribute list, a docstring argument of an attribute) only a command word
        # starts a command, so that brackets left open cost one declaration, not the rest of the file.
        if depth > 0 and word not in COMMAND_WORDS:
            continue
        depth = 0
        starts.append((m.start(), line))
    ends = [s for s, _ in starts[1:]] + [len(code)]
    out: list[Command] = []
    held: tuple[int, int] | None = None  # the start and line of prefixes waiting for their command
    for (s, ln), e in zip(starts, ends):
        if held is None:
            held = (s, ln)
        if _PREFIX_ONLY.fullmatch(code, s, e) or _ENDS_IN.search(code[s:e]):
            continue
        out.append(Command(held[0], e, held[1]))
        held = None
    if held is not None:
        out.append(Command(held[0], len(code), held[1]))
    return out
