"""Fetching the open corpora from their public git repositories at pinned commits (``theorem-rag corpus fetch``).

Each corpus is built in a staging folder beside its target (``<into>/.partial-<name>-*``): every repository of the
manifest (:mod:`corpus_build.corpus_manifest`) is fetched at its commit (``git fetch --depth 1``; a short commit is
first looked up among the default branch's commits, fetched without their files), the files kept are copied out of
the git objects (text only, Stacks' slogans stripped), the commit and the number of files are checked against the
manifest, a stamp is written (``.fetched.json``: commits and file count), and the folder is renamed into place.

A failure removes the staging folder and raises :class:`FetchError` naming the repository: no corpus folder is
ever half-written. Corpora finished before it stay, so the same command run again resumes; a corpus whose stamp
matches the manifest and still counts its files is skipped without a network call.

>>> repo_url("stacks/stacks-project", "https://github.com")
'https://github.com/stacks/stacks-project.git'
>>> repo_url("stacks/stacks-project", "/srv/mirror")
'file:///srv/mirror/stacks/stacks-project.git'
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from corpus_build.corpus_manifest import FULL_COMMIT, CorpusSpec, Manifest, Part, load_manifest, strip_environments
from theorem_rag.errors import InputError

STAMP = ".fetched.json"
# A stalled transfer (under 1 kB/s for a minute) fails instead of hanging; git never asks for a password.
GIT_OPTIONS = ("-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=60", "-c", "init.defaultBranch=main")


class FetchError(RuntimeError):
    """A corpus could not be fetched or verified; the message names the repository and what to do."""


@dataclass(frozen=True)
class Fetched:
    """One corpus after :func:`fetch_corpora`: its folder, whether it was ``fetched`` or already ``present``, its
    file count and the commit of each repository."""

    name: str
    path: Path
    status: str
    files: int
    commits: tuple[str, ...]


class _GitFailed(Exception):
    pass


def _quiet(line: str) -> None:
    """No progress lines (the CLI passes one that writes them to stderr)."""


def repo_url(repo: str, base: str) -> str:
    """The URL of ``owner/name`` under ``base``: a URL, or a folder of bare repositories ``owner/name.git``."""
    if "://" not in base:
        base = Path(base).resolve().as_uri()
    return f"{base.rstrip('/')}/{repo}.git"


def _git(*args: str | Path, stdin: bytes | None = None) -> bytes:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        proc = subprocess.run(["git", *GIT_OPTIONS, *map(str, args)], input=stdin, env=env, capture_output=True)
    except FileNotFoundError as e:
        raise FetchError("git is not installed: install git and run the command again") from e
    if proc.returncode:
        lines = proc.stderr.decode(errors="replace").strip().splitlines()
        raise _GitFailed(" ".join(lines[-3:]) or f"git exited with {proc.returncode}")
    return proc.stdout


class _Snapshot:
    """A repository fetched at one commit into a bare git folder: its file listing and their contents."""

    def __init__(self, url: str, pinned: str | None, git_dir: Path) -> None:
        _git("init", "-q", "--bare", git_dir)
        if pinned is None:
            want = "HEAD"
        elif FULL_COMMIT.fullmatch(pinned):
            want = pinned
        else:
            want = _resolve(url, pinned, git_dir)
        _git("-C", git_dir, "fetch", "-q", "--depth", "1", "--no-tags", url, want)
        self.git_dir = git_dir
        self.commit = _git("-C", git_dir, "rev-parse", "--verify", "FETCH_HEAD^{commit}").decode().strip()

    def listing(self) -> dict[str, str]:
        """``{path: blob id}`` of the regular files at the commit (links and submodules left out)."""
        files = {}
        for entry in _git("-C", self.git_dir, "ls-tree", "-r", "-z", "--full-tree", self.commit).split(b"\0"):
            if entry:
                meta, path = entry.split(b"\t", 1)
                mode, _, blob = meta.split()
                if mode in (b"100644", b"100755"):
                    files[os.fsdecode(path)] = blob.decode()
        return files

    def read(self, blobs: list[str]) -> list[bytes]:
        """The contents of ``blobs``, in order."""
        out = _git("-C", self.git_dir, "cat-file", "--batch", stdin="\n".join(blobs).encode())
        contents, i = [], 0
        for _ in blobs:
            header_end = out.index(b"\n", i)
            size = int(out[i:header_end].split()[2])
            contents.append(out[header_end + 1 : header_end + 1 + size])
            i = header_end + 1 + size + 1
        return contents


def _resolve(url: str, prefix: str, git_dir: Path) -> str:
    """The full hash of a short commit among the default branch's commits (fetched without trees or files)."""
    lookup = git_dir.with_name(git_dir.name + "-commits")
    _git("init", "-q", "--bare", lookup)
    _git("-C", lookup, "fetch", "-q", "--filter=tree:0", "--no-tags", url, "HEAD")
    try:
        return _git("-C", lookup, "rev-parse", "--verify", "-q", f"{prefix}^{{commit}}").decode().strip()
    except _GitFailed:
        raise FetchError(f"commit {prefix} is not on the default branch of {url} (or names several commits): "
                         "the manifest and the repository disagree") from None  # fmt: skip
    finally:
        shutil.rmtree(lookup, ignore_errors=True)


def fetch_corpora(names: Iterable[str] | None, into: str | Path, *, mirror: str | None = None,
                  manifest: Manifest | None = None, log: Callable[[str], None] = _quiet) -> list[Fetched]:  # fmt: skip
    """Fetch the named corpora (by default every corpus but mathlib) into ``into``, skipping those present.

    Example: ``fetch_corpora(["stacks"], "data/corpora")`` writes ``data/corpora/stacks``, laid out as
    ``../shared/corpora/stacks``; ``mirror`` (a URL or a folder of bare repositories) replaces GitHub.
    """
    manifest = manifest or load_manifest()
    specs = select_corpora(manifest, names)
    into = Path(into)
    into.mkdir(parents=True, exist_ok=True)
    base = mirror or manifest.base_url
    return [fetch_corpus(spec, into, base, log) for spec in specs]


def select_corpora(manifest: Manifest, names: Iterable[str] | None) -> list[CorpusSpec]:
    """The specs of ``names`` (every default corpus when none); an unknown name is an :class:`InputError`."""
    names = list(names or [n for n, spec in manifest.corpora.items() if spec.default])
    unknown = [n for n in names if n not in manifest.corpora]
    if unknown:
        raise InputError(f"unknown corpus {', '.join(unknown)}: choose from {', '.join(manifest.corpora)}")
    return [manifest.corpora[n] for n in dict.fromkeys(names)]


def fetch_corpus(spec: CorpusSpec, into: Path, base: str, log: Callable[[str], None]) -> Fetched:
    """Fetch one corpus into ``into/<name>`` unless a verified copy is there (see the module docstring)."""
    target = into / spec.name
    stamp = _read_stamp(target)
    if stamp is not None and _stamp_matches(spec, stamp, target):
        log(f"{spec.name}: present in {target} ({stamp['files']} files)")
        return Fetched(spec.name, target, "present", stamp["files"], tuple(r["commit"] for r in stamp["repos"]))
    if target.exists() and stamp is None:
        raise FetchError(f"{target} exists but was not fetched by theorem-rag (it has no {STAMP}): move it away or "
                         "fetch into another folder")  # fmt: skip
    for stale in into.glob(f".partial-{spec.name}-*"):  # left by a run that was killed
        shutil.rmtree(stale, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=f".partial-{spec.name}-", dir=into))
    try:
        tree = staging / spec.name
        repos = _fill(spec, tree, staging, base, log)
        for name, data_file in spec.write.items():
            shutil.copyfile(data_file, tree / name)
        files = _count_files(tree)
        if spec.files is not None and files != spec.files:
            raise FetchError(f"{spec.name}: {files} files fetched, the manifest expects {spec.files}")
        (tree / STAMP).write_text(json.dumps({"corpus": spec.name, "license": spec.license, "files": files,
                                              "repos": repos}, indent=1) + "\n", encoding="utf-8")  # fmt: skip
        if target.exists():  # an earlier fetch of other commits: swap, then the staging folder takes the old one away
            target.rename(staging / "replaced")
        tree.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log(f"{spec.name}: fetched into {target} ({files} files)")
    return Fetched(spec.name, target, "fetched", files, tuple(r["commit"] for r in repos))


def _fill(spec: CorpusSpec, tree: Path, staging: Path, base: str, log: Callable[[str], None]) -> list[dict]:
    """Write every part of ``spec`` under ``tree``; the stamp's ``repos`` entries."""
    tree.mkdir()
    snapshots: dict[tuple[str, str | None], _Snapshot] = {}  # papers of one repository and commit share one fetch
    repos = []
    for part in spec.parts:
        url = repo_url(part.repo, base)
        log(f"{spec.name}: {part.repo} at {part.commit or 'the default branch'}")
        try:
            if (url, part.commit) not in snapshots:
                snapshots[url, part.commit] = _Snapshot(url, part.commit, staging / f"git-{len(snapshots)}")
            snap = snapshots[url, part.commit]
            files = _copy(part, snap, tree, spec.strip)
        except (_GitFailed, FetchError) as e:
            raise FetchError(f"{spec.name}: cannot fetch {part.repo} at {part.commit or 'its default branch'} from "
                             f"{url}: {e}. Nothing of {spec.name} was written; check the network or the mirror "
                             "(--mirror, THEOREM_RAG_CORPUS_MIRROR) and run the command again: corpora already "
                             "fetched are kept.") from None  # fmt: skip
        repos.append({"repo": part.repo, "dest": part.dest, "commit": snap.commit, "files": files,
                      "license": part.license})  # fmt: skip
    return repos


def _copy(part: Part, snap: _Snapshot, tree: Path, strip: tuple[str, ...]) -> int:
    """Copy the files ``part`` keeps out of ``snap`` under ``tree``, checking commit and count; how many."""
    if not part.pinned(snap.commit):
        raise FetchError(f"fetched commit {snap.commit} is not the pinned {part.commit}")
    listing = snap.listing()
    kept = part.select(listing)
    unsafe = [p for p in kept if p.startswith("/") or ".." in PurePosixPath(p).parts]
    if unsafe:
        raise FetchError(f"paths outside the corpus folder: {', '.join(unsafe[:3])}")
    written = 0
    for dest, data in zip(kept, snap.read([listing[p] for p in kept.values()])):
        if b"\0" in data[:8192]:  # binary: only text is kept
            continue
        if strip and dest.endswith(".tex"):
            data = strip_environments(data, strip)
        path = tree / dest
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written += 1
    if part.files is not None and written != part.files:
        missing = part.missing(listing)
        raise FetchError(f"{written} files kept at {snap.commit[:12]}, the manifest expects {part.files}"
                         + (f" (missing: {', '.join(missing[:5])})" if missing else ""))  # fmt: skip
    return written


def _count_files(folder: Path) -> int:
    """Files under ``folder``, its stamp left out."""
    return sum(1 for p in folder.rglob("*") if p.is_file() and p != folder / STAMP)


def _read_stamp(folder: Path) -> dict | None:
    """The stamp of a fetched corpus folder, or None when there is none (or it is unreadable)."""
    try:
        return json.loads((folder / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _stamp_matches(spec: CorpusSpec, stamp: dict, folder: Path) -> bool:
    """Whether a stamp records the manifest's repositories at their pinned commits and file counts, and the folder
    still holds as many files as it says."""
    repos = stamp.get("repos", [])
    return (len(repos) == len(spec.parts) and spec.files in (None, stamp.get("files"))
            and all(r.get("repo") == p.repo and r.get("dest") == p.dest and p.pinned(r.get("commit", ""))
                    for r, p in zip(repos, spec.parts))
            and stamp.get("files") == _count_files(folder))  # fmt: skip


def locate_or_fetch(names: Iterable[str] | None, shared: str | Path, into: str | Path, *, mirror: str | None = None,
                    manifest: Manifest | None = None, log: Callable[[str], None] = _quiet) -> Path:  # fmt: skip
    """The folder holding the named corpora (by default every corpus but mathlib): ``shared`` when it has them
    all, else ``into`` after fetching them.

    Example: ``locate_or_fetch(["stacks"], "../shared/corpora", "data/corpora")``.
    """
    manifest = manifest or load_manifest()
    names = [spec.name for spec in select_corpora(manifest, names)]
    shared = Path(shared)
    if shared.is_dir() and all((shared / n).is_dir() for n in names):
        log(f"corpora: {shared}")
        return shared
    log(f"corpora: {shared} does not hold {', '.join(names)}; fetching them into {into}")
    fetch_corpora(names, into, mirror=mirror, manifest=manifest, log=log)
    return Path(into)
