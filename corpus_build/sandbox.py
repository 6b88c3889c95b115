"""What the process that runs plasTeX may touch: the files of the source folder, and nothing else outside it.

plasTeX runs a document's TeX for real and has no sandbox of its own: ``\\input`` through a macro,
``\\csname input\\endcsname``, ``\\let\\x\\input``, ``\\InputIfFileExists``, ``\\lstinputlisting``, xr's
``\\externaldocument`` (which unpickles a file) and a ``kpsewhich`` on the PATH (TeX Live's, which follows any
path and expands ``~``) each open a file the document names. The include guard of
:func:`corpus_build.texfiles.flatten` sees only the literal ``\\input{...}`` forms. So the child process that runs
plasTeX (:mod:`corpus_build.plastex_child`) confines itself before it reads the document, twice over:

1. plasTeX's file lookup (``TeX.kpsewhich``) finds names inside the source folder only (symlinks followed, then
   checked) and never runs a program; to plasTeX a name outside is a file that does not exist;
2. an audit hook (:func:`sys.addaudithook`, which sees every ``open``, folder listing, process start, unpickling
   and socket of the process, whoever asks) refuses every open outside the folder but the Python code and
   plasTeX's own data files the parse imports, every write, program, unpickling and network connection.

Each refusal is recorded as the name asked for (never anything a file holds) and goes back to the parent, which
names it in the parse report.

>>> import tempfile
>>> root = tempfile.mkdtemp()
>>> guard = FileGuard(root)
>>> guard.allows_read(os.path.join(root, "a.tex")), guard.allows_read("/etc/passwd")
(True, False)
>>> guard.lookup(root + "/../secret.tex")
Traceback (most recent call last):
...
FileNotFoundError: Could not find any file named: .../../secret.tex
>>> [r.split(": ", 1)[0] for r in guard.refused]
['look up a file outside the source folder']
"""

from __future__ import annotations

import errno
import os
import site
import sys
import sysconfig
from typing import Any

# open() flags that write, create or truncate (a read-only open has none of them)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# What the import system opens under the Python installation: plasTeX imports its packages as documents load them.
_CODE_SUFFIXES = (".py", ".pyc", ".so", ".pth")
# Audit events refused outright in the child, with what they would have done.
_REFUSED_EVENTS = {
    "subprocess.Popen": "run a program", "os.system": "run a program", "os.exec": "run a program",
    "os.posix_spawn": "run a program", "os.spawn": "run a program", "os.fork": "start a process",
    "os.forkpty": "start a process", "pickle.find_class": "unpickle",
    "socket.connect": "connect", "socket.bind": "listen", "socket.sendto": "send", "urllib.Request": "fetch a URL",
    "os.remove": "delete a file", "os.rename": "rename a file", "os.rmdir": "delete a folder",
    "os.mkdir": "make a folder", "os.symlink": "make a link", "os.link": "make a link", "os.chmod": "change a mode",
    "os.chown": "change an owner", "os.truncate": "truncate a file", "os.utime": "touch a file",
    "os.chdir": "change folder", "shutil.copyfile": "copy a file", "shutil.rmtree": "delete a tree",
}  # fmt: skip
_LISTING_EVENTS = ("os.listdir", "os.scandir")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _software_dirs() -> tuple[str, ...]:
    """The folders the Python installation keeps code in (stdlib, site-packages), resolved."""
    paths = sysconfig.get_paths()
    dirs = [paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    dirs += list(getattr(site, "getsitepackages", lambda: [])())
    return tuple(sorted({os.path.realpath(d) for d in dirs if d and os.path.isdir(d)}))


class FileGuard:
    """Allows what a parse of the documents under ``root`` needs and refuses the rest (``root=None``: no folder,
    so no document file at all); ``opened`` and ``refused`` record what was asked.

    :meth:`install` makes it the process's audit hook and plasTeX's file lookup: for a child process only (an
    audit hook cannot be removed).
    """

    def __init__(self, root: str | None, plastex_dir: str | None = None) -> None:
        self.root = os.path.realpath(root) if root else None
        self.software = _software_dirs()
        self.plastex_dir = os.path.realpath(plastex_dir) if plastex_dir else None
        self.opened: list[str] = []
        self.refused: list[str] = []
        self._busy = False

    def allows_read(self, real: str) -> bool:
        """Whether a resolved path may be opened for reading: inside the folder, a file of plasTeX's own, or code."""
        if self.root is not None and _inside(real, self.root):
            return True
        if self.plastex_dir is not None and _inside(real, self.plastex_dir):
            return True
        return real.endswith(_CODE_SUFFIXES) and any(_inside(real, d) for d in self.software)

    def refuse(self, what: str, name: Any) -> None:
        self.refused.append(f"{what}: {name}")

    def lookup(self, name: Any) -> str:
        """plasTeX's ``kpsewhich``: ``name`` as a file of the folder (relative to it, or absolute inside it), after
        symlinks; ``FileNotFoundError`` for a missing file and for any name that leaves the folder."""
        name = str(name).strip()
        real = os.path.realpath(os.path.join(self.root, name)) if self.root and name else ""
        if not real or not _inside(real, self.root or ""):
            self.refuse("look up a file outside the source folder", name)
        elif os.path.isfile(real):
            return real
        raise FileNotFoundError(f"Could not find any file named: {name}")

    def __call__(self, event: str, args: tuple) -> None:
        if self._busy:
            return
        self._busy = True
        try:
            self._check(event, args)
        finally:
            self._busy = False

    def _check(self, event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None))[:3]
            if path is None or isinstance(path, int):  # an open file descriptor
                return
            name = os.fsdecode(os.fspath(path))
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool((flags or 0) & _WRITE_FLAGS)
            real = os.path.realpath(name)
            if writes:
                self._deny("write a file", name)
            if not self.allows_read(real):
                self._deny("open a file outside the source folder", name)
            if self.root is not None and _inside(real, self.root):
                self.opened.append(real)
        elif event in _LISTING_EVENTS:
            path = args[0] if args else None
            if isinstance(path, int):  # an open folder's descriptor
                return
            real = os.path.realpath(os.fsdecode(os.fspath(path)) if path not in (None, "") else ".")
            if not (self.root is not None and _inside(real, self.root)) and not any(
                    _inside(real, d) for d in self.software + ((self.plastex_dir,) if self.plastex_dir else ())):
                self._deny("list a folder outside the source folder", path)
        elif event in _REFUSED_EVENTS:
            self._deny(_REFUSED_EVENTS[event], args[0] if args else "")

    def _deny(self, what: str, name: Any) -> None:
        self.refuse(what, name)
        raise PermissionError(errno.EACCES, f"refused in the plasTeX sandbox: {what}", str(name))

    def install(self) -> None:
        """From now on this process asks this guard: plasTeX's lookup, and every audited event."""
        from plasTeX.TeX import TeX

        guard = self
        TeX.kpsewhich = lambda tex, name: guard.lookup(name)  # type: ignore[method-assign]
        sys.dont_write_bytecode = True
        sys.addaudithook(self)


__all__ = ["FileGuard"]
