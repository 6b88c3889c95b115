"""Griffe extension for the API reference: the docstrings' ``>>>`` examples render as Python code blocks.

The project's docstrings are plain prose with doctest examples (``pytest --doctest-modules`` runs them). Markdown
would read a ``>>>`` line as three nested quotes; this wraps each run of example lines (prompts, continuations and
expected output up to a blank line) in a fenced ``pycon`` block, drops the ``# doctest:`` directives, and turns
reST's double backticks and ``:role:`target``` into Markdown code.
"""

from __future__ import annotations

import re

import griffe

DIRECTIVE = re.compile(r"\s*# doctest:.*$")
ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):`~?([^`]+)`")


def _inline(line: str) -> str:
    line = ROLE.sub(lambda m: f"`{m.group(1).rsplit('.', 1)[-1]}`", line)
    return re.sub(r"``([^`]+)``", r"`\1`", line)


def markdown(text: str) -> str:
    out, in_example = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(">>>") and not in_example:
            out.append("```pycon")
            in_example = True
        elif in_example and not line.strip():
            out.append("```")
            in_example = False
        out.append(DIRECTIVE.sub("", line) if in_example else _inline(line))
    if in_example:
        out.append("```")
    return "\n".join(out)


class DoctestExamples(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
