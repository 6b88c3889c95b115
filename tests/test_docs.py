"""The README stays a front door, its links and the documentation's resolve, and the site builds with --strict.

The link check reads the Markdown as a code host shows it (links relative to the file); ``mkdocs build --strict``
checks the same links on the site (``docs/hooks/repo_files.py`` mounts the repository files they name), its
navigation and the reference pages generated from the code.
"""

from __future__ import annotations

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
