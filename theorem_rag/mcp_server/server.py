"""The MCP server (official ``mcp`` SDK, ``MCPServer``): search tools for agents over stdio or streamable HTTP.

Tools: ``search_theorems`` (query, k, sources, kinds, papers, years, paper level), ``find_premises`` (what a
proof of a statement is likely to use), ``get_theorem`` and ``get_paper``; a Lean declaration comes back with
``language`` ``'lean'`` and its full name, Lean statement, docstring and module (:class:`~theorem_rag.wire.LeanOut`).
Results are structured (the JSON schema of :mod:`theorem_rag.wire`) and carry ids, statements, slogans, links and a
citation line, so an agent can cite what it found. Bad input
(:class:`~theorem_rag.errors.InputError`) and unknown ids come back as tool errors with a message; so do a full
server and a call past its deadline, with the seconds to wait before retrying. Any other exception is an internal
error: the SDK logs it and tells the client only that the tool failed. The server keeps serving.

The tools run through the REST API's path (:class:`~theorem_rag.serving.service.SearchService`): admission,
query embeddings shared between concurrent calls, a deadline per call.

>>> server = build_server(TheoremSearch.from_settings())   # doctest: +SKIP
>>> server.run("stdio")                                     # doctest: +SKIP
"""

# No ``from __future__ import annotations``: the SDK evaluates the tool signatures, whose annotations name
# closure variables (the search limits).
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError('the MCP server needs the mcp SDK: pip install "theorem-rag[api]"') from err
from pydantic import Field

from theorem_rag.errors import InputError
from theorem_rag.serving.admission import Overloaded
from theorem_rag.serving.deadline import DeadlineExceeded
from theorem_rag.serving.service import SearchService
from theorem_rag.wire import (
    CATEGORIES_DESCRIPTION, FORMAL_DESCRIPTION, Category, FilterFields, PaperOut, PremisesResponse, SearchResponse,
    TheoremOut,
)  # fmt: skip

# The filter parameters both search tools take (flat, so that clients see plain arguments).
Sources = Annotated[list[str] | None, Field(description="Only these sources, e.g. ['stacks'].")]
Kinds = Annotated[list[str] | None, Field(description="Only these kinds, e.g. ['theorem', 'lemma'].")]
Papers = Annotated[list[str] | None, Field(description="Only statements of these document ids.")]
YearMin = Annotated[int | None, Field(description="Only documents from this year on.")]
YearMax = Annotated[int | None, Field(description="Only documents up to this year.")]
Categories = Annotated[list[Category] | None, Field(description=CATEGORIES_DESCRIPTION)]
Formal = Annotated[bool | None, Field(description=FORMAL_DESCRIPTION)]

INSTRUCTIONS = (
    "Semantic search over research mathematics (Stacks Project, PlanetMath, textbooks, papers) and Lean 4 "
    "declarations (mathlib, where the index has it) at the level of single theorems. Use search_theorems with a "
    "plain-English description, LaTeX, Lean notation or a Lean name; cite results by their 'id' and 'url' (or the "
    "'citation' line); a result with language 'lean' is a Lean declaration: its 'lean' field has the full name to "
    "exact/apply, the Lean statement, docstring and module. Use find_premises with a statement or goal to prove "
    "for the results a proof of it is likely to use; use get_theorem for the full record of an id, with what its "
    "proof uses and what uses it."
)


@contextmanager
def _tool_errors() -> Iterator[None]:
    """Turn the errors callers can act on (bad filters or query, no index, a full server, ...) into tool errors
    with a clear message; any other exception propagates, and the SDK reports it as an internal error without its
    text."""
    from theorem_rag.db.connection import StoreUnavailable
    from theorem_rag.search_spaces import IndexNotBuilt

    try:
        yield
    except (InputError, IndexNotBuilt) as err:
        raise ToolError(str(err)) from err
    except StoreUnavailable as err:
        raise ToolError("the database is unavailable; retry shortly") from err
    except Overloaded as err:
        raise ToolError(str(err)) from err
    except DeadlineExceeded as err:
        raise ToolError("the call took too long and was cancelled; retry shortly, or ask for fewer results") from err


def build_server(search: Any, *, name: str = "theorem-rag", max_paper_theorems: int = 500,
                 service: SearchService | None = None) -> MCPServer:  # fmt: skip
    """An ``MCPServer`` whose tools call ``search`` (a :class:`~theorem_rag.search.TheoremSearch`) through
    ``service`` (by default a :class:`~theorem_rag.serving.service.SearchService` with its default bounds).

    >>> import asyncio
    >>> server = build_server(search)
    >>> [t.name for t in asyncio.run(server.list_tools())]
    ['search_theorems', 'find_premises', 'get_theorem', 'get_paper']
    """
    from theorem_rag import __version__

    service = service or SearchService(search)
    run = service.call
    server = MCPServer(name, version=__version__, instructions=INSTRUCTIONS)
    read_only = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only)
    async def search_theorems(
        query: Annotated[str, Field(description="A plain-English description of the result, a name, LaTeX, or "
                                    "Lean (notation or a declaration's name).")],
        k: Annotated[int, Field(description=f"Number of results, 1 to {search.max_k}.")] = search.k,
        sources: Sources = None,
        kinds: Kinds = None,
        papers: Papers = None,
        year_min: YearMin = None,
        year_max: YearMax = None,
        categories: Categories = None,
        formal: Formal = None,
        paper_level: Annotated[bool, Field(description="Rank papers (documents) instead of statements.")] = False,
    ) -> SearchResponse:
        """Search theorems, lemmas and definitions (LaTeX statements and Lean 4 declarations) by meaning; results
        carry id, statement, slogan and url, and a Lean declaration (language 'lean') its full name, Lean statement
        ready to paste, docstring and module."""
        fields = FilterFields(sources=sources, kinds=kinds, papers=papers, year_min=year_min, year_max=year_max,
                              categories=categories, formal=formal)  # fmt: skip
        with _tool_errors():
            found, assessment = await service.search_assessed(query, k, paper_level=paper_level,
                                                              filters=fields.filters())  # fmt: skip
        return SearchResponse.from_results(query, "paper" if paper_level else "theorem", k, found, assessment)

    @server.tool(annotations=read_only)
    async def find_premises(
        statement: Annotated[str, Field(description="The statement to prove (LaTeX or Lean), a goal in words, or a "
                                        "statement id such as 'stacks:0D09' or 'mathlib:Nat.Prime.two_le'.")],
        k: Annotated[int, Field(description=f"Number of results, 1 to {search.max_k}.")] = search.k,
        sources: Sources = None,
        kinds: Kinds = None,
        papers: Papers = None,
        year_min: YearMin = None,
        year_max: YearMax = None,
        categories: Categories = None,
        formal: Formal = None,
    ) -> PremisesResponse:
        """Premise search: the results (lemmas, definitions, theorems; Lean declarations too) a proof of the
        statement is likely to use, best first; the statement itself is left out. Each carries id, statement, slogan
        and url, a Lean declaration its full name and Lean statement."""
        fields = FilterFields(sources=sources, kinds=kinds, papers=papers, year_min=year_min, year_max=year_max,
                              categories=categories, formal=formal)  # fmt: skip
        with _tool_errors():
            hits = await run(search.premises, statement, k, filters=fields.filters())
        return PremisesResponse.from_hits(statement, k, hits)

    @server.tool(annotations=read_only)
    async def get_theorem(
        id: Annotated[str, Field(description="A theorem id from search results, e.g. 'stacks:00DV' or "
                                 "'mathlib:Nat.Prime.two_le'.")],
    ) -> TheoremOut:
        """The full record of one statement: LaTeX (or, for a Lean declaration, its Lean statement, full name,
        docstring and module), proof, slogan, kind, number, name, document, url, citations (line, the source's
        \\cite with its BibTeX entry, Markdown), and the ids it uses / is used by in proofs."""
        with _tool_errors():
            page = await service.theorem_page(id)
        if page is None:
            raise ToolError(f"no theorem with id {id!r}; ids come from search_theorems results")
        return TheoremOut.from_record(*page)

    @server.tool(annotations=read_only)
    async def get_paper(
        id: Annotated[str, Field(description="A document id (a result's 'doc_id'), e.g. 'stacks:algebra'.")],
        limit: Annotated[int, Field(ge=1, le=max_paper_theorems, description="Statements listed at most.")] = 50,
    ) -> PaperOut:
        """A paper, chapter or encyclopedia entry with its statements in source order."""
        with _tool_errors():
            page = await service.paper_page(id, limit)
        if page is None:
            raise ToolError(f"no paper or document with id {id!r}; ids are the 'doc_id' of search results")
        return PaperOut.from_page(*page)

    return server
