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
        "from theorem_rag.ingest import load_records\n\n"
        "out = Path(tempfile.mkdtemp(prefix='hott-records-'))\n"
        "report = parse_sources([CORPORA / 'hott'], out, use_plastex=False, progress=False)\n"
        "theorems, documents = load_records(out)\n"
        "print(len(theorems), 'statements;', sorted({t.kind for t in theorems}))"
    ),
    new_code_cell(
        "from theorem_rag import Settings\n"
        "from theorem_rag.ingest import build_index\n"
        "from theorem_rag.search import TheoremSearch, space_name\n"
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


def write(name: str, cells: list) -> None:
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, HERE / name)


if __name__ == "__main__":
    write("01_index_and_search.ipynb", INDEX_AND_SEARCH)
