"""Commutative diagrams (``\\xymatrix``, ``tikzcd``) as KaTeX arrays, where that is faithful (pure).

KaTeX draws neither package. A diagram whose arrows all join neighbouring cells (squares, triangles, chains:
right, left, up, down and the four diagonals) becomes an ``array`` of twice the size, objects on even cells and
arrows, with their labels, on the cells between. Anything else (arrows that skip cells, curved or crossing
arrows, two arrows through one cell) returns ``None``, and the card links to the source instead.

>>> print(diagram_tex(r"\\xymatrix{A \\ar[r]^f \\ar[d] & B \\ar[d]^g \\\\ C \\ar[r] & D}"))
\\begin{array}{ccc}A & \\xrightarrow{f} & B\\\\ \\big\\downarrow &  & \\big\\downarrow\\mathrlap{\\scriptstyle g}\\\\ C & \\xrightarrow{} & D\\end{array}
>>> diagram_tex(r"\\xymatrix{A \\ar[rr] & & B}") is None
True
"""

from __future__ import annotations

import re

_STEPS = {"r": (0, 1), "l": (0, -1), "u": (-1, 0), "d": (1, 0)}
_DIAGONAL = {(1, 1): r"\searrow", (1, -1): r"\swarrow", (-1, 1): r"\nearrow", (-1, -1): r"\nwarrow"}


def _group(text: str, i: int, open_: str = "{", close: str = "}") -> tuple[str, int] | None:
    """The balanced group starting at ``text[i]`` and the index after it."""
    if i >= len(text) or text[i] != open_:
        return None
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c == "\\":
            continue
        if c == open_ and (j == 0 or text[j - 1] != "\\"):
            depth += 1
        elif c == close and text[j - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[i + 1 : j], j + 1
    return None


def _split_top(text: str, sep: str) -> list[str]:
    """Split at ``sep`` outside braces and brackets (``\\\\`` for rows, ``&`` for cells)."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and text.startswith(sep, i) and depth == 0:
            out.append(text[start:i])
            i += len(sep)
            start = i
            continue
        if c == "\\":
            i += 2
            continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth = max(0, depth - 1)
        elif sep == "&" and c == "&" and depth == 0:
            out.append(text[start:i])
            start = i + 1
        i += 1
    out.append(text[start:])
    return out


class _Arrow:
    def __init__(self, steps: str, label: str = "", below: str = "", style: str = "") -> None:
        self.steps, self.label, self.below, self.style = steps, label.strip(), below.strip(), style


_XY_AR = re.compile(r"\\ar(?:row)?\b")


def _xy_arrow(cell: str, i: int) -> tuple[_Arrow, int] | None:
    """One ``\\ar@{..}[dir]^{f}_{g}`` from ``cell[i]`` (after ``\\ar``)."""
    style = ""
    while i < len(cell) and cell[i] in " @":
        if cell[i] == " ":
            i += 1
            continue
        if cell.startswith("@{", i):
            g = _group(cell, i + 1)
            if g is None:
                return None
            style, i = g[0], g[1]
        elif re.match(r"@[/<(]", cell[i:]):
            return None  # curved or shifted: not drawable in an array
        else:
            i += 1
    if i >= len(cell) or cell[i] != "[":
        return None
    g = _group(cell, i, "[", "]")
    if g is None:
        return None
    steps, i = g[0].strip(), g[1]
    labels = {"^": "", "_": "", "|": ""}
    while True:
        m = re.compile(r"\s*([\^_|])-?\s*").match(cell, i)
        if not m:
            break
        i = m.end()
        if i < len(cell) and cell[i] == "{":
            g = _group(cell, i)
            if g is None:
                return None
            labels[m[1]], i = g[0], g[1]
        else:
            t = re.compile(r"\\[A-Za-z]+|.").match(cell, i)
            labels[m[1]], i = (t[0], t.end()) if t else ("", i)
    return _Arrow(steps, labels["^"] or labels["|"], labels["_"], style), i


def _tikz_arrow(cell: str, i: int) -> tuple[_Arrow, int] | None:
    """One ``\\arrow[r, "f"', hook]`` from ``cell[i]`` (after ``\\arrow``)."""
    while i < len(cell) and cell[i] == " ":
        i += 1
    g = _group(cell, i, "[", "]")
    if g is None:
        return None
    opts, i = g[0], g[1]
    steps, label, below, style = "", "", "", ""
    for part in re.split(r",(?![^{]*\})(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", opts):
        part = part.strip()
        m = re.fullmatch(r'"(.*)"\s*(\'?)\s*(.*)', part, re.S)
        if m:
            if m[2]:
                below = m[1]
            else:
                label = m[1]
        elif re.fullmatch(r"[rlud]+", part):
            steps = part
        elif part.startswith(("bend", "shift", "loop", "crossing")):
            return None
        elif part:
            style += " " + part
    return _Arrow(steps, label, below, style), i


def _cell(cell: str, tikz: bool) -> tuple[str, list[_Arrow]] | None:
    arrows, out, i = [], [], 0
    for m in _XY_AR.finditer(cell):
        if m.start() < i:
            continue
        got = (_tikz_arrow if tikz else _xy_arrow)(cell, m.end())
        if got is None:
            return None
        out.append(cell[i : m.start()])
        arrows.append(got[0])
        i = got[1]
    out.append(cell[i:])
    return " ".join("".join(out).split()), arrows


def _symbol(arrow: _Arrow, dy: int, dx: int) -> str:
    style = arrow.style
    dashed = "--" in style or "dashed" in style or "." in style
    if dy == 0:
        if "=" in style or "equal" in style:
            sym = "="
        elif "->>" in style or "two heads" in style or "surjective" in style:
            sym = r"\twoheadrightarrow" if dx > 0 else r"\twoheadleftarrow"
        elif "^{(}" in style or "hook" in style:
            sym = r"\hookrightarrow" if dx > 0 else r"\hookleftarrow"
        elif dashed:
            sym = r"\dashrightarrow" if dx > 0 else r"\dashleftarrow"
        elif not arrow.below:
            return (r"\xrightarrow{" if dx > 0 else r"\xleftarrow{") + arrow.label + "}"
        else:
            sym = r"\longrightarrow" if dx > 0 else r"\longleftarrow"
        if arrow.label:
            sym = rf"\overset{{\scriptstyle {arrow.label}}}{{{sym}}}"
        return rf"\underset{{\scriptstyle {arrow.below}}}{{{sym}}}" if arrow.below else sym
    if dx == 0:
        sym = r"\big\Vert" if ("=" in style or "equal" in style) else (r"\big\downarrow" if dy > 0 else r"\big\uparrow")
    else:
        sym = _DIAGONAL[(dy, dx)]
    text = " ".join(x for x in (arrow.label, arrow.below) if x)
    return sym + (rf"\mathrlap{{\scriptstyle {text}}}" if text else "")


def diagram_tex(source: str) -> str | None:
    """A KaTeX ``array`` for an ``\\xymatrix{...}`` or ``\\begin{tikzcd}...\\end{tikzcd}``, or ``None``."""
    source = source.strip()
    tikz = source.startswith(r"\begin{tikzcd}")
    if tikz:
        m = re.fullmatch(r"\\begin\{tikzcd\}(?:\[[^\]]*\])?(.*)\\end\{tikzcd\}", source, re.S)
        if not m:
            return None
        body = m[1]
    else:
        m = re.match(r"\\xymatrix(?:@[^{]*)?\s*(?=\{)", source)
        g = _group(source, m.end()) if m else None
        if g is None or source[g[1] :].strip():
            return None
        body = g[0]
    rows = [_split_top(r, "&") for r in _split_top(body, "\\\\")]
    while rows and not "".join(rows[-1]).strip():
        rows.pop()
    if not rows:
        return None
    ncols = max(len(r) for r in rows)
    grid = [["" for _ in range(2 * ncols - 1)] for _ in range(2 * len(rows) - 1)]
    for i, row in enumerate(rows):
        for j, raw in enumerate(row):
            parsed = _cell(raw, tikz)
            if parsed is None:
                return None
            obj, arrows = parsed
            grid[2 * i][2 * j] = obj
            for a in arrows:
                dy = sum(_STEPS[c][0] for c in a.steps if c in _STEPS)
                dx = sum(_STEPS[c][1] for c in a.steps if c in _STEPS)
                if set(a.steps) - set(_STEPS) or max(abs(dy), abs(dx)) != 1 or len(a.steps) > 2:
                    return None
                y, x = 2 * i + dy, 2 * j + dx
                if not (0 <= y < len(grid) and 0 <= x < len(grid[0])) or grid[y][x]:
                    return None
                grid[y][x] = _symbol(a, dy, dx)
    cols = "c" * len(grid[0])
    return rf"\begin{{array}}{{{cols}}}" + r"\\ ".join(" & ".join(r) for r in grid) + r"\end{array}"
