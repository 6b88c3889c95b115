"""What a parser hands back before a source adapter turns it into a :class:`theorem_rag.records.Theorem`."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RawStatement:
    """One theorem-like environment as found in a LaTeX document.

    ``env`` is the environment name as written (``thm``), ``kind`` its normalized kind (``theorem``);
    ``body`` is the LaTeX between ``\\begin`` and ``\\end`` with the ``[name]`` option and ``\\label`` commands
    removed; ``labels`` are every label inside it (the first is ``label``); ``refs`` are the ``\\ref``-like
    targets cited in the proof that follows the statement, ``proof`` that proof's LaTeX; ``section`` is the path of enclosing headings.
    ``text`` and ``formula_keys`` are filled where the document is parsed (a worker of the pool,
    :func:`corpus_build.units.parse_unit`): the statement's readable text with macros expanded and its formula keys
    (:func:`theorem_rag.formula_keys.carry`), which the record keeps.
    """

    env: str
    kind: str
    body: str
    parser: str
    body_expanded: str = ""
    name: str | None = None
    label: str | None = None
    labels: list[str] = field(default_factory=list)
    number: str | None = None
    section: list[str] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    proof: str = ""
    file: str | None = None
    line: int | None = None
    text: str | None = None
    formula_keys: tuple[str, tuple[str, ...]] | None = None
