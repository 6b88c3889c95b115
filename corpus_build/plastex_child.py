"""plasTeX's side of the parse: the document run through plasTeX and its theorem nodes read into plain records
(:func:`_parse_source`), in a child process under a CPU-time and an address-space limit (:func:`run_child`): a fork
of the calling process (plasTeX imported once, here) where it may fork safely, else a fresh interpreter.

A fork skips the interpreter's start-up, the import of plasTeX (about 0.3 s) and the exit that frees the document
tree: 0.34 s against 0.90 s per OpenLogic file, a third less CPU for the shared corpora's parse, the same records
(``benchmarks/results/parse_fork/``). A process with other threads (a Ray worker, a progress bar's monitor thread)
does not fork (a lock another thread held at the fork would stay held in the child): it sends each parse to a fork
server (``corpus_build/fork_server.py``), a single-threaded helper started once that imports plasTeX and forks in
its place.
"""

from __future__ import annotations

import io
import math
import os
import pickle
import re
import signal
import subprocess
import sys
import time
from typing import Any

from corpus_build.fork_server import ForkServer, ServerLost, child_env
from corpus_build.sandbox import FileGuard
from corpus_build.tex_scan import clean_body

_REF_RE = re.compile(r"\\(?:ref|cref|Cref|autoref)\*?\s*\{([^{}]*)\}")
_SECTIONING = ("part", "chapter", "section", "subsection", "subsubsection")
_MEMORY_LIMIT_BYTES = 4 << 30


def _text_of(fragment: Any) -> str | None:
    if fragment is None:
        return None
    value = " ".join(fragment.source.split()) if hasattr(fragment, "source") else str(fragment)
    return value or None


def _descendants(node: Any):
    for child in node.childNodes or ():
        yield child
        yield from _descendants(child)


def _own_labels(node: Any):
    """The ``\\label``s inside a theorem node, but not those of a theorem environment nested in it (an example
    that states a lemma: the lemma's label is the lemma's)."""
    for child in node.childNodes or ():
        if child.nodeName == "label":
            yield str(child.attributes["label"])
        elif not hasattr(child, "thmName"):
            yield from _own_labels(child)


def _first_block(node: Any) -> Any:
    """``node`` itself, or for a paragraph wrapper its first non-blank descendant; ``None`` if all blank."""
    if node.nodeName == "#text":
        return node if str(node).strip() else None
    if node.nodeName != "par":
        return node
    for child in node.childNodes or ():
        found = _first_block(child)
        if found is not None:
            return found
    return None


def _next_block(node: Any) -> Any:
    """The first non-blank node after ``node`` in document order, looking through paragraph wrappers."""
    while node is not None:
        sibling = node.nextSibling
        while sibling is not None:
            found = _first_block(sibling)
            if found is not None:
                return found
            sibling = sibling.nextSibling
        node = node.parentNode
    return None


def _node_record(node: Any) -> dict[str, Any]:
    """What the parent needs from one theorem node, as plain data."""
    number = node.ref.textContent.strip() if getattr(node, "counter", None) and node.ref is not None else None
    labels = list(_own_labels(node))
    section = []
    parent = node.parentNode
    while parent is not None:
        if parent.nodeName in _SECTIONING:
            section.append(_text_of(parent.attributes.get("title")) or "")
        parent = parent.parentNode
    refs: list[str] = []
    proof = _next_block(node)
    if proof is not None and proof.nodeName == "proof":
        for group in _REF_RE.findall(proof.source):
            for target in (r.strip() for r in group.split(",")):
                if target and target not in refs:
                    refs.append(target)
    return {
        "env": node.thmName,
        "number": number or None,
        "title": _text_of(node.attributes.get("title")),
        "labels": labels,
        "section": section[::-1],
        "refs": refs,
        "body_expanded": clean_body("".join(c.source for c in node.childNodes)),
    }


def _missing_macros() -> dict[str, type]:
    """``\\@ifnextchar``, ``\\@ifstar`` and ``\\newaliascnt`` for plasTeX, which lacks them.

    Without them both branches run; a macro that calls itself from one, such as the HoTT book's ``\\lam``
    (``\\@ifnextchar\\bgroup{\\lam}{.}``), then recurses until plasTeX dies, and every ``\\@ifnextchar[``
    optional argument comes out wrong.
    """
    from plasTeX import Command
    from plasTeX.Tokenizer import Token

    def peek(tex: Any) -> Any:
        for token in tex.itertokens():
            if token.catcode != Token.CC_SPACE:
                tex.pushToken(token)
                return token
        return None

    class IfNextChar(Command):
        macroName = "@ifnextchar"

        def invoke(self, tex: Any) -> list:
            target = tex.readArgument(type="Tok")
            yes, no = tex.readArgument(type="nox") or [], tex.readArgument(type="nox") or []
            token = peek(tex)
            if getattr(target, "macroName", None) == "bgroup" or target.catcode == Token.CC_BGROUP:
                hit = token is not None and token.catcode == Token.CC_BGROUP
            else:
                hit = token is not None and token == target and token.catcode == target.catcode
            tex.pushTokens(yes if hit else no)
            return []

    class IfStar(Command):
        macroName = "@ifstar"

        def invoke(self, tex: Any) -> list:
            yes, no = tex.readArgument(type="nox") or [], tex.readArgument(type="nox") or []
            token = peek(tex)
            hit = token is not None and str(token) == "*" and token.catcode == Token.CC_OTHER
            if hit:
                next(tex.itertokens())
            tex.pushTokens(yes if hit else no)
            return []

    class NewAliasCnt(Command):
        """aliascnt's ``\\newaliascnt{alias}{counter}``: one counter under two names (HoTT shares thm's)."""

        macroName = "newaliascnt"
        args = "alias:str counter:str"

        def invoke(self, tex: Any) -> list:
            self.parse(tex)
            context, alias, counter = self.ownerDocument.context, self.attributes["alias"], self.attributes["counter"]
            if counter in context.counters:
                context.counters[alias] = context.counters[counter]
                context.newcommand("the" + alias, 0, "\\the" + counter)
            return []

    return {"@ifnextchar": IfNextChar, "@ifstar": IfStar, "newaliascnt": NewAliasCnt}


def _parse_source(source: str, envs: list[str]) -> list[dict[str, Any]]:
    from plasTeX.TeX import TeX

    stream = io.StringIO(source)
    stream.name = "document.tex"
    tex = TeX(file=stream)
    # The AMS classes load amsthm in real LaTeX; plasTeX's do not, which would leave \theoremstyle and
    # the proof environment undefined.
    tex.ownerDocument.context.loadPackage(tex, "amsthm.sty")
    for name, macro in _missing_macros().items():
        tex.ownerDocument.context.addGlobal(name, macro)
    doc = tex.parse()
    nodes = [d for d in _descendants(doc) if d.nodeName == "thmenv" and d.thmName in envs]
    for node in nodes:
        # .source writes \begin{<nodeName>}, which is "thmenv" for every theorem class.
        node.nodeName = node.thmName
    return [_node_record(n) for n in nodes]


def _child_main() -> None:
    """Child process: read a pickled job on stdin, write a pickled ``(status, payload)`` on stdout."""
    job = pickle.load(sys.stdin.buffer)
    _serve(job, os.fdopen(os.dup(1), "wb"))


def _serve(job: tuple, answer: Any) -> None:
    """In the child: parse one job under its limits and write the pickled ``(status, payload, access)`` to
    ``answer``; ``access`` holds the files of the folder plasTeX ``opened`` and what the sandbox ``refused``.

    plasTeX prints to stdout and stderr, so both go to /dev/null and the answer goes to its own file. Before the
    document is read, the process confines itself to ``base_dir`` (:class:`corpus_build.sandbox.FileGuard`;
    ``None``: no file of any folder): a document names files through macros the include guard cannot see.
    """
    import resource

    import plasTeX

    source, envs, base_dir, memory_bytes, cpu_seconds = job
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    guard = FileGuard(base_dir, os.path.dirname(plasTeX.__file__))
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        # The time limit counts CPU, not wall-clock, seconds: on a busy machine a big file takes longer by the
        # clock but not by CPU, and the same file must give the same result. It also ends the child if the
        # parent dies first.
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        if base_dir:
            os.chdir(base_dir)
        guard.install()
        result: tuple[str, Any] = ("ok", _parse_source(source, envs))
    except MemoryError:
        result = ("error", f"plasTeX ran out of memory (limit {memory_bytes >> 20} MiB)")
    except RecursionError:
        result = ("error", "plasTeX recursed too deeply (a macro that expands to itself?)")
    except BaseException as exc:  # noqa: BLE001 - any failure of plasTeX is reported to the parent, not raised
        result = ("error", f"plasTeX failed: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
    access = {"opened": list(dict.fromkeys(guard.opened)), "refused": list(dict.fromkeys(guard.refused))}
    pickle.dump((*result, access), answer)
    answer.close()


# The modules a parse imports (plasTeX itself, the classes and packages every document loads, the renderer
# machinery TeX() pulls in): a forked child finds them imported, where a fresh interpreter spends about 0.3 s of
# its 0.3-1 s per document importing them. Importing runs no parse, so a child starts from the state a fresh
# interpreter reaches by the same imports.
_PRELOAD = (
    "plasTeX.TeX", "plasTeX.Context", "plasTeX.Filenames", "plasTeX.Imagers", "plasTeX.PackageResource",
    "plasTeX.Renderers.PageTemplate", "plasTeX.Packages.amsthm", "plasTeX.Packages.article",
    "plasTeX.Packages.book", "plasTeX.Packages.report",
)


def _can_fork() -> bool:
    """Whether a parse may fork this process: POSIX with /proc, and one thread only (a thread holding a lock at
    the fork would leave the child waiting for it forever)."""
    if not hasattr(os, "fork"):
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _address_space() -> int:
    """This process's virtual memory in bytes (Linux), what a forked child starts with."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _run_forked(job: tuple, wall_s: float) -> tuple[int, bytes, bytes]:
    """Run :func:`_serve` in a fork of this process (plasTeX imported once, here); ``(exit code, answer, b"")``
    as ``run_child`` reads them from a fresh interpreter. The memory limit counts from what the child inherits."""
    import importlib
    import select

    for name in _PRELOAD:
        importlib.import_module(name)
    source, envs, base_dir, memory_bytes, cpu_seconds = job
    job = (source, envs, base_dir, memory_bytes + _address_space(), cpu_seconds)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code, runs no exit handler of the parent's
        try:
            os.close(r)
            _serve(job, os.fdopen(w, "wb"))
        finally:
            os._exit(0)
    os.close(w)
    deadline, chunks = time.monotonic() + wall_s, []
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([r], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise subprocess.TimeoutExpired("plasTeX", wall_s)
            data = os.read(r, 1 << 20)
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(r)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks), b""


def run_child(source: str, envs: list[str], base_dir: str | None, timeout_s: float) -> tuple[str, Any, dict]:
    """Run :func:`_serve` in a child process with ``timeout_s`` seconds of CPU time: a fork of this process where
    it may fork (:func:`_can_fork`), else a fork of the fork server (Linux), else a fresh interpreter; returns
    ``(status, payload, access)`` as :func:`_serve` writes it (``access`` empty when the child gave no answer).

    A child that does not use its CPU (blocked) is killed after a wall-clock backstop of 4 x ``timeout_s`` + 10 s.

    A plain subprocess rather than multiprocessing's spawn: spawn re-imports ``__main__``, which fails from
    stdin, notebooks and some CLIs.
    """
    cpu_seconds = max(1, math.ceil(timeout_s))
    wall_s = 4 * timeout_s + 10
    job = (source, envs, base_dir, _MEMORY_LIMIT_BYTES, cpu_seconds)
    try:
        if _can_fork():
            returncode, out, err = _run_forked(job, wall_s)
        elif _use_server():
            returncode, out, err = _run_in_server(job, wall_s)
        else:
            returncode, out, err = _run_interpreter(job, wall_s)
    except subprocess.TimeoutExpired:
        return "error", f"plasTeX gave no answer within {wall_s:g} s of wall-clock time", {}
    if returncode in (-signal.SIGXCPU, -signal.SIGKILL) and not out:
        return "error", f"plasTeX timed out after {cpu_seconds} s of CPU time", {}
    if returncode != 0 or not out:
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        return "error", f"plasTeX process died (exit code {returncode}) {last[0]}".strip(), {}
    return pickle.loads(out)


# Where this process may not fork (other threads: a Ray worker), a single-threaded helper started once imports
# plasTeX and forks for each parse in its place.
_SERVER = ForkServer("corpus_build.plastex_child:_run_forked", _PRELOAD)


def _use_server() -> bool:
    """Whether a process that may not fork parses through the fork server (Linux: it reads /proc)."""
    return sys.platform.startswith("linux")


def _run_in_server(job: tuple, wall_s: float) -> tuple[int, bytes, bytes]:
    """:func:`_run_forked` in the fork server; a fresh interpreter if the server is lost."""
    try:
        return _SERVER.call(job, wall_s, timeout=wall_s + 30)
    except ServerLost:
        return _run_interpreter(job, wall_s)


def _run_interpreter(job: tuple, wall_s: float) -> tuple[int, bytes, bytes]:
    """Run :func:`_child_main` in a fresh interpreter; ``(exit code, answer, stderr)``."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "from corpus_build.plastex_child import _child_main; _child_main()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
    )
    try:
        out, err = proc.communicate(pickle.dumps(job), timeout=wall_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return proc.returncode, out, err
