"""The names Lean gives anonymous instances, read off the source text.

Lean 4 (``Lean.Elab.DeclNameGen``, ``mkInstanceName``) names ``instance [Ring R] : Module R (Polynomial R)`` from
the elaborated type: ``inst``, then the last component of every constant of the conclusion (explicit arguments and
type arguments, each subterm only the first time it appears, prefixes of the current namespace never), then
``Of`` and the same for each binder nothing else depends on: ``instModulePolynomialOfRing``. A name that mentions
nothing of the project gets the project's suffix (``_mathlib``) and a taken name ``_1``, ``_2``...

Without elaboration the text is read as the elaborator would mostly see it: notation is mapped to its constants
(``ℝ`` is ``Real``, ``α × β`` is ``Prod``, ``M →ₗ[R] N`` is ``LinearMap (RingHom.id R)``), lower-case and bound
names are variables, and a variable whose type is a subobject (``H : Subgroup G``) is coerced to ``{x // x ∈ H}``.
Implicit arguments the elaborator would fill in are unseen, so some names differ; the parse report measures how many.

>>> lib = {"Module", "Polynomial"}
>>> instance_name("", "Module R (Polynomial R)", "[Ring R]", {}, known=lib)
'instModulePolynomialOfRing'
>>> instance_name("Polynomial", "Module R (Polynomial R)", "", {}, known=lib)
'Polynomial.instModule'
>>> instance_name("", "Inhabited (Option α)", "", {}, known=lib)
'instInhabitedOption_mathlib'
"""

from __future__ import annotations

import re
from collections.abc import Callable

from corpus_build.lean.syntax import Unbalanced, binder_groups, idents

Term = tuple
VAR: Term = ("v",)

# Notation onto the constants it elaborates to (infix: the constant applied to the left and right operands;
# a tuple of constants: the first applied to the others applied to a variable, as `LinearMap (RingHom.id R)`).
ATOMS = {"ℕ": "Nat", "ℤ": "Int", "ℚ": "Rat", "ℝ": "Real", "ℂ": "Complex", "ℝ≥0": "NNReal", "ℝ≥0∞": "ENNReal",
         "ℕ∞": "ENat", "ℕ+": "PNat", "ℍ": "Quaternion", "EReal": "EReal", "𝓘": "modelWithCornersSelf"}
INFIX = {
    "→+*": "RingHom", "→*₀": "MonoidWithZeroHom", "→*": "MonoidHom", "→+": "AddMonoidHom", "→ₙ+*": "NonUnitalRingHom",
    "≃+*": "RingEquiv", "≃*": "MulEquiv", "≃+": "AddEquiv", "≃o": "OrderIso", "→o": "OrderHom",
    "↪o": "OrderEmbedding", "≃ₜ": "Homeomorph", "≃ᵢ": "IsometryEquiv", "→ᵇ": "BoundedContinuousFunction",
    "↪": "Function.Embedding", "≃": "Equiv", "×": "Prod", "⊕": "Sum", "⟶": "Quiver.Hom", "⥤": "Functor",
    "≅": "Iso", "→ₐ": "AlgHom", "≃ₐ": "AlgEquiv", "⊗": "TensorProduct", "→ₗ": ("LinearMap", "RingHom.id"),
    "≃ₗ": ("LinearEquiv", "RingHom.id"), "→L": ("ContinuousLinearMap", "RingHom.id"),
    "→ₗᵢ": ("LinearIsometry", "RingHom.id"), "≃ₗᵢ": ("LinearIsometryEquiv", "RingHom.id"),
    "<": "LT.lt", "≤": "LE.le", "=": "Eq", "≠": "Ne", "∣": "Dvd.dvd", "∈": "Membership.mem", "+": "HAdd.hAdd",
    "*": "HMul.hMul", "•": "HSMul.hSMul", "^": "HPow.hPow", "-": "HSub.hSub", "/": "HDiv.hDiv",
}
RELATIONS = {"LT.lt", "LE.le", "Eq", "Ne", "Dvd.dvd", "HAdd.hAdd", "HMul.hMul", "HSub.hSub", "HDiv.hDiv"}
POSTFIX = {"ᵐᵒᵖ": "MulOpposite", "ᵃᵒᵖ": "AddOpposite", "ᵒᵈ": "OrderDual", "ᵒᵖ": "Opposite", "ˣ": "Units"}
# Types whose terms are coerced to a type as `{x // x ∈ S}` (Set: `Set.Elem`).
SUBOBJECT = re.compile(r"(?:Add|Star|Lie|NonUnital|Closed|Open)?Sub[a-z]\w*|Ideal|IntermediateField|Finset|Set|"
                       r"\w*Compacts|\w*Opens|Closeds|Clopens|Sylow|\w*Subgroup|\w*Submonoid|Flag")

_UNIVERSES = re.compile(r"\.\{[^{}]*\}")
_OPS = sorted(list(INFIX) + ["→", "->"], key=len, reverse=True)
_TOKEN = re.compile(
    r"(?P<open>[(\[{⟨⦃])|(?P<close>[)\]}⟩⦄])|(?P<sort>Type\*|Sort\*|Type\b|Sort\b|Prop\b)"
    r"|(?P<atom>ℝ≥0∞|ℝ≥0|ℕ∞|ℕ\+|[ℕℤℚℝℂℍ])|(?P<binder>[∀Π∃])|(?P<coe>[↥↑⇑])|(?P<pipe><\|)|(?P<sep>,|//|\||:=|:)"
    r"|(?P<op>" + "|".join(re.escape(o) for o in _OPS) + r")"
    r"|(?P<ident>@?[^\W\d][\w'.!?]*|«[^»]*»)|(?P<num>\d+)|(?P<other>\S)"
)


def _const(name: str) -> Term:
    return ("c", name)


def _app(f: Term, *args: Term) -> Term:
    for a in args:
        f = ("a", f, a)
    return f


class TermReader:
    """A small reader of Lean type expressions into :data:`Term` tuples (``("c", name)``, ``("a", f, x)``,
    ``("f", domain, body)``, ``("s", "Type")``, :data:`VAR`); ``types`` gives the declared type of each bound name.

    It also collects in ``needed`` the variables the elaborated term takes instances on: those passed where a
    constant has an instance parameter (``needs``: constant -> positions of such explicit arguments, names
    through ``resolve``), the operands of bundled maps and relations, coerced subobjects' types.
    """

    def __init__(self, types: dict[str, str], needs: dict[str, frozenset[int]] | None = None,
                 resolve: Callable[[str], str] = str) -> None:
        self.types, self.needs, self.resolve = types, needs or {}, resolve
        self.needed: set[str] = set()
        # Type variables with a `[SetLike S M]` (or `[...Class S M]`) instance: their terms are subobjects too.
        self.setlike = set(re.findall(r"(?:SetLike|[A-Z]\w*Class)\s+([^\W\d][\w']*)", types.get("[]", "")))

    def read(self, code: str, bound: frozenset[str] = frozenset()) -> Term:
        """The term of ``code``; a variable of a subobject type that the head constant takes stands for its type."""
        code = _UNIVERSES.sub("", code)
        toks = [(m.lastgroup, m.group()) for m in _TOKEN.finditer(code)]
        return self._expr(toks, bound, top=True)

    def _expr(self, toks: list, bound: frozenset[str], top: bool = False) -> Term:
        if not toks:
            return VAR
        if toks[0][0] == "binder":  # ∀ x y, body  /  ∀ x : T, body
            comma = _find_top(toks, lambda t: t == ("sep", ","))
            if comma is None:
                return VAR
            names = {v for k, v in toks[1:comma] if k == "ident"}
            body = self._expr(toks[comma + 1 :], bound | names)
            return ("f", VAR, body) if toks[0][1] != "∃" else _app(_const("Exists"), body)
        pipe = _find_top(toks, lambda t: t[0] == "pipe")  # f <| x is f x
        if pipe is not None:
            return _app(self._expr(toks[:pipe], bound), self._expr(toks[pipe + 1 :], bound))
        arrow = _find_top(toks, lambda t: t[0] == "op" and t[1] in ("→", "->"))
        if arrow is not None:
            left = toks[:arrow]
            if left and left[0][1] == "(" and _find_top(left[1:-1], lambda t: t == ("sep", ":")) is not None:
                names = {v for k, v in left[1:] if k == "ident"}  # (i : ι) → β i: dependent
                return ("f", VAR, self._expr(toks[arrow + 1 :], bound | names))
            return ("f", self._expr(left, bound), self._expr(toks[arrow + 1 :], bound))
        infix = _find_top(toks, lambda t: t[0] == "op")
        if infix is not None:
            op = INFIX[toks[infix][1]]
            rest = toks[infix + 1 :]
            if rest and rest[0][1] == "[":  # →ₗ[R]: the ring in brackets
                end = _find_top(rest, lambda t: t[1] == "]", nested=True)
                rest = rest[end + 1 :] if end is not None else rest[1:]
            head = _app(_const(op[0]), _app(_const(op[1]), VAR)) if isinstance(op, tuple) else _const(op)
            left = toks[:infix]
            if op in RELATIONS:  # @LE.le α _ a b: the operands' type is an (implicit) type argument
                head = _app(head, self._operand_type(left + rest))
            elif op not in ("Prod", "Sum"):  # M →ₗ[R] N needs instances on M, R and N
                self.needed |= {v for k, v in toks if k == "ident"}
            return _app(head, self._expr(left, bound), self._expr(rest, bound))
        return self._application(toks, bound, top)

    def _operand_type(self, toks: list) -> Term:
        """The type of the first operand that is a variable of known type (:data:`VAR` if none)."""
        for kind, tok in toks:
            if kind == "ident" and tok in self.types:
                self.needed |= idents(self.types[tok])
                return TermReader({}).read(self.types[tok])  # read alone: no type can lead back here
        return VAR

    def _application(self, toks: list, bound: frozenset[str], top: bool) -> Term:
        items: list[Term] = []
        names: list[set[str]] = []  # the names in each item, for the instances its position needs
        i = 0
        while i < len(toks):
            kind, tok = toks[i]
            if kind == "open":
                j = _matching(toks, i)
                inner = toks[i + 1 : j]
                if not (tok == "(" and _find_top(inner, lambda t: t == ("sep", ":=")) is not None):  # (x := e)
                    items.append(self._group(tok, inner, bound))
                    names.append({v for k, v in inner if k == "ident"})
                i = j + 1
                continue
            if tok == "." and items and i + 1 < len(toks) and toks[i + 1][0] == "ident":  # (f x).Foo
                items[-1] = _app(_const("?." + toks[i + 1][1]), items[-1])
                i += 2
                continue
            if kind == "coe" and i + 1 < len(toks) and toks[i + 1][0] == "ident":
                items.append(self._coerced(toks[i + 1][1]) if tok == "↥" else self._ident(toks[i + 1][1], bound))
                names.append({toks[i + 1][1]})
                i += 2
                continue
            names.append({tok} if kind == "ident" else set())
            if kind == "sort":
                items.append(("s", "Prop" if tok == "Prop" else tok.rstrip("*")))
                if tok in ("Type", "Sort") and i + 1 < len(toks) and toks[i + 1][0] in ("ident", "other", "num"):
                    i += 1  # the universe
            elif kind == "atom":
                items.append(_const(ATOMS[tok]))
            elif kind == "ident":
                coerce = top and bool(items) and items[0][0] == "c" and tok in self.types and tok not in bound
                items.append(self._coerced(tok) if coerce and self._subobject(tok) else self._ident(tok, bound))
                if i + 1 < len(toks) and toks[i + 1] == ("open", "[") and toks[i + 2 : i + 4] == [
                        ("ident", "X"), ("close", "]")]:
                    items[-1] = _app(_const("Polynomial"), items[-1])
                    i += 3
            elif kind == "num":
                items.append(_app(_const("OfNat.ofNat"), _const("Nat")))
            else:
                names.pop()
            i += 1
        if not items:
            return VAR
        head, args = items[0], items[1:]
        if head == VAR:
            return VAR
        if head[0] == "c":
            for k in self.needs.get(self.resolve(head[1]), ()):
                if k < len(args):
                    self.needed |= names[k + 1]
        return _app(head, *args)

    def _group(self, bracket: str, inner: list, bound: frozenset[str]) -> Term:
        if bracket == "(":
            return self._expr(inner, bound)
        if bracket == "{":
            sep = _find_top(inner, lambda t: t[1] in ("//", "|"))
            if sep is None:
                return VAR
            names = {v for k, v in inner[:sep] if k == "ident"}
            body = self._expr(inner[sep + 1 :], bound | names)
            return _app(_const("Subtype" if inner[sep][1] == "//" else "setOf"), body)
        return VAR

    def _ident(self, tok: str, bound: frozenset[str]) -> Term:
        name = tok.lstrip("@")
        for post, const in POSTFIX.items():
            if name.endswith(post) and len(name) > len(post):
                return _app(_const(const), self._ident(name[: -len(post)], bound))
        if name in ATOMS:
            return _const(ATOMS[name])
        if name in bound or name in self.types or _looks_bound(name):
            return VAR
        first, _, rest = name.partition(".")
        if rest and (first in bound or first in self.types or _looks_bound(first)):
            field = rest.rsplit(".", 1)[-1]
            if field.isdigit():  # x.1: a projection the text cannot name
                return VAR
            return _app(_const("?." + field), VAR)  # x.foo: generalized field notation
        return _const(name)

    def _subobject(self, name: str) -> bool:
        head = _head(self.types[name])
        return bool(SUBOBJECT.fullmatch(head)) or head in self.setlike

    def _coerced(self, name: str) -> Term:
        """``↥S`` for ``S`` of the declared type: ``Set.Elem S`` for a set, else ``{x // x ∈ S}``."""
        head = _head(self.types.get(name, ""))
        self.needed |= idents(self.types.get(name, ""))
        if head == "Set":
            return _app(_const("Set.Elem"), VAR)
        typ = self.read(self.types[name]) if name in self.types else VAR
        return _app(_const("Subtype"), _app(_const("Membership.mem"), typ, VAR, VAR))


def _head(type_code: str) -> str:
    m = re.match(r"\s*@?([^\W\d][\w'.!?]*)", type_code)
    return m.group(1).rsplit(".", 1)[-1] if m else ""


def _looks_bound(name: str) -> bool:
    """A name that can only be a variable (auto-bound or from a section): ``α``, ``R``, ``M₁``, ``n'``."""
    core = name.rstrip("'₀₁₂₃₄₅₆₇₈₉")
    return len(core) <= 1 or (len(core) == 2 and core[1].isdigit())


def _matching(toks: list, i: int) -> int:
    depth = 0
    for j in range(i, len(toks)):
        if toks[j][0] == "open":
            depth += 1
        elif toks[j][0] == "close":
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


def _find_top(toks: list, pred: Callable, nested: bool = False) -> int | None:
    """The first token at depth 0 (``nested``: at depth 1, closing) satisfying ``pred``."""
    depth = 0
    for j, t in enumerate(toks):
        if t[0] == "close" and nested and depth == 1 and pred(t):
            return j
        if t[0] == "open":
            depth += 1
        elif t[0] == "close":
            depth -= 1
        elif depth == 0 and pred(t):
            return j
    return None


class _Namer:
    """``mkBaseNameCore``: each subterm named once, constants by their capitalized last component."""

    def __init__(self, seen: set, resolve: Callable[[str], str]) -> None:
        self.seen, self.resolve, self.consts = seen, resolve, set()

    def visit(self, e: Term, omit_top_forall: bool = False) -> str:
        if e[0] == "c":
            e = ("c", self.resolve(e[1]))
        if e in self.seen:
            return ""
        s = self._visit(e, omit_top_forall)
        self.seen.add(e)
        return s

    def _visit(self, e: Term, omit: bool) -> str:
        kind = e[0]
        if kind == "c":
            self.consts.add(e[1])
            last = e[1].rsplit(".", 1)[-1]
            return last[:1].upper() + last[1:] if last[:1].isascii() else last
        if kind == "a":
            return self.visit(e[1]) + self.visit(e[2])
        if kind == "f":
            sty = self.visit(e[1])
            if omit and not sty:
                return self.visit(e[2], True)
            return "Forall" + sty + self.visit(e[2])
        if kind == "s":
            return e[1]
        return ""


def name_suffixes(known: set[str]) -> set[str]:
    """Every dotted tail of every name (``A.B.c`` gives ``A.B.c``, ``B.c``, ``c``): a written name found here
    probably means one of the project's declarations even where the opens that resolve it are unknown."""
    out: set[str] = set()
    for name in known:
        parts = name.split(".")
        out.update(".".join(parts[k:]) for k in range(len(parts)))
    return out


def instance_needs(params: list[tuple[str, tuple[str, ...], str]]) -> frozenset[int]:
    """The positions of a constant's explicit parameters that some instance parameter mentions, from its binders
    ``(bracket, names, type)``: an argument passed there makes the elaborator use an instance on it.

    >>> sorted(instance_needs([("(", ("R",), "Type*"), ("(", ("M",), "Type*"), ("[", (), "Semiring R")]))
    [0]
    """
    explicit = [n for bracket, names, _ in params if bracket == "(" for n in names]
    wanted = set().union(*(idents(t) for bracket, _, t in params if bracket == "[")) if params else set()
    return frozenset(k for k, n in enumerate(explicit) if n in wanted)


def instance_name(namespace: str, type_code: str, binders_code: str, types: dict[str, str], *, known: set[str],
                  opens: tuple[str, ...] = (), suffixes: set[str] | None = None,
                  needs: dict[str, frozenset[int]] | None = None, project: str = "mathlib") -> str:
    """The full name Lean gives ``instance binders : type`` in ``namespace`` (code is masked source).

    ``types`` are the declared types of the variables in force, ``opens`` the namespaces opened; ``known`` every
    name the project declares: it resolves constants, a name that mentions none of them gets ``_<project>``, and a
    taken name a number. ``suffixes`` (:func:`name_suffixes` of ``known``) tells a project name that did not
    resolve; ``needs`` (:func:`instance_needs` of each constant) tells which instance binders the elaborated
    type uses, and those are dependent binders, not named.
    """
    parts = namespace.split(".") if namespace else []
    prefixes = [".".join(parts[:k]) for k in range(1, len(parts) + 1)]

    def resolve(name: str) -> str:
        if name.startswith("_root_."):
            return name[len("_root_.") :]
        for p in list(reversed(prefixes)) + list(opens):
            if f"{p}.{name}" in known:
                return f"{p}.{name}"
        return name

    try:
        groups = binder_groups(binders_code)
    except Unbalanced:
        groups = []
    own = {n: b.type for b in groups for n in b.names}
    reader = TermReader({**types, **own}, needs, resolve)
    namer = _Namer({("c", p) for p in prefixes}, resolve)
    name = namer.visit(reader.read(type_code))
    ofs = []
    later = idents(type_code)
    for b in reversed(groups):  # the conclusion first, then the binders from the last, as Lean visits them
        dependent = bool(set(b.names) & later)
        if b.bracket == "[":  # an instance binder the elaborated type uses is a dependent one too
            dependent = dependent or bool(idents(b.type) & reader.needed)
        term = reader.read(b.type)
        for _ in b.names or ("",):
            part = "" if dependent else namer.visit(term, omit_top_forall=True)
            ofs.append("Of" + part if part else "")
        later |= idents(b.type)
    base = "inst" + name + "".join(reversed(ofs))
    local = any(c in known or (suffixes is not None and c in suffixes) for c in namer.consts)
    local = local or any(p in known for p in prefixes)
    if not local:
        base += f"_{project}"
    full = f"{namespace}.{base}" if namespace else base
    candidate, k = full, 0
    while candidate in known:
        k += 1
        candidate = f"{full}_{k}"
    return candidate

