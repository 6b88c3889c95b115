"""Docstring examples that cannot run offline (``# doctest: +SKIP``: they need the index, a model or a server) still
call the code as it is: every call in them is bound to the callee's current signature (``inspect.signature``).

Each skipped example is parsed with ``ast``; a call is checked when its callee resolves: a name the module or the
example imports, a method of an object the example made (``x = Cls(...)``, ``x = fn(...)`` with a return annotation)
or of one of the objects the examples name by convention (``search`` is a TheoremSearch, ``store`` a TheoremStore,
``embedder`` an Embedder). A call whose arguments do not bind (a required argument left out, a keyword that no
longer exists) fails the test with the example's place; the examples that do run are doctests already.
"""

from __future__ import annotations

import ast
import builtins
import doctest
import importlib
import inspect
import typing
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Instance:
    """An object of ``cls`` that an example uses (its methods are checked without ``self``)."""

    cls: type


def _conventional() -> dict[str, Any]:
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.embed import Embedder
    from theorem_rag.search import TheoremSearch

    return {"search": Instance(TheoremSearch), "store": Instance(TheoremStore), "embedder": Instance(Embedder)}


def _modules() -> list[ModuleType]:
    names = []
    for package in ("theorem_rag", "corpus_build"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return [importlib.import_module(n) for n in names]


def _returned(fn: Any) -> Any:
    """What calling ``fn`` gives, as far as its annotations say: an :class:`Instance`, or None."""
    if inspect.isclass(fn):
        return Instance(fn)
    try:
        hint = typing.get_type_hints(fn).get("return")
    except Exception:  # noqa: BLE001 - annotations naming optional packages; the call itself is still checked
        return None
    return Instance(hint) if inspect.isclass(hint) and hint.__module__.split(".")[0] in ("theorem_rag", "corpus_build") else None


def _attribute(owner: Any, name: str) -> Any:
    if isinstance(owner, Instance):
        static = inspect.getattr_static(owner.cls, name, None)
        if static is None:
            return None
        value = getattr(owner.cls, name)
        if isinstance(static, property):
            return _returned(static.fget)
        if isinstance(static, (staticmethod, classmethod)):
            return value
        return _Bound(value) if inspect.isfunction(value) else None
    if isinstance(owner, ModuleType) or inspect.isclass(owner):
        return getattr(owner, name, None)
    return None


@dataclass(frozen=True)
class _Bound:
    """A method of an :class:`Instance`: its signature without ``self``."""

    fn: Any

    def signature(self) -> inspect.Signature:
        sig = inspect.signature(self.fn)
        return sig.replace(parameters=list(sig.parameters.values())[1:])


@dataclass
class Checker:
    env: dict[str, Any]
    checked: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def resolve(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Name):
            return self.env.get(node.id, getattr(builtins, node.id, None))
        if isinstance(node, ast.Attribute):
            owner = self.resolve(node.value)
            return None if owner is None else _attribute(owner, node.attr)
        if isinstance(node, ast.Call):
            fn = self.resolve(node.func)
            return None if fn is None else _returned(fn.fn if isinstance(fn, _Bound) else fn)
        if isinstance(node, ast.Await):
            return None
        return None

    def check_call(self, node: ast.Call, where: str) -> None:
        fn = self.resolve(node.func)
        if fn is None or isinstance(fn, Instance) or not callable(getattr(fn, "signature", None) or fn):
            return
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return
        try:
            sig = fn.signature() if isinstance(fn, _Bound) else inspect.signature(fn)
        except (TypeError, ValueError):  # a builtin without a signature
            return
        text = ast.unparse(node)
        try:
            sig.bind(*[None] * len(node.args), **{k.arg: None for k in node.keywords})
        except TypeError as err:
            self.failures.append(f"{where}: {text}: {err}")
        self.checked.append(f"{where}: {text}")

    def run(self, source: str, where: str) -> None:
        tree = compile(source, where, "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                self.check_call(node, where)
        for node in tree.body:  # what the example binds, for the examples after it
            if isinstance(node, ast.Import | ast.ImportFrom):
                for alias in node.names:
                    try:
                        module = importlib.import_module(node.module if isinstance(node, ast.ImportFrom) else alias.name)
                    except ImportError:
                        continue
                    value = getattr(module, alias.name, None) if isinstance(node, ast.ImportFrom) else module
                    self.env[alias.asname or alias.name] = value
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.env[node.targets[0].id] = self.resolve(node.value)


def _line(lines: list[str], test: doctest.DocTest, example: doctest.Example) -> int:
    """The example's line in its file (DocTestFinder's count is off for decorated functions: found by text)."""
    first = ">>> " + example.source.splitlines()[0]
    guess = (test.lineno or 0) + example.lineno
    if guess < len(lines) and lines[guess].strip().startswith(first):
        return guess + 1
    return next((i for i, line in enumerate(lines, 1) if line.strip().startswith(first)), guess + 1)


def skipped_examples() -> tuple[list[str], list[str]]:
    """``(calls checked, failures)`` over every skipped example of the two packages."""
    finder, conventional = doctest.DocTestFinder(), _conventional()
    checked, failures = [], []
    for module in _modules():
        for test in finder.find(module):
            checker = Checker(env={**vars(module), **conventional})
            lines = Path(module.__file__).read_text(encoding="utf-8").splitlines()
            for example in test.examples:
                where = f"{Path(module.__file__).relative_to(ROOT)}:{_line(lines, test, example)}"
                if example.options.get(doctest.SKIP):
                    checker.run(example.source, where)
                else:  # a running example's names count for the skipped ones after it
                    try:
                        Checker(env=checker.env).run(example.source, where)
                    except SyntaxError:
                        pass
            checked += checker.checked
            failures += checker.failures
    return checked, failures


def test_skipped_examples_call_the_current_signatures():
    checked, failures = skipped_examples()
    assert failures == []
    # The check reaches the examples it is for: the index build, searches, the store, the servers.
    for call in ("theorem_rag/indexing/ingest.py:7: build_index(", "theorem_rag/search.py:8: search.search(",
                 "theorem_rag/db/side_tables.py", "theorem_rag/api/app.py:9: create_app("):  # fmt: skip
        assert any(c.startswith(call) for c in checked), call
    assert len(checked) >= 40, checked
