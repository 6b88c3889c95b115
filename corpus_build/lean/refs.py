"""The declarations a proof or body names: "uses / used by" for Lean, resolved as Lean resolves names.

Each file is read on its own: :func:`mentions` lists the names a body writes (masked code, so comments and strings
never count), leaving out what Lean would not look up as a global name: local variables (binders of the statement
and the ones the body binds: ``fun x``, ``intro x``, ``obtain ⟨x, hx⟩``, match arms...), keywords, a tactic where a
tactic stands (``ext`` after ``by`` is the tactic, not ``Subgroup.ext``), a field or argument being assigned
(``toFun :=``), and dotted access on a value (``hp.two_le``, ``(f x).le``): which declaration ``.two_le`` means
depends on the type of ``hp``, which only elaboration knows, so it is skipped, and so is ``.inl`` (the expected
type's). Then :class:`Library`, with every declared name at hand, finds what a name means where it is written
(Lean 4's ``ResolveName.resolveGlobalName``): the enclosing namespaces innermost first, then the root and the
``open``ed namespaces, ``_root_.`` from the top, a ``protected`` declaration only by a name with a dot; a dotted
name that resolves nowhere is tried again without its last part, which is then a projection
(``Nat.prime_two.two_le`` uses ``Nat.prime_two``).

>>> known = {"Nat.Prime", "Nat.Prime.two_le", "Nat.prime_two", "Nat.le_of_lt", "le_refl"}
>>> names = mentions("fun hp => (Nat.prime_two.two_le.trans (le_of_lt hp.two_le)).le", {"p"})
>>> names
('Nat.prime_two.two_le.trans', 'le_of_lt')
>>> [Library(known).resolve(n, "Nat.Prime", ()) for n in names]
[('Nat.prime_two',), ('Nat.le_of_lt',)]
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # decls reads mentions from here
    from corpus_build.lean.decls import LeanFile

_NAME = re.compile(r"@?([^\W\d][\w'!?]*(?:\.[^\W\d][\w'!?]*)*)(\s*:=(?!=))?")
# Lean keywords and words of its term and tactic syntax that are never a declaration's name.
KEYWORDS = frozenset(
    "fun λ by at with only using from have show let if then else do match calc this in Type Sort Prop where deriving "
    "termination_by decreasing_by suffices return for mut unless open set_option local scoped haveI letI nomatch "
    "nofun sorry True False Π Σ".split()
)  # fmt: skip
# Tactics whose names are also names of declarations somewhere (Foo.ext, Equiv.symm, Set.mono, ...): at a tactic's
# place they are the tactic.
TACTICS = frozenset(
    "ext funext congr congr! rfl symm trans left right constructor use exists existsi apply exact refine refine' "
    "intro intros rintro cases rcases obtain induction induction' cases' split split_ifs lift choose set mono "
    "gcongr convert subst unfold change contradiction absurd exfalso trivial decide simp simp_all simpa dsimp rw "
    "rwa erw nth_rw simp_rw norm_num ring ring_nf field_simp linarith nlinarith positivity omega abel group module "
    "norm_cast push_cast exact_mod_cast push_neg by_contra by_cases specialize generalize clear revert rename_i "
    "assumption infer_instance aesop tauto continuity measurability fun_prop filter_upwards bound nontriviality "
    "subsingleton classical inhabit next case all_goals any_goals repeat iterate first try focus swap "
    "apply_fun calc conv".split()
)  # fmt: skip
# Where a tactic stands: first thing of a line, after `by`, `;`, `<;>`, `·`, `=>`, `|` or a tactic combinator.
_TACTIC_PLACE = re.compile(r"(?:^|[\n;·|]|=>|<;>|<\|>|\b(?:by|try|all_goals|any_goals|repeat|focus|first))[ \t]*$")
_BY = re.compile(r"\bby\b")
# Where a body binds names. Each pattern's group is a stretch of binders; type ascriptions in it (`(x : Finset α)`)
# are cut out before its names are read, and it stops where a term could start, so that a name it reads is a local.
_BINDERS = re.compile(
    r"\b(?:fun|λ|intro|intros|rintro|ext|funext|rename_i|next|case|have|haveI|let|letI|set|obtain)\b"
    r"((?:[^\n=↦:;]|:(?!=))*)"  # up to => ↦ := = ;
    r"|(?:\b(?:by_cases|by_contra|generalize)\b|[∀∃∑∏⋃⋂⨆⨅])"
    r"([^\n=↦:,;∈∉<>≤≥≠⊆⊂]*)"  # up to : , or a relation
    r"|\bwith\b((?:[^\n=↦:;]|:(?!=))*)|\bchoose\b((?:(?!\busing\b)[^\n;])*)"
    r"|^[ \t]*\|([^\n]*?)(?:=>|↦)", re.M)  # fmt: skip
# A field defined in a `where` block, with binders or not (`continuous_mul_const {_} := ...`, `map_add' x y := ...`).
_FIELD = re.compile(r"^[ \t]*([^\W\d][\w'!?]*)((?:[ \t]*(?:\([^()\n]*\)|\{[^{}\n]*\}|\[[^\[\]\n]*\]|⦃[^⦃⦄\n]*⦄)"
                    r"|[ \t]+[^\W\d][\w'!?]*)*)[ \t]*:=(?!=)", re.M)  # fmt: skip
_ASCRIPTION = re.compile(r":[^()\[\]{}⟨⟩⦃⦄]*")
_IDENT = re.compile(r"[^\W\d][\w'!?]*")


def bound_names(code: str) -> set[str]:
    """The names a body binds for itself (scopes ignored: a name bound anywhere in it counts everywhere).

    >>> sorted(bound_names("fun ⟨x, hx⟩ => by obtain ⟨y, rfl⟩ := hx; exact foo y\\n  | succ n ih => ih"))
    ['hx', 'ih', 'n', 'rfl', 'succ', 'x', 'y']
    """
    out: set[str] = set()
    for m in _BINDERS.finditer(code):
        span = next(g for g in m.groups() if g is not None)
        out.update(n for n in _IDENT.findall(_ASCRIPTION.sub(" ", span)) if n not in KEYWORDS)
    return out


def mentions(code: str, bound: Iterable[str] = ()) -> tuple[str, ...]:
    """The names the masked body ``code`` writes that Lean looks up among declarations, in order of first use
    (see the module docs for what is left out); ``bound`` are the local names of the statement.

    >>> mentions("by\\n  ext x\\n  simp [Subgroup.ext_iff, mul_comm] at hx ⊢\\n  exact ⟨toFun := f, le_rfl⟩",
    ...          {"f", "hx"})
    ('Subgroup.ext_iff', 'mul_comm', 'le_rfl')
    """
    local = set(bound) | bound_names(code)
    fields = set()
    for f in _FIELD.finditer(code):  # the field's name is no reference, its binders are locals
        fields.add(f.start(1))
        local.update(_IDENT.findall(_ASCRIPTION.sub(" ", f.group(2))))
    first_by = m.start() if (m := _BY.search(code)) else len(code)
    out: dict[str, None] = {}
    for m in _NAME.finditer(code):
        name, start = m.group(1), m.start()
        if m.group(2) or name == "_" or start in fields or (start and code[start - 1] == "."):
            continue
        head = name.split(".", 1)[0]
        if head in local or head in KEYWORDS:
            continue
        if name.rstrip("!?") in TACTICS and start >= first_by and _TACTIC_PLACE.search(code, max(0, start - 24), start):
            continue
        out.setdefault(name, None)
    return tuple(out)


class Library:
    """Every name the library declares, indexed by last part, to resolve the names its bodies write (see the
    module docs for the rules); ``protected`` names are reached only by a name with a dot.

    >>> lib = Library({"Foo.bar", "bar", "Baz.qux", "Foo.prot", "Foo", "Foo.baz"}, protected={"Foo.prot"})
    >>> lib.resolve("bar", "Foo.Inner", ()), lib.resolve("_root_.bar", "Foo", ()), lib.resolve("qux", "", ("Baz",))
    (('Foo.bar',), ('bar',), ('Baz.qux',))
    >>> lib.resolve("prot", "Foo", ()), lib.resolve("bar.symm", "", ()), lib.resolve("Foo.baz_apply", "", ())
    ((), ('bar',), ())
    """

    def __init__(self, known: Iterable[str], protected: Iterable[str] = ()) -> None:
        self.known = set(known)
        self.protected = set(protected)
        self.by_last: dict[str, list[str]] = {}
        self.namespaces: set[str] = set()
        for n in self.known:
            self.by_last.setdefault(n.rpartition(".")[2], []).append(n)
            i = n.rfind(".")
            while i > 0 and n[:i] not in self.namespaces:
                self.namespaces.add(n[:i])
                i = n.rfind(".", 0, i)

    def _reaches(self, full: str, name: str) -> bool:
        return full in self.known and ("." in name or full not in self.protected)

    def lookup(self, name: str, scopes: list[str], opened: dict[str, int]) -> tuple[str, ...]:
        """What ``name`` means as written: the innermost enclosing namespace (``scopes``) that has it, else the
        root and the opened namespaces (``opened``, in order) that have it: several is an overload."""
        for scope in scopes:
            if self._reaches(f"{scope}.{name}", name):
                return (f"{scope}.{name}",)
        found = [name] if self._reaches(name, name) else []
        same_last = self.by_last.get(name.rpartition(".")[2], ())
        if len(same_last) > len(opened):
            return tuple(found + [f"{o}.{name}" for o in opened if self._reaches(f"{o}.{name}", name)])
        tail = "." + name  # fewer declarations end as it does than namespaces are open: look among those
        found += sorted((f for f in same_last if f.endswith(tail) and f[: -len(tail)] in opened
                         and self._reaches(f, name)), key=lambda f: opened[f[: -len(tail)]])  # fmt: skip
        return tuple(found)

    def resolve(self, name: str, namespace: str, opens: tuple[str, ...]) -> tuple[str, ...]:
        """The declarations ``name``, written in ``namespace`` with ``opens`` in force, may mean, or ``()``."""
        return self.resolver(namespace, opens)(name)

    def resolver(self, namespace: str, opens: tuple[str, ...]):
        """:meth:`resolve` for one place (namespace and ``open``s), remembering what it found."""
        parts = namespace.split(".") if namespace else []
        scopes = [".".join(parts[:k]) for k in range(len(parts), 0, -1)]
        # `open A` inside namespace N opens N.A if there is one, else A.
        opened: dict[str, int] = {}
        for ns in (f"{s}.{o}" if s else o for o in opens for s in [*scopes, ""]):
            opened.setdefault(ns, len(opened))
        memo: dict[str, tuple[str, ...]] = {}

        def resolve(name: str) -> tuple[str, ...]:
            if name not in memo:
                memo[name] = self._resolve(name, scopes, opened)
            return memo[name]

        return resolve

    def _resolve(self, name: str, scopes: list[str], opened: dict[str, int]) -> tuple[str, ...]:
        if name.startswith("_root_."):
            return (name[len("_root_.") :],) if name[len("_root_.") :] in self.known else ()
        found = self.lookup(name, scopes, opened)
        while not found and "." in name:
            name = name.rpartition(".")[0]  # the last part is a projection of what the rest names
            found = self.lookup(name, scopes, opened)
            # ... unless what the rest names is a namespace too: `Equiv.Set.foo_apply` is then a name of `Equiv`
            # the library lacks (what `@[simps]` generates, core's), not a field of `Equiv`
            if any(f in self.namespaces for f in found):
                return ()
        return found


def body_namespace(name: str, namespace: str) -> str:
    """The namespace a declaration's body is read in: Lean elaborates ``def A.b`` inside ``namespace A``.

    >>> body_namespace("Nat.Prime.two_le", ""), body_namespace("foo", "Bar")
    ('Nat.Prime', 'Bar')
    """
    prefix = name.rpartition(".")[0]
    return prefix if prefix.startswith(namespace) else namespace


def resolve_references(files: list[LeanFile], counts: Counter) -> None:
    """Give every declaration the full names of the declarations its body names (``refs``; itself left out); an
    alias refers to its target. What ``@[to_additive]`` and ``@[to_dual]`` generate has no text of its own: no refs
    (the declarations that name it use it all the same)."""
    lib = Library((d.name for f in files for d in f.decls if d.name),
                  (d.name for f in files for d in f.decls if "protected" in d.modifiers))  # fmt: skip
    resolvers: dict[tuple[str, tuple[str, ...]], Callable[[str], tuple[str, ...]]] = {}
    for f in files:
        for d in f.decls:
            if "generated" in d.extra:
                continue
            if "alias_of" in d.extra:
                d.refs = (d.extra["alias_of"],)
            elif d.mentions:
                place = (body_namespace(d.name, d.namespace), d.opens)
                resolve = resolvers.get(place) or resolvers.setdefault(place, lib.resolver(*place))
                refs = dict.fromkeys(r for n in d.mentions for r in resolve(n))
                refs.pop(d.name, None)
                d.refs = tuple(refs)
            counts["declarations with references"] += bool(d.refs)
            counts["references"] += len(d.refs)
