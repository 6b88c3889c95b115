"""The records theorem-rag passes around: small frozen dataclasses, pure.

A :class:`Theorem` is one statement (lemma, definition, ...) with its provenance; a :class:`Document` is the
paper, book or encyclopedia entry it comes from; a :class:`Hit` is one ranked search result.

>>> t = Theorem(id="stacks:00FN", source="stacks", kind="lemma", body_latex="Let $R$ be a ring.", doc_id="stacks:algebra")
>>> Theorem.from_dict(t.to_dict()) == t
True
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from theorem_rag.errors import InputError

# Kinds of statement the corpus keeps; anything else found in a source is mapped onto one of these or dropped.
KINDS = (
    "theorem",
    "lemma",
    "proposition",
    "corollary",
    "definition",
    "remark",
    "example",
    "exercise",
    "situation",
    "conjecture",
    "axiom",
    "notation",
    "claim",
    "fact",
)


def digest(*parts: str, length: int = 32) -> str:
    """The project's one content hash: sha256 over the parts, NUL-separated so no two tuples collide by
    concatenation, cut to ``length`` hex digits. Caches and vectors are keyed on it.

    >>> digest("a", "bc") != digest("ab", "c"), len(digest("x"))
    (True, 32)
    """
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:length]


def _tuple(value: Any) -> tuple:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(value)


@dataclass(frozen=True)
class Theorem:
    """One theorem-like statement and where it came from.

    ``body_latex`` is the statement as written; ``body_expanded`` the same with user macros expanded where the
    parser could (empty when nothing was expanded); ``proof`` the proof that follows it in the source, if any. ``parser`` names the method that produced the record
    (``plastex``, ``fallback`` or ``jsonl``); ``file`` and ``line`` point into the source tree.

    ``id`` follows the statement, not its place: a parsed statement is ``<prefix>:<label>``, or without a label
    ``<prefix>:<file>#<kind>-<hash>`` (8 hex digits of its normalised body's hash), so editing other statements
    never moves it (:mod:`corpus_build.adapters.base`, ``docs/concepts/ids.md``). The positional id such a statement
    had before, ``<prefix>:<file>#<n>``, is kept as ``meta["legacy_id"]`` for references written against it.

    ``formula_keys`` is derived, not part of the record: the formula keys of :attr:`text` computed where the record
    was parsed, as ``(stamp, keys)`` (:func:`theorem_rag.formula_keys.carry`), so that loading does not compute
    them; a writer uses them only while the stamp matches the text. It is not compared, hashed or part of
    :attr:`content_hash`, and a record without it is written the same.

    >>> t = Theorem(id="x:1", source="x", kind="lemma", body_latex="$a$", doc_id="x", formula_keys=("s", ("k",)))
    >>> t == Theorem(id="x:1", source="x", kind="lemma", body_latex="$a$", doc_id="x")
    True
    >>> Theorem.from_dict(t.to_dict()).formula_keys, t.to_dict()["formula_keys"]
    (('s', ('k',)), {'stamp': 's', 'keys': ['k']})
    """

    id: str
    source: str
    kind: str
    body_latex: str
    doc_id: str
    body_expanded: str = ""
    number: str | None = None
    name: str | None = None
    label: str | None = None
    section: tuple[str, ...] = ()
    proof_refs: tuple[str, ...] = ()
    url: str | None = None
    parser: str = "fallback"
    file: str | None = None
    line: int | None = None
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=True)
    proof: str = ""
    formula_keys: tuple[str, tuple[str, ...]] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "section", _tuple(self.section))
        object.__setattr__(self, "proof_refs", _tuple(self.proof_refs))
        keys = self.formula_keys
        if isinstance(keys, dict):  # as JSON carries it
            keys = (keys.get("stamp"), keys.get("keys"))
        if keys is not None:
            if not (isinstance(keys, (tuple, list)) and len(keys) == 2 and isinstance(keys[0], str)
                    and isinstance(keys[1], (tuple, list)) and all(isinstance(k, str) for k in keys[1])):
                raise InputError(f"theorem record {self.id!r}: formula_keys must be {{'stamp': str, 'keys': [str, ...]}}")
            object.__setattr__(self, "formula_keys", (keys[0], tuple(keys[1])))

    @property
    def text(self) -> str:
        """The statement with macros expanded when available, else as written."""
        return self.body_expanded or self.body_latex

    @property
    def content_hash(self) -> str:
        """A hash of the whole record but its id: any edit (body, macros, label, section, provenance) changes it.

        It versions the stored row. Slogans and vectors are not keyed on it but on exactly what each was computed
        from (the writer's inputs, the embedded text), so an edit refreshes only what it touches.
        """
        d = self._record(copy_meta=False)  # read by json.dumps only: no copy of meta needed
        del d["id"]
        if not d["proof"]:  # records without a proof keep the hash they had before proofs were recorded
            del d["proof"]
        return digest(json.dumps(d, sort_keys=True, ensure_ascii=False, default=str))

    def to_dict(self) -> dict[str, Any]:
        d = self._record()
        if self.formula_keys is not None:  # records written without keys read as before
            d["formula_keys"] = {"stamp": self.formula_keys[0], "keys": list(self.formula_keys[1])}
        return d

    def _record(self, copy_meta: bool = True) -> dict[str, Any]:
        # What dataclasses.asdict gives (a deep copy of meta, lists for the tuples), field by field, without the
        # derived formula keys: asdict walks every value recursively and is the largest cost of a bulk load in Python.
        d = {name: getattr(self, name) for name in _RECORD_FIELDS}
        d["section"] = list(self.section)
        d["proof_refs"] = list(self.proof_refs)
        if copy_meta:
            d["meta"] = copy.deepcopy(self.meta)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Theorem:
        """Build from a dict, ignoring keys that are not fields (so a JSON line may carry paper fields too)."""
        names = {f.name for f in fields(cls)}
        missing = [n for n in ("id", "source", "kind", "body_latex", "doc_id") if not d.get(n)]
        if missing:
            raise InputError(f"theorem record {d.get('id', '?')!r} lacks required field(s): {', '.join(missing)}")
        return cls(**{k: v for k, v in d.items() if k in names})

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


_RECORD_FIELDS = tuple(f.name for f in fields(Theorem) if f.name != "formula_keys")


def is_lean(theorem: Theorem) -> bool:
    """Whether a record is a Lean declaration: the Lean adapter gives each ``meta["language"] == "lean"`` and its
    ``meta["lean_kind"]`` (``theorem``, ``def``, ``instance``, ...); either one says so.

    >>> is_lean(Theorem(id="mathlib:a", source="mathlib", kind="theorem", body_latex="", doc_id="d",
    ...                 meta={"lean_kind": "theorem"}))
    True
    >>> is_lean(Theorem(id="stacks:00DV", source="stacks", kind="lemma", body_latex="", doc_id="d"))
    False
    """
    meta = theorem.meta or {}
    return meta.get("language") == "lean" or bool(meta.get("lean_kind"))


@dataclass(frozen=True)
class Document:
    """A paper, book chapter or encyclopedia entry that statements belong to."""

    id: str
    source: str
    title: str = ""
    authors: tuple[str, ...] = ()
    abstract: str = ""
    introduction: str = ""
    license: str = ""
    url: str | None = None
    year: int | None = None
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "authors", _tuple(self.authors))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["authors"] = list(self.authors)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Document:
        names = {f.name for f in fields(cls)}
        if not d.get("id") or not d.get("source"):
            raise InputError(f"document record {d.get('id', '?')!r} lacks id or source")
        return cls(**{k: v for k, v in d.items() if k in names})

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


@dataclass(frozen=True)
class Hit:
    """One ranked search result: a theorem (or, at paper level, a document) with its score.

    ``theorem`` is filled when the store returns the full record; ``slogan`` is the text that was embedded.
    ``dense_rank`` / ``lexical_rank`` say where the dense and full-text rankings put it before fusion.
    ``confidence`` (0..1) is the calibrated confidence that this hit is what was asked for (see
    ``theorem_rag.retrieval.confidence``), computed from ``cosine`` (query against the embedded text),
    ``lexical_rank``, ``named`` (put first because it is named as asked: an exact name or alias, the
    definition or paper asked for) and how far it stands out of the other candidates of the dense and full-text
    rankings (``dense_lead``, ``lexical_lead``, in standard deviations), discounted by ``unknown`` (the share of the
    query's words that no statement contains); ``score`` stays the ranking's internal value.
    """

    theorem_id: str
    score: float
    rank: int = 0
    theorem: Theorem | None = None
    slogan: str | None = None
    doc_id: str | None = None
    dense_rank: int | None = None
    lexical_rank: int | None = None
    confidence: float | None = None
    cosine: float | None = None
    named: bool = False
    unknown: float = 0.0
    dense_lead: float = 0.0
    lexical_lead: float = 0.0


@dataclass(frozen=True)
class PaperHit:
    """A paper-level result: a document with the statements that matched in it, best first."""

    doc_id: str
    score: float
    rank: int = 0
    document: Document | None = None
    hits: tuple[Hit, ...] = ()


@dataclass(frozen=True)
class Neighbours:
    """A statement's place in the proof graph: what its proof cites (``uses``) and whose proofs cite it
    (``used_by``), as ids, from the references parsed out of the proofs."""

    theorem_id: str
    uses: tuple[str, ...] = ()
    used_by: tuple[str, ...] = ()
