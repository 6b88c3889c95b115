"""LlamaIndex tools for agents: theorem search as a ``FunctionTool`` and as a ``QueryEngineTool``, premise search
as a ``FunctionTool``, sync and async.

>>> search = TheoremSearch.from_settings()                              # doctest: +SKIP
>>> tool = theorem_search_tool(search)                                  # doctest: +SKIP
>>> print(tool.call(query="uncountability of the reals", k=2).content)  # doctest: +SKIP
1. [planetmath:CantorsTheorem] Theorem (Cantor's theorem), ...
"""

# No ``from __future__ import annotations``: LlamaIndex builds the tool schema from the signature at run time.
import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from theorem_rag.wire import CATEGORIES_DESCRIPTION, FORMAL_DESCRIPTION, Category, HitOut
from theorem_rag.records import Hit

if TYPE_CHECKING:
    from theorem_rag.search import TheoremSearch

_INDEX_EXTRA = 'pip install "theorem-rag[index]"'

SEARCH_DESCRIPTION = (
    "Search research mathematics (theorems, lemmas, definitions from the Stacks Project, PlanetMath, textbooks "
    "and papers, and Lean 4 mathlib declarations where the index has them) by meaning. Input: a plain-English "
    "description of a result, its name, LaTeX or Lean. Output: ranked statements, each with an id to cite, "
    "kind/number/name, a one-line slogan, the LaTeX statement and a link; a Lean declaration with its full name "
    "(to exact/apply), its Lean statement, docstring and module."
)


def _cut(text: str, max_chars: int) -> str:
    return text[:max_chars] + " ..." if len(text) > max_chars else text


def format_hits(hits: Sequence[Hit], max_statement_chars: int = 1200) -> str:
    """Results as numbered plain text for an LLM: id, citation, slogan, statement (cut at ``max_statement_chars``);
    a Lean declaration also says so, with its full name, module, documentation link and docstring.

    >>> format_hits([])
    'No results.'
    """
    if not hits:
        return "No results."
    blocks = []
    for h in hits:
        out = HitOut.from_hit(h)
        statement = _cut(out.statement, max_statement_chars)
        lines = [f"{out.rank}. [{out.id}] {out.citation.replace(f' [{out.id}]', '', 1)}"]
        if out.lean is not None:
            docs = f" (docs: {out.lean.docs_url})" if out.lean.docs_url else ""
            lines.append(f"   Lean 4 {out.lean.kind} {out.lean.full_name}, module {out.lean.module}{docs}")
        if out.slogan:
            lines.append(f"   slogan: {out.slogan}")
        if out.lean is not None and out.lean.docstring:
            lines.append(f"   docstring: {_cut(' '.join(out.lean.docstring.split()), max_statement_chars)}")
        lines.append(f"   statement: {statement}")
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def _search_fn(search: "TheoremSearch"):
    def search_theorems(
        query: Annotated[str, Field(description="What to look for: a plain-English statement, a name or LaTeX.")],
        k: Annotated[int, Field(description="Number of results.")] = 5,
        sources: Annotated[list[str] | None, Field(description="Only these sources, e.g. ['stacks'].")] = None,
        kinds: Annotated[list[str] | None, Field(description="Only these kinds, e.g. ['theorem', 'lemma'].")] = None,
        paper: Annotated[str | None, Field(description="Only statements of this document id.")] = None,
        categories: Annotated[list[Category] | None, Field(description=CATEGORIES_DESCRIPTION)] = None,
        formal: Annotated[bool | None, Field(description=FORMAL_DESCRIPTION)] = None,
    ) -> str:
        """Search theorems by meaning; returns ranked, citable statements."""
        # LlamaIndex passes arguments through unchecked: the library's Filters checks them (InputError).
        hits = search.search(query, k, sources=sources, kinds=kinds, papers=[paper] if paper else None,
                             categories=categories, formal=formal)  # fmt: skip
        return format_hits(hits)

    async def asearch_theorems(query: str, k: int = 5, sources: list[str] | None = None,
                               kinds: list[str] | None = None, paper: str | None = None,
                               categories: list[str] | None = None, formal: bool | None = None) -> str:  # fmt: skip
        # The store and the model are synchronous: a worker thread keeps the event loop free.
        return await asyncio.to_thread(search_theorems, query, k, sources, kinds, paper, categories, formal)

    return search_theorems, asearch_theorems


PREMISES_DESCRIPTION = (
    "Premise search over research mathematics: given a statement to prove (LaTeX, Lean or words) or a statement id "
    "such as 'stacks:0D09' or 'mathlib:Nat.Prime.two_le', return the lemmas, definitions and theorems a proof of it "
    "is likely to use, best first (the statement itself left out), each with an id to cite, a one-line slogan, the "
    "LaTeX statement (or a Lean declaration's full name and Lean statement) and a link."
)


def _premises_fn(search: "TheoremSearch"):
    def find_premises(
        statement: Annotated[str, Field(description="The statement or goal to prove (LaTeX or words), or an id.")],
        k: Annotated[int, Field(description="Number of results.")] = 5,
        sources: Annotated[list[str] | None, Field(description="Only these sources, e.g. ['stacks'].")] = None,
        kinds: Annotated[list[str] | None, Field(description="Only these kinds, e.g. ['lemma', 'definition'].")] = None,
        formal: Annotated[bool | None, Field(description=FORMAL_DESCRIPTION)] = None,
    ) -> str:
        """The results a proof of the statement is likely to use; ranked, citable statements."""
        return format_hits(search.premises(statement, k, sources=sources, kinds=kinds, formal=formal))

    async def afind_premises(statement: str, k: int = 5, sources: list[str] | None = None,
                             kinds: list[str] | None = None, formal: bool | None = None) -> str:  # fmt: skip
        return await asyncio.to_thread(find_premises, statement, k, sources, kinds, formal)

    return find_premises, afind_premises


def theorem_premises_tool(search: "TheoremSearch", name: str = "find_premises", description: str = PREMISES_DESCRIPTION) -> Any:
    """A LlamaIndex ``FunctionTool`` for premise search (:meth:`~theorem_rag.search.TheoremSearch.premises`):
    parameters ``statement``, ``k``, ``sources``, ``kinds``, ``formal``; ``call`` and ``acall``.

    >>> print(theorem_premises_tool(search).call(statement="stacks:0D09", k=1).content)   # doctest: +SKIP
    1. [stacks:08TM] Lemma ...
    """
    try:
        from llama_index.core.tools import FunctionTool
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(f"the LlamaIndex tools need llama-index-core: {_INDEX_EXTRA}") from err
    fn, afn = _premises_fn(search)
    return FunctionTool.from_defaults(fn=fn, async_fn=afn, name=name, description=description)


def theorem_search_tool(search: "TheoremSearch", name: str = "search_theorems", description: str = SEARCH_DESCRIPTION) -> Any:
    """A LlamaIndex ``FunctionTool`` over a :class:`~theorem_rag.search.TheoremSearch` (``call`` and ``acall``).

    Parameters: ``query``, ``k``, ``sources``, ``kinds``, ``paper``, ``categories``, ``formal`` (true: Lean declarations
    only, false: LaTeX statements only). Bad input raises ``ValueError`` with a message (agents report it back to the
    model).

    >>> tool = theorem_search_tool(search)
    >>> tool.metadata.name
    'search_theorems'
    """
    try:
        from llama_index.core.tools import FunctionTool
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(f"the LlamaIndex tools need llama-index-core: {_INDEX_EXTRA}") from err
    fn, afn = _search_fn(search)
    return FunctionTool.from_defaults(fn=fn, async_fn=afn, name=name, description=description)


async def asearch(search: "TheoremSearch", query: str, k: int | None = None, **filters: Any) -> list[Hit]:
    """``search.search`` without blocking the event loop (runs in a worker thread).

    >>> hits = asyncio.run(asearch(search, "Cantor's theorem", k=3))   # doctest: +SKIP
    """
    return await asyncio.to_thread(search.search, query, k, **filters)


def theorem_query_engine_tool(
    search: "TheoremSearch",
    llm: Any,
    *,
    k: int = 5,
    name: str = "theorem_answers",
    description: str = "Answer a mathematical question from retrieved theorems, citing their ids.",
    **engine_kwargs: Any,
) -> Any:
    """A LlamaIndex ``QueryEngineTool``: retrieve ``k`` theorems, let ``llm`` answer from them (``query``/``aquery``).

    >>> tool = theorem_query_engine_tool(search, llm=OpenAI(model="gpt-4o-mini"))   # doctest: +SKIP
    >>> tool.call("Is every finite integral domain a field?").content                # doctest: +SKIP
    """
    try:
        from llama_index.core.query_engine import RetrieverQueryEngine
        from llama_index.core.tools import QueryEngineTool
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(f"the LlamaIndex tools need llama-index-core: {_INDEX_EXTRA}") from err
    engine = RetrieverQueryEngine.from_args(search.as_retriever(k=k), llm=llm, **engine_kwargs)
    return QueryEngineTool.from_defaults(query_engine=engine, name=name, description=description)
