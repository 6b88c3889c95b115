"""A theorem statement's LaTeX as safe HTML, with its mathematics left as ``$...$`` / ``$$...$$`` for KaTeX.

Pure string work, no Gradio: math segments are cut out first and escaped as they are, the text between them is
escaped and its common text-mode macros (``\\emph``, lists, ``\\ref``, ``\\cite``, quotes, dashes) become HTML.
Display environments KaTeX knows under another name (``align*`` -> ``aligned``) are rewritten; diagrams KaTeX
cannot draw (``\\xymatrix``, ``tikzcd``) are shown as source. The result has no blank line, so a Markdown
renderer keeps it as one raw HTML block.

>>> statement_html(r"Let $R$ be a \\emph{local} ring & $a<b$.")
'Let $R$ be a <em>local</em> ring &amp; $a&lt;b$.'
"""

from __future__ import annotations

import html
import re

_DISPLAY_ENVS = {
    "equation": None, "equation*": None, "displaymath": None, "align": "aligned", "align*": "aligned",
    "eqnarray": "aligned", "eqnarray*": "aligned", "gather": "gathered", "gather*": "gathered",
    "multline": "gathered", "multline*": "gathered", "flalign": "aligned", "flalign*": "aligned",
}  # fmt: skip
_ENV_NAMES = "|".join(re.escape(e) for e in _DISPLAY_ENVS)
_MATH = re.compile(
    r"(?P<env>\\begin\{(?P<name>" + _ENV_NAMES + r")\}(?P<envbody>.*?)\\end\{(?P=name)\})"
    r"|\$\$(?P<dd>.+?)\$\$|\\\[(?P<br>.+?)\\\]|\\\((?P<pa>.+?)\\\)|(?<!\\)\$(?P<d>.+?)(?<!\\)\$",
    re.S,
)
_DIAGRAM = re.compile(r"\\xymatrix|\\begin\{(tikzcd|CD)\}|\\diagram\b")
_DROP_IN_MATH = re.compile(r"\\label\{[^{}]*\}|\\nonumber\b|\\notag\b")
# Text-mode commands KaTeX lacks, mapped onto ones it has.
_IN_MATH = [(re.compile(r"\\textsc\{"), r"\\text{"), (re.compile(r"\\(?:mbox|hbox)\{"), r"\\text{")]
# Placeholders from the Unicode private use area cannot occur in escaped text or collide with HTML.
_PH = re.compile("\ue000(\\d+)\ue001")

_INLINE = [
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
    (re.compile(r"\\(?:footnote)\{([^{}]*)\}"), r" (\1)"),
]
_WORDS = [
    (re.compile(r"``|&#x27;&#x27;|''"), lambda m: "\u201c" if m[0] == "``" else "\u201d"),
    (re.compile(r"---"), "\u2014"),
    (re.compile(r"--"), "\u2013"),
    (re.compile(r"(?<!\\)~"), "&nbsp;"),
    (re.compile(r"\\\\(\[[^\]]*\])?"), "<br>"),
    (re.compile(r"\\(?:noindent|medskip|smallskip|bigskip|par|newline|hfill|quad|qquad)\b\s*"), " "),
    (re.compile(r"\\(&amp;|&#36;|[%_#{}])"), r"\1"),
    (re.compile(r"\\[,;:! ]"), " "),
]
# Innermost lists first (no nested \begin inside), so repeated passes unwind nesting.
_LIST = re.compile(
    r"\\begin\{(itemize|enumerate|description)\}(?:\[[^\]]*\])?"
    r"((?:(?!\\begin\{(?:itemize|enumerate|description)\}).)*?)\\end\{\1\}",
    re.S,
)
_OTHER_ENV = re.compile(
    r"\\(?:begin|end)\{(?:center|quote|quotation|proof|flushleft|flushright|minipage)\}(?:\{[^{}]*\})?"
)


def _math_html(m: re.Match) -> str:
    if m["env"]:
        target, body = _DISPLAY_ENVS[m["name"]], m["envbody"]
        tex, display = (body if target is None else f"\\begin{{{target}}}{body}\\end{{{target}}}"), True
    elif m["dd"] is not None or m["br"] is not None:
        tex, display = m["dd"] if m["dd"] is not None else m["br"], True
    else:
        tex, display = m["pa"] if m["pa"] is not None else m["d"], False
    tex = _DROP_IN_MATH.sub("", tex).strip()
    for pattern, repl in _IN_MATH:
        tex = pattern.sub(repl, tex)
    if _DIAGRAM.search(tex):
        return f'<pre class="trag-diagram">{html.escape(m[0], quote=False)}</pre>'
    if not tex:
        return ""
    # "$" is escaped everywhere else, so the delimiters below are the only ones the page sees.
    tex = html.escape(tex, quote=False)
    return f"$${tex}$$" if display else f"${tex}$"


def _list_html(m: re.Match) -> str:
    tag = {"itemize": "ul", "enumerate": "ol", "description": "ul"}[m[1]]
    items = re.split(r"\\item\b", m[2])[1:]
    lis = []
    for item in items:
        label = re.match(r"\s*\[([^\]]*)\]", item)
        if label:
            item = f"<strong>{label[1]}</strong> " + item[label.end():]
        lis.append(f"<li>{item.strip()}</li>")
    return f"<{tag}>{''.join(lis)}</{tag}>"


def statement_html(latex: str, *, max_chars: int | None = None) -> str:
    """Safe HTML for a statement; math stays delimited by ``$`` / ``$$`` for KaTeX auto-render.

    ``max_chars`` cuts the source (at a segment boundary when possible) and appends an ellipsis.

    >>> statement_html(r"\\begin{enumerate}\\item $x$ \\item y~z\\end{enumerate}")
    '<ol><li>$x$</li><li>y&nbsp;z</li></ol>'
    """
    text = latex or ""
    if max_chars is not None and len(text) > max_chars:
        straddling = [m.start() for m in _MATH.finditer(text) if m.start() < max_chars < m.end()]
        text = text[: straddling[0] if straddling else max_chars].rstrip() + " \u2026"
    maths: list[str] = []

    def keep(m: re.Match) -> str:
        maths.append(_math_html(m))
        return f"\ue000{len(maths) - 1}\ue001"

    text = _MATH.sub(keep, text.replace("\ue000", "").replace("\ue001", ""))
    text = re.sub(r"(?<!\\)%[^\n]*", "", text)  # LaTeX comments
    text = html.escape(text, quote=True).replace("$", "&#36;")
    for _ in range(4):
        text, n = _LIST.subn(_list_html, text)
        if not n:
            break
    text = _OTHER_ENV.sub(" ", text)
    for _ in range(3):  # nested \emph{\textbf{..}} unwinds from the inside
        before = text
        for pattern, repl in _INLINE:
            text = pattern.sub(repl, text)
        if text == before:
            break
    for pattern, repl in _WORDS:
        text = pattern.sub(repl, text)
    text = re.sub(r"\n\s*\n", "<br>", text)
    text = re.sub(r"\s+", " ", text).strip()
    return _PH.sub(lambda m: maths[int(m[1])], text)
