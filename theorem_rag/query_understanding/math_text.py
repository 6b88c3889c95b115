"""Queries written as formulas: LaTeX, or plain ASCII math such as ``a^(p-1) = 1 mod p``, read as the slogans are.

A LaTeX query goes through :func:`theorem_rag.slogans.latex_text.latex_to_text`, the same reader the offline slogans
use, so ``$a^{p-1} \\equiv 1 \\pmod p$`` becomes the words a statement's slogan has for that formula. ASCII math
is first rewritten into LaTeX (``<=`` to ``\\le``, ``x = y mod n`` to ``x \\equiv y \\pmod n``, ``phi`` to
``\\varphi``, ``C(n,k)`` to ``\\binom{n}{k}``, ...) and then read the same way.

>>> formula_text(r"$a^{p-1} \\equiv 1 \\pmod p$")
'a p-1 equivalent to 1 modulo p'
>>> formula_text("a^(p-1) = 1 mod p")
'a p-1 equivalent to 1 modulo p'
>>> formula_text("every group of prime order is cyclic") is None
True
"""

from __future__ import annotations

import re

from theorem_rag.formula_keys import formula_keys
from theorem_rag.slogans.latex_text import latex_to_text

_LATEX = re.compile(r"\$|\\[A-Za-z]+|\\[\[\(]|[_^]\{")
# Operators and shapes that only occur in formulas: a query with any of them is read as ASCII math.
_ASCII_MATH = re.compile(r"[\^=<>|]|!\s*(?:=|\)|$)|\)!|\bmod\b.*\d|\d\s*[-+*/]\s*\w|\w\s*[-+*/]\s*\d|\bsqrt\b|~")
_GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau upsilon phi "
          "chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega").split()  # fmt: skip
_FUNCS = {"sum": r"\sum", "prod": r"\prod", "int": r"\int", "lim": r"\lim", "sqrt": r"\sqrt", "ln": r"\ln",
          "log": r"\log", "exp": r"\exp", "sin": r"\sin", "cos": r"\cos", "inf": r"\infty", "infinity": r"\infty",
          "infty": r"\infty", "dim": r"\dim", "det": r"\det", "gcd": r"\gcd"}  # fmt: skip
_OPS = [("<=>", r" \iff "), ("<->", r" \iff "), ("=>", r" \implies "), ("->", r" \to "), ("<=", r" \le "),
        (">=", r" \ge "), ("!=", r" \neq "), ("=/=", r" \neq "), ("~=", r" \cong "), ("==", r" \equiv "), ("~", r" \sim ")]  # fmt: skip


def is_latex(query: str) -> bool:
    """True when the query has math delimiters, a control word or a braced sub/superscript."""
    return bool(_LATEX.search(query))


# A hyphen between two word characters with no space on either side joins a compound word of prose ("1-1
# correspondence", "2-out-of-3 property", "n-dimensional"), not a minus sign: such compounds are not formula
# evidence by themselves. A minus inside a real formula comes with other evidence ("a^(p-1) = 1 mod p",
# "(p-1)! = -1 mod p", "f(b)-f(a) = ...").
_HYPHEN_COMPOUND = re.compile(r"\b\w+(?:-\w+)+\b")


def is_ascii_math(query: str) -> bool:
    """True when the query has a formula operator (``^ = < > |``, a factorial, ``mod`` with a number, ...).

    Hyphenated words are prose, not subtraction:

    >>> is_ascii_math("1-1 correspondence"), is_ascii_math("2-out-of-3 property"), is_ascii_math("(p-1)! = -1 mod p")
    (False, False, True)
    """
    return not is_latex(query) and bool(_ASCII_MATH.search(_HYPHEN_COMPOUND.sub("w", query)))


def _group(text: str, start: int) -> tuple[str, int]:
    """The parenthesised group opening at ``text[start]`` and the index after it."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1 : i], i + 1
    return text[start + 1 :], len(text)


def _braces(text: str) -> str:
    """``x^(p-1)`` -> ``x^{p-1}``, ``a_(n)`` -> ``a_{n}``: a parenthesised exponent or index becomes a group."""
    out, i = [], 0
    while i < len(text):
        if text[i] in "^_" and i + 1 < len(text) and text[i + 1] == "(":
            inner, end = _group(text, i + 1)
            out.append(f"{text[i]}{{{_braces(inner)}}}")
            i = end
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def ascii_to_latex(query: str) -> str:
    """Rewrite plain ASCII math into LaTeX the slogans' reader understands.

    >>> ascii_to_latex("(p-1)! = -1 mod p")
    '(p-1)! \\\\equiv -1 \\\\pmod{p}'
    >>> ascii_to_latex("|<x,y>| <= ||x|| ||y||")
    '|\\\\langle x,y\\\\rangle| \\\\le \\\\|x\\\\| \\\\|y\\\\|'
    """
    text = _braces(query)
    text = re.sub(r"\|\|([^|]+)\|\|", r"\\|\1\\|", text)
    text = re.sub(r"<([^<>=]+,[^<>=]+)>", r"\\langle \1\\rangle", text)
    text = re.sub(r"\bC\(\s*(\w+)\s*,\s*(\w+)\s*\)", r"\\binom{\1}{\2}", text)
    # "x = y mod n", "x = y (mod n)": a congruence.
    congruence = re.search(r"=(.*?)\(?\bmod\s*([\w+-]+)\)?\s*$", text)
    if congruence:
        text = text[: congruence.start()] + rf"\equiv{congruence.group(1)}\pmod{{{congruence.group(2)}}}"
    for op, tex in _OPS:
        text = text.replace(op, tex)
    words = _GREEK + list(_FUNCS)
    text = re.sub(r"(?<![\\\w])(" + "|".join(words) + r")(?!\w)",
                  lambda m: _FUNCS.get(m.group(1), "\\" + m.group(1)), text)  # fmt: skip
    text = text.replace(r"\phi", r"\varphi")
    return " ".join(text.split())


# A query with more words of prose than this outside its math is a sentence (a premise, a slogan with symbols, a
# question quoting a formula), searched as typed; only formula-like queries are read into words. At 8, sentences
# such as "Does x^3 + y^3 = z^3 have any solutions in positive integers?" were read as formulas: on the papers in no
# index (unseen_dev) MRR@20 0.696 at 8 and 0.747 at 2-4 (0.731 at 5); with command names no prose (prose_words) the
# probes are unchanged, every other dev set within 0.003 (benchmarks/experiments/2026-12-06-unseen).
MAX_PROSE_WORDS = 4
# The TeX math of a query ($$...$$, $...$, \(...\), \[...\]): what its prose is counted outside of.
MATH_SPANS = re.compile(r"\$\$.*?\$\$|\$.*?\$|\\\(.*?\\\)|\\\[.*?\\\]", re.DOTALL)


def prose_words(query: str) -> int:
    """Words outside the math of a LaTeX query; command names are no words (LaTeX typed without dollars is all
    outside the delimiters).

    >>> prose_words(r"$x^n + y^n = z^n$ has no solutions for $n > 2$")
    4
    >>> prose_words(r"\\lim_{x \\to 0} \\frac{\\sin x}{x} = 1")
    0
    """
    return len(re.findall(r"[A-Za-z]{2,}", re.sub(r"\\[A-Za-z]+", " ", MATH_SPANS.sub(" ", query))))


def ascii_prose_words(query: str) -> int:
    """Words of an ASCII-math query that are prose: words of two letters or more that are not a function, a Greek
    letter or ``mod`` (ASCII math has no delimiters to tell its formula from its prose).

    >>> ascii_prose_words("a^(p-1) = 1 mod p"), ascii_prose_words("sum 1/n^2 = pi^2/6")
    (0, 0)
    >>> ascii_prose_words("morphisms P^n -> P^m correspond to tuples of homogeneous polynomials")
    7
    """
    skip = {*_GREEK, *_FUNCS, "mod"}
    return sum(1 for w in re.findall(r"[A-Za-z]{2,}", query) if w not in skip)


def formula_text(query: str) -> str | None:
    """The query as the slogans' words when it is a formula (LaTeX or ASCII math), else None.

    A query is a formula when its math outweighs its prose: at most ``MAX_PROSE_WORDS`` words of prose, whether the
    math is LaTeX or ASCII. A sentence that only quotes a little math ("morphisms P^n -> P^m correspond to ...") is
    searched as typed, like any sentence in words.

    >>> formula_text("x^n + y^n = z^n no solutions n>2")
    'x n + y n = z n no solutions n>2'
    >>> formula_text("the Veronese map identifies P^n with the closed subset of P^N cut out by quadrics") is None
    True
    """
    if is_latex(query):
        if prose_words(query) > MAX_PROSE_WORDS:
            return None
        latex = query
    elif is_ascii_math(query):
        if ascii_prose_words(query) > MAX_PROSE_WORDS:
            return None
        latex = "$" + ascii_to_latex(query) + "$"
    else:
        return None
    text = _group_words(" ".join(latex_to_text(latex).split()))
    return text or None


# Group theory's notation, which the slogans' reader leaves as symbols: ``|G|`` for a capital letter is the order
# of G (a lower-case ``|x|`` stays an absolute value), ``[G:H]`` the index of H in G.
_ORDER = re.compile(r"(?:\||\blvert\b)\s*([A-Z])\s*(?:\||\brvert\b)")
_INDEX = re.compile(r"\[\s*([A-Z])\s*:\s*([A-Z])\s*\]")


def _group_words(text: str) -> str:
    """Group-theory notation in a formula's reading said in words.

    >>> _group_words("|G| = [G:H] |H|"), _group_words("lvert G rvert = [G: H] times |H|"), _group_words("|x| < 1")
    ('order of G = index of H in G order of H', 'order of G = index of H in G times order of H', '|x| < 1')
    """
    text = _INDEX.sub(lambda m: f"index of {m.group(2)} in {m.group(1)}", text)
    return " ".join(_ORDER.sub(lambda m: f" order of {m.group(1)} ", text).split())


# A run of words of prose (two letters or more, not a control word's name) with the spaces around them.
_PROSE_RUN = re.compile(r"((?:\s*(?<![\\A-Za-z])[A-Za-z]{2,}\s*)+)")


def as_latex(query: str) -> str:
    """A formula query written as a statement writes it: LaTeX as typed; ASCII math rewritten, each formula in
    ``$...$`` and its words of prose ("no solutions") between them, as the text between two formulas of a LaTeX
    query (functions became control words, which are not prose).

    >>> as_latex("x^n + y^n = z^n no solutions n>2")
    '$x^n + y^n = z^n$ no solutions $n>2$'
    """
    if is_latex(query) or not is_ascii_math(query):
        return query
    parts = _PROSE_RUN.split(ascii_to_latex(query))
    return " ".join(p.strip() if i % 2 else f"${p.strip()}$" for i, p in enumerate(parts) if p.strip())


def query_formula_keys(query: str) -> tuple[str, ...]:
    """The formula keys of a formula query (LaTeX or ASCII math), empty for any other query: what
    ``store.search_formula`` matches against the formulas of the statements.

    >>> keys = query_formula_keys("a^(p-1) = 1 mod p")
    >>> keys == query_formula_keys(r"$a^{p-1} \\equiv 1 \\pmod p$")
    True
    >>> "e:equiv 1 mod" in keys and "e:a ^ p" in keys
    True
    >>> set(query_formula_keys("$x^n + y^n = z^n$ and $n>2$")) <= set(query_formula_keys("x^n + y^n = z^n no n>2"))
    True
    """
    if is_latex(query):
        if prose_words(query) > MAX_PROSE_WORDS:
            return ()
        keys = formula_keys(query) if MATH_SPANS.search(query) else formula_keys(query, whole=True)
    elif is_ascii_math(query):
        keys = formula_keys(as_latex(query))
    else:
        return ()
    return tuple(keys)
