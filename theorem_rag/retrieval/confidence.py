"""How sure a ranking is, pure: a calibrated confidence per hit and a ``confident`` flag per response.

A hit's confidence is a logistic function of what the retriever saw for it: the cosine between the query and the
statement's slogan (``cosine``), whether full-text search found it among its first ten (``lexical``), whether a
rule put it first because it is named as asked (an exact name or alias, the definition of the term asked for, the
paper asked for by id or title: ``named``), and how far it stands out from the other candidates of each ranking
(``dense_lead``, ``lexical_lead``: its cosine and its full-text score against the best twenty others, in standard
deviations, :func:`lead`; the dense lead weighs in proportion to the cosine, since standing out of poor candidates
is no close match). A cosine alone reads differently for a two-word name and a two-line description; a hit that
stands out of its candidates is what the query was written about more often than one among many of the same kind,
which is what is left when the answer is not in the index. That logistic value is then multiplied by the
share of the query's words that the index knows (``1 - unknown``, ``unknown`` being the share of its full-text words
that no statement contains, for the best of the texts searched: the query, its expansions, its English, a close
name): a word absent from every statement cannot be matched, so at most the rest of the query is answered. This
factor has no fitted parameter (real dev queries are built from the corpus, so they have no unknown words to fit it
on). The weights and the threshold are fitted by ``benchmarks/calibrate_confidence.py`` on one half of the dev sets,
each query twice: as searched, and with its answer held out of the ranking (as if the index lacked it); the target
is "the first result is relevant". The other half checks it, so the confidence reads as a probability
that the result is what was asked for; a response is ``confident`` when its first hit reaches the threshold. The
fitted numbers are in ``data/confidence.json`` with the command and the figures they were checked on.

>>> round(hit_confidence(cosine=0.9, lexical=True, named=True, dense_lead=5.0), 2) > 0.9
True
>>> confident([hit_confidence(cosine=0.05, lexical=False, named=False)])
False
>>> hit_confidence(0.6, True, False, unknown=0.5) == hit_confidence(0.6, True, False) / 2
True
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from theorem_rag.errors import InputError

_FILE = Path(__file__).parent / "data" / "confidence.json"


@dataclass(frozen=True)
class Calibration:
    """Logistic weights over (cosine, lexical, named, cosine times dense_lead, lexical_lead), a bias, and the
    threshold of ``confident``."""

    w_cosine: float = 12.0
    w_lexical: float = 1.0
    w_named: float = 4.0
    bias: float = -5.0
    threshold: float = 0.5
    w_dense_lead: float = 0.0
    w_lexical_lead: float = 0.0

    def score(self, cosine: float, lexical: bool, named: bool, unknown: float = 0.0, dense_lead: float = 0.0,
              lexical_lead: float = 0.0) -> float:  # fmt: skip
        """The confidence: the logistic value of the evidence times the share of the query's words the index knows."""
        if not 0.0 <= unknown <= 1.0:
            raise InputError(f"unknown must be a share in [0, 1], got {unknown!r}")
        # a dense lead counts in proportion to the cosine: standing out of poor candidates is not a close match
        z = (self.bias + self.w_cosine * cosine + self.w_lexical * float(lexical) + self.w_named * float(named)
             + self.w_dense_lead * cosine * dense_lead + self.w_lexical_lead * lexical_lead)  # fmt: skip
        return (1.0 - unknown) / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


# A lead is measured against this many of the best other candidates, and capped at LEAD_CAP standard deviations (a
# name matched exactly scores far above any other candidate: it needs no more than the cap to say so).
LEAD_POOL = 20
LEAD_CAP = 10.0


def lead(value: float, others: Sequence[float]) -> float:
    """How far ``value`` stands above the best ``LEAD_POOL`` of ``others``, in their standard deviations (0 with
    fewer than two others; the deviation at least 0.001; capped at +-``LEAD_CAP``).

    >>> round(lead(0.9, [0.5, 0.4, 0.3]), 2), round(lead(0.4, [0.5, 0.4, 0.3]), 2), lead(0.9, [0.5])
    (6.12, 0.0, 0.0)
    """
    pool = sorted(others, reverse=True)[:LEAD_POOL]
    if len(pool) < 2:
        return 0.0
    mean = sum(pool) / len(pool)
    sd = max(math.sqrt(sum((x - mean) ** 2 for x in pool) / len(pool)), 1e-3)
    return max(-LEAD_CAP, min(LEAD_CAP, (value - mean) / sd))


def leads(ids: Sequence[str], scores: Mapping[str, float], missing: float = 0.0) -> dict[str, float]:
    """:func:`lead` of each id's score (``missing`` for an id without one) against the other ids' scores.

    >>> {k: round(v, 2) for k, v in leads(["a", "b"], {"a": 0.9, "b": 0.5, "c": 0.4, "d": 0.3}).items()}
    {'a': 6.12, 'b': -0.13}
    """
    ranked = sorted(scores.items(), key=lambda x: -x[1])[: LEAD_POOL + 1]
    out = {}
    for i in ids:
        value = scores.get(i, missing)
        out[i] = lead(value, [s for j, s in ranked if j != i][:LEAD_POOL])
    return out


@lru_cache(maxsize=1)
def calibration() -> Calibration:
    """The fitted calibration from ``data/confidence.json`` (the defaults above when the file is absent)."""
    if not _FILE.exists():
        return Calibration()
    data = json.loads(_FILE.read_text(encoding="utf-8"))
    fields = ("w_cosine", "w_lexical", "w_named", "bias", "threshold", "w_dense_lead", "w_lexical_lead")
    return Calibration(**{k: float(data[k]) for k in fields if k in data})


def hit_confidence(cosine: float | None, lexical: bool, named: bool, calib: Calibration | None = None,
                   unknown: float = 0.0, dense_lead: float = 0.0, lexical_lead: float = 0.0) -> float:  # fmt: skip
    """The calibrated confidence (0..1) of one hit; ``cosine`` None (no dense score) counts as 0; ``unknown`` is
    the share of the query's words that no statement contains; the leads as :func:`leads` measures them."""
    return (calib or calibration()).score(cosine or 0.0, lexical, named, unknown, dense_lead, lexical_lead)


def confident(confidences: Sequence[float | None], calib: Calibration | None = None) -> bool:
    """True when the first hit's confidence reaches the calibrated threshold (no hits: False)."""
    if not confidences or confidences[0] is None:
        return False
    return confidences[0] >= (calib or calibration()).threshold


NO_MATCH_MESSAGE = "No close match: nothing in the index matches this query well."
NO_MATCH_HINTS = (
    "check the spelling of names",
    "use the usual English name of the result (\"Nakayama's lemma\", \"mean value theorem\")",
    "describe the statement in words, or write the formula in LaTeX",
    "drop filters that may exclude it",
)


@dataclass(frozen=True)
class Assessment:
    """What a response says about itself: is the first hit a close match, how sure, and what to try if not.

    >>> a = assess([0.02], did_you_mean="Nakayama's lemma")
    >>> a.confident, a.message is not None, a.suggestions[0]
    (False, True, "did you mean: Nakayama's lemma")
    """

    confident: bool
    confidence: float
    message: str | None = None
    suggestions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def assess(confidences: Sequence[float | None], *, did_you_mean: str | None = None, notes: Sequence[str] = (),
           calib: Calibration | None = None) -> Assessment:  # fmt: skip
    """The :class:`Assessment` of a ranking from its hits' confidences (best first)."""
    top = float(confidences[0]) if confidences and confidences[0] is not None else 0.0
    ok = confident(confidences, calib)
    suggestions = ([f"did you mean: {did_you_mean}"] if did_you_mean else []) + ([] if ok else list(NO_MATCH_HINTS))
    return Assessment(confident=ok, confidence=round(top, 4), message=None if ok else NO_MATCH_MESSAGE,
                      suggestions=tuple(suggestions), notes=tuple(notes))  # fmt: skip
