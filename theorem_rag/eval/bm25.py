"""BM25 over the LaTeX of statements (bm25s), the lexical baseline every configuration is compared with.

Tokenization is made for LaTeX: a command keeps its name as a word (``\\otimes`` -> ``otimes``,
``\\Spec`` -> ``spec``) except layout and font commands that say nothing about content; environment names and
``\\label`` arguments are dropped; words split on anything that is not a letter, so ``\\'etale`` gives ``etale``;
single letters stay, since in mathematics they are variables (``$R$``, ``$X$``) rather than noise. English words are
stemmed with PyStemmer's Snowball stemmer when it is installed (it ships its algorithms, nothing is downloaded).

Ranking is exact: every document is scored, documents with score 0 are dropped (they share no term with the
query), and ties are broken by corpus order, so the same input always gives the same ranking.

>>> from theorem_rag.records import Theorem
>>> ts = [Theorem(id=f"t{i}", source="s", kind="lemma", body_latex=b, doc_id="d") for i, b in
...       enumerate(["Every $R$-module is flat.", "A ring is Noetherian.", "Tensor $M \\\\otimes N$ of flat modules."])]
>>> BM25Searcher(ts, stemmer=None).search("flat module tensor otimes", k=2)
['t2', 't0']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from theorem_rag.errors import InputError
from theorem_rag.records import Theorem

_ARG_DROPPED = re.compile(r"\\(?:begin|end|label)\s*\{[^}]*\}")
_TOKEN = re.compile(r"\\[A-Za-z]+|[^\W\d_]+")
# Layout, font and spacing commands carry no content, only markup.
_NOISE_COMMANDS = frozenset(
    """begin end label item emph textit textbf textrm texttt text mathrm mathbf mathit mathsf mathtt mathnormal
    rm bf it sf tt em left right big bigl bigr Big Bigl Bigr bigg biggl biggr middle quad qquad hfill hspace vspace
    noindent medskip smallskip bigskip displaystyle textstyle scriptstyle mbox hbox xymatrix ar ldots cdots dots
    vdots ddots cdot colon newline linebreak footnote cite ref eqref hyperref nonumber notag tag limits nolimits
    mathrel mathbin mathop operatorname""".split()
)
_STOPWORDS = frozenset(
    """a an and are as at be but by for if in into is it no not of on or such that the their then there these
    they this to was will with we let which""".split()
)
FIELDS = ("latex", "text")


def default_stemmer() -> Callable[[list[str]], list[str]] | None:
    """PyStemmer's English Snowball stemmer, or None when PyStemmer is not installed."""
    try:
        import Stemmer
    except ImportError:
        return None
    return Stemmer.Stemmer("english").stemWords


def tokenize_latex(text: str, stemmer: Callable[[list[str]], list[str]] | None = None) -> list[str]:
    """Lowercase tokens of a LaTeX string: content command names, words and single math letters.

    >>> tokenize_latex(r"Let $f\\colon X \\to Y$ be \\'etale.\\begin{enumerate}\\item $\\mathcal{O}_X$\\end{enumerate}")
    ['f', 'x', 'to', 'y', 'etale', 'mathcal', 'o', 'x']
    """
    out: list[str] = []
    words: list[tuple[int, str]] = []
    for match in _TOKEN.finditer(_ARG_DROPPED.sub(" ", text)):
        tok = match.group()
        if tok[0] == "\\":
            if tok[1:] not in _NOISE_COMMANDS:
                out.append(tok[1:].lower())
            continue
        tok = tok.lower()
        if tok in _STOPWORDS:
            continue
        if len(tok) > 1:
            words.append((len(out), tok))
        out.append(tok)
    if stemmer is not None and words:
        for (i, _), stem in zip(words, stemmer([w for _, w in words])):
            out[i] = stem
    return out


def statement_text(theorem: Theorem, field: str = "latex") -> str:
    """What BM25 indexes for a statement: its name and its body as written (``latex``) or macro-expanded (``text``)."""
    if field not in FIELDS:
        raise InputError(f"unknown field {field!r}; choose one of {', '.join(FIELDS)}")
    body = theorem.body_latex if field == "latex" else theorem.text
    return f"{theorem.name}. {body}" if theorem.name else body


class BM25Searcher:
    """Exact BM25 search over statements held in memory; implements the harness's ``Searcher``.

    ``add_records`` / ``remove_records`` let a query set bring its own gold statements for one run.

    >>> from theorem_rag.records import Theorem
    >>> s = BM25Searcher([Theorem(id="a", source="s", kind="lemma", body_latex="Nakayama", doc_id="d")])
    >>> s.search_batch(["nakayama", "zorn"], k=5)
    [['a'], []]
    """

    def __init__(
        self,
        theorems: Iterable[Theorem],
        field: str = "latex",
        name: str | None = None,
        stemmer: Callable[[list[str]], list[str]] | None | str = "default",
        k1: float = 1.5,
        b: float = 0.75,
    ) -> None:
        try:
            import bm25s  # noqa: F401
        except ImportError as e:
            raise ImportError('BM25Searcher needs bm25s: pip install "theorem-rag[eval]"') from e
        if field not in FIELDS:
            raise InputError(f"unknown field {field!r}; choose one of {', '.join(FIELDS)}")
        self.field = field
        self.name = name or f"bm25-{field}"
        self.stemmer = default_stemmer() if stemmer == "default" else stemmer
        self.k1, self.b = k1, b
        self._theorems: dict[str, Theorem] = {}
        self._model = None
        self.add_records(theorems)

    def __len__(self) -> int:
        return len(self._theorems)

    @property
    def ids(self) -> list[str]:
        return list(self._theorems)

    def add_records(self, theorems: Iterable[Theorem]) -> None:
        """Add statements (an id already present is an error: nothing is overwritten) and rebuild the index."""
        new = list(theorems)
        clash = [t.id for t in new if t.id in self._theorems]
        dupes = len({t.id for t in new}) != len(new)
        if clash or dupes:
            raise InputError(f"theorem ids already indexed or repeated: {(clash or [t.id for t in new])[:5]}")
        self._theorems.update((t.id, t) for t in new)
        self._rebuild()

    def remove_records(self, ids: Iterable[str]) -> None:
        """Remove statements by id (unknown ids are ignored) and rebuild the index."""
        for i in ids:
            self._theorems.pop(i, None)
        self._rebuild()

    def search(self, query: str, k: int = 10) -> list[str]:
        return self.search_batch([query], k)[0]

    def search_batch(self, queries: Sequence[str], k: int) -> list[list[str]]:
        import numpy as np

        ids = self._id_list
        out = []
        for query in queries:
            tokens = [t for t in tokenize_latex(query, self.stemmer) if t in self._vocab]
            if not tokens or self._model is None:
                out.append([])
                continue
            scores = self._model.get_scores(tokens)
            hits = np.flatnonzero(scores > 0)
            order = hits[np.lexsort((hits, -scores[hits]))][:k]
            out.append([ids[i] for i in order])
        return out

    def _rebuild(self) -> None:
        import bm25s

        self._id_list = list(self._theorems)
        corpus = [tokenize_latex(statement_text(t, self.field), self.stemmer) for t in self._theorems.values()]
        self._model = None
        self._vocab: set[str] = set()
        if any(corpus):
            self._model = bm25s.BM25(k1=self.k1, b=self.b)
            self._model.index(corpus, show_progress=False)
            self._vocab = set(self._model.vocab_dict) - {""}
