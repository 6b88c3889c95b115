"""User macros: collect ``\\newcommand``/``\\def``/``\\DeclareMathOperator`` and expand them, with bounds.

>>> m = collect_macros(r"\\newcommand{\\R}{\\mathbb{R}} \\newcommand{\\norm}[1]{\\lVert #1 \\rVert}")
>>> expand_macros(r"$\\norm{x} \\in \\R$", m)
'$\\\\lVert x \\\\rVert \\\\in \\\\mathbb{R}$'
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Macro:
    """A user macro: ``nargs`` arguments, the first optional with ``default`` when not None."""

    name: str
    nargs: int
    body: str
    default: str | None = None


def read_group(text: str, i: int, open_: str = "{", close: str = "}") -> tuple[str, int] | None:
    """The content of the balanced group starting at ``text[i] == open_`` and the index after it, or None."""
    if i >= len(text) or text[i] != open_:
        return None
    depth, j, n = 0, i, len(text)
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return text[i + 1 : j], j + 1
        j += 1
    return None


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n":
        i += 1
    return i


_DEFINERS = re.compile(
    r"\\(newcommand|renewcommand|providecommand|DeclareRobustCommand|DeclareMathOperator|def|gdef|edef)(\*?)"
)
_CS = re.compile(r"\\([A-Za-z@]+|.)")


def collect_macros(text: str) -> dict[str, Macro]:
    """Every user macro defined in ``text`` (later definitions win); malformed definitions are skipped."""
    macros: dict[str, Macro] = {}
    for m in _DEFINERS.finditer(text):
        kind, i = m.group(1), _skip_ws(text, m.end())
        if i < len(text) and text[i] == "{":
            g = read_group(text, i)
            if g is None:
                continue
            cs = _CS.fullmatch(g[0].strip())
            i = g[1]
        else:
            cs = _CS.match(text, i)
            i = cs.end() if cs else i
        if not cs:
            continue
        name = cs.group(1)
        nargs, default = 0, None
        if kind in ("def", "gdef", "edef"):
            pm = re.compile(r"(#\d)*").match(text, i)
            nargs = len(pm.group(0)) // 2
            i = pm.end()
        elif kind != "DeclareMathOperator":
            i = _skip_ws(text, i)
            g = read_group(text, i, "[", "]")
            if g:
                if not g[0].strip().isdigit():
                    continue
                nargs, i = int(g[0].strip()), _skip_ws(text, g[1])
                g = read_group(text, i, "[", "]")
                if g:
                    default, i = g[0], g[1]
        i = _skip_ws(text, i)
        g = read_group(text, i)
        if g is None:
            continue
        body = r"\operatorname{%s}" % g[0] if kind == "DeclareMathOperator" else g[0]
        if kind == "providecommand" and name in macros:
            continue
        macros[name] = Macro(name, min(nargs, 9), body, default)
    return macros


def _read_arg(text: str, i: int) -> tuple[str, int] | None:
    i = _skip_ws(text, i)
    if i >= len(text):
        return None
    if text[i] == "{":
        return read_group(text, i)
    if text[i] == "\\":
        cs = _CS.match(text, i)
        return cs.group(0), cs.end()
    return text[i], i + 1


def expand_macros(text: str, macros: dict[str, Macro], *, max_depth: int = 8, max_growth: int = 4) -> str:
    """Replace user macros in ``text`` by their bodies, ``max_depth`` levels deep.

    A macro whose arguments cannot be read is left as written. When expansion would grow the text more than
    ``max_growth`` times (a macro that refers to itself, say), the text comes back unexpanded.

    >>> expand_macros(r"\\x", {"x": Macro("x", 0, r"\\x\\x")})
    '\\\\x'
    """
    if not macros:
        return text
    original, limit = text, max_growth * len(text) + 2000
    macros = {k: m for k, m in macros.items() if not re.search(rf"\\{re.escape(k)}(?![A-Za-z@])", m.body)}
    changed = False
    for _ in range(max_depth):
        out, pos, changed = [], 0, False
        for m in _CS.finditer(text):
            if m.start() < pos:
                continue
            mac = macros.get(m.group(1))
            if mac is None:
                continue
            i, args = m.end(), []
            if mac.default is not None:
                g = read_group(text, _skip_ws(text, i), "[", "]")
                if g:
                    args.append(g[0])
                    i = g[1]
                else:
                    args.append(mac.default)
            ok = True
            while len(args) < mac.nargs:
                a = _read_arg(text, i)
                if a is None:
                    ok = False
                    break
                args.append(a[0])
                i = a[1]
            if not ok:
                continue
            body = mac.body
            for k, a in enumerate(args, start=1):
                body = body.replace(f"#{k}", a)
            if mac.nargs == 0 and re.match(r"[A-Za-z]", text[i : i + 1]) and body[-1:].isalpha():
                body += " "
            out.append(text[pos : m.start()])
            out.append(body)
            pos, changed = i, True
        if not changed:
            break
        out.append(text[pos:])
        text = "".join(out)
        if len(text) > limit:
            return original
    return original if changed and max_depth > 1 and _CS.search(text) and _still_expands(text, macros) else text


def _still_expands(text: str, macros: dict[str, Macro]) -> bool:
    return any(m.group(1) in macros for m in _CS.finditer(text))
