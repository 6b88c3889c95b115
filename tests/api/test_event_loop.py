"""What a request runs on the event loop: FastAPI runs a plain-function dependency in a worker thread, so each one
would cost every request a hop to a thread and back (the API key check was one: benchmarks/results/serving_20261205/).
Built without a database: only the routes' dependency graph is read."""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import pytest

pytest.importorskip("fastapi")


def _calls(dependant):
    for dep in dependant.dependencies:
        yield dep.call
        yield from _calls(dep)


@pytest.mark.parametrize("api_key", [None, "k3y"])
def test_every_dependency_of_every_route_is_a_coroutine(api_key):
    from fastapi.routing import APIRoute

    from theorem_rag.api.app import create_app

    app = create_app(SimpleNamespace(stats=lambda: {}), api_key=api_key)
    routes = [r for r in app.routes if isinstance(r, APIRoute)]
    assert {"/search", "/premises", "/health"} <= {r.path for r in routes}
    checked = 0
    for route in routes:
        for call in _calls(route.dependant):
            fn = call if inspect.isfunction(call) or inspect.ismethod(call) else type(call).__call__
            assert inspect.iscoroutinefunction(fn), f"{route.path}: {call!r} would run in a worker thread"
            checked += 1
    assert checked >= 3 * len([r for r in routes if r.path != "/health"])  # the key check and its two readers
