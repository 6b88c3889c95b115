"""Reading a declaration's header from masked Lean code: modifiers, attributes, keyword, name, binders, type, body.

Everything works on the masked code (:func:`corpus_build.lean.lexer.mask`) for structure and slices the original
text at the same offsets for what is kept, so comments and strings can never look like brackets or ``:=``.

>>> h = read_header("@[simp] protected theorem Foo.bar {a : α} (h : 0 < a) : a ≠ 0 := h.ne'")
>>> h.keyword, h.name, h.attributes, sorted(h.modifiers), h.binders, h.type, h.body
('theorem', 'Foo.bar', ['simp'], ['protected'], '{a : α} (h : 0 < a)', 'a ≠ 0', "h.ne'")
>>> [(b.bracket, b.names, b.type) for b in binder_groups("{α : Type*} [Group α] (x y : α)")]
[('{', ('α',), 'Type*'), ('[', (), 'Group α'), ('(', ('x', 'y'), 'α')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

OPEN = "([{⟨⦃⟦⁅"
CLOSE = ")]}⟩⦄⟧⁆"
_BRACKET = re.compile(r"[()\[\]{}⟨⟩⦃⦄⟦⟧⁅⁆]")
# Tokens that end a header at bracket depth 0: the body (`:=`, `where`, equations `|` opening a line), `deriving`.
_TOP = re.compile(r"[()\[\]{}⟨⟩⦃⦄⟦⟧⁅⁆]|::|:=|:|\bwhere\b|\bderiving\b|(?m:^[ \t]*\|(?=\s))")
MODIFIERS = frozenset({"private", "protected", "public", "noncomputable", "nonrec", "partial", "unsafe", "meta",
                       "scoped", "local"})
KEYWORDS = ("class inductive", "class abbrev", "theorem", "lemma", "def", "abbrev", "instance", "class", "structure",
            "inductive", "axiom", "opaque", "example", "irreducible_def")
_KEYWORD = re.compile(r"(class\s+inductive|class\s+abbrev|[a-z_]+)\b")
_NAME = re.compile(r"(?:«[^»\n]*»|[^\s()\[\]{}⟨⟩⦃⦄⟦⟧:,;@\"«])+")
_PRIORITY = re.compile(r"\(\s*priority\s*:=")
IDENT = re.compile(r"[^\W\d][\w'!?]*")


class Unbalanced(ValueError):
    """A header whose brackets do not close: the declaration is reported, not guessed."""


def close_of(code: str, i: int, end: int | None = None) -> int:
    """The offset after the bracket closing the one at ``code[i]``, before ``end``; raises :class:`Unbalanced`.

    >>> close_of("(a (b) c) d", 0)
    9
    """
    end = len(code) if end is None else end
    depth = 0
    for m in _BRACKET.finditer(code, i, end):
        if m.group() in OPEN:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.end()
            if depth < 0:
                break
    raise Unbalanced(f"bracket {code[i]!r} never closes")


def top_level(code: str, start: int, end: int):
    """``(offset, token)`` of each ``:``, ``:=``, ``where``, ``deriving`` and line-opening ``|`` at bracket
    depth 0 in ``code[start:end]``; raises :class:`Unbalanced` on a stray closing bracket."""
    depth = 0
    for m in _TOP.finditer(code, start, end):
        tok = m.group()
        if tok in OPEN:
            depth += 1
        elif tok in CLOSE:
            depth -= 1
            if depth < 0:
                raise Unbalanced(f"stray {tok!r}")
        elif depth == 0 and tok != "::":
            yield (m.end() - 1 if tok.endswith("|") else m.start()), tok.strip()


@dataclass
class Header:
    """What a declaration command says before its body (texts are the original source, stripped)."""

    keyword: str = ""
    name: str | None = None
    doc: str | None = None
    attributes: list[str] = field(default_factory=list)
    modifiers: set[str] = field(default_factory=set)
    binders: str = ""
    type: str = ""
    body: str = ""
    separator: str = ""
    doc_offset: int | None = None
    keyword_offset: int = 0
    body_offset: int = 0
    code_binders: str = ""
    code_type: str = ""


def _skip_ws(code: str, i: int, end: int) -> int:
    while i < end and code[i].isspace():
        i += 1
    return i


def read_header(text: str, code: str | None = None, start: int = 0, end: int | None = None) -> Header:
    """The header of the command ``text[start:end]`` (``code``: its mask, by default ``text`` itself).

    ``keyword`` is left empty when the command declares nothing (``namespace``, ``open``...; ``keyword_offset``
    is then where its first word after the documentation, attributes and modifiers is); the name is
    ``None`` for an anonymous instance or an example. Raises :class:`Unbalanced` for brackets that do not close.
    """
    code = text if code is None else code
    end = len(code) if end is None else end
    h = Header()
    i = _skip_ws(code, start, end)
    while i < end:
        if code.startswith("/--", i):
            j = code.find("-/", i + 3, end)
            h.doc_offset, i = i, (end if j < 0 else j + 2)
        elif code.startswith("@[", i):
            j = close_of(code, i + 1, end)
            h.attributes += split_top(text[i + 2 : j - 1], code[i + 2 : j - 1])
            i = j
        else:
            m = _KEYWORD.match(code, i, end)
            if m is None or m.group(1) not in MODIFIERS:
                break
            h.modifiers.add(m.group(1))
            i = m.end()
        i = _skip_ws(code, i, end)
    h.keyword_offset = i
    m = _KEYWORD.match(code, i, end)
    kw = re.sub(r"\s+", " ", m.group(1)) if m else ""
    if kw not in KEYWORDS:
        return h
    h.keyword, i = kw, _skip_ws(code, m.end(), end)
    if kw == "instance" and _PRIORITY.match(code, i, end):
        i = _skip_ws(code, close_of(code, i, end), end)
    if kw != "example":
        n = _NAME.match(code, i, end)
        if n and n.group() not in ("extends", "where"):
            name = n.group()
            i = n.end()
            if name.endswith(".") and code.startswith("{", i):  # universe parameters: foo.{u v}
                name, i = name[:-1], close_of(code, i, end)
            h.name = name
    _split_signature(text, code, i, end, h)
    return h


def _split_signature(text: str, code: str, i: int, end: int, h: Header) -> None:
    """Fill binders, type, separator and body from the signature starting at ``i``."""
    colon = stop = None
    for pos, tok in top_level(code, i, end):
        if tok == ":" and colon is None:
            colon = pos
        elif tok != ":":
            stop, h.separator = pos, tok
            break
    stop = end if stop is None else stop
    sig_end = colon if colon is not None else stop
    h.binders, h.code_binders = text[i:sig_end].strip(), code[i:sig_end].strip()
    if colon is not None:
        h.type, h.code_type = text[colon + 1 : stop].strip(), code[colon + 1 : stop].strip()
    body_start = stop + 2 if h.separator == ":=" else stop
    h.body_offset = body_start + len(text[body_start:end]) - len(text[body_start:end].lstrip())
    h.body = text[body_start:end].strip()


def split_top(text: str, code: str) -> list[str]:
    """``text`` cut at the commas of bracket depth 0 in its mask ``code``, each part stripped.

    >>> split_top("simp, to_additive (attr := simp) foo", "simp, to_additive (attr := simp) foo")
    ['simp', 'to_additive (attr := simp) foo']
    """
    parts, depth, last = [], 0, 0
    for m in re.finditer(r"[()\[\]{}⟨⟩⦃⦄⟦⟧⁅⁆,]", code):
        c = m.group()
        if c in OPEN:
            depth += 1
        elif c in CLOSE:
            depth -= 1
        elif depth == 0:
            parts.append(text[last : m.start()].strip())
            last = m.end()
    parts.append(text[last:].strip())
    return [p for p in parts if p]


@dataclass(frozen=True)
class Binder:
    """One binder group: its bracket (``(``, ``{``, ``[``, ``⦃``, ``{{``), names (none for ``[Group α]``), type
    and text as written."""

    bracket: str
    names: tuple[str, ...]
    type: str
    text: str


_CLOSER = {"(": ")", "{": "}", "[": "]", "⦃": "⦄", "{{": "}}"}


def binder_text(bracket: str, names: tuple[str, ...], type_: str) -> str:
    """A binder written back: ``binder_text("{", ("a", "b"), "α")`` is ``{a b : α}``."""
    inner = " ".join(names) + (" : " if names and type_ else "") + type_
    return bracket + inner + _CLOSER[bracket]


def binder_groups(text: str, code: str | None = None) -> list[Binder]:
    """The binder groups of a binder list, in order; a bare name at depth 0 is an explicit binder without a type.
    Raises :class:`Unbalanced` for brackets that do not close."""
    code = text if code is None else code
    out: list[Binder] = []
    i, end = 0, len(code)
    while True:
        i = _skip_ws(code, i, end)
        if i >= end:
            return out
        c = code[i]
        if c in "([{⦃":
            j = close_of(code, i, end)
            bracket = "{{" if code.startswith("{{", i) and code[j - 2 : j] == "}}" else c
            w = len(bracket)
            out.append(_binder(bracket, text[i + w : j - w], code[i + w : j - w], text[i:j]))
            i = j
            continue
        m = IDENT.match(code, i)
        if m is None:  # something that is no binder (a stray symbol): kept as text, bound to nothing
            j = code.find(" ", i)
            j = end if j < 0 else j
            out.append(Binder("", (), text[i:j], text[i:j]))
            i = j
            continue
        out.append(Binder("(", (m.group(),), "", m.group()))
        i = m.end()


def _binder(bracket: str, inner: str, code: str, raw: str) -> Binder:
    colon = next((p for p, tok in top_level(code, 0, len(code)) if tok == ":"), None)
    if colon is None:
        if bracket == "[":
            return Binder(bracket, (), inner.strip(), raw)
        return Binder(bracket, tuple(inner.split()), "", raw)
    names = tuple(n for n in inner[:colon].split() if n)
    return Binder(bracket, names, inner[colon + 1 :].strip(), raw)


def idents(code: str) -> set[str]:
    """The identifier parts (dotted names split) that ``code`` mentions.

    >>> sorted(idents("p.Prime → 2 ≤ p'"))
    ['Prime', 'p', "p'"]
    """
    return set(IDENT.findall(code))


def used_variables(variables: list[Binder], mentioned: set[str], includes: set[str]) -> list[Binder]:
    """The variables a declaration that mentions ``mentioned`` takes: those it names (and, in turn, what their
    types name), the ``include``d ones, then every instance binder all of whose variables are in, in order.

    A group keeps only the names used (``{a b : α}`` gives ``{a : α}`` when only ``a`` is).

    >>> vs = binder_groups("{α : Type*} [Group α] {β : Type*} [Ring β] {x y : α}")
    >>> [b.text for b in used_variables(vs, {"x"}, set())]
    ['{α : Type*}', '[Group α]', '{x : α}']
    """
    names = {n for b in variables for n in b.names}
    used = set(mentioned) | includes
    chosen = [False] * len(variables)
    changed = True
    while changed:
        changed = False
        for i, b in enumerate(variables):
            if chosen[i]:
                continue
            inside = idents(b.type) & names
            if (b.names and used.intersection(b.names)) or (not b.names and inside and inside <= used):
                chosen[i], changed = True, True
                used |= idents(b.type)
    out = []
    for b, c in zip(variables, chosen):
        if c and b.names and not used.issuperset(b.names):
            keep = tuple(n for n in b.names if n in used)
            b = Binder(b.bracket, keep, b.type, binder_text(b.bracket, keep, b.type))
        if c:
            out.append(b)
    return out
