"""MkDocs hook: links from the documentation to files of the repository outside ``docs/`` resolve on the site too.

A link such as ``../benchmarks/results/eval/results.md`` in ``docs/results.md`` is right in the repository (an
editor, a code host, ``tests/test_docs.py``), but it leaves MkDocs' docs folder. This hook mounts every such target
into the site under ``repo/`` (a Markdown file becomes a page, anything else is copied as it is), follows the links
of mounted pages in turn, and rewrites each link to the mounted copy. A link to a file that does not exist is left as
written, so ``mkdocs build --strict`` fails on it. Nothing is fetched: the site is built from the repository alone.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from urllib.parse import unquote

from mkdocs.structure.files import File, Files

MOUNT = "repo"
# Inline links and images ``[text](target "title")`` and reference definitions ``[id]: target``.
LINK = re.compile(r"(\]\()(<[^>]+>|[^)\s]+)((?:\s+\"[^\"]*\")?\))")
REF = re.compile(r"^( {0,3}\[[^\]]+\]:\s*)(\S+)", re.M)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_root: Path
_docs: Path


def _targets(text: str):
    """(start, end, target) of every link target outside fenced code blocks."""
    fenced = [m.span() for m in FENCE.finditer(text)]
    for pattern, group in ((LINK, 2), (REF, 2)):
        for m in pattern.finditer(text):
            if not any(a <= m.start() < b for a, b in fenced):
                yield m.start(group), m.end(group), m.group(group)


def _resolve(source: Path, target: str) -> tuple[Path, str] | None:
    """The repository file a relative link of ``source`` names and its ``#anchor``; None for URLs and anchors."""
    target = target.strip("<>")
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith(("#", "/")):
        return None
    path, _, anchor = target.partition("#")
    path = (source.parent / unquote(path.split("?")[0])).resolve()
    if path.is_dir() and (path / "README.md").is_file():
        path = path / "README.md"
    return path, anchor


def _listed(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith((".", "__")))


def _label(path: Path) -> str:
    return f"{path.parent.name}/" if path.name == "README.md" else f"{path.name}/" if path.is_dir() else path.name


def _site_path(path: Path) -> str | None:
    """Where a repository file lives on the site: its own place under docs/, else under ``repo/``; a folder
    without a README is a generated page that lists it."""
    if path.is_relative_to(_docs):
        return path.relative_to(_docs).as_posix()
    if path.is_relative_to(_root) and path.is_file():
        return f"{MOUNT}/{path.relative_to(_root).as_posix()}"
    if path.is_relative_to(_root) and path.is_dir() and path != _root:
        return f"{MOUNT}/{path.relative_to(_root).as_posix()}/index.md"
    return None


def on_config(config):
    global _root, _docs
    _root = Path(config.config_file_path).resolve().parent
    _docs = Path(config.docs_dir).resolve()
    return config


def _nav_mounts(nav) -> list[str]:
    """Repository files the navigation names by their place on the site (``repo/benchmarks/README.md``)."""
    if isinstance(nav, str):
        return [nav] if nav.startswith(MOUNT + "/") else []
    items = nav.values() if isinstance(nav, dict) else nav or []
    return [uri for item in items for uri in _nav_mounts(item)]


def on_files(files: Files, config) -> Files:
    pages = [Path(f.abs_src_path) for f in files.documentation_pages()]
    seen: set[Path] = set()

    def mount(path: Path, uri: str) -> None:
        seen.add(path)
        if path.is_dir():
            items = _listed(path)
            lines = [f"# {path.relative_to(_root).as_posix()}/", ""]
            items = [p / "README.md" if (p / "README.md").is_file() else p for p in items]
            lines += [f"- [{_label(p)}]({posixpath.relpath(_site_path(p), posixpath.dirname(uri))})" for p in items]
            files.append(File.generated(config, uri, content="\n".join(lines) + "\n"))
            for p in items:
                if p not in seen:
                    mount(p, _site_path(p))
            return
        files.append(File.generated(config, uri, abs_src_path=str(path)))
        if path.suffix == ".md":
            pages.append(path)

    for uri in _nav_mounts(config.nav):
        mount(_root / uri.removeprefix(MOUNT + "/"), uri)
    while pages:
        page = pages.pop()
        for _, _, target in _targets(page.read_text(encoding="utf-8")):
            found = _resolve(page, target)
            if found is None or found[0] in seen or found[0].is_relative_to(_docs):
                continue
            uri = _site_path(found[0])
            if uri is not None:
                mount(found[0], uri)
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    if page.file.abs_src_path is None:  # a generated folder listing: its links are the site's already
        return markdown
    source = Path(page.file.abs_src_path).resolve()
    here = posixpath.dirname(page.file.src_uri)
    out, last = [], 0
    for start, end, target in _targets(markdown):
        found = _resolve(source, target)
        uri = None if found is None else _site_path(found[0])
        if uri is None:
            continue
        rel = posixpath.relpath(uri, here or ".") + (f"#{found[1]}" if found[1] else "")
        out += [markdown[last:start], rel]
        last = end
    return "".join(out) + markdown[last:]
