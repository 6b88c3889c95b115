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


# Lean 4's notation as the symbols LaTeX's control words read as (:func:`symbols`, synonyms merged), so that a
# formula written in either notation shares its keys with the other: ``≤`` and ``\\le`` both read ``le``,
# ``ℝ`` and ``\\mathbb{R}`` both ``mathbb R``, ``x⁻¹`` and ``x^{-1}`` both ``x ^ - 1``.
_LEAN_SYMBOLS = {
    "≤": "le", "≥": "ge", "≠": "ne", "∣": "|", "∑": "sum", "∏": "prod", "∫": "int", "∮": "oint", "∞": "infty",
    "→": "to", "↔": "iff", "∀": "forall", "∃": "exists", "∈": "in", "∉": "notin", "⊆": "subset", "⊂": "subset",
    "⊇": "supset", "⊃": "supset", "∩": "cap", "∪": "cup", "⋂": "bigcap", "⋃": "bigcup", "¬": "neg", "∧": "wedge",
    "∨": "vee", "×": "times", "•": "*", "∘": "circ", "√": "sqrt", "∅": "varnothing", "⌊": "lfloor",
    "⌋": "rfloor", "⌈": "lceil", "⌉": "rceil", "⟨": "<", "⟩": ">", "∂": "partial", "∇": "nabla", "⊗": "otimes",
    "⊕": "oplus", "≃": "simeq", "≅": "cong", "≈": "approx", "⊤": "top", "⊥": "bot", "⊔": "sqcup", "⊓": "sqcap",
    "≡": "equiv", "%": "mod", "·": "*", "⁻¹": "^ - 1", "ᶜ": "^ c", "ᵀ": "^ T", "‖": "‖", "ℕ": "mathbb N",
    "ℤ": "mathbb Z", "ℚ": "mathbb Q", "ℝ": "mathbb R", "ℂ": "mathbb C", "α": "alpha", "β": "beta",
    "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta", "η": "eta", "θ": "theta", "ι": "iota",
    "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma",
    "τ": "tau", "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega", "Γ": "Gamma", "Δ": "Delta", "Θ": "Theta",
    "Λ": "Lambda", "Ξ": "Xi", "Π": "Pi", "Σ": "Sigma", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega",
}  # fmt: skip
# Functions whose Lean name ends as LaTeX's control word reads (``Real.exp``, ``Nat.gcd``, ``n.choose k``); any
# other name (``Finset.range``, ``IsCompact``) is dropped, as LaTeX has no counterpart to match.
_LEAN_FUNCTIONS = {
    **{f: f for f in "exp log sin cos tan sinh cosh tanh arcsin arccos arctan sqrt det gcd lcm max min sup inf "
                     "dim ker deg lim arg".split()},
    "choose": "binom", "factorial": "!", "pi": "pi", "cexp": "exp", "rexp": "exp",
}  # fmt: skip
_LEAN_TOKEN = re.compile(r"[^\W\d][\w'₀-₉]*(?:\.[^\W\d][\w'₀-₉]*)*|\d+(?:\.\d+)?|⁻¹|\S")
_LEAN_MOD = re.compile(r"\[(?:P?Z)?MOD\s+([^\]]*)\]")
_SUBSCRIPT_DIGITS = "₀₁₂₃₄₅₆₇₈₉"
_SUBSCRIPTS = str.maketrans(_SUBSCRIPT_DIGITS, "0123456789")
_LEAN_DROP = frozenset("↑⇑↥↦{}⦃⦄.;@$#?")


def lean_symbols(code: str) -> list[str]:
    """One Lean formula as the symbols :func:`symbols` reads LaTeX into: notation as LaTeX's control words,
    one-letter variables as letters (``x₁`` as ``x _ 1``), the functions LaTeX has a control word for by it, any
    other name dropped.

    >>> lean_symbols("∑ i ∈ range n, x ^ i = (x ^ n - 1) / (x - 1)")
    ['sum', 'i', 'in', 'n', ',', 'x', '^', 'i', '=', 'x', '^', 'n', '-', '1', '/', 'x', '-', '1']
    >>> lean_symbols("(x ^ n - 1) / (x - 1)") == symbols(r"\\frac{x^n - 1}{x - 1}")
    True
    >>> lean_symbols("a ^ (p - 1) = 1") == symbols("a^{p-1} = 1"), lean_symbols("(a + b) * c")[0]
    (True, '(')
    >>> lean_symbols("a ≡ b [ZMOD n]") == symbols(r"a \\equiv b \\pmod{n}")
    True
    >>> lean_symbols("Real.exp x₁ ≤ x⁻¹ + ‖y'‖") == symbols(r"\\exp x_1 \\leq x^{-1} + \\|y'\\|")
    True
    """
    out: list[str] = []
    for tok in _LEAN_TOKEN.findall(_LEAN_MOD.sub(r" mod \1 ", code)):
        if tok in _LEAN_SYMBOLS:
            out.extend(_LEAN_SYMBOLS[tok].split())
        elif not tok[0].isalpha() or tok == "mod":
            out.extend([] if tok in _LEAN_DROP else [tok])
        else:
            *head, last = tok.split(".")
            name = last.rstrip("'")
            letter = name.rstrip(_SUBSCRIPT_DIGITS)
            if not head and len(letter) == 1:  # a variable: x, x₁, ε
                index = name[1:].translate(_SUBSCRIPTS)
                out.extend([*_LEAN_SYMBOLS.get(letter, letter).split(), *(["_", index] if index else [])])
            elif name in _LEAN_FUNCTIONS:
                out.extend([head[0]] if len(head) == 1 and len(head[0]) == 1 else [])  # dot notation: n.choose k
                out.append(_LEAN_FUNCTIONS[name])
            else:
                continue
            out.extend("'" * (len(last) - len(name)))
    return _braces_as_latex(out)


def _braces_as_latex(syms: list[str]) -> list[str]:
    """Lean's parentheses where LaTeX writes braces, which :func:`symbols` drops: around an exponent (``x ^ (n + 1)``,
    ``x^{n+1}``) and a fraction's parts (``(a + b) / c``, ``\\frac{a+b}{c}``) when they are simple."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for i, s in enumerate(syms):
        if s == "(":
            stack.append(i)
        elif s == ")" and stack:
            pairs[stack.pop()] = i
    drop = {j for i, j in pairs.items() if (i and syms[i - 1] in ("^", "/")) or syms[j + 1 : j + 2] == ["/"]}
    drop |= {i for i, j in pairs.items() if j in drop}
    return [s for i, s in enumerate(syms) if i not in drop]


def lean_keys(formulas: list[str], docstring: str = "", limit: int = MAX_KEYS) -> list[str]:
    """The keys of a Lean declaration: of its formulas (Lean code, :func:`lean_symbols`) and of the LaTeX of its
    docstring, at most ``limit``, without repeats.

    >>> lean = lean_keys(["x ≠ 1", "∑ i ∈ range n, x ^ i = (x ^ n - 1) / (x - 1)"])
    >>> latex = formula_keys(r"$\\sum_{i=0}^{n-1} x^i = \\frac{x^n-1}{x-1}$, $x \\neq 1$")
    >>> sorted(k for k in set(lean) & set(latex) if k.startswith("e:") and len(k.split()) == 3)
    ['e:- 1 /', 'e:/ x -', 'e:1 / x', 'e:= x ^', 'e:^ i =', 'e:^ n -', 'e:i = x', 'e:n - 1', 'e:x - 1', 'e:x ^ i',
     'e:x ^ n', 'e:x ne 1']
    """
    out: dict[str, None] = {}
    for key in (k for f in formulas for k in keys_of(lean_symbols(f))):
        out.setdefault(key, None)
    for key in formula_keys(docstring):
        out.setdefault(key, None)
    return list(out)[:limit]


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


def key_weights(counts: dict[str, int], total: int, budget: int, cap: int | None = None) -> list[tuple[str, float]]:
    """The keys to search with and their weights, from how many of ``total`` statements have each: keys no
    statement has are dropped, the rarest are kept while their counts sum to at most ``budget`` (at least one): the
    statements a search reads; each weighs its IDF, a count above ``cap`` taken as ``cap``, times its kind and
    length weight.

    >>> [(k, round(w, 2)) for k, w in key_weights({"e:a ^": 50, "e:a ^ p": 5, "c:equiv": 900, "a:v ^": 0}, 1000, 100)]
    [('e:a ^ p', 7.81), ('e:a ^', 2.99)]
    >>> [k for k, _ in key_weights({"e:a ^ p": 5, "c:equiv": 900}, 10**6, 100, cap=50)]  # reads 5 rows, not 905
    ['e:a ^ p']
    """
    out: list[tuple[str, float]] = []
    spent = 0
    for key, df in sorted(((k, n) for k, n in counts.items() if n > 0), key=lambda x: (x[1], x[0])):
        spent += df
        if spent > budget and out:
            break
        kind, body = key.split(":", 1)
        df = min(df, cap) if cap else df
        idf = math.log(1 + (total - df + 0.5) / (df + 0.5))
        out.append((key, idf * _KIND_WEIGHT[kind] * _LENGTH_WEIGHT[len(body.split(" ")) if kind != "c" else 1]))
    return out
