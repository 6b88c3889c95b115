"""The error a caller can fix: bad input, as opposed to a bug in theorem-rag (pure, imports nothing).

:class:`InputError` is what every user mistake raises: an empty or too long query, ``k`` out of range, an unknown
filter or setting, a malformed record. Its message says what to change. It subclasses ``ValueError`` so code that
caught ``ValueError`` keeps working; the edges (REST, MCP, CLI, app) show an ``InputError`` to the caller and treat
any other exception, ``ValueError`` included, as an internal error that is logged.

>>> try:
...     raise InputError("k must be an integer from 1 to 100, got 0")
... except ValueError as err:
...     print(type(err).__name__, err)
InputError k must be an integer from 1 to 100, got 0
"""

from __future__ import annotations


class InputError(ValueError):
    """A mistake in what the caller gave (query, k, filters, settings, records); the message says how to fix it."""
