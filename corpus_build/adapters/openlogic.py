"""The Open Logic Project: statements live in ``content/<part>/<chapter>/<section>.tex`` with ``\\ollabel``.

``\\ollabel{x}`` in that file is the LaTeX label ``part:chapter:section:x``; ids are ``openlogic:`` + that.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from corpus_build.adapters.base import Adapter, Unit


class OpenLogicAdapter(Adapter):
    """Each content file is parsed on its own (the book assembles them with ``\\olimport``)."""

    source = "openlogic"
    license = "CC-BY-4.0"

    def main_files(self, texts):
        return []

    def label_id(self, label: str, unit: Unit) -> str:
        if label.count(":") >= 3:
            return f"openlogic:{label}"
        parts = PurePosixPath(unit.main).with_suffix("").parts
        if parts and parts[0] == "content":
            parts = parts[1:]
        return "openlogic:" + ":".join(list(parts[-3:]) + [label])
