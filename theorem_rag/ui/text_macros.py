"""Text-mode LaTeX as HTML, the tables :mod:`theorem_rag.ui.latex_html` applies to the text between formulas:
font and reference commands (:data:`INLINE`), quotes, dashes and spacing (:data:`WORDS`), the commands still left
after those (:data:`LEFTOVER`, :func:`leftover`: a symbol, a heading, the argument kept, or the name shown) and text
accents (:data:`ACCENT`, :func:`accent`). Pure string work, no Gradio.

>>> ACCENT.sub(accent, r"Erd\\H{o}s, G\\"odel")
'Erdős, Gödel'
"""

from __future__ import annotations

import re

from theorem_rag.ui.katex_math import LAYOUT

INLINE = [
    (re.compile(r"\\(?:emph|textit|textsl)\{([^{}]*)\}"), r"<em>\1</em>"),
    (re.compile(r"\\textbf\{([^{}]*)\}"), r"<strong>\1</strong>"),
    (re.compile(r"\\textsc\{([^{}]*)\}"), r'<span class="trag-sc">\1</span>'),
    (re.compile(r"\\(?:texttt|url)\{([^{}]*)\}"), r"<code>\1</code>"),
    (re.compile(r"\\(?:text|textrm|textup|mbox|hbox|textnormal)\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\{\\(?:em|it|sl) ([^{}]*)\}"), r"<em>\1</em>"),
    (re.compile(r"\{\\bf ([^{}]*)\}"), r"<strong>\1</strong>"),
    (re.compile(r"\\(?:eq)?ref\{([^{}]*)\}"), r'<span class="trag-ref" title="\1">\1</span>'),
    (re.compile(r"\\cite(?:\[([^\]]*)\])?\{([^{}]*)\}"), lambda m: f"[{m[2]}{', ' + m[1] if m[1] else ''}]"),
    (re.compile(r"\\(?:label|index|hypertarget)\{[^{}]*\}"), ""),
    (re.compile(r"\\href\{(https?://[^{}\"]*)\}\{([^{}]*)\}"), r'<a href="\1" target="_blank" rel="noopener noreferrer">\2</a>'),
    (re.compile(r"\\href\{[^{}]*\}\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\\(?:hyperref|autoref)\[[^\]]*\]\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\\(?:footnote)\{([^{}]*)\}"), r" (\1)"),
]
WORDS = [
    (re.compile(r"``|&#x27;&#x27;|''"), lambda m: "\u201c" if m[0] == "``" else "\u201d"),
    (re.compile(r"---"), "\u2014"),
    (re.compile(r"--"), "\u2013"),
    (re.compile(r"(?<!\\)~"), "&nbsp;"),
    (re.compile(r"\\\\(\[[^\]]*\])?"), "<br>"),
    (re.compile(r"\\(?:noindent|medskip|smallskip|bigskip|par|newline|hfill|quad|qquad)\b\s*"), " "),
    (re.compile(r"\\(&amp;|&#36;|[%_#{}])"), r"\1"),
    (re.compile(r"\\[,;:! ]"), " "),
    (re.compile(r"\\@(?![A-Za-z@])"), ""),  # "i.e.\@ x": TeX's end-of-sentence spacing, nothing to show
]
TEXORPDF = re.compile(r"\\texorpdfstring\s*\{((?:[^{}]|\{[^{}]*\})*)\}\s*\{(?:[^{}]|\{[^{}]*\})*\}")
# Commands still in the text after everything above: spacing and layout vanish, a command with one argument
# keeps the argument (a reader sees the words, never the macro), and a letter command left alone is dropped.
LEFTOVER = re.compile(r"\\([A-Za-z]+)\*?(?:\[[^\]]*\])?(?:\{([^{}]*)\})?")
INLINE_NAMES = frozenset("emph textit textsl textbf textsc texttt url text textrm textup mbox hbox textnormal "
                          "href hyperref autoref footnote".split())  # fmt: skip
# Known commands whose argument is the text to read.
_KEEP_ARG = frozenset("indexdef define marginpar textcolor underline uline emph textbf textit mbox fbox boxed "
                      "footnote axiomref caption makebox myindex".split())  # fmt: skip
_SYMBOLS = {"S": "\u00a7", "P": "\u00b6", "ldots": "\u2026", "dots": "\u2026", "dag": "\u2020", "copyright": "\u00a9",
            "LaTeX": "LaTeX", "TeX": "TeX", "ae": "\u00e6", "o": "\u00f8", "ss": "\u00df", "l": "\u0142",
            "i": "i", "item": "\u2022", "textbackslash": "\\\\"}  # fmt: skip


# Their argument is not text to read (a colour, a file, a definition): dropped with the command.
_DROP_WITH_ARG = frozenset(
    "color pagecolor includegraphics rput psset newcommand renewcommand providecommand def problemhead "
    "setlength addtolength setcounter addtocounter vspace hspace label index hypertarget pmlinkescapephrase "
    "pmlinkescapetext bibliographystyle glsadd subimport postdisplaypenalty".split()
)
_HEADINGS = frozenset("part chapter section subsection subsubsection paragraph subparagraph".split())


def leftover(m: re.Match, dropped: list[str] | None) -> str:
    if m[1] in _SYMBOLS and m[2] is None:
        return _SYMBOLS[m[1]]
    if m[1] in LAYOUT or m[1] in _DROP_WITH_ARG:
        return " "
    if m[1] in _HEADINGS:
        return f" <strong>{m[2]}</strong> " if m[2] else " "
    if m[1] == "bibitem":
        return f"<br>[{m[2]}] " if m[2] else "<br>"
    if m[1] in _KEEP_ARG:
        return m[2] or " "
    if dropped is not None:
        dropped.append("\\" + m[1])
    # An unknown macro without an argument is most often a name (\NC{} for the class NC): show the name.
    return m[2] if m[2] else m[1]


# Text accents: \v{c} -> č, \'e -> é, \"{o} -> ö (a combining mark after the letter, then NFC).
ACCENT = re.compile(r"\\(?:([`'^\"~=.])\s*(?:\{\\?([A-Za-z])\}|\\?([A-Za-z]))"
                     r"|([uvHcdbkr])(?:\{\\?([A-Za-z])\}|\s+([A-Za-z])(?![A-Za-z])))")
_COMBINING = {"`": "\u0300", "'": "\u0301", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304", ".": "\u0307",
              "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "d": "\u0323", "b": "\u0331", "k": "\u0328",
              "r": "\u030a"}  # fmt: skip


def accent(m: re.Match) -> str:
    import unicodedata

    mark, letter = m[1] or m[4], m[2] or m[3] or m[5] or m[6]
    return unicodedata.normalize("NFC", letter + _COMBINING[mark])
