"""The declarations a structure, class or inductive type makes of its body: fields and constructors.

``class GCDMonoid ... where gcd : α → α → α`` declares ``GCDMonoid.gcd``; ``inductive Foo | zero : Foo`` declares
``Foo.zero``; ``structure S where mk' ::`` names the constructor ``S.mk'``. Each item of the body starts at the
body's smallest indentation (the lines below it, further in, continue it); documentation above an item is its.

>>> [(f.name, f.kind, f.type, f.doc) for f in members("where\\n  /-- The gcd. -/\\n  gcd : α → α → α\\n"
...     "  protected gcd_dvd (a b : α) :\\n      gcd a b ∣ a\\n  norm := 0", "class")]
[('gcd', 'field', 'α → α → α', 'The gcd.'), ('gcd_dvd', 'field', '(a b : α) : gcd a b ∣ a', None)]
>>> [f.name for f in members("| zero : Foo\\n| succ (n : Foo) : Foo", "inductive")]
['zero', 'succ']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NAMES = re.compile(r"(?:(?:protected|private)\s+)*((?:[^\W\d][\w'!?]*\s*)+?)\s*(?=[:(\[{⦃]|$)", re.S)
_DOC = re.compile(r"/--(.*?)-/\s*", re.S)


@dataclass(frozen=True)
class Member:
    """A field (``name``, its binders and type as written) or a constructor of a type's body."""

    name: str
    kind: str
    type: str
    doc: str | None = None
    private: bool = False
    line: int = 0


def _items(body: str) -> list[tuple[int, str]]:
    """The body cut where a line starts at the smallest indentation, outside documentation: ``(line, text)``
    with the line counted from the body's first (0)."""
    lines = body.splitlines()
    indents = [len(x) - len(x.lstrip()) for x in lines if x.strip()]
    if not indents:
        return []
    base = min(indents)
    items: list[tuple[int, list[str]]] = []
    for k, line in enumerate(lines):
        if not items and not line.strip():
            continue
        inside_doc = bool(items) and "\n".join(items[-1][1]).count("/--") > "\n".join(items[-1][1]).count("-/")
        if not items or (line.strip() and len(line) - len(line.lstrip()) == base and not inside_doc):
            items.append((k, [line]))
        else:
            items[-1][1].append(line)
    return [(k, "\n".join(x).strip()) for k, x in items]


def members(body: str, kind: str) -> list[Member]:
    """The fields (``kind`` a structure or class: ``body`` from ``where``) or constructors (an inductive type:
    ``|`` items) of a declaration's body; ``line`` is where each is named, counted from the body's first (0)."""
    body = re.sub(r"^\s*where\b", "", body, count=1)
    body = re.split(r"^\s*deriving\b", body, maxsplit=1, flags=re.M)[0]
    out: list[Member] = []
    doc = None
    for k, item in _items(body):
        d = _DOC.match(item)
        if d:
            doc, item = d.group(1).strip(), item[d.end() :]
            k += d.group(0).count("\n")
        if not item.strip():
            continue
        constructor = kind == "inductive" or item.startswith("|")
        item = item.lstrip("| \t")
        if (c := re.fullmatch(r"([^\W\d][\w'!?]*)\s*::\s*", item)) is not None:
            out.append(Member(c.group(1), "constructor", "", doc, line=k))
        elif (m := _NAMES.match(item)) is not None and not item[m.end() :].startswith(":="):
            rest = re.split(r"\s:=\s|\s:=$", item[m.end() :], maxsplit=1)[0]
            typ = _one_line(rest[1:] if rest.startswith(":") else rest)
            for name in m.group(1).split():
                out.append(Member(name, "constructor" if constructor else "field", typ, doc,
                                  item.startswith("private"), k))
        doc = None
    return out


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
