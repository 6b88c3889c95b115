"""The Gradio app: a Search tab (result cards with KaTeX) and an Assistant tab (cited, streamed answers).

:func:`create_app` builds the UI around a ready :class:`~theorem_rag.search.TheoremSearch` and chat model, so
tests inject a real search over the test database; :func:`build_app` does the wiring from Settings (searches
under the servers' bounds) and :func:`theorem_rag.ui.server.launch` serves it, guarded like the REST API. The
event handlers live in :class:`Handlers` (plain Python, testable without a browser).

>>> search = TheoremSearch.from_settings()                                   # doctest: +SKIP
>>> demo = create_app(search, build_chat_model("local:smollm2"))             # doctest: +SKIP
>>> launch(demo, port=7860)                                                  # doctest: +SKIP
"""

from __future__ import annotations

import html
import inspect
import json
import re
import time
from collections.abc import Iterator
from typing import Any

from theorem_rag.chat_backends import ChatError
from theorem_rag.errors import InputError
from theorem_rag.records import KINDS, Document, Hit
from theorem_rag.ui.assistant import Assistant, link_citations
from theorem_rag.query import graph_query
from theorem_rag.ui.card_data import STATEMENT_CHOICES, URL_SYNC_JS, formal_choice, restore_search, theorem_cards
from theorem_rag.ui.cards import SOURCE_LABELS, message_html, papers_html, sources_html
from theorem_rag.ui.confidence_html import no_match_html

_APP_EXTRA = 'pip install "theorem-rag[app]"'
LATEX_DELIMITERS = [
    {"left": "$$", "right": "$$", "display": True},
    {"left": "$", "right": "$", "display": False},
    {"left": "\\[", "right": "\\]", "display": True},
    {"left": "\\(", "right": "\\)", "display": False},
]
EXAMPLES = [
    "a local ring has exactly one maximal ideal",
    "Nakayama's lemma",
    "there is no surjection from a set onto its power set",
    "rank of a finite group",
]


def _gradio() -> Any:
    try:
        import gradio as gr
    except ImportError as err:
        raise ImportError(f"the web app needs gradio: {_APP_EXTRA}") from err
    return gr


def _user_errors() -> tuple[type[BaseException], ...]:
    """What a search can raise that the user should read as a message rather than a crash."""
    from theorem_rag.db.connection import StoreUnavailable
    from theorem_rag.search_spaces import IndexNotBuilt

    return (InputError, IndexNotBuilt, StoreUnavailable)


def _split(value: Any) -> list[str] | None:
    if not value:
        return None
    items = value if isinstance(value, list | tuple) else re.split(r"[,\s]+", str(value))
    items = [str(v).strip() for v in items if str(v).strip()]
    return items or None


def _plain(html_text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", html_text or ""))


class Handlers:
    """The app's event handlers over one search object and one chat model."""

    def __init__(self, search: Any, chat: Any, *, assistant_options: dict[str, Any] | None = None) -> None:
        from theorem_rag.db.generation_cache import GenerationCache

        self.search, self.chat = search, chat
        self.assistant_options = assistant_options or {}
        self._documents: GenerationCache[str, Document | None] = GenerationCache()
        self._errors = _user_errors()

    def documents_for(self, hits: list[Hit]) -> dict[str, Document]:
        """Documents of the hits' statements, cached until the index's change marker moves (another process
        ingested, changed or removed documents): a miss is not remembered past that."""
        self._documents.advance(self.search.index_generation())
        stamp = self._documents.stamp()  # before the reads: what they return is kept only if no move came between
        known = self._documents.copy()
        wanted = {h.theorem.doc_id for h in hits if h.theorem is not None} - set(known)
        read = {doc_id: self.search.get_document(doc_id) for doc_id in wanted}
        self._documents.update(read, stamp)
        return {k: v for k, v in (known | read).items() if v is not None}

    def run_search(self, query: str, level: str = "Theorems", k: int = 10, sources: Any = None, kinds: Any = None,
                   papers: Any = None, categories: Any = None, formal: Any = None) -> tuple[str, str, str]:  # fmt: skip
        """``(results html, status line, query)`` for the Search tab; bad input and outages become messages.
        ``formal``: a choice of :data:`~theorem_rag.ui.card_data.STATEMENT_CHOICES` (Lean, LaTeX or both)."""
        query = (query or "").strip()
        if not query:
            return message_html("Type a query first, e.g. \u201cNakayama's lemma\u201d.", "warning"), "", ""
        filters = {"sources": _split(sources), "kinds": _split(kinds), "papers": _split(papers),
                   "categories": _split(categories), "formal": formal_choice(formal)}  # fmt: skip
        start = time.perf_counter()
        try:
            if level == "Papers":
                papers = self.search.paper_results(query, int(k), **filters)
                found, plan = papers.hits, papers.plan
                body, what = papers_html(found, query=query), "papers"
            else:
                found, plan, body, what = theorem_cards(self, query, int(k), filters)
            if not graph_query(query):  # a uses:/used-by: listing is not a ranked match
                body = no_match_html(self.search.assess(query, found, plan)) + body
        except self._errors as err:
            return message_html(str(err)), "", query
        ms = (time.perf_counter() - start) * 1000
        return body, f"{len(found)} {what} in {ms:.0f} ms", query

    def vote(self, payload: str, last_query: str, last_question: str) -> str:
        """Store a thumbs up/down sent by the page script: ``{"theorem_id", "vote", "where"}``."""
        try:
            data = json.loads(payload or "{}")
            if not isinstance(data, dict):
                raise TypeError("a vote is a JSON object")
            vote, theorem_id = int(data.get("vote", 0)), str(data.get("theorem_id") or "")
        except (ValueError, TypeError):
            return "Could not read that vote."
        query = last_question if data.get("where") == "assistant" else last_query
        if not theorem_id or not query:
            return "Vote not stored: no query to attach it to."
        try:
            self.search.record_feedback(query=query, vote=vote, theorem_id=theorem_id)
        except self._errors as err:
            return f"Vote not stored: {err}"
        return f"Thanks: your thumbs {'up' if vote > 0 else 'down'} on {theorem_id} is stored."

    def vote_answer(self, index: Any, liked: Any, history: list[dict[str, Any]], last_question: str) -> str:
        """Store a thumbs up/down on an assistant answer (Gradio's like event on the chat)."""
        if liked is None or not last_question:
            return ""
        vote = 1 if liked is True or str(liked).lower() in ("like", "true") else -1
        i = index[0] if isinstance(index, list | tuple) else index
        found = history and isinstance(i, int) and 0 <= i < len(history)
        answer = _plain(str(history[i].get("content", ""))) if found else ""
        try:
            self.search.record_feedback(query=last_question, vote=vote, answer=answer or None)
        except self._errors as err:
            return f"Feedback not stored: {err}"
        return "Thanks, your feedback on the answer was stored."

    def chat_turn(self, message: str, history: list[dict[str, Any]] | None) -> Iterator[tuple[list, str, str, str]]:
        """Yield ``(chat history, sources html, status, question)`` as searches finish and the answer streams."""
        history = [dict(m) for m in (history or [])]
        question = (message or "").strip()
        if not question:
            yield history, sources_html([]), "Type a question first.", ""
            return
        prior = [{"role": m["role"], "content": _plain(str(m.get("content", "")))} for m in history
                 if m.get("role") in ("user", "assistant") and not m.get("metadata")]  # fmt: skip
        history.append({"role": "user", "content": question})
        yield history, sources_html([]), "Searching\u2026", question
        assistant = Assistant(self.search.search, self.chat, premises=getattr(self.search, "premises", None),
                              **self.assistant_options)  # fmt: skip
        sources: list[Hit] = []
        text, answer_at, last_push = "", None, 0.0
        try:
            for event in assistant.run(question, prior):
                if event.kind == "search":
                    sources = assistant.sources
                    history.append(_search_message(event.step))
                    yield history, sources_html(sources, self.documents_for(sources)), "Thinking\u2026", question
                elif event.kind == "token":
                    text += event.text
                    if answer_at is None:
                        history.append({"role": "assistant", "content": ""})
                        answer_at = len(history) - 1
                    if time.monotonic() - last_push > 0.08:
                        history[answer_at]["content"] = link_citations(text, sources)[0]
                        last_push = time.monotonic()
                        yield history, gr_skip(), "Answering\u2026", question
                elif event.kind == "done":
                    answer = event.answer
                    body = answer.html or "(the model returned no text)"
                    notes = []
                    if answer.invalid:
                        nums = ", ".join(f"[{n}]" for n in answer.invalid)
                        notes.append(f"Citation(s) {nums} point to nothing retrieved and are not linked.")
                    if answer.error:
                        notes.append(answer.error)
                    if notes:
                        body += "\n\n" + " ".join(f"\u26a0 {html.escape(n, quote=False)}" for n in notes)
                    if answer.premises:
                        body += "\n\n" + premises_note(answer)
                    if answer_at is None:
                        history.append({"role": "assistant", "content": body})
                    else:
                        history[answer_at]["content"] = body
                    status = f"Cited {len(answer.cited)} of {len(answer.sources)} retrieved statements."
                    yield history, sources_html(answer.sources, self.documents_for(answer.sources)), status, question
        except (*self._errors, ChatError, ImportError) as err:
            history.append({"role": "assistant", "content": f"\u26a0 {html.escape(str(err), quote=False)}"})
            yield history, sources_html(sources, self.documents_for(sources)), str(err), question


def premises_note(answer: Any) -> str:
    """The line under an answer to a proof request: which premises (by source number and id) the model was given.

    >>> from theorem_rag.ui.assistant import Answer, SearchStep
    >>> from theorem_rag.records import Hit
    >>> hits = [Hit("s:1", 1.0), Hit("s:2", 0.5)]
    >>> premises_note(Answer("q", "", "", hits, [SearchStep("g", tuple(hits), ("s:2",), kind="premises")]))
    'Premises given for the proof: [2] <code>s:2</code>'
    """
    number = {h.theorem_id: n for n, h in enumerate(answer.sources, 1)}
    ids = ", ".join(f"[{number[i]}] <code>{html.escape(i, quote=False)}</code>" for i in answer.premises)
    return f"Premises given for the proof: {ids}"


def _search_message(step: Any) -> dict[str, Any]:
    lines = [f"- {h.theorem.kind.capitalize() if h.theorem else ''} `{h.theorem_id}`" for h in step.hits]
    content = "\n".join(lines) or "No statements found."
    what = "Premise search for" if getattr(step, "kind", "search") == "premises" else "Searched"
    title = f"{what} \u201c{step.query}\u201d \u2014 {len(step.hits)} statements, {len(step.new_ids)} new"
    return {"role": "assistant", "content": content, "metadata": {"title": title, "status": "done"}}


def gr_skip() -> Any:
    """Leave an output as it is (``gr.skip()``)."""
    return _gradio().skip()


def create_app(search: Any, chat_model: Any, *, title: str = "theorem-rag", stats: dict[str, Any] | None = None,
               service: Any = None) -> Any:  # fmt: skip
    """The Gradio Blocks app over a ready search object and chat model (not launched: see
    :func:`theorem_rag.ui.server.launch`). With ``service`` (a :class:`~theorem_rag.serving.service.SearchService`
    over ``search``) its searches run under the service's bounds and deadline (:class:`~theorem_rag.ui.server.
    GuardedHandlers`); without, directly."""
    gr = _gradio()
    h = Handlers(search, chat_model)
    if service is not None:
        from theorem_rag.ui.server import GuardedHandlers

        events: Any = GuardedHandlers(h, service)
    else:
        events = h
    source_choices = sorted(set(SOURCE_LABELS) | set((stats or {}).get("sources", {}) or {}))
    # No analytics: the app runs offline and sends nothing anywhere.
    with gr.Blocks(title=title, fill_width=True, analytics_enabled=False) as demo:
        last_query, last_question = gr.State(""), gr.State("")
        gr.Markdown(
            "# theorem-rag\nSemantic search over research mathematics, one statement at a time: "
            "Stacks Project, PlanetMath, Open Logic, HoTT, Napkin, Lebl and arXiv papers.",
            elem_id="trag-header",
        )
        with gr.Tabs():
            with gr.Tab("Search", id="search", elem_id="trag-tab-search"):
                with gr.Row(equal_height=True):
                    query = gr.Textbox(placeholder="Describe a statement in words or LaTeX\u2026", show_label=False,
                                       scale=6, elem_id="trag-query", autofocus=True)  # fmt: skip
                    level = gr.Radio(["Theorems", "Papers"], value="Theorems", show_label=False, scale=2)
                    go = gr.Button("Search", variant="primary", scale=1, elem_id="trag-search-btn")
                with gr.Accordion("Filters", open=False):
                    with gr.Row():
                        f_sources = gr.Dropdown(source_choices, multiselect=True, allow_custom_value=True,
                                                label="Source", info="Corpus, or a paper's source id",
                                                elem_id="trag-filter-source")  # fmt: skip
                        f_kinds = gr.Dropdown(list(KINDS), multiselect=True, label="Kind")
                        f_papers = gr.Textbox(label="Paper", placeholder="document id(s), comma separated")
                        f_categories = gr.Textbox(label="arXiv category", placeholder="math.AG, hep-th",
                                                  info="Primary or cross-list", elem_id="trag-filter-category")
                        f_formal = gr.Radio(list(STATEMENT_CHOICES), value="All", label="Statements",
                                            info="Lean declarations, LaTeX statements or both",
                                            elem_id="trag-filter-formal")  # fmt: skip
                        k = gr.Slider(1, min(50, getattr(search, "max_k", 50)), value=10, step=1, label="Results",
                                      elem_id="trag-filter-k")  # fmt: skip
                examples = gr.Dataset(samples=[[e] for e in EXAMPLES], components=[query], label="Try",
                                      elem_id="trag-examples")  # fmt: skip
                status = gr.Markdown(elem_id="trag-status")
                results = gr.Markdown(elem_id="trag-results", latex_delimiters=LATEX_DELIMITERS, sanitize_html=False,
                                      value=message_html("Results appear here.", "info"))  # fmt: skip
            with gr.Tab("Assistant", id="assistant", elem_id="trag-tab-assistant"):
                small = getattr(chat_model, "is_small_offline", False)
                note = (" \u2014 a small offline model: answers are short and often wrong; read the cited statements."
                        if small else "")  # fmt: skip
                gr.Markdown(f"Model: **{html.escape(chat_model.label)}**{note}", elem_id="trag-model-label")
                with gr.Row():
                    with gr.Column(scale=3):
                        chatbot = gr.Chatbot(elem_id="trag-chat", latex_delimiters=LATEX_DELIMITERS, height=560,
                                             buttons=["copy"], placeholder="Ask a question, ask for a proof sketch, "
                                             "or state a claim to check.", label="Assistant")  # fmt: skip
                        with gr.Row(equal_height=True):
                            ask = gr.Textbox(placeholder="e.g. Why does a local ring have only one maximal ideal?",
                                             show_label=False, scale=6, elem_id="trag-ask")  # fmt: skip
                            send = gr.Button("Ask", variant="primary", scale=1, elem_id="trag-ask-btn")
                        chat_status = gr.Markdown(elem_id="trag-chat-status")
                    with gr.Column(scale=2):
                        gr.Markdown("### Sources")
                        sources = gr.Markdown(sources_html([]), elem_id="trag-sources",
                                              latex_delimiters=LATEX_DELIMITERS, sanitize_html=False)  # fmt: skip
        vote_box = gr.Textbox(elem_id="trag-vote-box", elem_classes="trag-hidden", container=False, show_label=False)
        vote_btn = gr.Button(elem_id="trag-vote-btn", elem_classes="trag-hidden")
        toast = gr.Markdown(elem_id="trag-toast")

        search_inputs = [query, level, k, f_sources, f_kinds, f_papers, f_categories, f_formal]
        search_outputs = [results, status, last_query]
        for trigger, name in ((go.click, "search"), (query.submit, "search_submit")):
            trigger(events.run_search, search_inputs, search_outputs, concurrency_limit=4, js=URL_SYNC_JS,
                    api_name=name)  # fmt: skip
        # A click on an example fills the box and searches at once, with the current filters.
        examples.click(lambda sample: sample[0], examples, query).then(
            events.run_search, search_inputs, search_outputs, concurrency_limit=4, js=URL_SYNC_JS
        )
        shareable_searches(gr, demo, events, search_inputs, search_outputs)
        vote_btn.click(h.vote, [vote_box, last_query, last_question], toast, api_name="vote")
        chat_outputs = [chatbot, sources, chat_status, last_question]
        for trigger, name in ((send.click, "ask"), (ask.submit, "ask_submit")):
            trigger(events.chat_turn, [ask, chatbot], chat_outputs, concurrency_limit=1,
                    api_name=name).then(lambda: "", None, ask)  # fmt: skip

        def on_like(data: Any, history: list, question: str) -> str:
            return h.vote_answer(data.index, data.liked, history, question)

        # Gradio injects the like event's data by annotation; postponed annotations are strings, so set it here.
        on_like.__annotations__["data"] = gr.LikeData

        chatbot.like(on_like, [chatbot, last_question], toast)
    return demo


def shareable_searches(gr: Any, demo: Any, h: Any, inputs: list, outputs: list) -> None:
    """Opening ``/?q=...&source=stacks`` fills the search box, level and filters and runs the search (``h``: the
    app's :class:`Handlers`, or their guarded form whose ``run_search`` is a coroutine)."""

    def restore(request: Any) -> tuple:
        return restore_search(request)

    restore.__annotations__["request"] = gr.Request

    async def run_if_query(query: str, *rest: Any) -> tuple:
        if not (query or "").strip():
            return gr.skip(), gr.skip(), gr.skip()
        found = h.run_search(query, *rest)
        return await found if inspect.isawaitable(found) else found

    demo.load(restore, None, inputs).then(run_if_query, inputs, outputs, concurrency_limit=4)


def warm_up(search: Any, chat_model: Any) -> str:
    """Load the embedding model, open the pool and load a local chat model now, so the first query is fast."""
    try:
        search.search("warm up", 1)
        message = "search ready"
    except _user_errors() as err:
        message = f"search not ready: {err}"
    if hasattr(chat_model, "load"):
        chat_model.load()
    return message


def build_app(settings: Any = None, *, warm: bool = True) -> tuple[Any, Any, Any]:
    """``(demo, search, chat model)`` from :class:`~theorem_rag.config.Settings` (environment THEOREM_RAG_*): a
    server's pool and statement timeout, and searches under the servers' bounds and request deadline."""
    from theorem_rag.config import Settings
    from theorem_rag.search import TheoremSearch
    from theorem_rag.chat_backends import build_chat_model
    from theorem_rag.serving.service import SearchService, server_settings

    s = server_settings(settings or Settings())
    search = TheoremSearch.from_settings(s)
    chat = build_chat_model(s.chat_model, s.llm_api_base)
    if warm:
        warm_up(search, chat)
    return create_app(search, chat, service=SearchService.from_settings(search, s)), search, chat
