"""The LLM slogan prompt, its three context strategies and the check every answer passes (pure).

Strategies, as in the reference system: ``body`` (the statement alone), ``abstract`` (statement and the paper's
abstract) and ``introduction`` (statement and the paper's introduction, truncated).

>>> from theorem_rag.records import Theorem
>>> t = Theorem(id="a", source="x", kind="lemma", doc_id="d", body_latex="Let $R$ be a Noetherian ring.")
>>> [m["role"] for m in build_messages(t)]
['system', 'user']
>>> clean_slogan("Slogan: This lemma states that $R$ is \\\\emph{Noetherian}.")
'R is Noetherian.'
"""

from __future__ import annotations

import re

from theorem_rag.errors import InputError
from theorem_rag.records import Document, Theorem
from theorem_rag.slogans.latex_text import latex_to_text

# Bump when the prompt or the post-check changes: cached slogans are keyed on it.
PROMPT_VERSION = "llm-1"
CONTEXTS = ("body", "abstract", "introduction")
MAX_STATEMENT_CHARS = 6_000
MAX_CONTEXT_CHARS = {"abstract": 2_000, "introduction": 8_000}
MAX_SENTENCES = 4

SYSTEM_PROMPT = """You write slogans for mathematical statements: short plain-English summaries that let a \
mathematician find the statement with a natural-language search.
Rules:
- Be accurate: say exactly what the statement says, with its hypotheses when they matter.
- At most four sentences; one or two is usually best.
- Plain ASCII text only. No LaTeX, no dollar signs, no backslashes, no mathematical symbols: write words \
("isomorphic to", "tensor product", "the spectrum of R").
- Never write "this theorem", "this lemma", "this result" or "the statement": state the mathematics directly.
- No proof steps, no motivation, no background, no references.
- Answer with the slogan only."""

_CONTEXT_INTRO = {
    "abstract": "The abstract of the paper the statement comes from, for context only:",
    "introduction": "The introduction of the paper the statement comes from, for context only:",
}


def truncate(text: str, limit: int) -> str:
    """Cut ``text`` at the last paragraph or sentence break before ``limit`` characters."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for sep in ("\n\n", ". ", "\n", " "):
        i = cut.rfind(sep)
        if i > limit // 2:
            return cut[: i + 1].rstrip() + " [...]"
    return cut + " [...]"


def build_messages(theorem: Theorem, document: Document | None = None, context: str = "body") -> list[dict[str, str]]:
    """Chat messages asking for ``theorem``'s slogan with the given context strategy.

    ``abstract`` / ``introduction`` fall back to the statement alone when the document lacks that text.
    """
    if context not in CONTEXTS:
        raise InputError(f"slogan context must be one of {', '.join(CONTEXTS)}, not {context!r}")
    parts: list[str] = []
    extra = getattr(document, context, "") if document is not None and context != "body" else ""
    if extra and extra.strip():
        title = f' ("{document.title}")' if document is not None and document.title else ""
        parts.append(f"{_CONTEXT_INTRO[context]}{title}\n<context>\n{truncate(extra, MAX_CONTEXT_CHARS[context])}\n</context>")
    name = f" [{theorem.name}]" if theorem.name else ""
    parts.append(
        f"The {theorem.kind}{name} in LaTeX:\n<statement>\n{truncate(theorem.text, MAX_STATEMENT_CHARS)}\n</statement>"
    )
    parts.append("Write its slogan.")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n\n".join(parts)}]


_PREFIX_RE = re.compile(r"^\s*(?:\*\*)?(?:slogan|summary|answer)\s*:?\s*(?:\*\*)?\s*:?\s*", re.I)
_SELF_REF_RE = re.compile(
    r"\b(?:this|the) (?:theorem|lemma|proposition|corollary|result|statement|definition)"
    r" (?:states|shows|says|asserts|establishes|proves|defines)(?: that)?\s*",
    re.I,
)


def clean_slogan(text: str) -> str:
    """Post-check an LLM answer: strip labels, quotes, LaTeX remnants and non-ASCII, keep four sentences.

    Raises ``ValueError`` when nothing usable is left, so an empty answer is never cached.
    """
    text = (text or "").strip()
    text = re.sub(r"<think>.*?</think>", " ", text, flags=re.S)
    text = _PREFIX_RE.sub("", text).strip().strip('"\'`').strip()
    if "\\" in text or "$" in text:
        text = latex_to_text(text)
    else:
        text = latex_to_text(text.replace("{", "").replace("}", ""))
    text = _SELF_REF_RE.sub("", text).strip()
    text = re.sub(r"\s+", " ", text).strip()
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9])", text)
    text = " ".join(sentences[:MAX_SENTENCES]).strip()
    if not re.search(r"[A-Za-z]{2}", text):
        raise ValueError("the model returned no usable slogan")
    return text[:1].upper() + text[1:]
