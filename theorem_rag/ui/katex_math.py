"""One formula made drawable by KaTeX (pure string work): what a corpus's LaTeX writes that KaTeX lacks.

:mod:`theorem_rag.ui.latex_html` cuts the formulas out of a statement and hands each to these rewrites: inference
rules as fractions (:func:`rules`), matrix shorthands as environments (:func:`matrices`), array column
specifications without ``@{..}`` (:func:`array_specs`), a "$" inside a formula (:func:`inner_dollars`), and every
command KaTeX does not know as a name it can draw (:func:`known_to_katex`).

>>> print(known_to_katex(matrices(r"\\ZZ^n \\to \\bmat{a & b}", None), None))
{\\mathbb{Z}}^n \\to \\begin{bmatrix}a & b\\end{bmatrix}
"""

from __future__ import annotations

import re

from theorem_rag.ui.diagrams import _group
from theorem_rag.ui.katex_commands import KATEX_COMMANDS

# Layout and spacing, in text or in a formula: dropped without a trace, they carry no content.
LAYOUT = frozenset(
    "vspace hspace vskip hskip noindent indent smallskip medskip bigskip linebreak pagebreak newpage clearpage "
    "centering raggedright raggedleft small footnotesize scriptsize tiny normalsize large Large LARGE huge Huge "
    "normalfont rm bf it sf tt sl em upshape itshape bfseries mdseries rmfamily sffamily ttfamily displaystyle "
    "textstyle relax protect nobreak allowbreak leavevmode phantomsection label index hypertarget nopagebreak "
    "strut break newline par xspace hfill vfill qquad quad enspace thinspace null hline newblock qedhere qed cline toprule "
    "midrule bottomrule maketitle tableofcontents item noalign".split()
)

# Blackboard-bold shorthands every corpus defines for itself; other unknown commands become upright names.
_BLACKBOARD = {f"{c}{c}": f"\\mathbb{{{c}}}" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
# "\\" first, so that the letters after a line break (``x\\y``) are not read as a command ``\y``.
_MATH_COMMAND = re.compile(r"\\\\|\\([A-Za-z]+|[0-9])")
# KaTeX commands that need an argument (text accents, braket's \set) which corpora define as symbols of their own
# (PlanetMath's \c_X, \H^*, HoTT's A:\set): without a braced argument after them they are such a symbol.
_ARG_CLASH = frozenset("c H v u r k d b t set Set".split())
# Standard LaTeX packages' commands KaTeX has under another name.
_MATH_ALIASES = {"nicefrac": "\\tfrac", "widebar": "\\overline", "ensuremath": "", "xspace": "", "mspace": "\\mskip",
                 "textesh": "\u0283", "dfn": "\\textit", "textnormal": "\\textrm", "sl": "", "bigskip": "",
                 "medskip": "", "smallskip": "", "centerdot": "\\cdot"}  # fmt: skip


# \big{|}: a delimiter in braces, which TeX allows and KaTeX does not.
BIG_BRACED = re.compile(r"(\\[bB]igg?[lrm]?)\s*\{\s*(\\[A-Za-z]+|\\[|{}]|[^{}\\\s])\s*\}")
_TEXT_GROUP = re.compile(r"\\(?:text[a-z]*|mbox|hbox|fbox|emph|tag\*?|raisebox\{[^{}]*\})\s*$")


def _text_mode(tex: str) -> list[bool]:
    """Per character of a formula, whether it is in text mode: inside ``\\text{..}`` and its kin (``\\tag``,
    ``\\emph``), but not inside a ``\\(..\\)`` there.

    >>> "".join("t" if t else "m" for t in _text_mode(r"a\\text{b\\(c\\)}"))
    'mmmmmmtttmmmtm'
    """
    mask, stack = [], [False]
    for i, c in enumerate(tex):
        prev = tex[i - 1] if i else ""
        if c == "{" and prev != "\\":
            stack.append(bool(_TEXT_GROUP.search(tex[max(0, i - 40) : i])) or stack[-1])
        elif c == "}" and prev != "\\" and len(stack) > 1:
            stack.pop()
        elif c == "(" and prev == "\\" and stack[-1]:
            stack.append(False)
        elif c == ")" and prev == "\\" and len(stack) > 1 and not stack[-1]:
            stack.pop()
        mask.append(stack[-1])
    return mask


_RULE = re.compile(r"\\(infer|inferrule)(\*?)\s*(?=[\[{])")


def _premises(tex: str) -> str:
    r"""A rule's premises side by side: ``&``, ``\\`` and ``\and`` outside braces become ``\quad``."""
    out, depth, i = [], 0, 0
    while i < len(tex):
        c = tex[i]
        if c == "\\" and depth == 0 and (sep := re.match(r"\\\\|\\and\b", tex[i:])):
            out.append(r" \quad ")
            i += len(sep[0])
            continue
        if c == "\\":
            out.append(tex[i : i + 2])
            i += 2
            continue
        depth += (c == "{") - (c == "}")
        out.append(r" \quad " if c == "&" and depth == 0 else c)
        i += 1
    return re.sub(r"(?:\s*\\quad\b\s*)+", r" \\quad ", "".join(out)).strip()


def rules(tex: str) -> str:
    r"""Inference rules as fractions: proof.sty's ``\infer[L]{C}{P1 & P2}`` and mathpartir's
    ``\inferrule[L]{P1 \\ P2}{C}`` -> ``\dfrac{P1 \quad P2}{C}`` with the label to the right; a derivation
    ``\infer*{C}{P}`` puts dots instead of the line. Rules nest; one that cannot be read is left as it was.

    >>> print(rules(r"\infer[(\to E)]{B}{A & \infer*{C}{[A]}}"))
    \dfrac{\,A \quad \begin{matrix}[A]\\ \vdots\\ C\end{matrix}\,}{\,B\,}\;{\scriptstyle (\to E)}
    """
    out, i = [], 0
    for m in _RULE.finditer(tex):
        if m.start() < i:
            continue
        j, label = m.end(), ""
        if tex[j] == "[":
            g = _group(tex, j, "[", "]")
            if g is None:
                continue
            label, j = g
        first = _group(tex, j)
        second = _group(tex, first[1]) if first else None
        if second is None:
            continue
        premises, conclusion = (first[0], second[0]) if m[1] == "inferrule" else (second[0], first[0])
        premises = rules(_premises(premises))
        conclusion = rules(conclusion).strip()
        label = re.sub(r"^\s*(?:left|right)\s*=\s*", "", label).strip()
        if m[2]:
            rule = f"\\begin{{matrix}}{premises}\\\\ \\vdots\\\\ {conclusion}\\end{{matrix}}"
        else:
            rule = f"\\dfrac{{\\,{premises}\\,}}{{\\,{conclusion}\\,}}"
        out += [tex[i : m.start()], rule + (f"\\;{{\\scriptstyle {label}}}" if label else "")]
        i = second[1]
    out.append(tex[i:])
    return "".join(out)


# Matrix shorthands (PlanetMath's \bmat{a & b \\ c & d}, \vmat, \spmatrix) and the environment each stands for.
_MATRIX_MACRO = re.compile(r"\\(b|B|p|v|V|sp)mat(?:rix)?\s*(?=\{)")
_ARRAY_SPEC = re.compile(r"\\begin\{array\}\s*(?=\{)")


def matrices(tex: str, dropped: list[str] | None) -> str:
    r"""``\bmat{a & b \\ c & d}`` -> ``\begin{bmatrix}a & b \\ c & d\end{bmatrix}`` (a guess: appended to ``dropped``).

    >>> print(matrices(r"A = \vmat{a & b} + \spmatrix{1 & 0}", None))
    A = \begin{vmatrix}a & b\end{vmatrix} + \left(\begin{smallmatrix}1 & 0\end{smallmatrix}\right)
    """
    out, i = [], 0
    for m in _MATRIX_MACRO.finditer(tex):
        g = _group(tex, m.end()) if m.start() >= i else None
        if g is None:
            continue
        if dropped is not None:
            dropped.append(m[0].strip())
        body = matrices(g[0], dropped)
        env = (f"\\left(\\begin{{smallmatrix}}{body}\\end{{smallmatrix}}\\right)" if m[1] == "sp"
               else f"\\begin{{{m[1]}matrix}}{body}\\end{{{m[1]}matrix}}")  # fmt: skip
        out += [tex[i : m.start()], env]
        i = g[1]
    out.append(tex[i:])
    return "".join(out)


def array_specs(tex: str) -> str:
    r"""Array column specifications without ``@{..}``, which KaTeX lacks: a rule there becomes ``|``.

    >>> print(array_specs(r"\begin{array}{c@{~\vline~}c@{}l} a \end{array}"))
    \begin{array}{c|cl} a \end{array}
    """
    out, i = [], 0
    for m in _ARRAY_SPEC.finditer(tex):
        g = _group(tex, m.end())
        if g is None or "@" not in g[0]:
            continue
        spec = re.sub(r"@\{((?:[^{}]|\{[^{}]*\})*)\}", lambda a: "|" if "vline" in a[1] else "", g[0])
        out += [tex[i : m.end()], "{" + spec + "}"]
        i = g[1]
    out.append(tex[i:])
    return "".join(out)


def known_to_katex(tex: str, dropped: list[str] | None) -> str:
    """Commands KaTeX does not know (a macro the parser could not expand): ``\\ZZ`` -> ``\\mathbb{Z}``, any other
    ``\\Spec`` -> ``\\operatorname{Spec}`` (``\\textrm{Spec}`` in text mode), ``\\1`` -> ``\\mathbf{1}``; each
    appended to ``dropped``. So is a KaTeX command that needs an argument but has none (``\\c_X``, ``A:\\set``).
    Environment names are left alone.

    >>> print(known_to_katex(r"\\c_X \\to \\set \\text{by \\Foo} x\\\\y \\1_A", None))
    {\\operatorname{c}}_X \\to {\\operatorname{set}} \\text{by {\\textrm{Foo}}} x\\\\y {\\mathbf{1}}_A
    """
    text_mode: list[bool] | None = None

    def swap(m: re.Match) -> str:
        nonlocal text_mode
        name = m[1]
        if name is None:  # a line break "\\"
            return m[0]
        clash = name in _ARG_CLASH and not re.match(r"\s*\{", tex[m.end() :])
        env_name = tex[max(0, m.start() - 7) : m.start()].endswith(("\\begin{", "\\end{"))
        if (name in KATEX_COMMANDS and not clash) or env_name:
            return m[0]
        if name in _MATH_ALIASES:
            return _MATH_ALIASES[name]
        if name in LAYOUT:
            return " "
        if text_mode is None:
            text_mode = _text_mode(tex)
        if clash and text_mode[m.start()]:
            return m[0]  # a text accent in text mode: KaTeX reads it
        if dropped is not None:
            dropped.append("\\" + name)
        if name.isdigit():  # \1_A, \0: the indicator function, the zero vector
            return f"{{\\mathbf{{{name}}}}}"
        if text_mode[m.start()]:
            return f"{{\\textrm{{{name}}}}}"
        # Braced, so that a subscript or superscript takes it whole.
        return "{" + _BLACKBOARD.get(name, f"\\operatorname{{{name}}}") + "}"

    return _MATH_COMMAND.sub(swap, tex)


def inner_dollars(tex: str) -> str:
    """A "$" inside a formula would end the page's delimiters. Inside ``\\text{..}`` a formula becomes
    ``\\(..\\)`` (KaTeX reads that in text mode); anywhere else the "$" only repeats math mode and is dropped.

    >>> print(inner_dollars(r"h = 1 \\text{if $x$ holds} \\inferrule[right=$\\Pi$]{a}{b}"))
    h = 1 \\text{if \\(x\\) holds} \\inferrule[right=\\Pi]{a}{b}
    """
    out, stack, in_math = [], [], False
    for i, c in enumerate(tex):
        if c == "{" and (i == 0 or tex[i - 1] != "\\"):
            opens_text = bool(_TEXT_GROUP.search(tex[max(0, i - 40) : i]))
            stack.append(opens_text or (bool(stack) and stack[-1] and not in_math))
        elif c == "}" and (i == 0 or tex[i - 1] != "\\") and stack:
            stack.pop()
        if c == "$" and (i == 0 or tex[i - 1] != "\\"):
            if stack and stack[-1]:
                out.append("\\)" if in_math else "\\(")
                in_math = not in_math
            continue
        out.append(c)
    return "".join(out)
