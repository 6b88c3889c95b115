"""Formula keys: the math of a statement as short symbol sequences, so a formula typed as a query finds the
statements that contain it, whatever the words around it.

Each formula (``$...$``, ``$$...$$``, ``\\[...\\]``, ``\\(...\\)``, equation-like environments) is read into a
sequence of symbols: control words with their synonyms merged (``\\geq`` and ``\\ge``, ``\\pmod`` and ``\\bmod``,
``\\varphi`` and ``\\phi``, ``\\ln`` and ``\\log``), letters, whole numbers and operators; braces, sizes and spacing
are dropped. Its keys are the symbol pairs and triples in order (``e:`` exact symbols) and the same with every
Latin letter written ``v`` (``a:`` abstract: ``i^2`` and ``n^2`` share a key), plus each control word alone
(``c:``). The same function reads the statements and the query when it is searched; the store ranks by the IDF
of the keys a statement shares with the query (``theorem_rag.db``).

A statement's keys are computed where its record is made (the parse workers, :func:`carry`) and travel with the
record, stamped with what they were computed from; a writer takes them as they are while the stamp still matches
the statement's text and this module's :data:`VERSION`, and computes them otherwise (:func:`keys_for`). Loading
is the one step of a build that cannot spread over more machines (one database), parsing can.

>>> keys = formula_keys(r"then $$a^{p-1} \\equiv 1 \\pmod{p}.$$")
>>> [k for k in keys if k.startswith("e:")][:4]
['e:a ^', 'e:^ p', 'e:p -', 'e:- 1']
>>> "a:v ^ v" in keys and "c:equiv" in keys and "c:mod" in keys
True
>>> formula_keys("no math here")
[]
>>> formula_keys(r"\\(\\lvert x\\rvert \\leq 1\\)") == formula_keys(r"$|x| \\le 1$")
True
"""

from __future__ import annotations

import math
import re

from theorem_rag.records import digest

# The version of the keys: bump it when a text's keys change, and records that carry keys of another version are
# recomputed when they are written.
VERSION = "1"

# Keys of one statement: at most this many (the first formulas' keys first), which bounds the index entry.
MAX_KEYS = 400

_ENVS = "equation|align|alignat|gather|multline|eqnarray|displaymath|math|flalign"
_MATH = re.compile(
    r"\$\$(.+?)\$\$|(?<!\\)\$(.+?)(?<!\\)\$|\\\[(.+?)\\\]|\\\((.+?)\\\)"
    rf"|\\begin\{{({_ENVS})\*?\}}(.+?)\\end\{{\5\*?\}}",
    re.DOTALL,
)
# Control words that are layout, not content.
_DROP = frozenset(
    "left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr displaystyle textstyle scriptstyle limits "
    "nolimits quad qquad nonumber notag label tag hline mathrm mathbf mathit mathsf mathtt boldsymbol bm "
    "operatorname mathcal mathscr mathfrak rm bf it cal".split()
)
# Their words are prose inside math: dropped with their argument.
_TEXT_ARG = re.compile(r"\\(?:text|textrm|textit|textbf|mbox|hbox|intertext|label|tag)\s*\{[^{}]*\}")
_SYNONYMS = {
    "geq": "ge", "geqslant": "ge", "leq": "le", "leqslant": "le", "neq": "ne", "lt": "<", "gt": ">",
    "rightarrow": "to", "longrightarrow": "to", "Rightarrow": "implies", "Longrightarrow": "implies",
    "Leftrightarrow": "iff", "Longleftrightarrow": "iff", "varphi": "phi", "varepsilon": "epsilon",
    "vartheta": "theta", "varrho": "rho", "ln": "log", "bmod": "mod", "pmod": "mod", "lvert": "|", "rvert": "|",
    "vert": "|", "mid": "|", "lVert": "‖", "rVert": "‖", "Vert": "‖", "|": "‖", "langle": "<", "rangle": ">",
    "dfrac": "frac", "tfrac": "frac", "cdots": "dots", "ldots": "dots", "dotsc": "dots", "dotsb": "dots",
    "colon": ":", "lbrace": "{", "rbrace": "}", "{": "{", "}": "}", "setminus": "\\", "smallsetminus": "\\",
    "leftarrow": "gets", "emptyset": "varnothing", "subseteq": "subset", "supseteq": "supset",
    "cdot": "*", "ast": "*", "times": "times", "dbinom": "binom", "tbinom": "binom", "choose": "binom",
}  # fmt: skip
_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[A-Za-z]|\d+(?:\.\d+)?|[^\s{}&A-Za-z\d]")
_SPACING = frozenset(",;:! >")
_SIMPLE_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")


def formulas(latex: str) -> list[str]:
    """The math of a LaTeX text, each formula's inside, in order.

    >>> formulas(r"Let $x$ be real. Then \\[ x^2 \\ge 0. \\]")
    ['x', ' x^2 \\\\ge 0. ']
    """
    return [next(g for g in m.groups()[:4] if g is not None) if m.group(6) is None else m.group(6)
            for m in _MATH.finditer(latex)]  # fmt: skip


def symbols(formula: str) -> list[str]:
    """One formula as its symbols (see the module docstring).

    >>> symbols(r"\\left| \\langle x, y\\rangle \\right| \\leq \\|x\\|\\,\\|y\\|")
    ['|', '<', 'x', ',', 'y', '>', '|', 'le', '‖', 'x', '‖', '‖', 'y', '‖']
    >>> symbols(r"\\sum_{n=1}^\\infty \\frac{1}{n^2}") == symbols("\\sum_{n=1}^\\infty 1/n^2")
    True
    >>> symbols(r"\\frac{\\pi^2}{6}")
    ['pi', '^', '2', '/', '6']
    """
    text = _TEXT_ARG.sub(" ", formula)
    # A fraction of simple parts reads as ASCII writes it: \frac{1}{n^2} is 1 / n^2, as in "sum 1/n^2".
    # No parentheses are added around either part: 1/n^2 and \frac{\pi^2}{6} are typed without them.
    text = _SIMPLE_FRAC.sub(lambda m: f" {m.group(1)} / {m.group(2)} ", text)
    out: list[str] = []
    for tok in _TOKEN.findall(text):
        if tok.startswith("\\"):
            word = tok[1:]
            if word in _DROP or (len(word) == 1 and word in _SPACING) or word == "\\":
                continue
            out.append(_SYNONYMS.get(word, word))
        elif tok in ".":
            continue  # a full stop ending a displayed formula
        else:
            out.append(tok)
    return out


def _abstract(sym: str) -> str:
    return "v" if len(sym) == 1 and sym.isascii() and sym.isalpha() else sym


def keys_of(syms: list[str]) -> list[str]:
    """The keys of one formula's symbols, in order, without repeats."""
    out: dict[str, None] = {}
    for s in syms:
        if len(s) > 1 and s.isalpha():
            out[f"c:{s}"] = None
    abstract = [_abstract(s) for s in syms]
    for n in (2, 3):
        for i in range(len(syms) - n + 1):
            out["e:" + " ".join(syms[i : i + n])] = None
            out["a:" + " ".join(abstract[i : i + n])] = None
    return list(out)


def formula_keys(latex: str, whole: bool = False, limit: int = MAX_KEYS) -> list[str]:
    """The keys of every formula of ``latex`` (at most ``limit``, without repeats); ``whole=True`` reads the
    whole text as one formula (a query typed without dollar signs)."""
    parts = [latex] if whole else formulas(latex)
    out: dict[str, None] = {}
    for part in parts:
        for key in keys_of(symbols(part)):
            out.setdefault(key, None)
            if len(out) >= limit:
                return list(out)
    return list(out)


def stamp(text: str) -> str:
    """What carried keys were computed from: this module's :data:`VERSION` and the statement's text."""
    return digest("formula_keys", VERSION, text, length=16)


def carry(text: str) -> tuple[str, tuple[str, ...]]:
    """The keys of a statement's ``text`` to carry with its record (``Theorem.formula_keys``): ``(stamp, keys)``."""
    return stamp(text), tuple(formula_keys(text))


def keys_for(text: str, carried: tuple[str, tuple[str, ...]] | None) -> list[str]:
    """The keys a writer stores for a statement: the ``carried`` ones while their stamp matches ``text`` and
    :data:`VERSION`, else computed now (an edited statement, keys of another version, a record without them).

    >>> carried = carry("Then $x^2 \\ge 0$.")
    >>> keys_for("Then $x^2 \\ge 0$.", carried) == list(carried[1]) == formula_keys("Then $x^2 \\ge 0$.")
    True
    >>> keys_for("Then $y^3 \\ge 0$.", carried) == formula_keys("Then $y^3 \\ge 0$.")  # stale: recomputed
    True
    """
    if carried is not None and carried[0] == stamp(text):
        return list(carried[1])
    return formula_keys(text)


# How much a shared key says, beside its IDF: a triple of exact symbols more than a pair, an abstract one (letters
# as ``v``) or a lone control word less.
_KIND_WEIGHT = {"e": 1.0, "a": 0.5, "c": 0.5}
_LENGTH_WEIGHT = {1: 1.0, 2: 1.0, 3: 1.5}


def key_weights(counts: dict[str, int], total: int, budget: int) -> list[tuple[str, float]]:
    """The keys to search with and their weights, from how many of ``total`` statements have each: keys no
    statement has are dropped, the rarest are kept while their counts sum to at most ``budget`` (at least one),
    and each weighs its IDF times its kind and length weight.

    >>> [(k, round(w, 2)) for k, w in key_weights({"e:a ^": 50, "e:a ^ p": 5, "c:equiv": 900, "a:v ^": 0}, 1000, 100)]
    [('e:a ^ p', 7.81), ('e:a ^', 2.99)]
    """
    out: list[tuple[str, float]] = []
    spent = 0
    for key, df in sorted(((k, n) for k, n in counts.items() if n > 0), key=lambda x: (x[1], x[0])):
        spent += df
        if spent > budget and out:
            break
        kind, body = key.split(":", 1)
        idf = math.log(1 + (total - df + 0.5) / (df + 0.5))
        out.append((key, idf * _KIND_WEIGHT[kind] * _LENGTH_WEIGHT[len(body.split(" ")) if kind != "c" else 1]))
    return out
