"""Markup that is no part of a statement's readable text, removed from ``body_expanded`` (``body_latex`` stays as written).

PlanetMath's link macros become their text, and every source loses ``\\label``/``\\index``, the Stacks
``reference``/``history`` comment blocks, Napkin's ``hint``/``sol`` blocks and beamer overlays.

>>> readable(r"A \\PMlinkname{group}{Group}\\PMlinkescapeword{order} of order $n$.\\label{x}\\index{group}")
'A group of order $n$.'
"""

from __future__ import annotations

import re

from corpus_build.macros import read_group

# PlanetMath link macros: how many braced arguments each takes and which one is the printed text (None: none).
_PM_LINKS = {
    "PMlinkname": (2, 0), "PMlinkid": (2, 0), "PMlinkID": (2, 0), "PMlinkexternal": (2, 0),
    "PMlinktofile": (2, 0), "PMlinkescapetext": (1, 0), "PMlinkescaptetext": (1, 0),
    "PMlinkescapeword": (1, None), "PMlinkescapephrase": (1, None),
}
_PM_CS = re.compile(r"\\(PMlink[A-Za-z]*)(?![A-Za-z])\s*")

# Environments that are annotations, not statement: Stacks' references and history (comment environments that
# plasTeX prints as ``\begin{X} \end{X} text \end{X}``), Napkin's hints and solutions.
_DROP_ENVS = ("reference", "history", "slogan", "hint", "sol", "soln", "solution")
_ENV_ALT = "|".join(_DROP_ENVS)
_MANGLED_ENV = re.compile(
    rf"\\begin\{{({_ENV_ALT})\}}\s*\\end\{{\1\}}(?:(?!\\begin\{{\1\}}).)*?\\end\{{\1\}}", re.S
)
_ENV = re.compile(rf"\\begin\{{({_ENV_ALT})\}}.*?\\end\{{\1\}}", re.S)
_ARG_CMDS = re.compile(r"\\(label|index)\s*(?=\{)")
# Beamer overlays of Lebl's slides: ``\pause`` and ``\only<2>{x}`` (the group stays), ``\item<2->`` keeps ``\item``.
_OVERLAY = re.compile(r"\\pause(?![A-Za-z])\s*|\\(?:only|onslide|uncover|visible|invisible)\s*<[^<>{}]*>\s*")
_ITEM_OVERLAY = re.compile(r"(\\item|\\alert)\s*<[^<>{}]*>")


def pm_links_to_text(text: str) -> str:
    r"""PlanetMath link markup replaced by its text: ``\PMlinkname{text}{Target}`` gives ``text``, escapes go.

    >>> pm_links_to_text(r"\PMlinkescapephrase{simple group} A \PMlinkid{ring}{123} is \PMlinkescapetext{{nice}}.")
    'A ring is {nice}.'
    """
    out, pos = [], 0
    for m in _PM_CS.finditer(text):
        if m.start() < pos:
            continue
        nargs, keep = _PM_LINKS.get(m.group(1), (2, 0))
        args, i = [], m.end()
        while len(args) < nargs:
            j = i
            while j < len(text) and text[j] in " \t\n":
                j += 1
            g = read_group(text, j)
            if g is None:
                break
            args.append(g[0])
            i = g[1]
        if not args:
            continue
        out.append(text[pos : m.start()])
        if keep is not None:
            out.append(args[keep])
        elif m.start() == 0 or text[m.start() - 1] in " \t\n":
            while i < len(text) and text[i] in " \t\n":
                i += 1
        pos = i
    out.append(text[pos:])
    return "".join(out).strip()


def _drop_commands(text: str) -> str:
    out, pos = [], 0
    for m in _ARG_CMDS.finditer(text):
        if m.start() < pos:
            continue
        g = read_group(text, m.end())
        if g is None:
            continue
        out.append(text[pos : m.start()])
        pos = g[1]
    out.append(text[pos:])
    return "".join(out)


def readable(text: str) -> str:
    r"""``text`` without markup that is not statement: link macros, labels, index entries, annotations, overlays.

    >>> readable(r"Let $G$ be a group. \pause Then \begin{hint}Lagrange.\end{hint}\begin{sol}Easy.\end{sol}")
    'Let $G$ be a group. Then'
    """
    if "\\" not in text:
        return text
    text = pm_links_to_text(text) if "\\PMlink" in text else text
    text = _MANGLED_ENV.sub("", text)
    text = _ENV.sub("", text)
    text = _drop_commands(text)
    text = _ITEM_OVERLAY.sub(r"\1", _OVERLAY.sub("", text))
    return re.sub(r"\n[ \t]*\n\s*", "\n\n", text).strip()
