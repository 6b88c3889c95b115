import json
from pathlib import Path

from corpus_build.adapters.base import Unit, authors
from corpus_build.adapters.openlogic import OpenLogicAdapter
from corpus_build.adapters.planetmath import pm_fields
from corpus_build.adapters.stacks import read_tags
from corpus_build.parse import parse_sources
from corpus_build.sources import SourceTree, detect_corpus
from corpus_build.texfiles import Flattened, LineMap

LEMMA = r"\begin{lemma}\label{%s} %s is a statement long enough to keep.\end{lemma}"


def _unit(main: str) -> Unit:
    return Unit("openlogic", main, Flattened("", [main], LineMap()))


def test_open_logic_labels_are_namespaced_by_file():
    ad = OpenLogicAdapter(SourceTree(Path("/x"), []))
    unit = _unit("content/first-order-logic/completeness/compactness.tex")
    assert ad.label_id("thm:compactness", unit) == "openlogic:first-order-logic:completeness:compactness:thm:compactness"
    assert ad.label_id("p:c:s:x", unit) == "openlogic:p:c:s:x"


def test_read_tags_and_pm_fields_and_authors():
    assert read_tags("# comment\n0001,intro-section-phil\nbad line\n") == {"intro-section-phil": "0001"}
    f = pm_fields(r"\pmcanonicalname{A}\pmrelated{B}\pmrelated{C}\pmclassification{msc}{11A41}")
    assert f == {"canonicalname": ["A"], "related": ["B", "C"], "classification": ["11A41"]}
    assert authors(r"\author{Jane Roe\thanks{Univ.} \and John Doe}") == ("Jane Roe", "John Doe")


def test_papers_manifest_folder(tmp_path: Path):
    root = tmp_path / "papers"
    for pid, main in (("p1", "src/main.tex"), ("p2", "paper.tex")):
        (root / pid / Path(main).parent).mkdir(parents=True, exist_ok=True)
        (root / pid / main).write_text(
            "\\documentclass{article}\\newtheorem{lemma}{Lemma}\\title{Paper %s}\\begin{document}%s\\end{document}"
            % (pid, LEMMA % ("l:a", pid))
        )
    (root / "stray").mkdir()
    (root / "stray" / "x.tex").write_text("x")
    manifest = [
        {"id": "p1", "main_file": "src/main.tex", "title": "First", "license": "MIT", "arxiv_id": "2401.00001"},
        {"id": "p2", "main_file": "paper.tex", "title": "Second", "license": "CC-BY-4.0"},
        {"id": "gone", "main_file": "m.tex"},
    ]
    (root / "MANIFEST.jsonl").write_text("\n".join(map(json.dumps, manifest)) + "\nnot json\n")
    assert detect_corpus(root) == "papers"
    out = tmp_path / "out"
    report = parse_sources([root], out, use_plastex=False, progress=False)
    recs = {d["id"]: d for d in map(json.loads, (out / "theorems.jsonl").open())}
    assert sorted(recs) == ["p1:l:a", "p2:l:a"]
    assert recs["p1:l:a"]["url"] == "https://arxiv.org/abs/2401.00001" and recs["p2:l:a"]["url"] is None
    docs = {d["id"]: d for d in map(json.loads, (out / "documents.jsonl").open())}
    assert (docs["p1"]["title"], docs["p1"]["license"], docs["p2"]["license"]) == ("First", "MIT", "CC-BY-4.0")
    failed = {f["path"]: f["reason"] for f in report.sources[0].failed}
    assert failed == {
        "MANIFEST.jsonl:4": "invalid JSON: Expecting value",
        "gone": "paper folder named in MANIFEST.jsonl is missing",
        "stray/x.tex": "not in a paper folder listed in MANIFEST.jsonl",
    }


def test_lebl_slides_are_marked_and_exact_repeats_dropped(tmp_path: Path):
    root = tmp_path / "lebl"
    (root / "slides").mkdir(parents=True)
    decl = "\\documentclass{book}\\newtheorem{thm}{Theorem}\\begin{document}"
    (root / "realanal12.tex").write_text(decl + "\\input{ch}\\end{document}")
    (root / "realanal.tex").write_text(decl + "\\end{document}")
    (root / "ch.tex").write_text("\\begin{thm}\\label{t:1} Every bounded sequence has a convergent subsequence.\\end{thm}")
    (root / "slides" / "1.tex").write_text(
        "\\begin{thm} Every bounded \\pause sequence has a convergent subsequence.\\end{thm}"
        "\\begin{thm} Only on the slides, a statement long enough.\\end{thm}"
    )
    out = tmp_path / "out"
    report = parse_sources([root], out, use_plastex=False, progress=False)
    recs = {d["id"]: d for d in map(json.loads, (out / "theorems.jsonl").open())}
    assert sorted(recs) == ["lebl-ra:slides/1.tex#theorem-31bec283", "lebl-ra:t:1"]
    slide = recs["lebl-ra:slides/1.tex#theorem-31bec283"]
    assert slide["meta"] == {"slides": True, "legacy_id": "lebl-ra:slides/1.tex#1"}
    assert report.sources[0].dropped["duplicate"] == 1


def test_open_logic_statements_are_read_as_printed(tmp_path: Path):
    """Open Logic's text tokens (``!!{formula}s``, ``!!^a{element}``), formula metavariables (``!A``) and the article
    ``\\Article{token}`` leaves after macro expansion print as the words and letters its config sets: 904 of its 1,784
    statements read "!!formula" or "!A" in their records and slogans before."""
    root = tmp_path / "openlogic"
    (root / "content" / "logic" / "syntax").mkdir(parents=True)
    (root / "open-logic-envs.sty").write_text("\\newtheorem{thm}{Theorem}\\newtheorem{defn}{Definition}\n")
    (root / "open-logic-config.sty").write_text(
        "\\settexttoken{formula}{formula}{formulas}\n\\settexttoken{element}*{element}{elements}\n\\olgreekformulas\n")
    (root / "sty").mkdir()
    (root / "sty" / "open-logic-formulas.sty").write_text(
        "\\def\\olgreekformulas\n{\\gdef\\formula{\\lookup{A/\\varphi,B/\\psi}}}\n")
    (root / "sty" / "open-logic-tokenize.sty").write_text(  # as Open Logic defines it
        "\\def\\Article#1{\\ifcsname TOK@a@#1\\endcsname\n    \\tokenformat{\\usetoken{A}{#1}}\\else\n"
        "    \\PackageWarning{open-logic-tokenize}{Token #1 undefined}{\\color{red}A}\\fi}\n")
    (root / "content" / "logic" / "syntax" / "formulas.tex").write_text(
        "\\begin{defn}\\ollabel{sub}\\Article{element} \\emph{!!{element}} of the !!{formula}s is a !!{formula}~$!A$ "
        "such that $!A \\lor !B$ holds.\\end{defn}\n")
    out = tmp_path / "out"
    parse_sources([root], out, use_plastex=False, progress=False)
    (rec,) = map(json.loads, (out / "theorems.jsonl").open())
    text = rec["body_expanded"] or rec["body_latex"]
    assert "!" not in text and "PackageWarning" not in text
    assert text.startswith("An \\emph{element} of the formulas is a formula")
    assert "\\varphi \\lor \\psi" in text
