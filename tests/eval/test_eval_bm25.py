"""BM25 baseline: LaTeX tokenization, exact ranking checked against a brute-force Lucene BM25, record add/remove."""

import math

import pytest

from theorem_rag.eval.bm25 import BM25Searcher, statement_text, tokenize_latex
from theorem_rag.records import Theorem


def thm(i, body, name=None, expanded=""):
    return Theorem(id=i, source="s", kind="lemma", body_latex=body, doc_id="d", name=name, body_expanded=expanded)


CORPUS = [
    thm("t0", r"Let $R$ be a Noetherian ring. Then $R[x]$ is Noetherian."),
    thm("t1", r"Let $M$ be a flat $R$-module. Then $M \otimes_R N$ is flat over $R$.", name="flatness"),
    thm("t2", r"Every finitely generated module over a Noetherian ring is finitely presented."),
    thm("t3", r"A morphism $f \colon X \to Y$ of schemes is \'etale if it is flat and unramified."),
    thm("t4", r"\begin{enumerate}\item Zorn's lemma holds.\item Choice holds. \end{enumerate}\label{lemma-zorn}"),
]


def test_tokenizer_keeps_commands_letters_words():
    assert tokenize_latex(r"$\mathcal{O}_X \otimes_{\mathcal{O}_X} \mathcal{F}$") == [
        "mathcal", "o", "x", "otimes", "mathcal", "o", "x", "mathcal", "f"]
    assert tokenize_latex(r"\'etale \textbf{Zorn}'s \label{lemma-zorn} \begin{enumerate}") == ["etale", "zorn", "s"]
    strip_s = lambda ws: [w.rstrip("s") for w in ws]  # noqa: E731
    assert tokenize_latex("Modules over rings", stemmer=strip_s) == ["module", "over", "ring"]
    assert tokenize_latex("") == []


def lucene_bm25(corpus_tokens, query_tokens, k1=1.5, b=0.75):
    n = len(corpus_tokens)
    avgdl = sum(map(len, corpus_tokens)) / n
    scores = []
    for doc in corpus_tokens:
        s = 0.0
        for term in set(query_tokens):
            df = sum(term in d for d in corpus_tokens)
            tf = doc.count(term)
            if df and tf:
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                s += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        scores.append(s)
    return scores


@pytest.mark.parametrize("query", ["noetherian ring", "flat module tensor otimes", "etale morphism of schemes", "zorn"])
def test_ranking_matches_brute_force(query):
    searcher = BM25Searcher(CORPUS, stemmer=None)
    tokens = [tokenize_latex(statement_text(t)) for t in CORPUS]
    scores = lucene_bm25(tokens, tokenize_latex(query))
    expected = [CORPUS[i].id for i in sorted(range(len(CORPUS)), key=lambda i: (-scores[i], i)) if scores[i] > 0]
    assert searcher.search(query, k=10) == expected
    assert searcher.search(query, k=1) == expected[:1]


def test_ties_broken_by_corpus_order_and_no_zero_scores():
    same = [thm("b", "cohomology"), thm("a", "cohomology"), thm("c", "homotopy")]
    assert BM25Searcher(same, stemmer=None).search("cohomology", k=5) == ["b", "a"]
    assert BM25Searcher(same, stemmer=None).search_batch(["nothing matches", ""], k=5) == [[], []]


def test_name_is_indexed_and_text_field_uses_expansion():
    assert BM25Searcher(CORPUS, stemmer=None).search("flatness", k=3) == ["t1"]
    expanded = [thm("e", r"\Spec A", expanded=r"\operatorname{Spec} A spectrum")]
    assert BM25Searcher(expanded, field="latex", stemmer=None).search("spectrum", 3) == []
    assert BM25Searcher(expanded, field="text", stemmer=None).search("spectrum", 3) == ["e"]
    with pytest.raises(ValueError, match="unknown field"):
        BM25Searcher(CORPUS, field="slogan")


def test_default_stemmer_matches_inflections():
    searcher = BM25Searcher(CORPUS)
    if searcher.stemmer is None:
        pytest.fail('PyStemmer is missing: pip install "theorem-rag[eval]"')
    assert searcher.search("modules presentations", k=1) == ["t2"]


def test_add_and_remove_records():
    searcher = BM25Searcher(CORPUS, stemmer=None)
    searcher.add_records([thm("x", "Nakayama lemma for modules")])
    assert searcher.search("nakayama", 5) == ["x"] and len(searcher) == 6
    with pytest.raises(ValueError, match="already indexed"):
        searcher.add_records([thm("t0", "clash")])
    assert searcher.search("noetherian", 5)[0] == "t0"
    searcher.remove_records(["x"])
    assert searcher.search("nakayama", 5) == [] and searcher.ids == [t.id for t in CORPUS]
    empty = BM25Searcher([], stemmer=None)
    assert empty.search("anything", 5) == []
