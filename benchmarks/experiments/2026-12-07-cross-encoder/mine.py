"""Training groups for a cross-encoder reranker: (query, positive, 3 negatives), from the records alone.

Kinds of query: a statement's name, the words of its label (+ section), and a span of the statement's own words
(the inverse cloze task: 6-16 consecutive words of the body read into words). Negatives: a statement of the same
section (topical), the nearest statement by TF-IDF of the body (lexical: what full-text search confuses) other
than the positive and any statement of the same name, and a random statement. The papers are left out (they stand
for a user's own papers, as in math-minilm-v6's recipe); evaluation query texts never are queries.

    python mine.py data/records ../shared/eval out.jsonl
"""
import json
import random
import re
import sys
from collections import defaultdict

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from theorem_rag.record_files import read_records
from theorem_rag.slogans.latex_text import label_words
from theorem_rag.training.pairs import EvalExclusions, body_text, normalize

records, eval_dir, out = sys.argv[1:4]
rng = random.Random(0)
ex = EvalExclusions.from_dir(eval_dir)
theorems = [t for t in read_records(records).theorems if t.source != "papers"]
body = {t.id: body_text(t) for t in theorems}
theorems = [t for t in theorems if len(body[t.id].split()) >= 6]
ids = [t.id for t in theorems]
print(len(theorems), "statements", flush=True)
section = defaultdict(list)
for t in theorems:
    section[(t.doc_id, t.section[-1] if t.section else "")].append(t.id)
name_of = {t.id: normalize(t.name or "") for t in theorems}

vec = TfidfVectorizer(sublinear_tf=True, min_df=2, max_features=200000)
X = vec.fit_transform([body[i] for i in ids])
lexical = {}
for start in range(0, len(ids), 2000):
    sims = (X[start:start + 2000] @ X.T).toarray()
    for r, row in enumerate(sims):
        i = start + r
        for j in np.argsort(-row)[:6]:
            if j != i and ids[j] != ids[i] and (not name_of[ids[i]] or name_of[ids[j]] != name_of[ids[i]]) \
                    and body[ids[j]] != body[ids[i]]:
                lexical[ids[i]] = ids[j]
                break
print("lexical neighbours", len(lexical), flush=True)


def negatives(t):
    avoid = {t.id}
    near = [i for i in section[(t.doc_id, t.section[-1] if t.section else "")] if i not in avoid]
    out = [rng.choice(near) if near else rng.choice(ids)]
    out.append(lexical.get(t.id) or rng.choice(ids))
    out.append(rng.choice(ids))
    return [o if o != t.id else rng.choice(ids) for o in out]


groups = []
for t in theorems:
    anchors = []
    if t.name and len(t.name) > 3:
        anchors.append(("name", t.name))
    if t.label and t.source != "planetmath":
        w = label_words(t.label)
        sec = t.section[-1] if t.section else ""
        if w and len(w.split()) >= 2:
            anchors.append(("label", f"{w} {sec}".strip() if rng.random() < 0.5 else w))
    words = body[t.id].split()
    if len(words) >= 12:
        n = rng.randint(6, 16)
        s = rng.randint(0, max(0, len(words) - n))
        anchors.append(("span", " ".join(words[s:s + n]).strip(".,;:")))
    for kind, a in anchors:
        a = " ".join(a.split())
        if normalize(a) in ex.queries:
            continue
        negs = negatives(t)
        groups.append({"kind": kind, "query": a, "pos": body[t.id], "negs": [body[n] for n in negs], "id": t.id})
rng.shuffle(groups)
with open(out, "w") as f:
    for g in groups:
        f.write(json.dumps(g) + "\n")
from collections import Counter
print(Counter(g["kind"] for g in groups))
