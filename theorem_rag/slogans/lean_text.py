"""Read Lean 4 declarations as words: mathlib's names, docstrings and statements, for the offline slogans (pure).

mathlib names a lemma by what it states (``le_of_lt``: less than gives less than or equal), so a name read as
words, with dots, underscores and camelCase split and the usual abbreviations spelled out, is nearly a sentence
(:func:`name_words`). A docstring is Markdown with LaTeX: its code spans are Lean, its ``$...$`` go through
:func:`~theorem_rag.slogans.latex_text.latex_to_text` (:func:`docstring_text`). A statement (the record's header,
binders then type) keeps the hypotheses and the classes it assumes, drops the other binders and reads its notation
as words (:func:`statement_words`). :func:`lean_slogan` puts them together for a record of the Lean adapter.

>>> name_words("Nat.Prime.two_le")
'natural number prime two less than or equal'
>>> statement_words("theorem Nat.Prime.two_le {p : ℕ} (hp : p.Prime) : 2 ≤ p")
'if p prime, then 2 less than or equal to p'
"""

from __future__ import annotations

import re
import unicodedata

from theorem_rag.records import Theorem, is_lean
from theorem_rag.slogans.latex_text import latex_to_text
from theorem_rag.slogans.lean_words import CAMEL_WORDS, KIND_WORDS, NAME_WORDS, PROPOSITIONS, SYMBOLS, WHOLE_WORDS

_SYMBOL_RE = re.compile("|".join(re.escape(s) for s in sorted(SYMBOLS, key=len, reverse=True)))
# Prose keeps its ASCII (a docstring's ``-->`` or ``x^2`` is no Lean), its Unicode symbols read as in code.
_PROSE_SYMBOL_RE = re.compile("|".join(re.escape(s) for s in sorted(SYMBOLS, key=len, reverse=True)
                                       if not s.isascii()))  # fmt: skip
# A Greek letter in prose ("a space equipped with a σ-algebra"), spelt out as in code.
_GREEK_RE = re.compile(r"[\u0391-\u03a9\u03b1-\u03c9\u03d1\u03d5\u03f5]")
# A name; superscript letters are Lean postfix notation (sᶜ, Mˣ, Cᵒᵖ), never part of a name.
_POSTFIX = "ᶜˣᵀᴴᵒᵖᵐ"
_IDENT = re.compile(rf"[^\W\d{_POSTFIX}](?:(?![{_POSTFIX}])[\w'.!?])*")
# One pass over code: a symbol (ℕ is a letter to Python, so symbols come first), an arrow, or a name.
_CODE_TOKEN = re.compile(f"{_SYMBOL_RE.pattern}|→|{_IDENT.pattern}")
# Characters that carry no words: coercion arrows, placeholders, brackets of anonymous constructors.
_SILENT_RE = re.compile(r"[↑⇑↥·@$⟨⟩⌋⌉]|\.\{[^{}]*\}")
_ARROW_INDEX = re.compile(r"([→≃][^\s\[]*)\[[^\]]*\]")
_NAMED_ARG = re.compile(r"\(\s*[\w']+\s*:=[^()]*\)")
_NORM = re.compile(r"‖([^‖]+)‖(₊?)")
_ABS = re.compile(r"\|(?=\S)([^|{}]*?\S)\|")
_SET_BUILDER = re.compile(r"\{\s*([^{}|]+?)\s*\|")
_FACTORIAL = re.compile(r"(?<=[\w)])\s?!(?![\[=])")
_MOD = re.compile(r"\[Z?MOD\s+([^\]]+)\]")
# A universe: Type*, Type u, Sort (max u v), Type max u v.
_TYPE = re.compile(r"\b(?:Type|Sort)\b(?:\*|\s*\([^()]*\)|\s+max\s+\S+\s+[^\s()]+|\s+[a-z_][\w₀-₉']*(?![\w.(]))?")
# The pieces of a camelCase name: names read whole first, then acronyms, words, numbers, other letters.
_PIECE = re.compile(r"ZMod|NNReal|ENNReal|EReal|ENat|PNat|MvPolynomial|NatTrans|"
                    r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_A-Za-z]+\d*")
_RELATION = re.compile(r"[=≠≤<>∈∉⊆⊂∣↔¬]|(?<!ℝ)≥")
_HYPOTHESIS_NAME = re.compile(r"^(?:h[\w'₀-₉]*|H[\w'₀-₉]*|_)$")
_KEYWORD = re.compile(r"^\s*(?:class\s+(?:abbrev|inductive)|theorem|lemma|def|abbrev|instance|structure|class|"
                      r"inductive|field|constructor|axiom|opaque)\s+\S+")  # fmt: skip
_OPEN = {"(": ")", "{": "}", "[": "]", "⦃": "⦄", "⟨": "⟩"}
_GENERIC_MODULES = frozenset("Basic Defs Lemmas Instances Main Common Lemma Def Mathlib".split())


def name_words(name: str, *, hypotheses: bool = True) -> str:
    """A Lean name read as words: dots, underscores and camelCase split, abbreviations spelled out, the ``inst``
    of generated instance names and primes dropped; in the last part, ``of`` names a hypothesis (``a_of_b``: a if
    b; a second ``of`` reads and) unless ``hypotheses=False``.

    >>> name_words("le_of_lt_of_le")
    'less than or equal if less than and less than or equal'
    >>> name_words("AddSubgroup.zpowers_le"), name_words("instInhabitedZMod")
    ('additive subgroup zpowers less than or equal', 'inhabited integers modulo')
    """
    parts = [p for p in unicodedata.normalize("NFKD", name).replace("_root_.", "").split(".") if p]
    words = []
    for i, part in enumerate(parts):
        ofs = 0
        tokens = [t for t in part.rstrip("'").split("_") if t]
        for j, token in enumerate(tokens):
            if token == "of" and hypotheses and i == len(parts) - 1 and j < len(tokens) - 1:
                words.append("if" if ofs == 0 else "and")
                ofs += 1
            else:
                words.append(_token_words(token))
    return " ".join(w for w in words if w)


def _token_words(token: str) -> str:
    if token in WHOLE_WORDS:
        return WHOLE_WORDS[token]
    if token.lower() in NAME_WORDS:
        return NAME_WORDS[token.lower()]
    pieces = _PIECE.findall(token.rstrip("'"))
    out = []
    for j, piece in enumerate(pieces):
        if j < len(pieces) - 1 and piece in CAMEL_WORDS:
            out.append(CAMEL_WORDS[piece])
        elif piece in WHOLE_WORDS:
            out.append(WHOLE_WORDS[piece])
        elif piece.lower() in NAME_WORDS:
            out.append(NAME_WORDS[piece.lower()])
        elif "\u0370" <= piece[0] <= "\u03ff":
            out.append(" ".join(map(_greek, piece)))
        else:
            out.append(piece if piece.isupper() or not piece[:1].isupper() else piece.lower())
    return " ".join(w for w in out if w and w.isascii())


def _greek(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return name.split()[-1].lower() if name.startswith("GREEK SMALL") else name.split()[-1].capitalize()


def _variable(name: str, variables: bool) -> str | None:
    """A one-letter variable (``x``, ``φ₁``, ``a'``) as written, Greek spelled out; None for a longer name."""
    if not re.fullmatch(r"[^\W\d_][\d₀-₉']*", name):
        return None
    if not variables:
        return ""
    head = _greek(name[0]) if "\u0370" <= name[0] <= "\u03ff" else name[0]
    return head + unicodedata.normalize("NFKD", name[1:]).replace("'", "")


def _identifier(ident: str, variables: bool) -> str:
    """One identifier of Lean code as words: a variable stays (or goes, ``variables=False``), a name is read."""
    core = ident.rstrip("'!?.")
    if core in ("fun", "λ"):
        return " function "
    words = []
    for part in (p for p in core.split(".") if p):
        var = _variable(part, variables)
        words.append(var if var is not None else " ".join(_token_words(t) for t in part.split("_") if t))
    return " " + " ".join(words) + " "


def code_words(code: str, *, implication: bool = True, variables: bool = True) -> str:
    """Lean code read as words: notation spelled out, names read, coercions and named arguments dropped;
    ``→`` reads "implies" in a proposition (``implication=True``) and "to" elsewhere.

    >>> code_words("∀ ε > 0, ∃ δ > 0, ‖f x‖ ≤ δ → |x| < ε")
    'for all epsilon greater than 0, there exists delta greater than 0, norm of f x less than or equal to delta
     implies absolute value of x less than epsilon'
    >>> code_words("f : G →+* H", implication=False), code_words("(s.map f).card ∣ Nat.factorial n")
    ('f: G ring homomorphism to H', '(s map f) cardinality divides natural number factorial n')
    """
    text = _NAMED_ARG.sub(" ", re.sub(r"<\||\|>\.?", " ", code))  # <| and |> only apply functions
    text = _ARROW_INDEX.sub(r"\1", text)
    text = _TYPE.sub(" type ", text)
    text = _NORM.sub(lambda m: f" {'nonnegative ' if m[2] else ''}norm of {m[1]} ", text)
    text = _ABS.sub(r" absolute value of \1 ", text)
    text = re.sub(r"⟪([^⟪⟫]*)⟫(?:_\S+)?", r" inner product of \1 ", text)
    text = re.sub(r"⁅([^⁅⁆]*)⁆", r" bracket of \1 ", text)
    text = _SET_BUILDER.sub(r" set of \1 such that ", text)
    text = _MOD.sub(r" modulo \1 ", text)
    text = _FACTORIAL.sub(" factorial ", text)
    text = _SILENT_RE.sub(" ", re.sub(r"(?<=[)\]⟩])\.(?=\w)", " ", text))
    arrow = " implies " if implication else " to "

    def word(m: re.Match) -> str:
        if m[0] in SYMBOLS:
            return f" {SYMBOLS[m[0]]} "
        return arrow if m[0] == "→" else _identifier(m[0], variables)

    out = _CODE_TOKEN.sub(word, text)
    text = re.sub(r"[{}\[\]]", " ", out)
    return _tidy(text)


def _tidy(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"\(\s*\)", " ", text)
    text = re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", text))
    text = re.sub(r"\s+([,.;:])", r"\1", text)
    return re.sub(r"\s+", " ", text).strip(" ,;:")


def docstring_text(doc: str, *, variables: bool = True) -> str:
    """The summary of a docstring (its first paragraph) read as words: Markdown links, emphasis, headings and code
    blocks dropped, code spans read as Lean, ``$...$`` and ``$$...$$`` as LaTeX.

    >>> docstring_text("**Bernoulli**: $(1 + a)^n \\\\ge 1 + na$ for `-2 ≤ a` ([wiki](https://x.org)).\\n\\nMore.")
    'Bernoulli: (1 + a) n at least 1 + na for -2 less than or equal to a (wiki).'
    >>> docstring_text("A space equipped with a σ-algebra."), docstring_text("Two `Real`s: `re` and `im`.")
    ('A space equipped with a sigma-algebra.', 'Two reals: re and im.')
    """
    text = re.sub(r"```.*?(?:```|$)", " ", doc or "", flags=re.S).strip()
    text = re.split(r"\n\s*\n", text, maxsplit=1)[0]
    out = []
    for seg in re.split(r"(\$\$.+?\$\$|\$[^$]+\$|``.+?``|`[^`]+`)", text, flags=re.S):
        if seg.startswith("$"):
            out.append(" " + latex_to_text(seg, variables=variables) + " ")
        elif seg.startswith("`"):
            out.append(" " + code_words(seg.strip("`"), implication=False, variables=variables) + " ")
        else:
            if out and out[-1].endswith(" ") and re.match(r"s\b", seg):  # a plural of code: `Real`s
                out[-1] = out[-1].rstrip()
            out.append(_markdown(seg))
    return _tidy("".join(out))


def _markdown(text: str) -> str:
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)|\[([^\]]+)\]\[[^\]]*\]", lambda m: m[1] or m[2], text)
    text = re.sub(r"https?://\S+", " ", text)
    text = re.sub(r"(?m)^\s*(?:#+|[*+-])\s+", " ", text)
    text = re.sub(r"\*\*|__|(?<!\w)\*(?=\S)|(?<=\S)\*(?!\w)", "", text)
    text = _PROSE_SYMBOL_RE.sub(lambda m: f" {SYMBOLS[m[0]]} ", text.replace("→", " to "))
    return _GREEK_RE.sub(lambda m: _greek(m[0]), text)


def _depths(text: str) -> list[int]:
    """The bracket depth before each character of ``text``."""
    depth, out = 0, []
    for ch in text:
        if ch in ")}]⦄⟩":
            depth = max(depth - 1, 0)
        out.append(depth)
        if ch in _OPEN:
            depth += 1
    return out


def _top_level(text: str, pattern: str) -> re.Match | None:
    """The first match of ``pattern`` outside every bracket."""
    depths = _depths(text)
    return next((m for m in re.finditer(pattern, text) if depths[m.start()] == 0), None)


def _binders(text: str) -> tuple[list[tuple[str, str]], str]:
    """The binders at the start of ``text`` as ``(bracket, content)`` and the rest."""
    out = []
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text) or text[i] not in "({[⦃":
            return out, text[i:]
        depth, j = 0, i
        while j < len(text):
            depth += text[j] in _OPEN
            depth -= text[j] in ")}]⦄⟩"
            j += 1
            if depth == 0:
                break
        out.append((text[i], text[i + 1 : j - 1]))
        i = j


def _hypothesis(bracket: str, content: str) -> str | None:
    """The proposition a binder assumes, or None for a variable (or a class, read apart)."""
    if bracket == "[":
        fact = re.match(r"^(?:\w+\s*:\s*)?Fact\s+(.*)$", content, re.S)
        return fact[1] if fact else None
    colon = _top_level(content, r":(?!=)")
    if colon is None:
        return None
    names, kind = content[: colon.start()].split(), content[colon.end() :]
    default = _top_level(kind, r":=")
    kind = kind[: default.start()] if default else kind
    if _RELATION.search(kind) or (any(map(_HYPOTHESIS_NAME.match, names)) and not _TYPE.match(kind.strip())):
        return kind.strip()
    return None


def _class(content: str) -> str | None:
    """The class an instance binder assumes (``[CommRing R]`` -> ``CommRing``), None for a ``Fact``."""
    body = re.sub(r"^(?:[\w']+\s*:\s*)?(?:∀[^,]*,\s*)?", "", content.strip())
    head = _IDENT.match(body)
    return head[0] if head and head[0] != "Fact" else None


def _list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _members(text: str, inductive: bool) -> list[str]:
    """The names of a structure's fields (a line each) or an inductive type's constructors (after each ``|``)."""
    text = re.sub(r"/-.*?-/", " ", text, flags=re.S)
    if inductive:
        heads = re.split(r"(?:^|\s)\|\s", text)[1:]
    else:
        heads = _fields(text)
    names = []
    for head in heads:
        m = re.match(r"\s*(?:protected\s+|private\s+)?([^\W\d][\w'.]*)(\s*::)?", head)
        if m and not m[2] and m[1] != "deriving":  # ``mk ::`` names the constructor, not a field
            names.append(name_words(m[1], hypotheses=False))
    return list(dict.fromkeys(n for n in names if n))


def _parts(rest: str) -> tuple[str, str, str]:
    """What follows the binders, split into what a structure extends, the type, and the fields or constructors."""
    members = ""
    cut = _top_level(rest, r"\bwhere\b|(?:^|\s)\|\s|:=")
    if cut is not None:
        members = "" if cut[0] == ":=" else rest[cut.start() :]
        rest = rest[: cut.start()]
    extends = ""
    if head := _top_level(rest, r"\bextends\b"):
        colon = _top_level(rest[head.end() :], r":(?!=)")
        extends = rest[head.end() :][: colon.start() if colon else None]
        rest = rest[: head.start()] + (rest[head.end() :][colon.start() :] if colon else "")
    rest = rest.strip()
    return extends, rest[1:] if rest.startswith(":") else "", members


def _uncommented(statement: str) -> str:
    return re.sub(r"/-.*?-/|--[^\n]*", " ", statement, flags=re.S)


def _signature(text: str) -> tuple[list[tuple[str, str]], str]:
    """A declaration's binders, after its keyword and name, and what follows them."""
    head = _KEYWORD.match(text)
    return _binders(text[head.end() :] if head else text)


def statement_words(statement: str, kind: str = "theorem", *, variables: bool = True) -> str:
    """A declaration's statement read as words: the classes it assumes (``for group: ...``), its hypotheses
    (``if ..., then``), its type; what a structure extends and its fields, an inductive type's constructors; the
    other binders dropped. ``→`` reads "implies" in the statement of a theorem (:data:`PROPOSITIONS`), else "to".

    >>> statement_words("instance instInhabitedRingCat : Inhabited RingCat", "instance")
    'inhabited ring category'
    >>> statement_words("theorem mul_inv_cancel {G : Type*} [Group G] (a : G) : a * a⁻¹ = 1")
    'for group: a * a inverse = 1'
    """
    text = _uncommented(statement)
    if text.lstrip().startswith("alias"):
        target = re.search(r":=\s*(\S+)", text)
        return f"alias of {name_words(target[1], hypotheses=False)}" if target else ""
    binders, rest = _signature(text)
    extends, type_, members = _parts(rest)
    proposition = kind in PROPOSITIONS
    classes = list(dict.fromkeys(c for b, content in binders if b == "[" and (c := _class(content))))
    hypotheses = [code_words(h, variables=variables) for b, content in binders if (h := _hypothesis(b, content))]
    words = []
    if classes:
        words.append("for " + ", ".join(code_words(c) for c in classes) + ":")
    if hypotheses:
        words.append(("if " if proposition else "given ") + _list(hypotheses) + (", then" if proposition else ":"))
    if extends.strip():
        words.append("extends " + code_words(extends, implication=False, variables=variables) + ";")
    type_words = code_words(type_, implication=proposition, variables=variables)
    if type_words not in ("", "type", "proposition"):
        words.append(type_words + ",")
    if members and kind in ("structure", "class", "inductive", "class inductive"):
        inductive = kind.endswith("inductive")
        named = ", ".join(_members(members, inductive))
        words.append(("with constructors " if inductive else "with fields ") + named)
    return _tidy(" ".join(words))


def statement_formulas(statement: str) -> list[str]:
    """The formulas of a declaration's statement, as Lean code: the propositions its binders assume and its type
    (what :func:`theorem_rag.formula_keys.lean_keys` reads into formula keys).

    >>> statement_formulas("theorem geom_sum_eq {K : Type*} [DivisionRing K] {x : K} (h : x ≠ 1) (n : ℕ) : "
    ...                    "∑ i ∈ range n, x ^ i = (x ^ n - 1) / (x - 1)")
    ['x ≠ 1', '∑ i ∈ range n, x ^ i = (x ^ n - 1) / (x - 1)']
    """
    binders, rest = _signature(_uncommented(statement))
    _, type_, members = _parts(rest)
    type_ = type_.strip()
    hypotheses = [h.strip() for b, content in binders if (h := _hypothesis(b, content))]
    return hypotheses + ([type_] if type_ else []) + _field_propositions(members)


def _fields(members: str) -> list[str]:
    """A structure's fields after ``where``, a line each (unindented), a field's continuation lines joined to it."""
    fields: list[str] = []
    for line in re.sub(r"^\s*where\b", "", members).splitlines():
        if line[:1].strip():
            fields.append(line)
        elif fields and line.strip():
            fields[-1] += " " + line.strip()
    return fields


def _field_propositions(members: str) -> list[str]:
    r"""The propositions a structure's or class's fields state (``mul_comm : ∀ a b, a * b = b * a``).

    >>> _field_propositions("where\nquotient : R → R → R\nquotient_zero : ∀ a,\n  quotient a 0 = 0")
    ['∀ a, quotient a 0 = 0']
    """
    out = []
    for field in _fields(members):
        colon = _top_level(field, r":(?!=)")
        body = field[colon.end() :].strip() if colon else ""
        if _RELATION.search(body):
            out.append(body)
    return out


def _sentence(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].upper() + text[1:] + "." if text else ""


def kind_words(theorem: Theorem) -> str:
    """What a declaration is and where mathlib keeps it, from its Lean kind and module.

    >>> kind_words(Theorem(id="m:x", source="m", kind="theorem", body_latex="", doc_id="d",
    ...                    meta={"lean_kind": "lemma", "module": "Mathlib.Algebra.Field.GeomSum"}))
    'Theorem in algebra, field, geometric sum.'
    """
    meta = theorem.meta or {}
    kind = KIND_WORDS.get(meta.get("lean_kind", ""), theorem.kind.capitalize())
    areas = [name_words(p) for p in str(meta.get("module", "")).split(".") if p and p not in _GENERIC_MODULES]
    return f"{kind} in {', '.join(areas)}." if areas else f"{kind}."


def lean_slogan(theorem: Theorem, *, variables: bool = True, max_words: int = 160, context: bool = True) -> str:
    """The offline slogan of a Lean declaration: its name read as words, its kind and module, then the summary of
    its docstring, its statement read as words and what its module's docstring says of it (``meta.summary``), these
    three alone with ``context=False`` and cut after ``max_words`` words.

    >>> t = Theorem(id="mathlib:Nat.Prime.two_le", source="mathlib", kind="theorem", doc_id="d",
    ...             name="Nat.Prime.two_le", body_latex="theorem Nat.Prime.two_le {p : ℕ} (hp : p.Prime) : 2 ≤ p",
    ...             meta={"lean_kind": "theorem", "module": "Mathlib.Data.Nat.Prime.Defs", "docstring": ""})
    >>> lean_slogan(t)
    'Natural number prime two less than or equal. Theorem in data, natural number, prime.
     If p prime, then 2 less than or equal to p.'
    """
    meta = theorem.meta or {}
    doc = docstring_text(meta.get("docstring") or "", variables=variables)
    summary = docstring_text(meta.get("summary") or "", variables=variables)
    statement = statement_words(theorem.text, meta.get("lean_kind", ""), variables=variables)
    body = " ".join(_sentence(part) for part in (doc, statement, summary) if part)
    words = body.split()
    if len(words) > max_words:
        body = " ".join(words[:max_words]).rstrip(",;:.") + " ..."
    if not context:
        return body
    name = name_words(theorem.name or theorem.id.split(":", 1)[-1])
    return " ".join(part for part in (_sentence(name), kind_words(theorem), body) if part)
