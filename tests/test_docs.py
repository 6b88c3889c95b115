"""The README stays a front door, its links and the documentation's resolve, and the site builds with --strict.

The link check reads the Markdown as a code host shows it (links relative to the file); ``mkdocs build --strict``
checks the same links on the site (``docs/hooks/repo_files.py`` mounts the repository files they name), its
navigation and the reference pages generated from the code.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 250
LINK = re.compile(r"\]\((<[^>]+>|[^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
PAGES = [ROOT / "README.md", ROOT / "benchmarks" / "README.md", ROOT / "benchmarks" / "results" / "README.md",
         *sorted((ROOT / "docs").rglob("*.md"))]  # fmt: skip


ARCHITECTURE = ROOT / "docs" / "concepts" / "architecture.md"


def slug(heading: str) -> str:
    """The anchor MkDocs (and, for these headings, the code host) gives a heading."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").replace("*", "")
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text).strip().lower())


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {slug(h) for h in re.findall(r"^#{1,6}\s+(.+?)\s*#*$", text, re.M)}


def broken_links(page: Path) -> list[str]:
    """Relative links of ``page`` whose file, folder or heading does not exist."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    broken = []
    for target in LINK.findall(text):
        target = target.strip("<>")
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(target)
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(target)
    return broken


def test_the_readme_fits_a_few_screens():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines (at most {README_MAX_LINES}): move detail to docs/"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path):
    assert broken_links(page) == []


def unclosed_fence(text: str) -> int | None:
    """The line (1-based) of a code fence left open, or None. A fence is left open when the page ends inside it or
    when another fence with a language (```python) starts inside it: Markdown then reads everything up to the next
    bare fence as code, the prose and links between included, and the link check above skips them."""
    open_at, marker = None, ""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if open_at is None and stripped.startswith(("```", "~~~")):
            open_at, marker = number, stripped[:3]
        elif open_at is not None and stripped == marker:
            open_at = None
        elif open_at is not None and stripped.startswith(marker) and stripped[3:].isidentifier():
            return open_at
    return open_at


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_code_fence_is_closed(page: Path):
    assert unclosed_fence(page.read_text(encoding="utf-8")) is None


def test_the_fence_check_finds_an_output_block_left_open():
    text = "```text\n$ search\n```\n\n```text\n$ other\n  1  result\n\n![shot](x.png)\n```python\nx = 1\n```\n"
    assert unclosed_fence(text) == 5
    assert unclosed_fence(text.replace("  1  result\n", "  1  result\n```\n")) is None


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path: Path):
    (tmp_path / "there.md").write_text("# A heading: with `code`\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](there.md) [ok](there.md#a-heading-with-code) [web](https://example.org/x.md)\n"
                    "[gone](missing.md) [no heading](there.md#nowhere)\n```\n[in code](ignored.md)\n```\n")
    assert broken_links(page) == ["missing.md", "there.md#nowhere"]


@pytest.mark.slow
def test_the_site_builds_strict_with_the_generated_reference(tmp_path: Path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    from theorem_rag.config import Settings

    settings = (site / "reference" / "settings" / "index.html").read_text(encoding="utf-8")
    assert [f for f in Settings.model_fields if f"THEOREM_RAG_{f.upper()}" not in settings] == []
    rest = (site / "reference" / "rest" / "index.html").read_text(encoding="utf-8")
    assert all(route in rest for route in ("GET /health", "GET /search", "POST /search", "POST /premises"))
    assert (site / "reference" / "openapi.json").is_file()
    assert "theorem-rag index build" in (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    # A result folder the docs link to is on the site, as a page.
    assert (site / "repo" / "benchmarks" / "results" / "scale_final" / "index.html").is_file()


def walk_steps(page: Path) -> list[tuple[str, str]]:
    """(function, file) of each step of the page's walk of a search: the table headed ``| step | function | file |``."""
    table = re.search(r"^\| step \| function \| file \|.*?\n\n", page.read_text(encoding="utf-8"), re.M | re.S)
    assert table is not None, f"{page.name} has no table headed | step | function | file |"
    return re.findall(r"^\|\s*\d+\s*\|\s*`([\w.]+)`\s*\|\s*\[`([\w/.]+\.py)`\]", table.group(0), re.M)


def defined_in(qualname: str, file: str) -> bool:
    """Whether ``file`` (a module's path) defines ``qualname`` (a function, or a class's method); a click command
    counts by its function."""
    module = file.removesuffix(".py").replace("/", ".")
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    return getattr(getattr(obj, "callback", obj), "__module__", None) == module


def test_every_step_of_the_walk_of_a_search_is_defined_in_the_file_it_names():
    steps = walk_steps(ARCHITECTURE)
    assert len(steps) >= 20, "the walk of a search lost its table rows"
    assert [f"{name} in {file}" for name, file in steps if not defined_in(name, file)] == []


def test_the_walk_check_sees_a_function_in_the_wrong_file():
    assert defined_in("TheoremRetriever._gather", "theorem_rag/retrieval/retriever.py")
    assert not defined_in("understand", "theorem_rag/retrieval/retriever.py")  # imported there, defined in plan.py
    assert not defined_in("TheoremRetriever._gone", "theorem_rag/retrieval/retriever.py")


def readme_1m_recall() -> tuple[str, Path]:
    """The README's 1M Recall@20 (as printed) and the result folder its row links."""
    row = next(line for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
               if line.startswith("| 1M statements |"))  # fmt: skip
    figure = re.search(r"Recall@20 \*\*([0-9.]+)\*\*", row)
    folder = re.search(r"\]\((benchmarks/results/[^)/]+)/README\.md\)", row)
    assert figure and folder, f"the README's 1M row names no Recall@20 or result folder: {row}"
    return figure.group(1), ROOT / folder.group(1)


def test_the_readme_1m_recall_is_the_one_its_result_folder_measured():
    figure, folder = readme_1m_recall()
    (summary,) = sorted(folder.glob("scale_1000000*.json"))
    run = json.loads(summary.read_text(encoding="utf-8"))
    measured = run["recall"]["pools"][str(run["pool"])]["recall"]  # at the default pool of that run
    assert float(figure) == round(measured, len(figure.split(".")[1]))
    # The pages that state the 1M recall today state the same figure and link the same run.
    for page in (ARCHITECTURE, ROOT / "docs" / "scaling.md", ROOT / "docs" / "results.md"):
        text = page.read_text(encoding="utf-8")
        assert figure in text and f"results/{folder.name}/README.md" in text, page.name
