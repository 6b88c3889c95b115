"""The CRing Project: its own source name, ids from labels, urls into the repository at the pinned commit, the GFDL,
and statements plasTeX reads (TeX skips the ``comment`` blocks that hold unfinished ones, and so must the regex
parser, or it outnumbers plasTeX and the whole book falls back to it)."""

import json
from pathlib import Path

import pytest

from corpus_build.extract import plastex_available
from corpus_build.parse import parse_sources
from corpus_build.sources import detect_corpus
from theorem_rag.citations import citation
from theorem_rag.records import Document, Theorem

BLOB = "https://github.com/aisejohan/cring/blob/51dc6d9"
SPEC = r"""\chapter{The spectrum}
\section{Prime ideals}
\begin{lemma}\label{primeavoid} If a prime ideal contains a product of ideals, it contains one of them.\end{lemma}
\begin{proof} Obvious. \end{proof}
\begin{comment}We shall eventually prove:
\begin{proposition} Every ring has a prime ideal, and more besides.\end{proposition}
\end{comment}
\begin{definition} A ring is \emph{local} if it has exactly one maximal ideal.\end{definition}
\begin{remark} Part (3) could also be proved as follows, for noetherian $R_0$.
\begin{lemma}\label{descintegrality} If $R$ is finite type over $R_0$ and integral over $S$, so is $S$.\end{lemma}
That is the point of the lemma.
\end{remark}
"""


def write_cring(root: Path) -> Path:
    """A small CRing: ``CRing.tex`` inputting ntheorem declarations, one chapter and one absent upstream."""
    files = {
        "CRing.tex": "\\documentclass[11pt]{book}\n\\input{other/packages.tex}\n\\input{other/theoremdef.tex}\n"
                     "\\begin{document}\n\\part{Commutative algebra}\n\\input{chapters/spec.tex}\n"
                     "\\input{chapters/completelocal.tex}\n\\end{document}\n",
        "other/packages.tex": "\\usepackage[amsmath, thmmarks]{ntheorem}\n\\usepackage{verbatim}\n",
        "other/theoremdef.tex": "\\newtheorem{theorem}{Theorem}[section]\n\\newtheorem{lemma}[theorem]{Lemma}\n"
                                "\\newtheorem{proposition}[theorem]{Proposition}\n\\theorembodyfont{\\normalfont}\n"
                                "\\newtheorem{definition}[theorem]{Definition}\n\\newtheorem*{remark}{Remark}\n"
                                "\\theoremseparator{.}\n"
                                "\\theoremsymbol{\\ensuremath{\\blacktriangle}}\n\\newtheorem*{proof}{Proof}\n",
        "chapters/spec.tex": SPEC,
        "chapters/license.tex": "\\chapter{GNU Free Documentation License}\nVersion 1.2, November 2002\n",
    }  # fmt: skip
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _records(out: Path) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (out / "theorems.jsonl").open())}


def test_cring_records_name_their_source_label_and_place_in_the_repository(tmp_path: Path):
    root = write_cring(tmp_path / "cring")
    assert detect_corpus(root) == "cring"
    report = parse_sources([root], tmp_path / "out", use_plastex=False, progress=False)
    recs = _records(tmp_path / "out")
    lemma = recs.pop("cring:primeavoid")
    assert recs.pop("cring:descintegrality")["kind"] == "lemma"
    (defn_id, defn), (remark_id, _) = recs.items()  # the commented-out proposition is not a statement
    assert defn_id.startswith("cring:chapters/spec.tex#definition-")
    assert remark_id.startswith("cring:chapters/spec.tex#remark-")
    assert (lemma["source"], lemma["kind"], lemma["file"], lemma["line"]) == ("cring", "lemma", "chapters/spec.tex", 3)
    assert lemma["url"] == f"{BLOB}/chapters/spec.tex#L3" and defn["url"] == f"{BLOB}/chapters/spec.tex#L8"
    [doc] = map(json.loads, (tmp_path / "out" / "documents.jsonl").open())
    assert (doc["id"], doc["title"], doc["license"], doc["url"], doc["meta"]) == (
        "cring", "The CRing Project", "GFDL-1.2", "https://github.com/aisejohan/cring", {"commit": "51dc6d9"})
    rep = report.sources[0]
    assert (rep.corpus, rep.source, rep.failed) == ("cring", "cring", [])
    assert {"path": "CRing.tex", "note": "included file not found: chapters/completelocal.tex"} in rep.notes
    cited = citation(Theorem.from_dict(lemma), Document.from_dict(doc))
    assert cited == f"CRing Project, The CRing Project, Lemma {lemma['number']}, {BLOB}/chapters/spec.tex#L3"


@pytest.mark.slow
def test_plastex_reads_cring_with_comment_blocks_and_nested_statements(tmp_path: Path):
    assert plastex_available(), 'plasTeX path missing: pip install "theorem-rag[corpus]"'
    report = parse_sources([write_cring(tmp_path / "cring")], tmp_path / "out", progress=False)
    rep = report.sources[0]
    assert dict(rep.found_by_parser) == {"plastex": 4} and rep.fallback_units == []
    recs = _records(tmp_path / "out")
    assert recs["cring:primeavoid"]["number"] == "1.1"
    assert {r["parser"] for r in recs.values()} == {"plastex"}
    # The remark holding the lemma is not named by the lemma's label (it was, and the lemma became #2).
    remark = next(r for r in recs.values() if r["kind"] == "remark")
    assert remark["label"] is None and remark["id"].startswith("cring:chapters/spec.tex#remark-")
    assert recs["cring:descintegrality"]["kind"] == "lemma" and rep.id_collisions == 0
