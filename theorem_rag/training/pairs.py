"""Training pairs mined from the corpus records, for adapting a sentence embedder to mathematics.

Pure: reads records and evaluation files, returns pairs; no model is loaded. Kinds of pair (``anchor -> positive``):

- ``name``: a statement's name (HoTT, Napkin, Open Logic, papers, PlanetMath titles) -> its body read as English;
- ``label``: the words of its label and its innermost section -> its body read as English;
- ``synonym`` / ``defines``: a PlanetMath synonym or defined term -> the entry's body;
- ``proof``: the premise instruction (``proof_instruction``; none when empty) + a citing statement -> the full slogan
  of a result its proof cites (only citing statements of the training split, see :func:`in_training_split`);
- ``paper``: a paper's title -> the full slogans of its theorems (at most three per paper).

Every pair carries a hard negative: another statement of the same section, else of the same document. Anchors that
are the text of any evaluation query are dropped, whatever their kind.

>>> in_training_split("stacks:0D09") in (True, False)
True
>>> normalize("  Flat  Base\\nChange ")
'flat base change'
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from theorem_rag.records import Document, Theorem

PREMISE_INSTRUCTION = "premises:"
PROOF_REFS_FILE = "stacks_proof_refs.jsonl"
PAIR_KINDS = ("name", "label", "synonym", "defines", "proof", "paper")
MIN_WORDS = 5


@dataclass(frozen=True)
class Pair:
    """One training example: ``anchor`` should embed close to ``positive`` and farther from ``negative``."""

    kind: str
    anchor: str
    positive: str
    negative: str
    anchor_id: str  # the statement (or document) the anchor was taken from
    positive_id: str


@dataclass
class PairSet:
    """Mined pairs and what was kept and dropped, per kind."""

    pairs: list[Pair]
    counts: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)

    def report(self) -> str:
        lines = ["| kind | pairs |", "|---|---:|"]
        lines += [f"| {k} | {self.counts.get(k, 0):,} |" for k in PAIR_KINDS]
        lines.append(f"| **all** | **{len(self.pairs):,}** |")
        if self.dropped:
            lines += ["", "Dropped: " + ", ".join(f"{k} {v:,}" for k, v in sorted(self.dropped.items()))]
        return "\n".join(lines)

    def write(self, path: str | Path) -> None:
        with open(path, "w", encoding="utf-8") as f:
            for p in self.pairs:
                f.write(json.dumps(asdict(p), ensure_ascii=False) + "\n")


def in_training_split(statement_id: str) -> bool:
    """The split rule for proof references: a citing statement may train only when its id hashes below 8 of 10."""
    return int(hashlib.sha1(statement_id.encode("utf-8")).hexdigest(), 16) % 10 < 8


def normalize(text: str) -> str:
    return " ".join(text.casefold().split())


@dataclass(frozen=True)
class EvalExclusions:
    """What evaluation files forbid: their query texts (normalized) and the statements proof-reference queries are."""

    queries: frozenset[str]
    proof_queries: frozenset[str]

    @classmethod
    def from_dir(cls, eval_dir: str | Path | None) -> EvalExclusions:
        queries: set[str] = set()
        proof: set[str] = set()
        if eval_dir is not None:
            for path in sorted(Path(eval_dir).glob("*.jsonl")):
                for line in path.read_text(encoding="utf-8").splitlines():
                    if not line.strip():
                        continue
                    row = json.loads(line)
                    queries.add(normalize(str(row.get("query", ""))))
                    if path.name == PROOF_REFS_FILE:
                        proof.update(row.get("exclude") or [])
        return cls(frozenset(queries), frozenset(proof))


def body_text(theorem: Theorem) -> str:
    """The statement read as English, without name, label or section (what a description of it says)."""
    from theorem_rag.slogans.offline import offline_slogan

    return offline_slogan(theorem, context=False)


def full_text(theorem: Theorem) -> str:
    """The offline slogan as the index embeds it (name, kind and section included)."""
    from theorem_rag.slogans.offline import offline_slogan

    return offline_slogan(theorem)


def _words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def mine_pairs(
    theorems: Sequence[Theorem],
    documents: Iterable[Document] = (),
    *,
    exclusions: EvalExclusions | None = None,
    kinds: Sequence[str] = PAIR_KINDS,
    seed: int = 0,
    max_proof_pairs: int | None = None,
    proof_instruction: str = PREMISE_INSTRUCTION,
    query_instruction: str = "",
) -> PairSet:
    """Mine deduplicated pairs with hard negatives from ``theorems`` (and the papers among ``documents``).

    ``proof_instruction`` is put before the citing statement of a proof pair; with ``""`` the statement stands
    alone, so ordinary search (which embeds a query as it stands) learns the proof graph too.
    ``query_instruction`` (none by default) is put before every other anchor (names, label words, synonyms,
    defined terms, paper titles), as search then puts it before a query.
    """
    unknown = set(kinds) - set(PAIR_KINDS)
    if unknown:
        raise ValueError(f"unknown pair kinds {sorted(unknown)}; known: {', '.join(PAIR_KINDS)}")
    exclusions = exclusions or EvalExclusions(frozenset(), frozenset())
    rng = random.Random(seed)
    by_id = {t.id: t for t in theorems}
    body = {t.id: body_text(t) for t in theorems}
    full: dict[str, str] = {}

    def full_of(tid: str) -> str:
        if tid not in full:
            full[tid] = full_text(by_id[tid])
        return full[tid]

    neighbours: dict[tuple, list[str]] = defaultdict(list)
    in_doc: dict[str, list[str]] = defaultdict(list)
    for t in theorems:
        neighbours[(t.doc_id, t.section[-1] if t.section else "")].append(t.id)
        in_doc[t.doc_id].append(t.id)
    ids = [t.id for t in theorems]

    def negative_of(t: Theorem, avoid: set[str]) -> str:
        for group in (neighbours[(t.doc_id, t.section[-1] if t.section else "")], in_doc[t.doc_id], ids):
            choices = [i for i in group if i not in avoid]
            if choices:
                return rng.choice(choices)
        return ids[0]

    pairs: list[Pair] = []
    seen: set[tuple[str, str]] = set()
    dropped: Counter[str] = Counter()

    def add(kind: str, anchor: str, target: Theorem, anchor_id: str, positive: str, negative_text,
            instruction: str = query_instruction) -> None:  # fmt: skip
        """A pair unless its anchor (as it stands, before ``instruction``) is an evaluation query or a repeat."""
        anchor = " ".join(anchor.split())
        if not anchor or _words(positive) < MIN_WORDS:
            dropped[f"{kind}: too short"] += 1
            return
        if normalize(anchor) in exclusions.queries:
            dropped[f"{kind}: an evaluation query"] += 1
            return
        key = (normalize(anchor), target.id)
        if key in seen:
            dropped[f"{kind}: duplicate"] += 1
            return
        seen.add(key)
        neg = negative_of(target, {target.id, anchor_id})
        pairs.append(Pair(kind, f"{instruction} {anchor}".strip(), positive, negative_text(neg), anchor_id, target.id))

    for t in theorems:
        section = t.section[-1] if t.section else ""
        if "name" in kinds and t.name:
            add("name", t.name, t, t.id, body[t.id], body.get)
        if "label" in kinds and t.label and t.source != "planetmath":
            from theorem_rag.slogans.latex_text import label_words

            words = label_words(t.label)
            if words and normalize(words) != normalize(t.name or ""):
                add("label", f"{words} ({section.lower()})" if section else words, t, t.id, body[t.id], body.get)
        meta = t.meta or {}
        if "synonym" in kinds:
            for s in meta.get("synonyms") or ():
                add("synonym", s, t, t.id, body[t.id], body.get)
        if "defines" in kinds:
            for s in meta.get("defines") or ():
                add("defines", s, t, t.id, body[t.id], body.get)

    if "proof" in kinds:
        proof_pairs: list[tuple[Theorem, Theorem]] = []
        for t in theorems:
            if not t.proof_refs:
                continue
            if t.id in exclusions.proof_queries or not in_training_split(t.id):
                dropped["proof: citing statement outside the training split"] += len(t.proof_refs)
                continue
            for ref in t.proof_refs:
                if ref in by_id and ref != t.id:
                    proof_pairs.append((t, by_id[ref]))
        rng.shuffle(proof_pairs)
        if max_proof_pairs is not None:
            dropped["proof: over max_proof_pairs"] += max(0, len(proof_pairs) - max_proof_pairs)
            proof_pairs = proof_pairs[:max_proof_pairs]
        for citing, cited in proof_pairs:
            add("proof", citing.text, cited, citing.id, full_of(cited.id), full_of, proof_instruction)

    if "paper" in kinds:
        for doc in documents:
            if doc.source not in ("papers", "arxiv") or not doc.title:
                continue
            main = [by_id[i] for i in in_doc.get(doc.id, []) if by_id[i].kind == "theorem"][:3]
            for t in main:
                add("paper", doc.title, t, doc.id, full_of(t.id), full_of)

    counts = Counter(p.kind for p in pairs)
    return PairSet(pairs, dict(counts), dict(dropped))
