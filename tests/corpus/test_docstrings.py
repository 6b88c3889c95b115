"""The examples in the corpus modules' docstrings run and hold (they are the documentation)."""

import doctest
import importlib

import pytest

MODULES = [
    "corpus_build.texfiles", "corpus_build.macros", "corpus_build.theorems", "corpus_build.fallback_parser",
    "corpus_build.filters", "corpus_build.sources", "corpus_build.extract", "corpus_build.report",
    "corpus_build.parse", "corpus_build.adapters", "corpus_build.adapters.base",
    "corpus_build.adapters.stacks", "corpus_build.adapters.planetmath", "corpus_build.tex_scan",
    "corpus_build.cleanup",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
