"""Local bare git repositories shaped like the corpora's upstream repositories, and a manifest pinning them.

Each repository holds what its upstream holds around the files kept: chapters, macros, licenses and READMEs beside
a PDF, an image, build files and scripts that must not be copied; Stacks has a slogan block that must be stripped
and a second commit after the pinned one. Tests fetch them over ``file://`` (the ``mirror`` argument) with the
manifest written here, which keeps the shipped manifest's text-file rules.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from corpus_build.corpus_manifest import MANIFEST

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip
THEOREMS = "\\newtheorem{theorem}{Theorem}\n\\newtheorem{lemma}{Lemma}\n\\newtheorem{definition}{Definition}\n"
DOC = "\\documentclass{article}\n" + THEOREMS + "\\begin{document}\n%s\n\\end{document}\n"
PDF = b"%PDF-1.5\n\x00\x01\x02 binary\n"
ALGEBRA = ("\\input{preamble}\n\\section{Local rings}\n\\begin{lemma}\n\\label{lemma-local-ring}\n\\begin{slogan}\n"
           "A local ring has a unique maximal ideal.\n\\end{slogan}\nLet $R$ be a local ring. Then $R$ has exactly one "
           "maximal ideal.\n\\end{lemma}\n\\begin{proof}\nBy definition.\n\\end{proof}\n")  # fmt: skip
ALGEBRA_STRIPPED = ALGEBRA.replace("\\begin{slogan}\nA local ring has a unique maximal ideal.\n\\end{slogan}\n", "")
PM_ENTRY = ("\\pmcanonicalname{%s}\n\\pmtitle{%s}\n\\pmtype{Theorem}\n\\pmclassification{msc}{%s}\n"
            "\\begin{document}\n\\begin{theorem}\n%s\n\\end{theorem}\n\\end{document}\n")  # fmt: skip


def statement(text: str) -> str:
    return f"\\begin{{theorem}}\n{text}\n\\end{{theorem}}\n"


REPOS: dict[str, list[dict[str, str | bytes]]] = {  # repository: the files each commit adds, oldest first
    "stacks/stacks-project": [
        {"preamble.tex": THEOREMS, "algebra.tex": ALGEBRA, "tags/tags": "# tags\n0001,algebra-lemma-local-ring\n",
         "COPYING": "GNU Free Documentation License\n", "scripts/LICENSE": "GPL\n", "scripts/tag.py": "print(1)\n",
         "Makefile": "all:\n", "book.pdf": PDF},
        {"later.tex": "\\input{preamble}\n" + statement("Written after the pinned commit.")},
    ],
    "planetmath/05_Combinatorics": [
        {"05C15-FourColorTheorem.tex": PM_ENTRY % ("FourColorTheorem", "four colour theorem", "05C15",
                                                    "Every planar graph can be coloured with four colours."),
         "LICENSE": "CC BY-SA 3.0\n", "README.md": "# 05 Combinatorics\n", "map.png": b"\x89PNG\r\n\x1a\n\x00"},
    ],
    "planetmath/57_Manifolds_and_cell_complexes": [
        {"57M27-JonesPolynomial.tex": PM_ENTRY % ("JonesPolynomial", "Jones polynomial", "57M27",
                                                   "The Jones polynomial is an invariant of oriented links."),
         "LICENSE": "CC BY-SA 3.0\n", "README.md": "# 57\n"},
    ],
    "OpenLogicProject/OpenLogic": [
        {"open-logic-envs.sty": THEOREMS, "content/sets.tex": statement("Every set is a subset of itself."),
         "LICENSE.md": "CC BY 4.0\n", "README.md": "# Open Logic\n", "courses/README.md": "courses\n",
         "content/venn.pdf": PDF},
    ],
    "vEnhance/napkin": [
        {"Napkin.tex": DOC % "\\input{tex/groups}", "tex/groups.tex": statement("A group has one identity."),
         "LICENSE.md": "CC BY-SA 4.0\n", "media/cover.png": b"\x89PNG\x00"},
    ],
    "HoTT/book": [
        {"hott-online.tex": DOC % "\\input{basics}", "macros.tex": THEOREMS,
         "basics.tex": statement("Function extensionality follows from univalence."), "README.md": "# HoTT\n"},
    ],
    "jirilebl/ra": [
        {"realanal.tex": DOC % "\\input{ch-real-nums}",
         "ch-real-nums.tex": statement("Every bounded set has a supremum."),
         "slides/sup.tex": DOC % statement("Every bounded set has a supremum."), "LICENSE.md": "CC BY-SA 4.0\n",
         "figures/license.pdf": PDF, "figures/sup.fig": "#FIG 3.2\n"},
    ],
    "aisejohan/cring": [
        {"CRing.tex": "\\documentclass{book}\n\\input{other/theoremdef.tex}\n\\begin{document}\n"
                      "\\input{chapters/spec.tex}\n\\input{chapters/completelocal.tex}\n\\end{document}\n",
         "other/theoremdef.tex": THEOREMS, "chapters/spec.tex": statement("The spectrum of a ring is quasi-compact."),
         "chapters/license.tex": "GNU Free Documentation License\n", "README": "The CRing Project\n",
         "CRing.pdf": PDF},
    ],
    "felixwellen/synthetic-zariski": [
        {"foundations/main.tex": DOC % "\\input{intro}", "foundations/intro.tex": statement("Every scheme is local."),
         "util/zariski.cls": THEOREMS, "util/build.py": "pass\n", "topology/main.tex": DOC % "Another paper."},
    ],
    "Ivan-Sergeyev/seymour": [
        {"paper/main.tex": DOC % "\\input{src/10 introduction}",
         "paper/src/10 introduction.tex": statement("Every regular matroid decomposes."),
         "paper/lean4.py": "pass\n", "Seymour.lean": "theorem x : True := trivial\n"},
    ],
    "leanprover-community/mathlib4": [
        {"Mathlib/Algebra/Group.lean": "theorem mul_one' : True := trivial\n", "Mathlib/Order/README.md": "# Order\n",
         "docs/100.yaml": "1:\n  title: x\n", "LICENSE": "Apache-2.0\n", "Archive/Imo.lean": "theorem imo : True\n",
         "lake-manifest.json": "{}\n"},
    ],
}
PAPERS = [{"id": "sag-foundations", "title": "A Foundation for Synthetic Algebraic Geometry", "license": "MIT",
           "repo": "felixwellen/synthetic-zariski", "path_in_repo": "foundations", "main_file": "foundations/main.tex"},
          {"id": "seymour-regular-matroids-paper", "title": "Seymour", "license": "Apache-2.0",
           "repo": "Ivan-Sergeyev/seymour", "path_in_repo": "paper", "main_file": "main.tex"}]  # fmt: skip


def git(*args: str | Path, cwd: Path | None = None) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *map(str, args)], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()  # fmt: skip


def make_repo(mirror: Path, repo: str, commits: list[dict[str, str | bytes]]) -> list[str]:
    """A bare repository ``mirror/<repo>.git`` whose commits add ``commits`` in order; their full hashes."""
    work = mirror.parent / "work" / repo
    work.mkdir(parents=True)
    git("init", "-q", "-b", "main", work)
    hashes = []
    for files in commits:
        for rel, content in files.items():
            path = work / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
        git("add", "-A", cwd=work)
        git("commit", "-qm", f"commit {len(hashes) + 1}", cwd=work)
        hashes.append(git("rev-parse", "HEAD", cwd=work))
    git("clone", "-q", "--bare", work, mirror / f"{repo}.git")
    return hashes


def make_mirror(root: Path) -> tuple[Path, dict[str, list[str]]]:
    """Every repository of :data:`REPOS` under ``root/mirror``; the mirror folder and each repository's commits."""
    mirror = root / "mirror"
    return mirror, {repo: make_repo(mirror, repo, commits) for repo, commits in REPOS.items()}


def write_manifest(folder: Path, commits: dict[str, list[str]]) -> Path:
    """A manifest of the corpora in :data:`REPOS`, in the shipped one's format and with its text-file rules: Stacks
    pinned by a short commit (the first), PlanetMath by none, the papers by full hashes and exact paths."""
    folder.mkdir(parents=True, exist_ok=True)
    shipped = json.loads(MANIFEST.read_text(encoding="utf-8"))
    mathlib = next(c for c in shipped["corpora"] if c["name"] == "mathlib4")

    def one(name: str, repo: str, files: int, commit: str | None = None, **extra) -> dict:
        return {"name": name, "license": "x", **extra, "repos": [{"repo": repo, "commit": commit, "files": files}]}

    corpora = [
        one("stacks", "stacks/stacks-project", 5, commits["stacks/stacks-project"][0][:7], also=["tags/tags"],
            strip=["slogan"]),
        {"name": "planetmath", "license": "CC-BY-SA-3.0", "repos": [
            {"repo": f"planetmath/{area}", "commit": None, "dest": area, "files": 3}
            for area in ("05_Combinatorics", "57_Manifolds_and_cell_complexes")]},
        one("openlogic", "OpenLogicProject/OpenLogic", 5),
        one("napkin", "vEnhance/napkin", 3),
        one("hott", "HoTT/book", 4),
        one("lebl-ra", "jirilebl/ra", 4),
        one("cring", "aisejohan/cring", 5),
        {"name": "papers", "license": "per paper", "write": {"MANIFEST.jsonl": "papers.jsonl"}, "repos": [
            {"repo": "felixwellen/synthetic-zariski", "commit": commits["felixwellen/synthetic-zariski"][0],
             "dest": "sag-foundations", "root": "", "files": 3,
             "paths": ["foundations/intro.tex", "foundations/main.tex", "util/zariski.cls"]},
            {"repo": "Ivan-Sergeyev/seymour", "commit": commits["Ivan-Sergeyev/seymour"][0],
             "dest": "seymour-regular-matroids-paper", "root": "paper", "files": 2,
             "paths": ["main.tex", "src/10 introduction.tex"]}]},
        one("mathlib4", "leanprover-community/mathlib4", 4, default=False, keep=mathlib["keep"]),
    ]  # fmt: skip
    (folder / "papers.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PAPERS), encoding="utf-8")
    path = folder / "corpora.json"
    path.write_text(json.dumps({"text_files": shipped["text_files"], "corpora": corpora}, indent=1), encoding="utf-8")
    return path


def files_under(folder: Path) -> set[str]:
    """Relative paths of the files under ``folder``."""
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
