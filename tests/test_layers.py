"""Layers point one way, and no two modules import each other: checked over the source with ``ast``.

records (and the other neutral modules) -> corpus_build -> slogans / embed -> db -> retrieval -> search /
indexing / serving -> edges (cli, api, mcp, ui, widgets, tools, llamaindex_llm, eval). A module may import its own
layer or lower ones; every import counts, also one inside a function (only ``if TYPE_CHECKING:`` blocks are skipped:
they never run).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "concepts" / "architecture.md"
NEUTRAL = ("records", "errors", "config", "record_files", "filters", "query", "wire", "chat_backends", "formula_keys",
           "citations", "guards")
LAYERS = [  # (layer, module prefixes), lowest first
    (0, ["theorem_rag"] + [f"theorem_rag.{m}" for m in NEUTRAL]),
    (1, ["corpus_build"]),
    (2, ["theorem_rag.slogans", "theorem_rag.embed", "theorem_rag.embed_onnx", "theorem_rag.embed_models",
         "theorem_rag.query_understanding", "theorem_rag.training"]),
    (3, ["theorem_rag.db"]),
    (4, ["theorem_rag.retrieval"]),
    (5, ["theorem_rag.search", "theorem_rag.search_spaces", "theorem_rag.indexing", "theorem_rag.serving"]),
    (6, ["theorem_rag.cli", "theorem_rag.api", "theorem_rag.mcp_server", "theorem_rag.ui", "theorem_rag.widgets",
         "theorem_rag.tools", "theorem_rag.llamaindex_llm", "theorem_rag.eval"]),
]


def layer(module: str) -> int:
    """The layer of a module: the one of its longest matching prefix (the package itself is neutral)."""
    best = (-1, -1)
    for level, prefixes in LAYERS:
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best[0]:
                best = (len(p), level)
    assert best[1] >= 0, f"{module} is in no layer: add it to LAYERS"
    return best[1]


def modules() -> dict[str, Path]:
    found = {}
    for package in ("theorem_rag", "corpus_build"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(path: Path, known: set[str]) -> set[str]:
    """The project modules ``path`` imports (a name imported from a package resolves to its submodule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    guarded = [node for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)]
    skipped = {id(n) for node in guarded for n in ast.walk(node)}
    out = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known else node.module
                    for a in node.names}  # fmt: skip
    return {m for m in out if m.split(".")[0] in ("theorem_rag", "corpus_build")}


def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports(path, set(found)) - {name} for name, path in found.items()}


def test_layers_point_one_way():
    upward = sorted(
        f"{m} (layer {layer(m)}) imports {d} (layer {layer(d)})"
        for m, deps in graph().items() for d in deps if layer(d) > layer(m)
    )  # fmt: skip
    assert upward == []


def test_edges_do_not_import_each_other():
    # The CLI wires the other edges together; any other edge stands alone (the LLM adapter does not reach into
    # the app, the API does not serve the MCP server's types): what two edges share lives in a neutral module.
    edges = LAYERS[-1][1]

    def edge(module: str) -> str | None:
        return next((e for e in edges if module == e or module.startswith(e + ".")), None)

    crossing = sorted(
        f"{m} imports {d}" for m, deps in graph().items() for d in deps
        if edge(m) not in (None, "theorem_rag.cli") and edge(d) is not None and edge(d) != edge(m)
    )  # fmt: skip
    assert crossing == []


def test_no_import_cycles():
    g = graph()
    cycles = []
    for start in sorted(g):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for dep in sorted(g.get(node, ())):
                if dep == start:
                    cycles.append(" -> ".join([*path, start]))
                elif dep not in seen and dep > start:  # report each cycle once, from its smallest module
                    seen.add(dep)
                    stack.append((dep, [*path, dep]))
    assert cycles == []


def test_the_check_sees_an_upward_import():
    # The rule must bite: a store importing the retriever would be reported.
    assert layer("theorem_rag.db.store") < layer("theorem_rag.retrieval.retriever")
    assert layer("corpus_build.parse") > layer("theorem_rag.records") and layer("theorem_rag") == 0


def documented_layers(page: Path) -> dict[int, set[str]]:
    """The layer table of the architecture page (the one headed ``| layer | modules |``): layer -> module prefixes
    (a bare name is one of ``theorem_rag``'s)."""
    table = re.search(r"^\| layer \| modules \|.*?\n\n", page.read_text(encoding="utf-8"), re.M | re.S)
    assert table is not None, f"{page.name} has no table headed | layer | modules |"
    rows = re.findall(r"^\|\s*(\d+)\s*\|([^|]*)\|", table.group(0), re.M)
    qualified = lambda name: name if name in ("theorem_rag", "corpus_build") else f"theorem_rag.{name}"  # noqa: E731
    return {int(level): {qualified(n) for n in re.findall(r"`([\w.]+)`", cell)} for level, cell in rows}


def test_the_architecture_page_lists_the_layers_this_test_enforces():
    assert documented_layers(ARCHITECTURE) == {level: set(prefixes) for level, prefixes in LAYERS}


def test_the_page_check_sees_a_module_in_the_wrong_layer(tmp_path: Path):
    page = tmp_path / "architecture.md"
    page.write_text(ARCHITECTURE.read_text(encoding="utf-8").replace(", `guards` |", " |").replace(
        "| 5 | `search`,", "| 5 | `search`, `guards`,"), encoding="utf-8")  # fmt: skip
    moved = documented_layers(page)
    assert "theorem_rag.guards" in moved[5] and "theorem_rag.guards" not in moved[0]


def test_every_top_level_module_is_named_in_a_layer():
    # A module no prefix names would fall into layer 0 through the package's own prefix, unseen by the page's table.
    named = {p for _, prefixes in LAYERS for p in prefixes}
    top = {".".join(name.split(".")[:2]) for name in modules() if name.startswith("theorem_rag.")}
    assert sorted(top - named) == []
