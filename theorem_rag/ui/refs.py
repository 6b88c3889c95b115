"""Resolve ``\\ref``-like labels in a statement to the statements they name (pure).

A label is looked up the way LaTeX would see it from the citing statement: first in its own document
(``lemma-local`` in a Stacks chapter), then as a source-wide label (Stacks' ``algebra-lemma-local`` across
chapters, kept as ``meta["full_label"]``), then as a label that only one statement of the source carries.

>>> a = Theorem(id="stacks:00AC", source="stacks", kind="lemma", body_latex="x", doc_id="stacks:algebra",
...             number="10.18.2", label="lemma-local", meta={"full_label": "algebra-lemma-local"})
>>> b = Theorem(id="stacks:0001", source="stacks", kind="lemma", body_latex="y", doc_id="stacks:schemes")
>>> resolve = label_index([a, b])
>>> resolve(b)("algebra-lemma-local").number, resolve(a)("lemma-local").theorem_id, resolve(b)("nope")
('10.18.2', 'stacks:00AC', None)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from theorem_rag.records import Theorem


@dataclass(frozen=True)
class RefTarget:
    """What a resolved reference shows and links to."""

    theorem_id: str
    kind: str
    number: str | None = None
    url: str | None = None

    @classmethod
    def of(cls, t: Theorem) -> RefTarget:
        return cls(t.id, t.kind, t.number, t.url)


Resolver = Callable[[str], "RefTarget | None"]


class LabelIndex:
    """Labels of a set of statements, for :func:`label_index`."""

    def __init__(self, theorems: Iterable[Theorem]) -> None:
        self.in_doc: dict[tuple[str, str], RefTarget] = {}
        self.full: dict[tuple[str, str], RefTarget] = {}
        by_source: dict[tuple[str, str], list[RefTarget]] = {}
        for t in theorems:
            target = RefTarget.of(t)
            if t.label:
                self.in_doc.setdefault((t.doc_id, t.label), target)
                by_source.setdefault((t.source, t.label), []).append(target)
            full = (t.meta or {}).get("full_label")
            if full:
                self.full.setdefault((t.source, str(full)), target)
        self.unique = {k: v[0] for k, v in by_source.items() if len(v) == 1}

    def resolver(self, theorem: Theorem) -> Resolver:
        """The resolver a statement's own ``\\ref`` commands go through."""

        def resolve(label: str) -> RefTarget | None:
            label = label.strip()
            return (self.in_doc.get((theorem.doc_id, label)) or self.full.get((theorem.source, label))
                    or self.unique.get((theorem.source, label)))  # fmt: skip

        return resolve

    def __call__(self, theorem: Theorem) -> Resolver:
        return self.resolver(theorem)


def label_index(theorems: Iterable[Theorem]) -> LabelIndex:
    """A :class:`LabelIndex` over ``theorems``; calling it with a statement gives that statement's resolver."""
    return LabelIndex(theorems)
