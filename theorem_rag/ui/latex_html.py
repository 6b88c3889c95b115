"""A theorem statement's LaTeX as safe HTML, with its mathematics left as ``$...$`` / ``$$...$$`` for KaTeX.

Pure string work, no Gradio: math segments are cut out first and escaped as they are, the text between them is
escaped and its common text-mode macros (``\\emph``, lists, ``\\ref``, ``\\cite``, quotes, dashes) become HTML (the
macros' tables are in :mod:`theorem_rag.ui.text_macros`). Display environments KaTeX knows under another name
(``align*`` -> ``aligned``) are rewritten; ``\\xymatrix`` and ``tikzcd`` squares and triangles become KaTeX arrays
(:mod:`theorem_rag.ui.diagrams`), other diagrams a link to the source; theorem-like environments nested in a
statement are shown as such; ``\\ref`` and its kin show the number of the statement they name (and link to it) when
a resolver finds it (:mod:`theorem_rag.ui.refs`). The result has no blank line, so a Markdown renderer keeps it as
one raw HTML block.

>>> statement_html(r"Let $R$ be a \\emph{local} ring & $a<b$.")
'Let $R$ be a <em>local</em> ring &amp; $a&lt;b$.'
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from theorem_rag.ui.diagrams import _group, diagram_tex
from theorem_rag.ui.katex_math import BIG_BRACED, array_specs, inner_dollars, known_to_katex, matrices, rules
from theorem_rag.ui.text_macros import ACCENT, INLINE, INLINE_NAMES, LEFTOVER, TEXORPDF, WORDS, accent, leftover

_DISPLAY_ENVS = {
    "equation": None, "equation*": None, "displaymath": None, "align": "aligned", "align*": "aligned",
    "eqnarray": "aligned", "eqnarray*": "aligned", "gather": "gathered", "gather*": "gathered",
    "multline": "gathered", "multline*": "gathered", "flalign": "aligned", "flalign*": "aligned",
}  # fmt: skip
_ENV_NAMES = "|".join(re.escape(e) for e in _DISPLAY_ENVS)
_MATH = re.compile(
    r"(?P<env>\\begin\{(?P<name>" + _ENV_NAMES + r")\}(?P<envbody>.*?)\\end\{(?P=name)\})"
    r"|\$\$(?P<dd>.+?)\$\$|\\\[(?P<br>.+?)\\\]|\\\((?P<pa>.+?)\\\)|(?<!\\)\$(?P<d>.+?)(?<!\\)\$"
    r"|(?P<tz>\\begin\{tikzcd\}.*?\\end\{tikzcd\})|(?P<tp>\\begin\{tikzpicture\}.*?\\end\{tikzpicture\})",
    re.S,
)
_DIAGRAM = re.compile(r"\\xymatrix|\\begin\{(tikzcd|tikzpicture|xy|picture|pspicture)\}|\\diagram\b|\\(?:begin|end)\{(?:diagram|picture)\}")
_DIAGRAM_START = re.compile(r"\\xymatrix(?:@[^{]*)?(?=\{)|\\begin\{tikzcd\}")
_DROP_IN_MATH = re.compile(r"\\label\{[^{}]*\}|\\/|\\@(?![A-Za-z@])|\\nonumber\b|\\notag\b|\\protect\b|\\(?:line|page)break\b|\\qedhere\b")
_REF_IN_MATH = re.compile(r"\\(?:eq|auto|c|C)?ref\s*\{([^{}]*)\}")
# Text-mode commands KaTeX lacks, mapped onto ones it has.
_IN_MATH = [(re.compile(r"\\textsc\{"), r"\\text{"), (re.compile(r"\\(?:mbox|hbox)\{"), r"\\text{"),
            (re.compile(r"\\textesh\b\s*"), "\u0283"), (re.compile(r"\\mspace\b"), r"\\mskip")]
# Placeholders from the Unicode private use area cannot occur in escaped text or collide with HTML.
_PH = re.compile("\ue000(\\d+)\ue001")

# Innermost lists first (no nested \begin inside), so repeated passes unwind nesting.
_LIST = re.compile(
    r"\\begin\{(itemize|enumerate|description)\}(?:\[[^\]]*\])?"
    r"((?:(?!\\begin\{(?:itemize|enumerate|description)\}).)*?)\\end\{\1\}",
    re.S,
)
_OTHER_ENV = re.compile(
    r"\\(?:begin|end)\{(?:center|quote|quotation|flushleft|flushright|minipage)\}(?:\{[^{}]*\})?"
)


def _diagram_link(source_url: str | None) -> str:
    if source_url:
        return (f'<a class="trag-diagram" href="{html.escape(source_url, quote=True)}" target="_blank" '
                'rel="noopener noreferrer">diagram: see the source \u2197</a>')  # fmt: skip
    return '<span class="trag-diagram">diagram: see the source</span>'


def _diagrams_to_arrays(tex: str) -> str | None:
    """Every ``\\xymatrix`` / ``tikzcd`` in ``tex`` as a KaTeX array, or None when one cannot be drawn."""
    out, i = [], 0
    for m in _DIAGRAM_START.finditer(tex):
        if m.start() < i:
            continue
        if m[0].startswith("\\xymatrix"):
            g = _group(tex, m.end())
            stop = g[1] if g else -1
        else:
            e = tex.find("\\end{tikzcd}", m.end())
            stop = e + len("\\end{tikzcd}") if e >= 0 else -1
        array = diagram_tex(tex[m.start() : stop]) if stop > 0 else None
        if array is None:
            return None
        out += [tex[i : m.start()], array]
        i = stop
    out.append(tex[i:])
    converted = "".join(out)
    return None if _DIAGRAM.search(converted) else converted


def _math_html(m: re.Match, source_url: str | None = None, resolve: Callable[[str], Any] | None = None,
               dropped: list[str] | None = None) -> str:  # fmt: skip
    if m["tp"] is not None:
        return _diagram_link(source_url)
    if m["env"]:
        target, body = _DISPLAY_ENVS[m["name"]], m["envbody"]
        tex, display = (body if target is None else f"\\begin{{{target}}}{body}\\end{{{target}}}"), True
    elif m["dd"] is not None or m["br"] is not None:
        tex, display = m["dd"] if m["dd"] is not None else m["br"], True
    elif m["tz"] is not None:
        tex, display = m["tz"], True
    else:
        tex, display = m["pa"] if m["pa"] is not None else m["d"], False
    tex = _DROP_IN_MATH.sub("", tex).strip()
    if re.search(r"(?<!\\)(?:\\\\)*\\$", tex):
        tex = tex[:-1]  # a control space "\ " at the end, its space stripped: nothing to draw
    # Entities a page copied into the source ("f(3)&gt;0"); in LaTeX "&lt;" means nothing.
    tex = tex.replace("&lt;", "<").replace("&gt;", ">")
    tex = BIG_BRACED.sub(r"\1\2", tex)
    if "\\infer" in tex:
        tex = rules(tex)
    if "$" in tex:
        tex = inner_dollars(tex)
    if "ref" in tex:  # a reference inside a formula: its number as text (KaTeX has no \ref)
        tex = _REF_IN_MATH.sub(lambda r: "\\text{" + _ref_text(r[1], resolve) + "}", tex)
    for pattern, repl in _IN_MATH:
        tex = pattern.sub(repl, tex)
    if _DIAGRAM.search(tex):
        converted = _diagrams_to_arrays(tex)
        if converted is None:
            return _diagram_link(source_url)
        tex, display = converted, True
    if "\\begin{CD}" in tex:
        display = True  # KaTeX draws CD only in display mode
    if "mat" in tex:
        tex = matrices(tex, dropped)
    if "@" in tex:
        tex = array_specs(tex)
    tex = known_to_katex(tex, dropped)
    tex = re.sub(r"\}\s+\{", "}{", tex)  # spaces between arguments mean nothing in math; KaTeX's \mathchoice trips on them
    if tex.count("\\tag") > 1:  # KaTeX allows one \tag per formula; a tag per aligned row becomes a note
        tex = re.sub(r"\\tag\*?\s*\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}", r"\\qquad\\text{(\1)}", tex)
    if not tex.strip("& \n\t\r"):  # nothing but the column separators of a table written with "$"
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


_REF = re.compile(r"\\(eqref|ref|cref|Cref|autoref|pageref|nameref|vref|olref|thmref|sectionref|chapterref)\*?(?:\[[^\]]*\])?\{([^{}]*)\}")
_CITE = re.compile(r"\\(?:[cC]ite[tp]?|citealp|citealt|citeauthor|citeyear|parencite|textcite|footcite|autocite)\*?"
                   r"(?:\[([^\]]*)\])?(?:\[([^\]]*)\])?\{([^{}]*)\}")
_NESTED = re.compile(
    r"\\begin\{(?P<env>[A-Za-z]+\*?)\}(?P<opt>\[[^\]]*\])?(?P<body>(?:(?!\\begin\{[A-Za-z]+\*?\}).)*?)\\end\{(?P=env)\}", re.S
)
_KIND_NAMES = {
    "thm": "Theorem", "lem": "Lemma", "prop": "Proposition", "cor": "Corollary", "defn": "Definition",
    "dfn": "Definition", "rem": "Remark", "rmk": "Remark", "ex": "Example", "exa": "Example", "exm": "Example",
    "conj": "Conjecture", "ques": "Question", "prob": "Problem", "sol": "Solution", "ans": "Answer",
    "note": "Note", "hint": "Hint", "claim": "Claim", "fact": "Fact", "proof": "Proof",
    "reference": "Reference", "history": "History",
}  # fmt: skip
_THEOREM_WORDS = ("theorem", "lemma", "proposition", "corollary", "definition", "remark", "example", "exercise",
                  "conjecture", "axiom", "notation", "claim", "fact", "question", "problem", "solution", "proof",
                  "hint", "answer", "observation", "situation", "sublemma", "construction", "convention", "case",
                  "warning", "note", "assumption", "hypothesis", "principle")  # fmt: skip


def _ref_html(m: re.Match, resolve: Callable[[str], Any] | None) -> str:
    command, out = m[1], []
    for label in (x.strip() for x in m[2].split(",")):
        if not label:
            continue
        target = resolve(label) if resolve else None
        if target is None:
            out.append(f'<span class="trag-ref" title="{label}">{label}</span>')
            continue
        shown = target.number or target.theorem_id
        if command == "eqref":
            shown = f"({shown})"
        elif command in ("cref", "Cref", "autoref", "olref", "thmref", "vref") or not target.number:
            shown = f"{target.kind.capitalize()} {shown}"
        href = target.url if target.url and target.url.startswith(("https://", "http://")) else "#"
        out.append(f'<a class="trag-ref" href="{html.escape(href, quote=True)}" target="_blank" rel="noopener '
                   f'noreferrer" data-ref="{html.escape(target.theorem_id, quote=True)}" '
                   f'title="{html.escape(target.theorem_id, quote=True)}">{html.escape(shown, quote=False)}</a>')
    return " and ".join(out) if command in ("cref", "Cref") else ", ".join(out)


def _ref_text(label: str, resolve: Callable[[str], Any] | None) -> str:
    target = resolve(label.strip()) if resolve else None
    shown = (target.number or target.theorem_id) if target is not None else label.strip()
    return re.sub(r"[{}\\$#%&_^~]", "", shown)


def _cite_html(m: re.Match) -> str:
    note = m[2] if m[2] is not None else m[1]
    keys = ", ".join(k.strip() for k in m[3].split(",") if k.strip())
    return f'<span class="trag-citekey">[{keys}{", " + note if note else ""}]</span>'


def _nested_html(m: re.Match) -> str:
    env, body = m["env"].rstrip("*"), m["body"].strip()
    name = _KIND_NAMES.get(env.lower()) or (env.capitalize() if env.lower() in _THEOREM_WORDS else None)
    if name is None:
        return f" {body} "
    opt = m["opt"][1:-1].strip() if m["opt"] else ""
    title = f"<strong>{name}</strong>" + (f" ({opt})" if opt else "") + "."
    if name == "Proof":
        title = f"<em>Proof{' (' + opt + ')' if opt else ''}.</em>"
    return f'<div class="trag-nested trag-nested-{env.lower()}">{title} {body}</div>'


_ECHO = re.compile(r"\\begin\{(?P<e>[^{}]+)\}\s*\\end\{(?P=e)\}")
# plasTeX's expansion of a robust command: \@nx\protect\@xp\@nx\csname cite \endcsname -> \cite
_CSNAME = re.compile(r"(?:\\@nx|\\@xp|\\protect)+\s*\\csname\s+([A-Za-z]+)\s*\\endcsname\s*")
_BOXED_MATH = re.compile(r"(\\(?:raisebox|mbox|hbox|text|textrm|textit|textbf|emph)\s*(?:\{[^{}$]*\}\s*)?\{)([^{}]*)\}")
_ENSUREMATH = re.compile(r"\\ensuremath\s*\{((?:[^{}$]|\{(?:[^{}$]|\{[^{}$]*\})*\})*)\}")
_BLUEPRINT = re.compile(r"\\(?:uses|lean|proves|discussion|leanok|mathlibok|notready)\b(?:\{[^{}]*\})?")


def _boxed_math(m: re.Match) -> str:
    """A box's ``$x$`` as ``\\(x\\)`` (see :data:`_BOXED_MATH`), when its dollars pair up."""
    body = m[2]
    if "$" not in body or body.count("$") % 2 or "$$" in body:
        return m[0]
    return m[1] + re.sub(r"(?<!\\)\$([^$]*)(?<!\\)\$", r"\\(\1\\)", body) + "}"


def repair_echo(text: str) -> str:
    """Undo plasTeX's echo of an environment's source, ``\\begin{X} \\end{X} body \\end{X}``, into
    ``\\begin{X} body \\end{X}`` (found in ``body_expanded`` of statements with a display or diagram inside).

    >>> repair_echo(r"a \\begin{align*} \\end{align*} x &= y \\end{align*} b \\begin{x}\\end{x}")
    'a \\\\begin{align*} x &= y \\\\end{align*} b \\\\begin{x}\\\\end{x}'
    """
    out, i = [], 0
    for m in _ECHO.finditer(text):
        if m.start() < i:
            continue
        if f"\\end{{{m['e']}}}" in text[m.end() :]:
            out += [text[i : m.start()], f"\\begin{{{m['e']}}}"]
            i = m.end()
    out.append(text[i:])
    return "".join(out)


def statement_html(
    latex: str,
    *,
    max_chars: int | None = None,
    resolve: Callable[[str], Any] | None = None,
    source_url: str | None = None,
    dropped: list[str] | None = None,
) -> str:
    """Safe HTML for a statement; math stays delimited by ``$`` / ``$$`` for KaTeX auto-render.

    ``max_chars`` cuts the source (at a segment boundary when possible) and appends an ellipsis; ``resolve``
    maps a label to a :class:`~theorem_rag.ui.refs.RefTarget` (or None); ``source_url`` is where a diagram
    KaTeX cannot draw links to. A command left unknown after all that is dropped (its argument kept, if any) and
    its name appended to ``dropped``, so the corpus lint can count what the renderer did not understand.

    >>> statement_html(r"\\begin{enumerate}\\item $x$ \\item y~z\\end{enumerate}")
    '<ol><li>$x$</li><li>y&nbsp;z</li></ol>'
    >>> print(statement_html(r"\\begin{lemma}[Euclid] $p \\mid ab$\\end{lemma} See \\cite[Tag 00DV]{stacks}."))
    <div class="trag-nested trag-nested-lemma"><strong>Lemma</strong> (Euclid). $p \\mid ab$</div> See <span class="trag-citekey">[stacks, Tag 00DV]</span>.
    """
    text = repair_echo(_CSNAME.sub(r"\\\1", latex or ""))
    # A formula inside a box inside a formula (HoTT's \ct, "$x \iff \mbox{$f(x)$ halts}$"): \raisebox{..}{$x$}
    # -> \raisebox{..}{\(x\)}, so its "$" does not end the outer formula.
    text = _BOXED_MATH.sub(_boxed_math, text)
    text = _BLUEPRINT.sub("", text)  # blueprint metadata (\\uses{...}, \\leanok): links for Lean, not mathematics
    if max_chars is not None and len(text) > max_chars:
        straddling = [m.start() for m in _MATH.finditer(text) if m.start() < max_chars < m.end()]
        text = text[: straddling[0] if straddling else max_chars].rstrip() + " \u2026"
        # Close the lists the cut left open, innermost first, so they still render as lists.
        opened = re.findall(r"\\(begin|end)\{(itemize|enumerate|description)\}", text)
        stack: list[str] = []
        for kind, env in opened:
            if kind == "begin":
                stack.append(env)
            elif stack and stack[-1] == env:
                stack.pop()
        text += "".join(f"\\end{{{env}}}" for env in reversed(stack))
    maths: list[str] = []

    def keep(m: re.Match) -> str:
        maths.append(_math_html(m, source_url, resolve, dropped))
        return f"\ue000{len(maths) - 1}\ue001"

    text = _MATH.sub(keep, text.replace("\ue000", "").replace("\ue001", ""))
    # \ensuremath{..} in text is a formula (inside a formula it is only braces: see _MATH_ALIASES).
    text = _ENSUREMATH.sub(lambda e: _MATH.sub(keep, f"${e[1]}$"), text)
    text = re.sub(r"(?<!\\)%[^\n]*", "", text)  # LaTeX comments
    text = re.sub(r"(\\[A-Za-z]+\*?)[ \t]+(?=[{\[])", r"\1", text)  # plasTeX writes "\cref {x}"
    text = ACCENT.sub(accent, text)
    text = html.escape(text, quote=True).replace("$", "&#36;")
    text = TEXORPDF.sub(r"\1", text)
    for _ in range(4):
        text, n = _LIST.subn(_list_html, text)
        if not n:
            break
    text = _OTHER_ENV.sub(" ", text)
    for _ in range(4):  # nested environments unwind from the inside
        text, n = _NESTED.subn(_nested_html, text)
        if not n:
            break
    text = _REF.sub(lambda m: _ref_html(m, resolve), text)
    text = _CITE.sub(_cite_html, text)
    for _ in range(3):  # nested \emph{\textbf{..}} unwinds from the inside
        before = text
        for pattern, repl in INLINE:
            text = pattern.sub(repl, text)
        if text == before:
            break
    for _ in range(3):  # unknown commands, innermost first; what they wrapped may now be plain \emph{..}
        text, n = LEFTOVER.subn(lambda m: leftover(m, dropped) if m[1] not in INLINE_NAMES else m[0], text)
        for pattern, repl in INLINE:
            text = pattern.sub(repl, text)
        if not n:
            break
    text = LEFTOVER.sub(lambda m: leftover(m, dropped), text)  # what no pattern could take (unbalanced braces)
    text = re.sub(r"(?<!\\)[{}]", "", text)  # grouping braces left by commands whose argument held braces
    for pattern, repl in WORDS:
        text = pattern.sub(repl, text)
    text = re.sub(r"\n\s*\n", "<br>", text)
    text = re.sub(r"\s+", " ", text).strip()
    return _PH.sub(lambda m: maths[int(m[1])], text)


def inline_html(latex: str, dropped: list[str] | None = None) -> str:
    """A name or a section title as HTML: the statement renderer on one line, LaTeX plumbing
    (``\\texorpdfstring``, ``\\protect``, ``\\\\``) removed.

    >>> print(inline_html(r"The \\texorpdfstring{$\\mathbf{Z}$}{Z}-module \\protect\\emph{M}"))
    The $\\mathbf{Z}$-module <em>M</em>
    """
    text = (latex or "").replace("\\\\", " ").replace("~", " ")
    return statement_html(TEXORPDF.sub(r"\1", re.sub(r"\\protect\b\s*", "", text)), dropped=dropped)
