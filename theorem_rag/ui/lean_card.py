"""What a Lean declaration's card shows, as HTML (pure): its statement as code, its docstring rendered, its links.

A Lean statement is never read as LaTeX: it is escaped monospace text, Lean's Unicode as is (``$`` and line breaks
escaped too, so that neither KaTeX nor the page's Markdown renderer sees anything in it). A docstring is Markdown
with ``code`` and ``$LaTeX$``: code spans and fenced blocks stay code, formulas go through the app's LaTeX renderer
(:func:`~theorem_rag.ui.latex_html.statement_html`), and paragraphs, lists, headings, emphasis and links become HTML.

>>> t = Theorem(id="mathlib:Nat.Prime.two_le", source="mathlib", kind="theorem", doc_id="mathlib-module:M",
...             body_latex="theorem Nat.Prime.two_le {p : ℕ} (hp : p.Prime) : 2 ≤ p", name="Nat.Prime.two_le",
...             meta={"language": "lean", "lean_kind": "theorem", "module": "Mathlib.Data.Nat.Prime.Defs"})
>>> is_lean(t), lean_code_html(t.body_latex)
(True, '<pre class="trag-lean"><code>theorem Nat.Prime.two_le {p : ℕ} (hp : p.Prime) : 2 ≤ p</code></pre>')
>>> docstring_html("The `p`-adic norm: $|p|_p = p^{-1}$, **not** $1$.")
'<p>The <code>p</code>-adic norm: $|p|_p = p^{-1}$, <strong>not</strong> $1$.</p>'
"""

from __future__ import annotations

import html
import re

from theorem_rag.citations import safe_url
from theorem_rag.records import Theorem, is_lean
from theorem_rag.ui.latex_html import statement_html

DOC_CHARS = 1_500
# Spans of a docstring that are not Markdown text: fenced code, inline code, display and inline formulas.
_SEGMENT = re.compile(
    r"```[^\n`]*\n(?P<block>.*?)```|(?P<ticks>`+)(?P<code>.+?)(?P=ticks)"
    r"|\$\$(?P<dd>.+?)\$\$|(?<![\\$])\$(?P<d>[^$]+?)(?<!\\)\$", re.S)  # fmt: skip
# Placeholders (Unicode private use) of the spans taken out: \ue002 opens a code block, which stands alone.
_PH = re.compile("[\ue000\ue002](\\d+)\ue001")
_BLOCK = re.compile("\ue002\\d+\ue001")
_ITEM = re.compile(r"(?:[-*+]|\d+[.)])\s+")
_HEADING = re.compile(r"#{1,6}\s+")
_INLINE = [
    (re.compile(r"\*\*(?!\s)(.+?)(?<!\s)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![\w*])\*(?![\s*])(.+?)(?<![\s*])\*(?![\w*])"), r"<em>\1</em>"),
    (re.compile(r"(?<![\w_])_(?![\s_])(.+?)(?<![\s_])_(?![\w_])"), r"<em>\1</em>"),
]
_LINK = re.compile(r"\[([^\[\]]+)\]\(([^()\s]+)\)")


def _code(text: str) -> str:
    return html.escape(text, quote=False).replace("$", "&#36;").replace("\n", "&#10;")


def lean_code_html(code: str, max_chars: int | None = None) -> str:
    """Lean source as a monospace block, cut at ``max_chars`` with an ellipsis."""
    if max_chars is not None and len(code) > max_chars:
        code = code[:max_chars].rstrip() + " \u2026"
    return f'<pre class="trag-lean"><code>{_code(code)}</code></pre>'


def _segment_html(m: re.Match) -> str:
    if m["block"] is not None:
        return lean_code_html(m["block"].rstrip("\n"))
    if m["code"] is not None:
        return f"<code>{_code(m['code'].strip())}</code>"
    return statement_html(m[0])  # a formula, as the app renders LaTeX


def _inline(text: str) -> str:
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    return _LINK.sub(lambda m: f'<a href="{m[2]}" target="_blank" rel="noopener noreferrer">{m[1]}</a>'
                     if safe_url(html.unescape(m[2])) else m[1], text)  # fmt: skip


def _block_html(block: str) -> str:
    """One block of escaped Markdown (no blank line in it): paragraphs, list items and headings."""
    out, para, items = [], [], []

    def flush() -> None:
        if len(para) == 1 and _BLOCK.fullmatch(para[0]):
            out.append(para[0])
        elif para:
            head = _HEADING.match(para[0])
            text = _inline(" ".join(para)[head.end() :] if head else " ".join(para))
            out.append(f"<p><strong>{text}</strong></p>" if head else f"<p>{text}</p>")
        if items:
            out.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
        para.clear()
        items.clear()

    for line in block.splitlines():
        item = _ITEM.match(line.strip())
        if item:
            if para:
                flush()
            items.append(line.strip()[item.end() :])
        elif items and line[:1].isspace():
            items[-1] += " " + line.strip()
        else:
            if items:
                flush()
            para.append(line.strip())
    flush()
    return "".join(out)


def _cut(doc: str, max_chars: int) -> str:
    """``doc`` cut at ``max_chars`` (before a code span or formula it would split), with an ellipsis."""
    if len(doc) <= max_chars:
        return doc
    straddling = [m.start() for m in _SEGMENT.finditer(doc) if m.start() < max_chars < m.end()]
    return doc[: straddling[0] if straddling else max_chars].rstrip() + " \u2026"


def docstring_html(doc: str, max_chars: int = DOC_CHARS) -> str:
    """A docstring (Markdown with ``code`` and ``$LaTeX$``) as HTML on one line, cut at ``max_chars``.

    >>> out = docstring_html("# Primes\\n\\nA prime:\\n- is `≥ 2`;\\n- has *no* divisor but $1$.")
    >>> print(out.replace("</p>", "</p>\\n"))
    <p><strong>Primes</strong></p>
    <p>A prime:</p>
    <ul><li>is <code>≥ 2</code>;</li><li>has <em>no</em> divisor but $1$.</li></ul>
    """
    kept: list[str] = []

    def keep(m: re.Match) -> str:
        kept.append(_segment_html(m))
        opening = "\ue002" if m["block"] is not None else "\ue000"
        return f"{opening}{len(kept) - 1}\ue001"

    text = _SEGMENT.sub(keep, re.sub("[\ue000-\ue002]", "", _cut(doc, max_chars)))
    text = html.escape(text, quote=True).replace("$", "&#36;")
    out = "".join(_block_html(b) for b in re.split(r"\n[ \t]*\n", text.strip()) if b.strip())
    return _PH.sub(lambda m: kept[int(m[1])], out)


def lean_heading_html(theorem: Theorem) -> str:
    """The Lean kind (``theorem``, ``def``, ``instance``, ``structure``...) and the full name, as code."""
    kind = (theorem.meta or {}).get("lean_kind") or theorem.kind
    return f'{html.escape(kind)} <code class="trag-lean-name">{_code(theorem.name or theorem.id)}</code>'


def lean_links_html(theorem: Theorem) -> str:
    """Links to the declaration's source (at the commit and line) and to its page in the documentation."""
    links = [(safe_url(theorem.url), "source", "The source at its commit and line"),
             (safe_url((theorem.meta or {}).get("docs_url")), "docs", "Its page in the documentation")]  # fmt: skip
    return "".join(f'<a class="trag-link" href="{html.escape(url)}" target="_blank" rel="noopener noreferrer" '
                   f'title="{title}">{label} \u2197</a>' for url, label, title in links if url)  # fmt: skip
