"""Variants of the default search, side by side on every dev set in one run on one index (issue 46's bisect).

Each variant switches one suspect of the default off or on (module constants patched for the run, restored after)
and is scored on the whole panel: Stacks slogans, PlanetMath synonyms, Stacks proof references, the probes and the
research dev set, each on its primary metric, with per-query ranks kept for a look at what moved.

    python benchmarks/experiments/2026-12-06-research-panel/variants.py --limit 400 --variants default,plain \
        --out benchmarks/experiments/2026-12-06-research-panel/bisect.json

A set with its own sources (unseen_dev.jsonl beside unseen/) has them parsed and added to the index for the run.

Parts of a variant (joined by "+"): issue 53's before-53 (this round's ranking changes undone), prose=N,
formula-reading=D:L, lex-share[=P], unboost, floor=F, unboost-floor=F; the bisect's switches (plain, base-space,
query-model=DIR, no-formula, formula-weight=W, no-definition, no-acronym, no-title, no-translate, no-bare, rules-7a196e0, ascii-prose, read-math,
short-translate, short-acronym, lex-adapted=W, lex-long=W), about-depth=D, ef-walk=N, and section 8's:
fusion=ranks|ranks+scores, rrf-k=K, no-lean-keys, lean-formula-weight=W, formula-capped-budget, no-field-keys,
depth=N, formula-flat (the formula ranking at weight 5 whatever it matches), score-fusion=F, mix-fusion=F:A,
mix-unboost=A, norm=z|max.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EVAL = Path(os.environ.get("THEOREM_RAG_EVAL", ROOT.parent / "shared" / "eval"))
SETS = {
    "stacks_slogans_dev": (EVAL / "stacks_slogans_dev.jsonl", "hit@20"),
    "planetmath_synonyms": (EVAL / "planetmath_synonyms.jsonl", "hit@1"),
    "stacks_proof_refs": (EVAL / "stacks_proof_refs.jsonl", "recall@20"),
    "dev_probes": (ROOT / "benchmarks" / "probes" / "dev_probes.jsonl", "hit@1"),
    "research_dev": (EVAL / "research_dev.jsonl", "mrr@20"),
    "unseen_dev": (EVAL / "unseen_dev.jsonl", "mrr@20"),
    "mathlib_dev": (EVAL / "mathlib_dev.jsonl", "ndcg@10"),
    "mathlib_titles_dev": (ROOT / "benchmarks" / "results" / "mathlib_dev" / "mathlib_titles_dev.jsonl", "ndcg@10"),
}
# The LaTeX panel (the default of --sets); the mathlib sets score only on an index that holds mathlib.
LATEX_SETS = ("stacks_slogans_dev", "planetmath_synonyms", "stacks_proof_refs", "dev_probes", "research_dev",
              "unseen_dev")


@contextlib.contextmanager
def patched(pairs):
    """Set (module, name, value) triples for the block; restore after."""
    old = []
    try:
        for mod, name, value in pairs:
            old.append((mod, name, getattr(mod, name)))
            setattr(mod, name, value)
        yield
    finally:
        for mod, name, value in reversed(old):
            setattr(mod, name, value)


def _ascii_prose(q):
    """Words of prose in an ASCII-math query: words of two letters or more that are not a function or Greek name."""
    import re

    import theorem_rag.query_understanding.math_text as mt

    skip = set(mt._GREEK) | set(mt._FUNCS) | {"mod"}
    return sum(1 for w in re.findall(r"[A-Za-z]{2,}", q) if w not in skip)


def _formula_text_7a196e0(query):
    """math_text.formula_text at 7a196e0: ASCII math read as a formula whatever the prose around it."""
    from theorem_rag.query_understanding.math_text import (
        MAX_PROSE_WORDS, _group_words, ascii_to_latex, is_ascii_math, is_latex, latex_to_text, prose_words,
    )  # fmt: skip

    if is_latex(query):
        if prose_words(query) > MAX_PROSE_WORDS:
            return None
        latex = query
    elif is_ascii_math(query):
        latex = "$" + ascii_to_latex(query) + "$"
    else:
        return None
    text = _group_words(" ".join(latex_to_text(latex).split()))
    return text or None


def _language_of_7a196e0(query):
    """translate.language_of at 7a196e0: every function word a marker, name particles included."""
    import re

    from theorem_rag.query_understanding.lexicon import markers
    from theorem_rag.query_understanding.text import fold_accents

    folded = fold_accents(query).lower()
    words = set(re.findall(r"[\w-]+", folded))
    best, best_count = None, 0
    for lang, marks in markers().items():
        count = sum(1 for m in marks if (" " in m and m in folded) or m in words)
        if count > best_count:
            best, best_count = lang, count
    return best


def _score_fusion(factor, mix=False, alpha=1.0, unboost=None):
    """Patch: the retriever's fusion by scores alone (min-max per ranking, the default's weights, every weight but
    the first ranking's (the dense one) times ``factor``); with ``mix`` the rank fusion is added, each scaled to its
    best, the scores' part times ``alpha``; ``unboost``: full-text scores at least this large (exact names) lose it
    before scaling. (These ran before the retriever fused by scores itself, as patches of its rank fusion; the
    retriever's fuse() now gets the scores, and ``mix-fusion=1:1`` is its "ranks+scores".)"""
    import theorem_rag.retrieval.retriever as rmod
    from theorem_rag.retrieval.fusion import reciprocal_rank_fusion

    def fuse(rankings, k=60, weights=None, method="ranks+scores"):
        scores, order = {}, {}
        for i, (ranking, w) in enumerate(zip(rankings, weights)):
            if not ranking:
                continue
            w = w if i == 0 else w * factor
            value = (lambda s: s - unboost if unboost and s >= unboost else s) if i else (lambda s: s)
            vals = [value(s) for _, s in ranking]
            hi, lo = max(vals), min(vals)
            span = (hi - lo) or 1.0
            seen = set()
            for d, s in ranking:
                if d in seen:
                    continue
                seen.add(d)
                scores[d] = scores.get(d, 0.0) + w * (value(s) - lo) / span
                order.setdefault(d, len(order))
        if mix:  # scores plus the rank fusion, each scaled to its best
            rrf = dict(reciprocal_rank_fusion([[d for d, _ in r] for r in rankings], k=k, weights=weights))
            top_s, top_r = max(scores.values()), max(rrf.values())
            scores = {x: alpha * scores.get(x, 0.0) / top_s + rrf[x] / top_r for x in rrf}
        return sorted(scores.items(), key=lambda item: (-item[1], order.get(item[0], 0)))

    return [(rmod, "fuse", fuse)]


def _normalisation(how):
    """Patch: the retriever's "ranks+scores" fusion with each ranking's scores scaled another way: "z" (z-scores,
    a candidate a ranking lacks gets that ranking's lowest), "max" (divided by the best)."""
    import statistics

    import theorem_rag.retrieval.retriever as rmod
    from theorem_rag.retrieval.fusion import reciprocal_rank_fusion

    def fuse(rankings, k=60, weights=None, method="ranks+scores"):
        ranked = reciprocal_rank_fusion([[d for d, _ in r] for r in rankings], k=k, weights=weights)
        if method == "ranks" or not ranked:
            return ranked
        floor, scaled = 0.0, []
        for ranking, w in zip(rankings, weights):
            first = {}
            for d, s in ranking:
                first.setdefault(d, s)
            if not first:
                continue
            vals = list(first.values())
            if how == "z":
                mu, sd = statistics.fmean(vals), (statistics.pstdev(vals) or 1.0)
                z = {d: (s - mu) / sd for d, s in first.items()}
                lo = min(z.values())
                scaled.append((w, {d: v - lo for d, v in z.items()}))
            else:
                hi = max(vals) or 1.0
                scaled.append((w, {d: s / hi for d, s in first.items()}))
        scores = {}
        for w, part in scaled:
            for d, v in part.items():
                scores[d] = scores.get(d, 0.0) + w * v
        top_r, top_s = ranked[0][1] or 1.0, max(scores.values(), default=0.0) or 1.0
        order = {d: i for i, (d, _) in enumerate(ranked)}
        both = [(d, r / top_r + scores.get(d, floor) / top_s) for d, r in ranked]
        return sorted(both, key=lambda it: (-it[1], order[it[0]]))

    return (rmod, "fuse", fuse)


def _fuse_scaled(unboost=False, floor=0.0):
    """Patch (issue 54's fusion defect): the default fusion with the full-text scores' exact-name boost taken off
    before scaling (``unboost``: exact names go first anyway) and each ranking's range floored at ``floor`` (scores
    within less than ``floor`` of the best stay near 1 instead of being stretched to 1 and 0)."""
    import theorem_rag.retrieval.retriever as rmod
    from theorem_rag.db.lexical_sql import EXACT_NAME_BOOST
    from theorem_rag.retrieval.fusion import reciprocal_rank_fusion

    def fuse(rankings, k=60, weights=None, method="ranks+scores"):
        ranked = reciprocal_rank_fusion([[d for d, _ in r] for r in rankings], k=k, weights=weights)
        if method == "ranks" or not ranked:
            return ranked
        scores = {}
        for ranking, w in zip(rankings, weights or [1.0] * len(rankings)):
            first = {}
            for d, s in ranking:
                first.setdefault(d, s - EXACT_NAME_BOOST if unboost and s >= EXACT_NAME_BOOST else s)
            if not first:
                continue
            hi, lo = max(first.values()), min(first.values())
            span = max(hi - lo, floor)
            for d, s in first.items():
                scores[d] = scores.get(d, 0.0) + w * ((1.0 - (hi - s) / span) if span > 0 else 1.0)
        top_r, top_s = ranked[0][1] or 1.0, max(scores.values(), default=0.0) or 1.0
        order = {d: i for i, (d, _) in enumerate(ranked)}
        both = [(d, r / top_r + scores.get(d, 0.0) / top_s) for d, r in ranked]
        return sorted(both, key=lambda it: (-it[1], order[it[0]]))

    return (rmod, "fuse", fuse)


def _lexical_by_share(power=1.0):
    """Patch (issue 53): a long query's full-text ranking weighs its usual weight times the share of the query's
    rare words (by IDF) its best statement has, to the power ``power``, as the formula ranking weighs the share of
    the query's formula its best statement has: a ranking whose best match holds a third of the query is a weak
    witness. Keyword queries (ts_rank_cd scores) and exact names keep their weight."""
    import theorem_rag.retrieval.retriever as rmod
    from theorem_rag.db.lexical_sql import EXACT_NAME_BOOST
    from theorem_rag.query import is_short_query

    original = rmod.TheoremRetriever._gather

    def _gather(self, plan, *args, **kwargs):
        found = original(self, plan, *args, **kwargs)
        texts = iter(plan.texts)
        for i, ranking in enumerate(found.rankings):
            if ranking and ranking[0].lexical_rank is not None:
                text = next(texts, plan.text)
                top = ranking[0].score
                if not is_short_query(text) and top < EXACT_NAME_BOOST:
                    found.weights[i] *= min(1.0, max(top, 0.0)) ** power
        return found

    return (rmod.TheoremRetriever, "_gather", _gather)


def _formula_reading(dense_w, lex_w):
    """Patch (issue 53): in a formula query, the rankings of the formula read into words (the plan's first text)
    weigh ``dense_w`` (its dense ranking) and ``lex_w`` (its full-text ranking) instead of 1 and the usual full-text
    weight; the query as typed (a variant) and the formula ranking keep theirs."""
    import theorem_rag.retrieval.retriever as rmod

    original = rmod.TheoremRetriever._gather

    def _gather(self, plan, *args, **kwargs):
        found = original(self, plan, *args, **kwargs)
        if plan.formula and len(found.rankings) >= 2:
            found.weights[0] *= dense_w
            if found.rankings[1] and found.rankings[1][0].lexical_rank is not None:
                found.weights[1] *= lex_w
        return found

    return (rmod.TheoremRetriever, "_gather", _gather)


class _Filtered:
    """A search that adds keyword filters to every query."""

    def __init__(self, search, **filters):
        self.inner, self.filters = search, filters

    def search(self, query, k=None):
        return self.inner.search(query, k=k, **self.filters)

    def with_options(self, **overrides):
        return _Filtered(self.inner.with_options(**overrides), **self.filters)


def _definitions_after():
    import re
    from dataclasses import replace

    import theorem_rag.retrieval.retriever as retriever
    from theorem_rag.query_understanding.names import is_name_query, reorder_places

    original = retriever.statements_first
    asks = re.compile(r"\b(?:defin\w*|notion|called|what is|what are|concept|meaning)\b", re.I)

    def statements_first(plan, hits, front_set):
        hits = original(plan, hits, front_set)
        if plan.formula or is_name_query(plan.original) or plan.definition_of or asks.search(plan.original):
            return hits
        head = hits[:10]
        movable = [i for i, h in enumerate(head) if h.theorem_id not in front_set]
        defs = {i for i in movable if head[i].theorem and head[i].theorem.kind == "definition"}
        new = reorder_places(head, movable, key=lambda i: (i in defs, i))
        return [replace(h, rank=i) for i, h in enumerate([*new, *hits[10:]], 1)]

    return (retriever, "statements_first", statements_first)


def _results_first(depth):
    from dataclasses import replace

    import theorem_rag.retrieval.retriever as retriever
    from theorem_rag.query_understanding.names import asks_about_a_result, is_name_query, reorder_places

    original = retriever.statements_first
    results = {"theorem", "lemma", "proposition", "corollary", "claim", "fact"}

    def statements_first(plan, hits, front_set):
        hits = original(plan, hits, front_set)
        if (plan.formula or plan.notion or plan.definition_of or is_name_query(plan.original)
                or asks_about_a_result(plan.original)):  # fmt: skip
            return hits
        head = hits[:depth]
        movable = [i for i, h in enumerate(head) if h.theorem_id not in front_set and h.theorem is not None]
        new = reorder_places(head, movable, key=lambda i: (head[i].theorem.kind not in results, i))
        return [replace(h, rank=i) for i, h in enumerate([*new, *hits[depth:]], 1)]

    return (retriever, "statements_first", statements_first)


def _definitions_first_everywhere():
    from dataclasses import replace

    import theorem_rag.retrieval.retriever as retriever
    import theorem_rag.retrieval.tie_breaks as tb
    from theorem_rag.query_understanding.names import reorder_places
    from theorem_rag.records import is_lean

    lean_first = tb.definitions_first

    def definitions_first(plan, hits, front_set):
        hits = lean_first(plan, hits, front_set)
        if not plan.notion:
            return hits
        head = hits[: tb.DEFINITION_DEPTH]
        places = [i for i, h in enumerate(head) if h.theorem is not None and not is_lean(h.theorem)
                  and h.theorem_id not in front_set]  # fmt: skip
        new = reorder_places(head, places, key=lambda i: (head[i].theorem.kind != "definition", i))
        return [replace(h, rank=i) for i, h in enumerate([*new, *hits[tb.DEFINITION_DEPTH :]], 1)]

    return [(retriever, "definitions_first", definitions_first),
            (retriever.TheoremRetriever, "_admits_formal", lambda self, filters: True)]  # fmt: skip


def _formula_hits_without(dropped):
    """A patch of the store's formula search: the hits ``dropped(store, id)`` names left out, the rest in order
    (searched 200 deeper, so that k remain)."""
    from theorem_rag.db.store import TheoremStore

    search_formula = TheoremStore.search_formula

    def search(self, keys, k=10, filters=None):
        hits = search_formula(self, keys, k=k + 200, filters=filters)
        return [h for h in hits if not dropped(self, h.theorem_id)][:k]

    return TheoremStore, "search_formula", search


def _document_cap(cap, depth=20, formal_only=False):
    from dataclasses import replace

    import theorem_rag.retrieval.retriever as retriever

    original = retriever.statements_first

    def statements_first(plan, hits, front_set):
        hits = original(plan, hits, front_set)
        seen, kept, later = {}, [], []
        for h in hits[:depth]:
            doc = h.theorem.doc_id if h.theorem else h.theorem_id
            seen[doc] = seen.get(doc, 0) + 1
            capped = not formal_only or (h.theorem is not None and h.theorem.source == "mathlib")
            (kept if seen[doc] <= cap or not capped or h.theorem_id in front_set else later).append(h)
        return [replace(h, rank=i) for i, h in enumerate([*kept, *later, *hits[depth:]], 1)]

    return (retriever, "statements_first", statements_first)


def _formal_prior(beta, everywhere=False, scale=20.0, text_only=False):
    """The declarations' base cosines less ``beta`` times how little the library vouches for each: 0 for one with a
    docstring, else 1 - log(1 + uses) / log(1 + scale) (uses: the declarations whose proofs name it), at least 0;
    in a mixed search only (placed among informal candidates) unless ``everywhere``. Reads USED_BY (a JSON file of
    {"used": {id: n}, "doc": {id: bool}} from the mathlib records)."""
    import math
    from dataclasses import replace

    from theorem_rag.retrieval import candidates

    table = json.loads(Path(os.environ["USED_BY"]).read_text())
    used, doc = table["used"], table["doc"]

    def vouched(i):
        return 1.0 if doc.get(i) else min(1.0, math.log1p(used.get(i, 0)) / math.log1p(scale))

    original = candidates.Found.add

    def add(self, ranking, weight, among=None):
        formal = bool(ranking) and all(h.theorem_id.startswith("mathlib:") for h in ranking)
        if text_only and formal and ranking[0].dense_rank is not None:
            formal = False  # the dense ranking is lowered by the search itself (UNDOCUMENTED_PENALTY)
        if formal and (among or everywhere):
            ranking = sorted((replace(h, score=h.score - beta * (1 - vouched(h.theorem_id))) for h in ranking),
                             key=lambda h: -h.score)
        return original(self, ranking, weight, among)

    return (candidates.Found, "add", add)


def variant_setup(name, base):
    """(search, patches) of a variant; ``base`` is the default TheoremSearch."""
    import theorem_rag.query_understanding.plan as plan
    import theorem_rag.retrieval.options as options
    import theorem_rag.retrieval.retriever as retriever
    import theorem_rag.retrieval.routing as routing

    patches = []
    search = base
    for part in name.split("+"):
        key, _, value = part.partition("=")
        if key in ("default", ""):
            pass
        elif key == "plain":
            search = search.with_options(understand=False)
        elif key == "base-space":
            search = search.with_options(query_space=None, query_embedder=None)
        elif key == "base-is-words":
            # the base model's space read from each statement's words (the words space) instead of its slogan: what
            # statement-shaped queries, the base-model rankings and the reading all search
            search = search.with_options(space="minilm_l6_v2_statement", query_space=search.query_space,
                                         query_embedder=search.query_embedder, words_space=search.words_space)
        elif key == "query-model":
            # another adapted model's space for queries in words (its space must be built in the index)
            from theorem_rag.config import Settings
            from theorem_rag.search import _query_space

            s = Settings(query_model=value)
            spaces = search.store.spaces()
            search = search.with_options(**_query_space(s, search.store, spaces, search.space, ()))
        elif key == "fuse":
            search = search.with_options(base_weight=float(value or 1.0))
        elif key == "no-formula":
            patches.append((plan, "formula_text", lambda q: None))
        elif key == "formula-weight":
            patches.append((retriever, "FORMULA_WEIGHT", float(value)))
        elif key == "no-field-keys":
            # before a structure's or class's field propositions were formula keys: those declarations out of the
            # formula ranking (the keys stay in the index and its key counts)
            structures: set = set()

            def is_structure(store, i, structures=structures):
                if not structures:
                    with store.connection() as conn:
                        rows = conn.execute(f"SELECT id FROM {store.names.theorems} "
                                            "WHERE meta->>'lean_kind' IN ('structure', 'class')")
                        structures.update(r[0] for r in rows)
                        structures.add("")
                return i in structures

            patches.append(_formula_hits_without(is_structure))
        elif key == "formula-capped-budget":
            # before: the formula keys' budget summed their counts capped at FORMULA_DF_CAP, as their weights do
            import theorem_rag.db.lexical as lexical
            from theorem_rag.formula_keys import key_weights

            def capped(counts, total, budget, cap=None, key_weights=key_weights):
                return key_weights({k: min(n, cap) if cap else n for k, n in counts.items()}, total, budget)

            patches.append((lexical, "key_weights", capped))
        elif key == "lean-formula-weight":
            patches.append((retriever, "LEAN_FORMULA_WEIGHT", float(value)))
        elif key == "formal-only":
            # a Lean user's search: the formal filter on every query (CLI --formal, the app's "Statements: formal")
            search = _Filtered(search, formal=True)
        elif key == "formal-weight":
            # the weight of the Lean declarations' dense ranking a query in words gets from the base space
            import theorem_rag.retrieval.options as ranking_options

            patches.append((ranking_options, "FORMAL_WEIGHT", float(value)))
        elif key in ("formal-gap", "formal-min", "formal-gap-depth", "formal-off"):
            # the formal ranking's weight by the gap between the best declaration and the best informal candidate
            import theorem_rag.retrieval.options as ranking_options

            name_of = {"formal-gap": "FORMAL_GAP_SCALE", "formal-min": "FORMAL_WEIGHT_MIN",
                       "formal-gap-depth": "FORMAL_GAP_DEPTH", "formal-off": "FORMAL_GAP_OFFSET"}  # fmt: skip
            patches.append((ranking_options, name_of[key], int(value) if key == "formal-gap-depth" else float(value)))
        elif key == "undocumented-penalty":
            # how much closer an undocumented Lean declaration must be to hold a documented one's place (0: before
            # 2026-12-08, every declaration by its cosine alone)
            patches.append((options, "UNDOCUMENTED_PENALTY", float(value)))
        elif key == "meta-undocumented":
            # the declarations of mathlib's metaprogramming (Mathlib.Tactic, .Util, .Lean, .Testing) count as
            # undocumented: their docstrings document tactics, not mathematics
            from psycopg import sql as psql

            from theorem_rag.db.store import TheoremStore

            documented = TheoremStore.documented

            def mathematics(self, ids, documented=documented):
                found = documented(self, ids)
                if not found:
                    return found
                query = psql.SQL("SELECT id FROM {t} WHERE id = ANY(%s) AND meta ->> 'module' ~ "
                                 "'^Mathlib[.](Tactic|Util|Lean|Testing)([.]|$)'").format(t=psql.Identifier(
                                     self.names.theorems))  # fmt: skip
                with self.connection() as conn:
                    return found - {r[0] for r in conn.execute(query, [list(found)])}

            patches.append((TheoremStore, "documented", mathematics))
        elif key in ("formal-prior", "formal-prior-all", "formal-prior-text"):
            # declarations without a docstring and seldom used by the library's proofs lowered (value: beta[:scale]);
            # -text: in the rankings of declarations alone other than the dense one (a formal-only full-text ranking)
            beta, _, scale = value.partition(":")
            patches.append(_formal_prior(float(beta), key != "formal-prior", float(scale or 20),
                                         text_only=key == "formal-prior-text"))
        elif key == "formal-unplaced":
            # the formal ranking fused as a ranking of its own (before 2026-12-07 evening), not placed among the
            # informal candidates by their cosines in the base space
            patches.append((retriever.TheoremRetriever, "_base_cosines", lambda self, informal, vec: []))
        elif key == "no-definitions-first":
            # a query for a notion ranked as any other (before 2026-12-07 evening): the Lean declarations that define
            # one not put before the lemmas about it
            patches.append((plan, "asks_for_notion", lambda q: False))
        elif key == "no-asserted-defs-after":
            # a query that states a result ranked as before 2026-12-07 night: the definitions among its first 30 not
            # put after the other statements
            patches.append((plan, "asserts_a_result", lambda q: False))
        elif key == "results-first":
            # experiment: a query that is no notion, name, formula or request for a definition or an entry about a
            # result puts the results (theorem, lemma, proposition, corollary) before the other statements among its
            # first N
            patches.append(_results_first(int(value)))
        elif key == "definitions-first-everywhere":
            # experiment: a query for a notion puts definitions first among the first 30 in the LaTeX world too (a
            # statement of kind "definition" before the other statements, in the places LaTeX statements hold)
            patches += _definitions_first_everywhere()
        elif key == "no-definition":
            patches.append((plan, "definition_subject", lambda q: None))
        elif key == "no-acronym":
            patches.append((plan, "expansions", lambda w: []))
        elif key == "phrase-share":
            # a long full-text query's words in a row: this much more share (0: the phrase not read)
            import theorem_rag.db.lexical_sql as lexical_sql

            patches.append((lexical_sql, "PHRASE_SHARE", float(value)))
        elif key == "lex-query-space":
            # before: a formal-only search also walked the query space (finding nothing) and so weighed its full-text
            # ranking as against that space; the filters made to admit informal statements there again
            from theorem_rag.filters import Filters

            patches.append((Filters, "admits", lambda self, formal_sources: (True, self.formal is not False)))
        elif key == "no-lean-keys":
            # before Lean's formulas were formula keys: no keys for a Lean query, no declaration in the formula
            # ranking (their keys stay in the index and its key counts, the one difference from the old build)
            patches += [(plan, "lean_formula_keys", lambda q: ()),
                        _formula_hits_without(lambda store, i: i.startswith("mathlib:"))]
        elif key == "no-lean-types":
            # the declarations named by the term asked for (EuclideanDomain for "Euclidean domain") not looked up
            patches.append((routing, "type_names", lambda term: ()))
        elif key == "lean-types-any-case":
            # the declaration named by the term chosen case aside, as before 2026-12-07 (ModuleCat.monoidalCategory,
            # an instance, for "monoidal category", not the class CategoryTheory.MonoidalCategory)
            patches.append((routing, "type_named_first", lambda found, types: list(found)))
        elif key == "modules-in-file-order":
            # a Lean module routed to by its title puts its declarations first in file order, as a paper's are
            # (before 2026-12-07)
            def file_order(*args, _route=routing.route, **kwargs):
                out = _route(*args, **kwargs)
                out.front, out.modules = [*out.front, *out.modules], []
                return out

            patches.append((retriever, "route", file_order))
        elif key == "dym-drops-words":
            # "did you mean" a close name that leaves out a word of the query, as before 2026-12-07
            patches.append((routing, "respells", lambda text, name: True))
        elif key == "keyword-cap":
            # a keyword query ranks at most this many of the statements that hold its words (lexical_sql.KEYWORD_CAP)
            import theorem_rag.db.lexical_sql as lexical_sql

            patches.append((lexical_sql, "KEYWORD_CAP", int(value)))
        elif key == "no-lean-aliases":
            # a declaration's names from its docstring's bold (meta.synonyms) not matched as aliases (their words
            # stay in the full-text vector): before 2026-12-07
            import theorem_rag.db.lexical_sql as lexical_sql

            patches.append((lexical_sql, "_ALIAS_SQL", "({a}.id NOT LIKE 'mathlib:%%' AND " + lexical_sql._ALIAS_SQL + ")"))
        elif key == "no-title":
            patches.append((routing, "route_title", lambda q, t: None))
        elif key == "no-translate":
            patches.append((plan, "translate", lambda q: None))
        elif key == "no-bare":
            patches.append((plan, "bare_noun_phrase", lambda q: False))
        elif key == "rules-7a196e0":
            # the two query-understanding rules this round fixed, as they were at 7a196e0 (code copied from there)
            import theorem_rag.query_understanding.translate as tr

            patches += [(plan, "formula_text", _formula_text_7a196e0), (tr, "language_of", _language_of_7a196e0)]
        elif key == "ascii-prose":
            import theorem_rag.query_understanding.math_text as mt

            limit = int(value or mt.MAX_PROSE_WORDS)
            original = mt.formula_text

            def formula_text(q, original=original, limit=limit):
                if not mt.is_latex(q) and mt.is_ascii_math(q) and _ascii_prose(q) > limit:
                    return None
                return original(q)

            patches.append((plan, "formula_text", formula_text))
        elif key == "read-math":
            # a query with math in prose: its dense/full-text text is the math read as the slogans read it
            import dataclasses

            import theorem_rag.query_understanding.math_text as mt
            import theorem_rag.retrieval.retriever as rmod

            inner = rmod.understand

            def understand(q, inner=inner):
                p = inner(q)
                if p.formula or p.text != q:
                    return p
                if mt.is_latex(q):
                    latex = q
                elif mt.is_ascii_math(q):
                    latex = "$" + mt.ascii_to_latex(q) + "$"
                else:
                    return p
                reading = " ".join(mt.latex_to_text(latex).split())
                return dataclasses.replace(p, text=reading) if reading else p

            patches.append((rmod, "understand", understand))
        elif key == "short-translate":
            n = int(value or 6)
            original_t = plan.translate
            patches.append((plan, "translate", lambda q, o=original_t, n=n: o(q) if len(q.split()) <= n else None))
        elif key == "short-acronym":
            n = int(value or 8)
            original_e = plan._expand_acronyms
            patches.append((plan, "_expand_acronyms", lambda t, o=original_e, n=n: o(t) if len(t.split()) <= n else []))
        elif key == "lex-adapted":
            w = float(value)
            search = search.with_options(
                lexical_weights=(options.LEXICAL_WEIGHT_SHORT, options.LEXICAL_WEIGHT_LONG, w))
        elif key == "formula-flat":
            # the formula ranking's scores divided by its best's: the same ranking at weight FORMULA_WEIGHT
            from dataclasses import replace as with_score

            from theorem_rag.db.lexical import TextOps

            def flat(self, *args, original=TextOps.search_formula, **kwargs):
                hits = original(self, *args, **kwargs)
                return [with_score(h, score=h.score / hits[0].score) for h in hits]

            patches.append((TextOps, "search_formula", flat))
        elif key == "norm":
            patches.append(_normalisation(value))
        elif key == "before-53":
            # this round's ranking changes undone: formulas up to 8 words of prose, LaTeX commands counted as prose,
            # full-text scores fused with their exact-name boost, a long query's full-text ranking at its full weight
            import re

            import theorem_rag.query_understanding.math_text as mt

            def prose_words(q):
                return len(re.findall(r"[A-Za-z]{2,}", mt._MATH.sub(" ", q)))

            patches += [(mt, "MAX_PROSE_WORDS", 8), (mt, "prose_words", prose_words),
                        (retriever, "fusion_score", lambda h: h.score), (retriever, "matched_share", lambda r: 1.0)]
        elif key == "no-lex-share":
            patches.append((retriever, "matched_share", lambda r: 1.0))
        elif key == "prose":
            import theorem_rag.query_understanding.math_text as mt

            patches.append((mt, "MAX_PROSE_WORDS", int(value)))
        elif key == "formula-reading":
            d, _, l = value.partition(":")
            patches.append(_formula_reading(float(d), float(l or d)))
        elif key == "lex-share":
            patches.append(_lexical_by_share(float(value or 1.0)))
        elif key == "unboost":
            patches.append(_fuse_scaled(unboost=True))
        elif key == "floor":
            patches.append(_fuse_scaled(floor=float(value)))
        elif key == "unboost-floor":
            patches.append(_fuse_scaled(unboost=True, floor=float(value)))
        elif key == "depth":
            search = search.with_options(depth=int(value))
        elif key == "fusion":
            search = search.with_options(fusion=value)
        elif key == "rrf-k":
            search = search.with_options(rrf_k=int(value))
        elif key == "mix-unboost":
            import theorem_rag.db.lexical_sql as ts

            patches += _score_fusion(1.0, mix=True, alpha=float(value or 1.0), unboost=ts.EXACT_NAME_BOOST)
        elif key in ("score-fusion", "mix-fusion"):
            # fuse by scores (min-max normalised per ranking, weights as the default's) instead of ranks;
            # value: factor on every weight but the first ranking's (the dense one)
            factor, _, alpha = (value or "1").partition(":")
            patches += _score_fusion(float(factor), mix=key == "mix-fusion", alpha=float(alpha or 1.0))
        elif key == "words":
            # the weight of the query's cosine with the first candidates' own words (0: not read; needs the index's
            # words space, theorem_rag.retrieval.statement_words)
            search = search.with_options(words_weight=float(value))
        elif key == "about-depth":
            # the about tie-break's depth (0: off): statements before the entries about them
            import theorem_rag.retrieval.tie_breaks as tb

            patches += [(tb, "ABOUT_DEPTH", int(value)), (retriever, "ABOUT_DEPTH", int(value))]
        elif key == "defs-after":
            # experiment: a description's definitions after its results too (in the first 10), unless it asks for a
            # definition
            patches.append(_definitions_after())
        elif key == "doc-cap":
            # experiment: at most N hits of one document among the first 20; the others after them, in order
            patches.append(_document_cap(int(value)))
        elif key == "formal-cap":
            # experiment: at most N hits of one Lean module among the first 20; the others after them, in order
            patches.append(_document_cap(int(value), formal_only=True))
        elif key == "ef-walk":
            # the HNSW walk (hnsw.ef_search) of a half-precision space up to 400,000 vectors
            import theorem_rag.db.dense as dense

            patches.append((dense, "EF_SEARCH_STEPS", {**dense.EF_SEARCH_STEPS, "halfvec": ((400_000, int(value)),)}))
        elif key == "lex-long":
            w = float(value)
            lw = search.retriever.lexical_weights
            search = search.with_options(lexical_weights=(lw[0], w, *lw[2:]))
        else:
            raise SystemExit(f"unknown variant part {part!r}")
    return search, patches


def main() -> None:
    from theorem_rag.config import Settings
    from theorem_rag.eval.index_configs import EvalIndex
    from theorem_rag.eval.queries import legacy_aliases, load_queries, resolve_ids
    from theorem_rag.eval.set_corpora import parsed_records, set_corpus
    from theorem_rag.record_files import read_records
    from theorem_rag.search import TheoremSearch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variants", default="default,plain")
    ap.add_argument("--sets", default=",".join(LATEX_SETS), help=f"of {', '.join(SETS)}")
    ap.add_argument("--limit", type=int, default=400, help="queries per set at most (the 80/110/168 sets are whole)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    settings = Settings()
    base = TheoremSearch.from_settings(settings)
    records = ROOT / "data" / "records"
    aliases = legacy_aliases(read_records(records).theorems) if records.exists() else index_aliases(base.store)
    sets = {n: resolve_ids(load_queries(SETS[n][0])[: args.limit], aliases) for n in args.sets.split(",")}
    # A set with its own sources (unseen_dev.jsonl beside unseen/): its statements join the index for the run.
    extras = [t for n in sets if (folder := set_corpus(SETS[n][0])) is not None
              for t in read_records(parsed_records(folder, settings.data_dir / "eval-corpora")).theorems]
    index = EvalIndex(settings)
    index.add_records(extras)
    try:
        run(args, base, sets)
    finally:
        index.remove_records([t.id for t in extras])


def index_aliases(store) -> dict[str, str]:
    """``{old id: id}`` as :func:`theorem_rag.eval.queries.legacy_aliases` reads it from records, read from the index
    (a tree without the quickstart's ``data/records``)."""
    from psycopg import sql

    with store.connection() as conn:
        rows = conn.execute(sql.SQL("SELECT meta->>'legacy_id', id FROM {} WHERE meta ? 'legacy_id'").format(
            sql.Identifier(store.names.theorems))).fetchall()  # fmt: skip
    ids = {i for _, i in rows}
    out: dict[str, str] = {}
    for old, new in rows:
        if old and old not in ids:
            out.setdefault(old, new)
    return out


def by_style(path, values) -> dict[str, dict[str, float]]:
    """The primary metric per query style (``FILE.styles.tsv`` beside the set), with the number of queries."""
    from theorem_rag.eval.queries import load_styles

    groups: dict[str, list[float]] = {}
    styles = load_styles(path)
    for qid, value in values.items():
        groups.setdefault(styles.get(qid, "-"), []).append(value)
    return {k: {"n": len(v), "value": round(sum(v) / len(v), 4)} for k, v in sorted(groups.items())} if styles else {}


def run(args, base, sets) -> None:
    from theorem_rag.eval.metrics import score_ranking

    ks = (1, 5, 10, 20)
    out = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "limit": args.limit, "variants": {}}
    if args.out.exists():
        out = json.loads(args.out.read_text())
    # Set by set, the variants one after the other, so that each set's timings are taken side by side.
    setups = {v: variant_setup(v, base) for v in args.variants.split(",")}
    for search, patches in setups.values():  # warm up: models loaded, sessions and connections open
        with patched(patches):
            for q in [q for qs in sets.values() for q in qs[:3]]:
                search.search(q.query, k=20)
    for sname, queries in sets.items():
        for vname, (search, patches) in setups.items():
            with patched(patches):
                t0 = time.perf_counter()
                ranks, sums, times, primaries = {}, {}, [], {}
                for q in queries:
                    t1 = time.perf_counter()
                    hits = search.search(q.query, k=20)
                    times.append((time.perf_counter() - t1) * 1000)
                    ids = [h.theorem_id for h in hits]
                    s = score_ranking(ids, set(q.relevant), ks=ks, exclude=set(q.exclude))
                    for m, v in s.items():
                        sums[m] = sums.get(m, 0.0) + v
                    primaries[q.id] = s[SETS[sname][1]]
                    kept = [x for x in ids if x not in set(q.exclude)]
                    rel = [i for i, x in enumerate(kept, 1) if x in set(q.relevant)]
                    ranks[q.id] = rel[0] if rel else None
                ms = (time.perf_counter() - t0) * 1000 / max(1, len(queries))
            metrics = {m: round(v / len(queries), 4) for m, v in sums.items()}
            out["variants"].setdefault(vname, {})[sname] = {
                "n": len(queries), "primary": SETS[sname][1], "value": metrics[SETS[sname][1]], "metrics": metrics,
                "ms_per_query": round(ms, 1), "p95_ms": round(sorted(times)[int(0.95 * (len(times) - 1))], 1),
                "by_style": by_style(SETS[sname][0], primaries), "ranks": ranks}
            print(f"{vname:40s} {sname:22s} {SETS[sname][1]:10s} {metrics[SETS[sname][1]]:.3f}  "
                  f"hit1 {metrics['hit@1']:.3f} hit20 {metrics['hit@20']:.3f} mrr {metrics['mrr@20']:.3f}  "
                  f"{ms:.0f} ms", flush=True)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
