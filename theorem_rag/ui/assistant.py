"""The assistant's agent loop: search, let the model ask for more searches, answer with checked citations.

Retrieval is the model's one tool. Small models cannot call functions reliably, so the protocol is plain text
and works for weak and strong models alike:

1. The first search always runs with the user's question.
2. A capable model (not ``is_small_offline``) sees the numbered statements found so far and replies with lines
   ``SEARCH: <query>`` for what it still needs, or ``ANSWER``; at most ``max_rounds`` rounds in all.
3. The statements are numbered [1]..[n] in the prompt; the answer streams.
4. Asked to prove something (:func:`proof_goal`), the first search is a premise search for the goal (what a
   proof of it is likely to use, ``TheoremSearch.premises``) when one is given; the answer says which premises
   the model was given.
5. Citations are checked against what was retrieved: ``[n]`` links to statement n; a number with no retrieved
   statement behind it is marked as invalid and never linked (:func:`link_citations`).

The loop is implemented here rather than with LlamaIndex's agent classes: their tool calling needs a model that
emits structured calls, which the 135M offline default does not. Searching goes through a plain callable
(``TheoremSearch.search``, which runs the LlamaIndex ``TheoremRetriever``), so the module stays pure.

>>> find_citations("By [2] and [1, 3], and [4-5].")
[2, 1, 3, 4, 5]
>>> proof_goal("Prove that every finite integral domain is a field.")
'every finite integral domain is a field.'
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from theorem_rag.chat_backends import ChatError
from theorem_rag.db.cancel import current_scope
from theorem_rag.errors import InputError
from theorem_rag.records import Hit
from theorem_rag.slogans.latex_text import prompt_text
from theorem_rag.ui.cards import heading, source_label

SearchFn = Callable[[str], list[Hit]]

_CITE = re.compile(r"\[(\d{1,3}(?:\s*(?:[,;]|[-\u2013])\s*\d{1,3})*)\]")
_SEARCH_LINE = re.compile(r"^\s*(?:[-*]\s*)?SEARCH\s*:\s*(.+?)\s*$", re.I | re.M)
SMALL_MODEL_PREFIX = "According to [1],"

SYSTEM_PROMPT = (
    "You are a careful research mathematician helping a colleague. Use only the numbered statements given. "
    "Cite every statement you rely on by its number in square brackets, for example: \"By [2], every local ring "
    "has exactly one maximal ideal.\" If the statements do not settle the question, say so. Write mathematics in "
    "LaTeX between $...$."
)
PROOF_PROMPT = (
    "The colleague asks for a proof. The statements were retrieved as premises a proof of the goal is likely to "
    "use: build the proof step by step from them, citing the statement behind each step; say which step they do "
    "not cover."
)
# A request to prove something: "prove (that) X", "show that X", "give/write/sketch a proof (that|of) X", "why is X
# true"; the goal is the rest of the question.
_PROOF_REQUEST = re.compile(
    r"^\s*(?:(?:can|could|would)\s+you\s+|please\s+|how\s+(?:do|can|would)\s+(?:i|we|you|one)\s+)?"
    r"(?:(?:prove|demonstrate|establish|derive|deduce)\b|show\s+(?=that\b)|"
    r"(?:(?:give|write|sketch|find|outline)\s+(?:me\s+)?|what\s+is\s+)?(?:a\s+|the\s+)?proof\s+(?:of|that|for)\b)"
    r"\s*(?:that\b)?[:,]?\s*",
    re.I,
)
PLAN_PROMPT = (
    "You can search a database of theorems before answering. Given the question and the statements found so far, "
    "reply with at most two lines of the form\nSEARCH: <what statement to look for>\nif a needed definition or "
    "result is missing, or with the single word ANSWER if the statements suffice. Reply with nothing else."
)


@dataclass(frozen=True)
class SearchStep:
    """One search the assistant ran: the query, what it returned, and which of those were new sources;
    ``kind`` is ``"search"``, or ``"premises"`` for a premise search (the query is then the goal)."""

    query: str
    hits: tuple[Hit, ...]
    new_ids: tuple[str, ...] = ()
    error: str | None = None
    kind: str = "search"


@dataclass
class Answer:
    """The finished turn: the raw answer, its HTML with citation links, the sources and searches behind it."""

    question: str
    text: str
    html: str
    sources: list[Hit]
    searches: list[SearchStep]
    cited: list[int] = field(default_factory=list)
    invalid: list[int] = field(default_factory=list)
    error: str | None = None

    @property
    def cited_ids(self) -> list[str]:
        return [self.sources[n - 1].theorem_id for n in self.cited]

    @property
    def premises(self) -> list[str]:
        """Ids of the sources a premise search found (the premises the model was given), in source order."""
        found = {i for step in self.searches if step.kind == "premises" for i in step.new_ids}
        return [h.theorem_id for h in self.sources if h.theorem_id in found]


@dataclass(frozen=True)
class Event:
    """What :meth:`Assistant.run` yields: ``search`` (a step), ``token`` (text) or ``done`` (the answer)."""

    kind: str
    step: SearchStep | None = None
    text: str = ""
    answer: Answer | None = None


def find_citations(text: str) -> list[int]:
    """Numbers cited as ``[n]``, ``[n, m]`` or ``[n-m]``, in order of appearance (repeats kept)."""
    out: list[int] = []
    for m in _CITE.finditer(text):
        out.extend(_expand(m[1]))
    return out


def _expand(group: str) -> list[int]:
    nums: list[int] = []
    for part in re.split(r"\s*[,;]\s*", group):
        ends = [int(x) for x in re.split(r"\s*[-\u2013]\s*", part) if x]
        if len(ends) == 2 and 0 <= ends[1] - ends[0] <= 20:
            nums.extend(range(ends[0], ends[1] + 1))
        else:
            nums.extend(ends)
    return nums


def link_citations(text: str, sources: Sequence[Hit]) -> tuple[str, list[int], list[int]]:
    """Escape ``text`` and turn each citation into a link to its source; mark numbers nothing was retrieved for.

    Returns ``(html, valid numbers cited, invalid numbers cited)``, each in order of first appearance.

    >>> h = Hit("stacks:00AC", 1.0)
    >>> link_citations("By [1] and [3], <b>", [h])[0]
    'By <a class="trag-cite" href="#trag-src-1" data-theorem-id="stacks:00AC" title="stacks:00AC">[1]</a> and <span class="trag-bad-cite" title="no statement [3] was retrieved">[3?]</span>, &lt;b&gt;'
    """
    valid: list[int] = []
    invalid: list[int] = []

    def one(n: int) -> str:
        if 1 <= n <= len(sources):
            if n not in valid:
                valid.append(n)
            tid = html.escape(sources[n - 1].theorem_id, quote=True)
            return f'<a class="trag-cite" href="#trag-src-{n}" data-theorem-id="{tid}" title="{tid}">[{n}]</a>'
        if n not in invalid:
            invalid.append(n)
        return f'<span class="trag-bad-cite" title="no statement [{n}] was retrieved">[{n}?]</span>'

    pieces, last = [], 0
    for m in _CITE.finditer(text):
        pieces.append(html.escape(text[last : m.start()], quote=False))
        pieces.append("".join(one(n) for n in _expand(m[1])))
        last = m.end()
    pieces.append(html.escape(text[last:], quote=False))
    return "".join(pieces), valid, invalid


def proof_goal(question: str) -> str | None:
    """The goal when ``question`` asks to prove something ("Prove that X", "Show X", "Give a proof of X", ...),
    else None.

    >>> proof_goal("Show that $x^2 = x x$"), proof_goal("Show me local rings"), proof_goal("What is a ring?")
    ('$x^2 = x x$', None, None)
    """
    m = _PROOF_REQUEST.match(question)
    if m is None:
        return None
    goal = question[m.end():].strip()
    return goal or None


def parse_search_requests(reply: str, limit: int = 2) -> list[str]:
    """The queries a model asked for with ``SEARCH: <query>`` lines (deduplicated, at most ``limit``).

    >>> parse_search_requests("SEARCH: Nakayama lemma\\nsearch: local ring\\nANSWER")
    ['Nakayama lemma', 'local ring']
    """
    out: list[str] = []
    for m in _SEARCH_LINE.finditer(reply):
        q = m[1].strip().strip("\"'`<>").strip()
        if q and q.lower() not in (x.lower() for x in out):
            out.append(q[:300])
    return out[:limit]


def context_block(sources: Sequence[Hit], max_chars: int = 600, proof_chars: int = 0) -> str:
    """The numbered statements as the model sees them: ``[n] Lemma 1.2 (Stacks Project): <statement>``, each
    followed by the start of its proof (``Proof: ...``, at most ``proof_chars``) when it has one, so that the
    model may quote it.

    >>> from theorem_rag.records import Theorem
    >>> t = Theorem(id="s:1", source="stacks", kind="lemma", body_latex="$1+1=2$.", doc_id="d", proof="Count.")
    >>> print(context_block([Hit("s:1", 1.0, theorem=t)], proof_chars=100))
    [1] Lemma (Stacks Project): $1+1=2$. Proof: Count.
    """
    lines = []
    for i, h in enumerate(sources, 1):
        t = h.theorem
        if t is None:
            continue
        line = f"[{i}] {heading(t)} ({source_label(t.source)}): {prompt_text(t.text, max_chars)}"
        if proof_chars and getattr(t, "proof", ""):
            line += f" Proof: {prompt_text(t.proof, proof_chars)}"
        lines.append(line)
    return "\n".join(lines)


def answer_messages(question: str, sources: Sequence[Hit], history: Sequence[dict[str, str]] = (),
                    max_chars: int = 600, proof: bool = False) -> list[dict[str, str]]:  # fmt: skip
    """System prompt with the numbered statements, the recent conversation, then the question; with ``proof``,
    the prompt says the statements are premises for a proof of the goal."""
    prompt = f"{SYSTEM_PROMPT} {PROOF_PROMPT}" if proof else SYSTEM_PROMPT
    system = f"{prompt}\n\nStatements:\n{context_block(sources, max_chars, max_chars // 2) or '(none found)'}"
    return [{"role": "system", "content": system}, *history[-4:], {"role": "user", "content": question}]


def step_cancelled() -> bool:
    """Whether the call running the turn's current step was cancelled: a server runs each step under a deadline
    (:func:`~theorem_rag.serving.deadline.call_with_deadline`), and past it the model must stop generating too, not
    only the database queries.

    >>> step_cancelled()
    False
    """
    scope = current_scope()
    return scope is not None and scope.cancelled


def plan_messages(question: str, sources: Sequence[Hit], searched: Sequence[str]) -> list[dict[str, str]]:
    done = "\n".join(f"- {q}" for q in searched)
    user = f"Question: {question}\n\nSearches run:\n{done}\n\nStatements found:\n{context_block(sources, 300)}"
    return [{"role": "system", "content": PLAN_PROMPT}, {"role": "user", "content": user}]


class Assistant:
    """Answer one question: search, maybe search again at the model's request, stream a cited answer.

    >>> assistant = Assistant(search.search, build_chat_model("local:smollm2"))     # doctest: +SKIP
    >>> for event in assistant.run("Is every local ring Noetherian?"):                # doctest: +SKIP
    ...     print(event.kind, event.text or (event.step and event.step.query))
    """

    def __init__(self, search: SearchFn, chat: object, *, max_rounds: int = 3, max_sources: int = 8,
                 small_sources: int = 4, max_tokens: int = 400, statement_chars: int = 600,
                 premises: SearchFn | None = None) -> None:  # fmt: skip
        if max_rounds < 1:
            raise InputError("max_rounds must be at least 1")
        self.search, self.chat, self.premises = search, chat, premises
        self.max_rounds, self.max_tokens, self.statement_chars = max_rounds, max_tokens, statement_chars
        # A 135M model with a 4k window reads a few short statements well and many poorly.
        small = getattr(chat, "is_small_offline", False)
        self.max_sources = small_sources if small else max_sources
        # Past a paragraph or so a 135M model drifts away from the statements; stop it sooner.
        self.max_tokens = min(max_tokens, 200) if small else max_tokens

    def _search(self, query: str, sources: list[Hit], seen: set[str], kind: str = "search") -> SearchStep:
        hits = (self.premises if kind == "premises" and self.premises is not None else self.search)(query)
        new = []
        for h in hits:
            if h.theorem_id not in seen and len(sources) < self.max_sources:
                seen.add(h.theorem_id)
                sources.append(h)
                new.append(h.theorem_id)
        return SearchStep(query, tuple(hits), tuple(new), kind=kind)

    def searches(self, question: str) -> Iterator[SearchStep]:
        """Run the retrieval rounds; yields each step. Sources accumulate in ``self.sources``. A request for a
        proof starts with a premise search for its goal (when a premise search is given)."""
        self.sources: list[Hit] = []
        seen: set[str] = set()
        goal = proof_goal(question) if self.premises is not None else None
        queries, searched = [question], []
        if goal is not None:
            searched.append(goal)
            yield self._search(goal, self.sources, seen, kind="premises")
            queries = [] if getattr(self.chat, "is_small_offline", False) else [question]
        for round_ in range(self.max_rounds):
            for q in queries:
                searched.append(q)
                yield self._search(q, self.sources, seen)
            small = getattr(self.chat, "is_small_offline", False)
            if small or round_ + 1 >= self.max_rounds or len(self.sources) >= self.max_sources:
                return
            plan = plan_messages(question, self.sources, searched)
            reply = "".join(self.chat.stream(plan, max_tokens=80, temperature=0.0, cancelled=step_cancelled))
            queries = [q for q in parse_search_requests(reply) if q.lower() not in (s.lower() for s in searched)]
            if not queries:
                return

    def run(self, question: str, history: Sequence[dict[str, str]] = ()) -> Iterator[Event]:
        """Yield ``search`` events, then ``token`` events as the answer streams, then one ``done`` event.

        Errors from search (``InputError``, ``IndexNotBuilt``, ``StoreUnavailable``) propagate before any answer;
        a :class:`~theorem_rag.chat_backends.ChatError` mid-answer ends the turn with ``Answer.error`` set. So does a
        cancelled step (:func:`step_cancelled`): the model stops at its next token, or stops waiting for its turn.
        """
        question = (question or "").strip()
        if not question:
            raise InputError("ask a question first")
        steps = []
        for step in self.searches(question):
            steps.append(step)
            yield Event("search", step=step)
        sources = self.sources
        # A 135M model rarely cites on its own; starting its reply at the best match anchors it there.
        anchored = getattr(self.chat, "supports_prefix", False) and getattr(self.chat, "is_small_offline", False)
        prefix = SMALL_MODEL_PREFIX if sources and anchored else ""
        text, error = prefix, None
        if prefix:
            yield Event("token", text=prefix)
        try:
            proof = any(step.kind == "premises" for step in steps)
            messages = answer_messages(question, sources, history, self.statement_chars, proof=proof)
            for piece in self.chat.stream(messages, max_tokens=self.max_tokens, prefix=prefix,
                                          cancelled=step_cancelled):  # fmt: skip
                text += piece
                yield Event("token", text=piece)
        except ChatError as err:
            error = str(err)
        body, cited, invalid = link_citations(text.strip(), sources)
        answer = Answer(question, text.strip(), body, list(sources), steps, cited, invalid, error)
        yield Event("done", answer=answer)
