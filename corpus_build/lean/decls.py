"""One Lean file's declarations: commands walked with their namespaces, sections, variables and visibility.

Names are what Lean makes of the text: the enclosing ``namespace``s in front of the declared name (dotted names
kept), ``_root_.`` resetting them, ``private`` declarations (and, in a ``module``, those neither ``public`` nor
inside a ``public section``) left out as no user sees them. The statement printed for a declaration puts the
section ``variable``s it mentions in front of its own binders (with Lean's rule: a variable whose name it uses, then
every instance binder whose variables are all in), so it reads on its own.

>>> f = read_file("module\\npublic section\\nnamespace Nat\\nvariable {n : ℕ} [Fact n.Prime]\\n"
...               "/-- A doc. -/\\ntheorem two_le : 2 ≤ n := sorry\\nend Nat\\n", "Mathlib/X.lean")
>>> [(d.name, d.kind, d.line, d.doc) for d in f.decls]
[('Nat.two_le', 'theorem', 6, 'A doc.')]
>>> f.decls[0].statement
'theorem Nat.two_le {n : ℕ} [Fact n.Prime] : 2 ≤ n'
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from corpus_build.lean.fields import members
from corpus_build.lean.lexer import Masked, commands, mask
from corpus_build.lean.refs import mentions
from corpus_build.lean.syntax import (OPEN, Binder, Header, Unbalanced, binder_groups, binder_text, close_of,
                                      idents, read_header, split_top, used_variables)

_SECTION = re.compile(r"(?:@\[[^\]]*\]\s*)?((?:(?:public|noncomputable|meta|private)\s+)*)section\b[ \t]*([^\s]*)")
_PREFIX = re.compile(r"(open|set_option|variable|include|omit|attribute|unseal|seal|suppress_compilation)\b")
_WORD = re.compile(r"[^\W\d][\w'.!?]*|«[^»]*»|\S")
_ALIAS = re.compile(r"alias\s+(⟨[^⟩]*⟩|\S+)\s*:=\s*(\S+)")
_IN = re.compile(r"[()\[\]{}⟨⟩⦃⦄⟦⟧⁅⁆]|\bin\b")
# Declarations whose body is their fields or constructors (part of the statement), not a proof or value.
_TYPES = frozenset({"structure", "class", "inductive", "class inductive"})
# Commands that open or close a scope, add variables or attributes, or say nothing about declarations.
_SCOPE_WORDS = frozenset({"namespace", "end", "mutual", "variable", "include", "attribute", "universe", "open",
                          "insert_to_additive_translation", "module", "import"})


@dataclass
class Scope:
    """An open ``namespace``, ``section`` or ``mutual`` block and what it brings: variables (an update such as
    ``variable {α}`` replaces the variable's binder where it stands), ``include``s, ``open``ed namespaces."""

    kind: str
    name: str = ""
    public: bool = False
    variables: list[Binder] = field(default_factory=list)
    includes: set[str] = field(default_factory=set)
    opens: list[str] = field(default_factory=list)


@dataclass
class LeanDecl:
    """One declaration as read from the text (``name`` is ``""`` for an anonymous instance until it is named).

    ``statement`` is the keyword, full name, variables in force, binders and type; for a structure, class or
    inductive type it goes on with its fields or constructors, and ``body`` is empty. ``namespace`` is where it was
    declared; ``binders_code``/``type_code`` (masked) and ``scope_types`` (the declared type of every binder and
    variable in force, by name, and the instance binders' types under ``"[]"``) are what
    :mod:`corpus_build.lean.instances` names anonymous instances from;
    ``opens`` are the namespaces opened where it stands; ``params`` the binders (bracket, names, type) of a
    declaration that is no theorem, variables included; ``alias_of`` is an alias's target as written; ``extra``
    what the whole library adds (:mod:`corpus_build.lean.library`: a generated name, the source of a translation);
    ``mentions`` the names its proof or body writes and ``refs`` the declarations they resolve to in the library
    (:mod:`corpus_build.lean.refs`).
    """

    name: str
    kind: str
    line: int
    namespace: str
    statement: str
    body: str = ""
    doc: str | None = None
    attributes: list[str] = field(default_factory=list)
    modifiers: frozenset[str] = frozenset()
    binders_code: str = ""
    type_code: str = ""
    scope_types: dict[str, str] = field(default_factory=dict)
    opens: tuple[str, ...] = ()
    params: tuple[tuple[str, tuple[str, ...], str], ...] = ()
    alias_of: str = ""
    extra: dict = field(default_factory=dict)
    mentions: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()


@dataclass
class AttributeCommand:
    """``attribute [attrs] names``: attributes given to declarations after the fact (``to_additive`` among them)."""

    attributes: list[str]
    names: list[str]
    namespace: str
    line: int


@dataclass
class LeanFile:
    """What one file holds: its declarations, ``attribute`` commands and namespace translations, module title and
    documentation, and counts of what was left out or could not be read (``problems`` with their lines)."""

    path: str
    decls: list[LeanDecl] = field(default_factory=list)
    attribute_commands: list[AttributeCommand] = field(default_factory=list)
    translations: list[tuple[str, str]] = field(default_factory=list)
    title: str = ""
    module_doc: str = ""
    is_module: bool = False
    skipped: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _dedent(text: str) -> str:
    lines = text.splitlines()
    pad = min((len(x) - len(x.lstrip()) for x in lines[1:] if x.strip()), default=0)
    return "\n".join([lines[0]] + [x[pad:] for x in lines[1:]]).strip() if lines else ""


def full_name(namespace: str, name: str) -> str:
    """The declared ``name`` in ``namespace``: ``_root_.`` starts from the top.

    >>> full_name("Foo", "Bar.baz"), full_name("Foo", "_root_.baz")
    ('Foo.Bar.baz', 'baz')
    """
    if name.startswith("_root_."):
        return name[len("_root_.") :]
    return f"{namespace}.{name}" if namespace else name


class FileReader:
    """Walks one file's commands, keeping the scope stack; :func:`read_file` is the way in."""

    def __init__(self, text: str, path: str) -> None:
        self.m: Masked = mask(text)
        self.out = LeanFile(path, problems=list(self.m.problems))
        self.out.is_module = re.match(r"\s*module\b", self.m.code) is not None
        self.scopes: list[Scope] = [Scope("file", public=not self.out.is_module)]
        if self.m.module_docs:
            self.out.module_doc = self.m.module_docs[0]
            title = re.search(r"^#\s+(.+)$", self.out.module_doc, re.M)
            self.out.title = title.group(1).strip() if title else ""

    @property
    def namespace(self) -> str:
        return ".".join(s.name for s in self.scopes if s.kind == "namespace")

    def variables(self) -> tuple[list[Binder], set[str]]:
        """The variables in force, in order, each name bound once (an update takes the place of its binder), and
        the names ``include``d."""
        out: list[Binder] = []
        includes: set[str] = set()
        for s in self.scopes:
            for b in s.variables:
                old = next((k for k, o in enumerate(out) if b.names and set(b.names) & set(o.names)), None)
                if old is None:
                    out.append(b)
                    continue
                kept = tuple(n for n in out[old].names if n not in b.names)
                rest = [Binder(out[old].bracket, kept, out[old].type, binder_text(out[old].bracket, kept,
                                                                                   out[old].type))] if kept else []
                out[old : old + 1] = rest + [b]
            includes |= s.includes
        return out, includes

    def opens(self) -> tuple[str, ...]:
        return tuple(o for s in self.scopes for o in s.opens)

    def run(self) -> LeanFile:
        for cmd in commands(self.m):
            try:
                self.command(cmd.start, cmd.end, cmd.line)
            except Unbalanced as e:
                self.out.problems.append(f"line {cmd.line}: {e}")
                self.out.skipped["unbalanced brackets"] += 1
            except RecursionError:  # pragma: no cover - pathological nesting
                self.out.problems.append(f"line {cmd.line}: nesting too deep")
        if len(self.scopes) > 1 and any(s.kind == "namespace" for s in self.scopes):
            self.out.problems.append(f"end of file: {len(self.scopes) - 1} scope(s) never closed")
        return self.out

    def command(self, start: int, end: int, line: int) -> None:
        code = self.m.code
        local = Scope("prefix")  # what `variable ... in` and `include ... in` give to this command only
        i = start
        while (p := _PREFIX.match(code, _skip(code, i, end), end)) and (stop := _in_end(code, p.start(), end)):
            body = self.m.clean[p.end() : stop - 2]
            if p.group(1) == "variable":
                self._add_variables(local, body, code[p.end() : stop - 2])
            elif p.group(1) == "include":
                local.includes |= set(body.split())
            elif p.group(1) == "open":
                local.opens += _opened(body)
            i = stop
        i = _skip(code, i, end)
        word = _WORD.match(code, i, end)
        if _SECTION.match(code, i, end):
            self.structure("section", i, end, line)
            return
        if word and word.group() in _SCOPE_WORDS:
            self.structure(word.group(), i, end, line)
            return
        self.scopes.append(local)
        try:
            self.declaration(i, end, line)
        finally:
            self.scopes.pop()

    def structure(self, word: str, i: int, end: int, line: int) -> None:
        """A command that opens or closes a scope, adds variables or attributes, or is ignored."""
        text, code = self.m.clean, self.m.code
        rest = text[i + len(word) : end].strip()
        if word == "namespace":  # `namespace A.B` opens `A` then `B`: `end B` and `end A` close them
            for part in (rest.split()[0] if rest else "").split("."):
                self.scopes.append(Scope("namespace", part, self.scopes[-1].public))
        elif word == "section":
            m = _SECTION.match(code, i, end)
            public = "public" in m.group(1) or self.scopes[-1].public
            self.scopes.append(Scope("section", m.group(2), public))
        elif word == "mutual":
            self.scopes.append(Scope("mutual", "", self.scopes[-1].public))
        elif word == "end":
            self._end(rest.split()[0] if rest else "", line)
        elif word == "variable":
            self._add_variables(self.scopes[-1], rest, code[i + len(word) : end].strip())
        elif word == "include":
            self.scopes[-1].includes |= set(rest.split())
        elif word == "open":
            self.scopes[-1].opens += _opened(rest)
        elif word == "attribute":
            self._attribute(i + len(word), end, line)
        elif word == "insert_to_additive_translation":
            parts = rest.split()
            if len(parts) >= 2:
                self.out.translations.append((parts[0], parts[1]))

    def _end(self, name: str, line: int) -> None:
        """``end``, ``end B`` or ``end A.B``: close the innermost scopes of that name (one per name part)."""
        for parts in ([name], name.split(".")) if "." in name else ([name],):
            for k in range(len(self.scopes) - len(parts), 0, -1):
                open_ = self.scopes[k : k + len(parts)]
                if all(s.kind != "file" and (s.name == p or s.kind == "mutual") for s, p in zip(open_, parts)):
                    if k + len(parts) != len(self.scopes):
                        self.out.problems.append(f"line {line}: `end {name}` closes scopes left open")
                    del self.scopes[k:]
                    return
        self.out.problems.append(f"line {line}: `end {name}` closes nothing")
        self.out.skipped["unmatched end"] += 1

    def _add_variables(self, scope: Scope, text: str, code: str) -> None:
        known = {n: b for b in self.variables()[0] for n in b.names}
        for b in binder_groups(text, code):
            if b.type or not b.names:
                scope.variables.append(b)
                continue
            for n in b.names:  # `variable {α}`: the same variable, another binder
                old = known.get(n)
                if old is not None:
                    scope.variables.append(Binder(b.bracket, (n,), old.type, binder_text(b.bracket, (n,), old.type)))

    def _attribute(self, i: int, end: int, line: int) -> None:
        code, text = self.m.code, self.m.clean
        i = _skip(code, i, end)
        if not code.startswith("[", i):
            return
        j = close_of(code, i, end)
        attrs = split_top(text[i + 1 : j - 1], code[i + 1 : j - 1])
        names = [n for n in text[j:end].split() if n != "in"]
        self.out.attribute_commands.append(AttributeCommand(attrs, names, self.namespace, line))

    def declaration(self, i: int, end: int, line: int) -> None:
        """A declaration (or an alias, or a command that declares nothing, counted) of ``[i, end)``."""
        text, code = self.m.clean, self.m.code
        h = read_header(text, code, i, end)
        decl_line = line + text.count("\n", i, h.keyword_offset)
        if not h.keyword:
            alias = _ALIAS.match(code, h.keyword_offset, end)
            if alias:
                self._alias(h, alias, decl_line)
            elif not re.match(r"import\b|/-!", code[h.keyword_offset : h.keyword_offset + 6]):
                self.out.skipped["other commands (notation, syntax, macros...)"] += 1
            return
        if h.keyword == "example":
            self.out.skipped["example"] += 1
            return
        if not self._visible(h):
            return
        if h.name is None and h.keyword != "instance":
            self.out.problems.append(f"line {decl_line}: {h.keyword} without a name")
            self.out.skipped["no name"] += 1
            return
        variables, includes = self.variables()
        mentioned = idents(h.code_binders) | idents(h.code_type)
        own = binder_groups(h.binders, h.code_binders)
        rebound = {n for b in own for n in b.names}  # a binder of its own hides the variable of the same name
        visible = [b for b in variables if not rebound.intersection(b.names)]
        chosen = used_variables(visible, mentioned - rebound, includes - rebound)
        name = full_name(self.namespace, h.name) if h.name else ""
        kind = "def" if h.keyword == "irreducible_def" else h.keyword
        body = "" if kind in _TYPES else self.m.code[h.body_offset : end]
        names = mentions(body, {n for b in variables + own for n in b.names}) if body else ()
        self.out.decls.append(LeanDecl(
            name=name, kind=kind, line=decl_line, namespace=self.namespace,
            statement=self._statement(h, kind, name, chosen), body=self._body(h, kind),
            doc=self.m.docs.get(h.doc_offset) if h.doc_offset is not None else None,
            attributes=h.attributes, modifiers=frozenset(h.modifiers),
            binders_code=h.code_binders if h.keyword == "instance" else "",
            type_code=h.code_type if h.keyword == "instance" else "",
            scope_types=_scope_types(variables + own) if h.keyword == "instance" else {},
            opens=self.opens() if h.keyword == "instance" or h.attributes or names else (), mentions=names,
            params=() if kind in ("theorem", "lemma") else tuple((b.bracket, b.names, b.type) for b in chosen + own),
        ))
        if kind in _TYPES and h.separator in ("where", "|"):
            self._members(self.out.decls[-1], h.body, line + text.count("\n", i, h.body_offset))

    def _members(self, owner: LeanDecl, body: str, line: int) -> None:
        """The fields or constructors of ``owner``: declarations of their own (``GCDMonoid.gcd``)."""
        for m in members(body, "inductive" if "inductive" in owner.kind else "structure"):
            if m.private:
                continue
            name = f"{owner.name}.{m.name}"
            typ = (" " if m.type[:1] in ("(", "[", "{", "⦃") else " : ") + m.type if m.type else ""
            self.out.decls.append(LeanDecl(
                name=name, kind=m.kind, line=line + m.line, namespace=owner.name, statement=f"{m.kind} {name}{typ}",
                doc=m.doc, extra={"member_of": owner.name},
            ))

    def _visible(self, h: Header) -> bool:
        """Whether users see the declaration: not ``private``, and public where the module system applies."""
        if "private" in h.modifiers:
            self.out.skipped["private"] += 1
            return False
        scope = next(s for s in reversed(self.scopes) if s.kind != "prefix")
        if "public" not in h.modifiers and not scope.public:
            self.out.skipped["not public (module system)"] += 1
            return False
        return True

    def _statement(self, h: Header, kind: str, name: str, variables: list[Binder]) -> str:
        head = _squash(" ".join(x for x in [kind, name] + [b.text for b in variables] + [h.binders] if x))
        if h.type:
            head += " : " + _squash(h.type)
        if kind in _TYPES and h.separator in ("where", "|"):
            return head + (" " if h.separator == "where" else "\n") + _dedent(h.body)
        return head

    def _body(self, h: Header, kind: str) -> str:
        if kind in _TYPES:
            return ""
        return _dedent(h.body)

    def _alias(self, h: Header, m: re.Match, line: int) -> None:
        if any(a.startswith("deprecated") for a in h.attributes):
            self.out.skipped["deprecated alias"] += 1
            return
        if not self._visible(h):
            return
        names, target = m.group(1), m.group(2)
        ns = self.namespace
        parts = re.findall(r"[^\s⟨⟩,]+", names) if names.startswith("⟨") else [names]
        for k, n in enumerate(parts):
            if n == "_":
                continue
            # `alias ⟨a, b⟩ := h` names the two directions of the `↔` h: `a` is h.mp, `b` is h.mpr
            direction = ("mp", "mpr")[k] if names.startswith("⟨") and len(parts) == 2 else ""
            self.out.decls.append(LeanDecl(
                name=full_name(ns, n), kind="alias", line=line, namespace=ns, statement=f"alias {names} := {target}",
                doc=self.m.docs.get(h.doc_offset) if h.doc_offset is not None else None, attributes=h.attributes,
                modifiers=frozenset(h.modifiers), alias_of=target, opens=self.opens(),
                extra={"direction": direction} if direction else {},
            ))


def _skip(code: str, i: int, end: int) -> int:
    while i < end and code[i].isspace():
        i += 1
    return i


def _scope_types(binders: list[Binder]) -> dict[str, str]:
    """The declared type of each bound name; under ``"[]"`` the instance binders' types, ``;``-separated."""
    out = {n: b.type for b in binders for n in b.names}
    out["[]"] = " ; ".join(b.type for b in binders if b.bracket == "[")
    return out


def _opened(text: str) -> list[str]:
    """The namespaces an ``open`` names (``open Foo Bar``, ``open scoped Foo``, ``open Foo (bar baz)``...).

    >>> _opened("scoped Pointwise Finset (card) hiding foo")
    ['Pointwise', 'Finset']
    """
    text = re.split(r"\b(?:hiding|renaming)\b", re.sub(r"\([^()]*\)", " ", text))[0]
    return [w for w in text.split() if w not in ("scoped", "in") and not w.startswith("(")]


def _in_end(code: str, i: int, end: int) -> int | None:
    """The offset after the ``in`` (at bracket depth 0) that ends the prefix command at ``i``, or None."""
    depth = 0
    for m in _IN.finditer(code, i, end):
        tok = m.group()
        if tok == "in":
            if depth == 0:
                return m.end()
        else:
            depth += 1 if tok in OPEN else -1
    return None


def read_file(text: str, path: str) -> LeanFile:
    """The declarations and facts of one Lean file (``path`` only names it in the result)."""
    return FileReader(text, path).run()
