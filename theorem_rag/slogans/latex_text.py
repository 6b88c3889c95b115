"""Read LaTeX as plain text: the project's one LaTeX-to-text path (pure).

Commands become words (``\\cong`` -> "isomorphic to", ``\\Spec(R)`` -> "spectrum of R", ``\\mathcal{O}_X`` ->
"structure sheaf of X"), formatting is dropped, cross-references and diagrams vanish, lists become clauses and
the result is plain ASCII. The offline slogans and the clean-up of LLM slogans read math as words;
:func:`prompt_text` (what the assistant and the LLM reranker show a model) reads the prose the same way and keeps
the math as written, which a language model reads better than our words.

Not pylatexenc's ``latex2text``: it renders math as Unicode symbols or verbatim, while the slogans need it read
as English (``\\otimes_R`` -> "tensor over R", ``^{-1}`` -> "inverse"); its 2.x walker also leaves ``^`` and
``_`` as plain characters, so a reader over its nodes would still parse scripts itself. plasTeX parses whole
documents at corpus time (seconds per file, in a subprocess), too slow for a query-time prompt.

>>> latex_to_text(r"Let $R \\to S$ be a ring map. Then $\\Spec(S) \\to \\Spec(R)$ is open (Lemma \\ref{lemma-x}).")
'Let R to S be a ring map. Then spectrum of S to spectrum of R is open.'
"""

from __future__ import annotations

import re
import unicodedata

from theorem_rag.slogans.symbols import (
    BLACKBOARD_WORDS,
    SPACE_WORDS,
    DROP_ALONE,
    GREEK,
    KEEP_ARGUMENT,
    OPERATOR_WORDS,
    SYMBOL_WORDS,
    dropped_with_argument,
)

# Environments whose content is never part of what a statement says.
_DROP_ENVS = ("reference", "history", "slogan", "comment", "proof", "figure", "tikzpicture", "tikzcd", "xy", "picture")
_DROP_ENV_RE = re.compile(r"\\begin\{(" + "|".join(_DROP_ENVS) + r")\*?\}.*?\\end\{\1\*?\}", re.S)
_COMMENT_RE = re.compile(r"(?<!\\)%[^\n]*")
_TOKEN_RE = re.compile(r"\\[A-Za-z@]+\*?|\\.|[{}$^_&~\[\]]|[^\\{}$^_&~\[\]]+", re.S)
_ACCENTS = frozenset("'\"`^~=.cvuHrdbtk")
# Layout and spacing commands that carry no words.
_SILENT = frozenset(
    "left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr middle displaystyle textstyle scriptstyle "
    "limits nolimits noindent medskip smallskip bigskip newline linebreak par centering item nonumber notag "
    "relax protect hfill vfill qedhere mathstrut strut allowbreak nobreak quad qquad enspace thinspace "
    "negthinspace ignorespaces unskip footnotemark it bf rm sf tt em sl sc normalfont section subsection subsubsection "
    "paragraph subparagraph".split()
)
_DIAGRAMS = frozenset({"xymatrix", "diagram", "xy", "tikz", "begindc", "enddc"})
_DISPLAY_ENVS = frozenset(("equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*",
                           "eqnarray", "eqnarray*", "displaymath", "math"))  # fmt: skip
_REF = "\x00"
# Math kept as written (prompt_text) waits behind a placeholder while the prose around it is tidied.
_KEPT = re.compile("\x01(\\d+)\x02")
_LABEL_IN_MATH = re.compile(r"\\(?:label|tag|nonumber|notag)\b(?:\{[^{}]*\})?")
# Operators whose subscript is a base: M \otimes_R N is a tensor product over R, X \times_S Y a fibre product.
# Scripts with a standard reading, keyed by the script's rendered words (\vee renders "or").
_SCRIPT_WORDS = {("^", "-1"): "inverse", ("^", "*"): "pullback", ("_", "*"): "pushforward", ("_", "!"): "shriek",
                 ("^", "!"): "shriek", ("^", "op"): "opposite", ("^", "opp"): "opposite", ("^", "wedge"): "completion",
                 ("^", "times"): "units", ("^", "or"): "dual", ("^", "bullet"): "complex", ("_", "bullet"): "complex"}
_OVER = {"otimes": "tensor", "times": "fibre product", "oplus": "direct sum", "prod": "product", "coprod": "coproduct"}
_REF_WORDS = (
    r"(?:(?:Lemmas?|Propositions?|Theorems?|Definitions?|Corollary|Corollaries|Sections?|Subsections?|Remarks?|"
    r"Examples?|Equations?|Situations?|Chapters?|Exercises?|Items?|Parts?|Tags?|Steps?|Claims?|Conditions?|"
    r"Properties|Property|Diagrams?)\s*)?"
)
_OPERATOR_OF = "|".join(sorted({re.escape(w) for w in OPERATOR_WORDS.values() if w}, key=len, reverse=True))


class _Reader:
    """A recursive reader over LaTeX tokens; ``math`` says whether we are inside ``$...$``."""

    def __init__(self, tokens: list[str], variables: bool, keep_math: bool = False) -> None:
        self.t = tokens
        self.i = 0
        self.math = False
        self.variables = variables
        self.keep_math = keep_math
        self.kept: list[str] = []

    def math_source(self, close: tuple[str, ...], open_: str, end: str) -> str:
        """The tokens up to ``close`` as written (labels dropped), kept aside behind a placeholder."""
        out: list[str] = []
        while self.i < len(self.t) and tuple(self.t[self.i : self.i + len(close)]) != close:
            out.append(self.t[self.i])
            self.i += 1
        self.i += len(close)
        body = " ".join(_LABEL_IN_MATH.sub(" ", "".join(out)).split())
        if not body:
            return " "
        self.kept.append(f"{open_}{body}{end}")
        return f" \x01{len(self.kept) - 1}\x02 "

    def peek(self) -> str | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def skip_space(self) -> None:
        while self.peek() is not None and self.peek().isspace():
            self.i += 1

    def group(self) -> str:
        """Read one argument: a braced group, a command or a single character."""
        self.skip_space()
        tok = self.peek()
        if tok is None:
            return ""
        if tok == "{":
            self.i += 1
            return self.until("}")
        if tok.startswith("\\"):
            self.i += 1
            return self.command(tok)
        if tok in "}$":
            return ""
        self.i += 1
        if len(tok) > 1 and not tok[0].isspace():
            # A run like "Xy" after ^ or _ takes only its first character as the argument.
            self.t.insert(self.i, tok[1:])
            return tok[0]
        return tok

    def optional(self) -> str:
        self.skip_space()
        if self.peek() == "[":
            self.i += 1
            return self.until("]")
        return ""

    def until(self, close: str | None) -> str:
        out: list[str] = []
        while (tok := self.peek()) is not None:
            if tok == close:
                self.i += 1
                break
            self.i += 1
            out.append(self.token(tok))
        return "".join(out)

    def token(self, tok: str) -> str:
        if tok == "{":
            return self.until("}")
        if tok == "}":
            return ""
        if tok == "$":
            if self.keep_math:
                if self.peek() == "$":
                    self.i += 1
                    return self.math_source(("$", "$"), "$$", "$$")
                return self.math_source(("$",), "$", "$")
            self.math = not self.math
            return " "
        if tok in ("^", "_"):
            arg = self.group()
            named = _SCRIPT_WORDS.get((tok, arg.replace(" ", "")))
            if named:
                return " " + named + " "
            return " " + arg + " " if self.variables or len(arg.strip()) > 1 else " "
        if tok in ("&", "~"):
            return " "
        if tok.startswith("\\"):
            return self.command(tok)
        if self.math and not self.variables:
            return re.sub(r"(?<![A-Za-z])[A-Za-z0-9](?![A-Za-z])", " ", tok)
        return tok

    def command(self, tok: str) -> str:
        name = tok[1:].rstrip("*")
        if len(tok) == 2 and not tok[1].isalpha():
            return self.symbol(tok[1])
        if name == "begin" or name == "end":
            env = self.group().strip()
            if name == "begin" and self.keep_math and env in _DISPLAY_ENVS:
                return self.math_source(("\\end", "{", env, "}"), f"\\begin{{{env}}}", f"\\end{{{env}}}")
            if name == "begin" and env in ("enumerate", "itemize", "description"):
                return ": "
            return " "
        if name == "item":
            self.optional()
            return "; "
        if name in DROP_ALONE:
            return " "
        if dropped_with_argument(name):
            self.optional()
            self.group()
            return " " + _REF + " " if name.endswith("ref") and name not in ("href", "hyperref") else " "
        if name in _DIAGRAMS:
            self.optional()
            self.group()
            return " diagram "
        if name in ("frac", "dfrac", "tfrac"):
            num, den = self.group(), self.group()
            return f" {num} over {den} "
        if name == "binom":
            n, k = self.group(), self.group()
            return f" {n} choose {k} "
        if name == "not":
            return " not "
        if name in ("mathcal", "mathscr", "mathbf", "mathbb", "bold", "Bbb"):
            keep, self.variables = self.variables, True
            arg = self.group().strip()
            self.variables = keep
            if name in ("mathcal", "mathscr"):
                return self.calligraphic(arg)
            if arg in BLACKBOARD_WORDS:
                return " " + BLACKBOARD_WORDS[arg] + " "
            # P^n and A^n are projective and affine space; a bare bold P or A is often just a name (a poset).
            if arg in SPACE_WORDS and self.peek() == "^":
                return " " + SPACE_WORDS[arg] + " "
            return " " + arg + " " if keep or not self.math or len(arg) > 1 else " "
        if name in KEEP_ARGUMENT:
            return self.group()
        if name in ("textcolor", "colorbox"):  # \textcolor{red}{text}: the text, not the colour
            self.optional()
            self.group()
            return self.group()
        if name == "texorpdfstring":  # \texorpdfstring{TeX}{plain text}: the TeX, read as the rest is
            tex = self.group()
            self.group()
            return tex
        if name in _SILENT:
            return " "
        if name in _OVER:
            save = self.i
            self.skip_space()
            if self.peek() == "_":
                self.i += 1
                return f" {_OVER[name]} over {self.group()} "
            self.i = save
        for table in (SYMBOL_WORDS, OPERATOR_WORDS, GREEK):
            if name in table:
                if table is GREEK and self.math and not self.variables:
                    return " "
                return " " + table[name] + " "
        # An unknown macro reads as its own name when it looks like a word (\Frob -> Frob).
        return " " + name + " " if len(name) > 2 and name.isalpha() else " "

    def calligraphic(self, letter: str) -> str:
        if letter != "O":
            return " " + letter + " " if self.variables or not self.math else " "
        save = self.i
        self.skip_space()
        if self.peek() == "_":
            self.i += 1
            keep, self.variables = self.variables, True
            sub = self.group().strip()
            self.variables = keep
            if "," in sub:
                space, point = (s.strip() for s in sub.split(",", 1))
                return f" local ring of {space} at {point} " if keep else " local ring "
            return f" structure sheaf of {sub} " if keep else " structure sheaf "
        self.i = save
        return " structure sheaf "

    def symbol(self, ch: str) -> str:
        if ch in _ACCENTS:
            return self.group()
        if ch in "[(" and self.keep_math:
            close = "\\]" if ch == "[" else "\\)"
            return self.math_source((close,), f"\\{ch}", close)
        if ch in "[]()":
            self.math = ch in "[("
            return " "
        return {"&": " and ", "%": " percent ", "_": "_", "{": "", "}": "", "#": " number ", "$": " dollar "}.get(
            ch, " "
        )


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def _tidy(text: str) -> str:
    text = re.sub(r"(\(\s*(?:see|cf\.?|compare|by|use|as in)?\s*)?" + _REF_WORDS + _REF + r"(\s*\))?", " ", text)
    text = re.sub(r"\((?:see|cf\.?|compare|by|use|as in)?[\s,;.]*\)?(?=[\s.,;]*$|\s*[.;])", " ", text)
    text = re.sub(r"\b(" + _OPERATOR_OF + r")\s*\(\s*([^()]{1,40}?)\s*\)", r"\1 of \2", text)
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\(\s*[,;.]?\s*\)", " ", text)
    text = re.sub(r"\s+([,.;:)])", r"\1", text)
    text = re.sub(r"(\w) -(?=[a-z])", r"\1-", text)
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r"([,.;:])(\s*[,.;:])+", lambda m: next(c for c in ".:;," if c in m.group(0)), text)
    text = re.sub(r"\b(\w+(?: \w+)?) \1\b", r"\1", text)
    text = re.sub(r"\s+", " ", text).strip(" ;:,")
    return text


def latex_to_text(latex: str, *, variables: bool = True) -> str:
    """Plain-English ASCII reading of a LaTeX fragment.

    ``variables=False`` drops single-letter variables, digits and Greek letters inside math, keeping only the
    words (``$\\Spec(R)$`` -> "spectrum").

    >>> latex_to_text(r"\\begin{enumerate}\\item $M \\cong N$, \\item $\\mathcal{O}_{X, x}$ is \\emph{regular}.\\end{enumerate}")
    'M isomorphic to N; local ring of X at x is regular.'
    """
    return _read(latex, variables=variables, keep_math=False)


def _read(latex: str, *, variables: bool, keep_math: bool) -> str:
    text = _COMMENT_RE.sub("", latex)
    text = _DROP_ENV_RE.sub(" ", text)
    reader = _Reader(_TOKEN_RE.findall(text), variables, keep_math)
    text = _ascii(_tidy(reader.until(None)))
    return _KEPT.sub(lambda m: reader.kept[int(m[1])], text) if reader.kept else text


def prompt_text(latex: str, max_chars: int = 600) -> str:
    r"""A statement as one line for a language model: prose read as text (markup, labels, references and
    comments gone), math kept as written; cut at ``max_chars`` on a word boundary, with an ellipsis.

    >>> prompt_text(r"Let $G$ be a \emph{finite} group\label{x} (Lemma \ref{y}).\\ Then $|G| < \infty$. % why")
    'Let $G$ be a finite group. Then $|G| < \\infty$.'
    >>> prompt_text("word " * 50, 22)
    'word word word word…'
    """
    text = _read(latex or "", variables=True, keep_math=True)
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + "\u2026"


def label_words(label: str | None) -> str:
    """The words of a label without its kind prefix and with known abbreviations spelled out.

    >>> label_words("lemma-flat-base-change"), label_words("algebra-lemma-qc-open")
    ('flat base change', 'quasi-compact open')
    """
    from theorem_rag.slogans.symbols import LABEL_ABBREVIATIONS

    if not label:
        return ""
    parts = [p for p in re.split(r"[-_:/.\s]+", label) if p]
    kinds = {"lemma", "theorem", "proposition", "definition", "remark", "example", "exercise", "situation",
             "corollary", "section", "subsection", "equation", "item", "thm", "lem", "prop", "defn", "cor", "rem",
             "ex", "eq", "sec", "conj", "def", "dfn", "lm", "rmk", "obs", "exa", "exm", "exmp", "conjecture", "claim", "fact", "axiom", "notation"}
    # Drop everything up to and including the last kind word near the front (chapter-lemma-...).
    cut = 0
    for i, p in enumerate(parts[:3]):
        if p.lower() in kinds:
            cut = i + 1
    words = [LABEL_ABBREVIATIONS.get(p.lower(), p) for p in parts[cut:]]
    return " ".join(w for w in words if not w.isdigit())
