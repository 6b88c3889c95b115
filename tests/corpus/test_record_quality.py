"""Record quality: printable numbers, Stacks chapter numbers, readable bodies (PlanetMath links, annotations)."""

import json
from pathlib import Path

import pytest

from corpus_build.adapters.stacks import read_chapter_numbers
from corpus_build.cleanup import pm_links_to_text, readable
from corpus_build.extract import fill_from_fallback, plausible_number
from corpus_build.parse import parse_sources
from corpus_build.raw import RawStatement


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> dict[str, dict]:
    fixtures = Path(__file__).resolve().parent.parent / "fixtures" / "latex"
    out = tmp_path_factory.mktemp("quality")
    parse_sources([fixtures / "stacks", fixtures / "planetmath"], out, use_plastex=False, progress=False)
    return {d["id"]: d for d in map(json.loads, (out / "theorems.jsonl").open())}


@pytest.mark.parametrize("number", ["1", "10.20.1", "A.3", "2-1", "IV.2.b"])
def test_printed_numbers_are_plausible(number):
    assert plausible_number(number)


@pytest.mark.parametrize("number", [None, "", "Alph@̧section.1", "1.", ".1", "1..2", "\\thesection.1", "1 2", "{1}"])
def test_garbage_numbers_are_not(number):
    assert not plausible_number(number)


def test_an_implausible_plastex_number_is_replaced_by_the_fallbacks_at_the_same_line():
    plastex = [RawStatement("lemma", "lemma", "B", "plastex", number="Alph@̧section.1", line=7),
               RawStatement("lemma", "lemma", "C", "plastex", number="Alph@̧section.2", line=9),
               RawStatement("lemma", "lemma", "D", "plastex", number="3.1", line=11)]
    fallback = [RawStatement("lemma", "lemma", "B", "fallback", number="20.1", line=7),
                RawStatement("lemma", "lemma", "D", "fallback", number="9.9", line=11)]
    fill_from_fallback(plastex, fallback)
    # No fallback statement at line 9: no number rather than a wrong one; a good plasTeX number stays.
    assert [s.number for s in plastex] == ["20.1", None, "3.1"]


def test_stacks_chapter_numbers_follow_chapters_tex():
    text = (Path(__file__).resolve().parent.parent / "fixtures" / "latex" / "stacks" / "chapters.tex").read_text()
    chapters = read_chapter_numbers(text)
    assert (chapters["introduction"], chapters["algebra"], chapters["schemes"]) == (1, 10, 26)


def test_stacks_numbers_are_chapter_section_item(records):
    # Theorem-like environments share the subsection counter within a section: definition 10.1.1, lemma 10.1.2.
    assert [records[t]["number"] for t in ("stacks:00AB", "stacks:00AC", "stacks:00AD")] == ["10.1.1", "10.1.2", "10.1.3"]
    assert records["stacks:00AE"]["number"] == "26.1.1"


def test_planetmath_body_latex_keeps_links_and_body_expanded_has_their_text(records):
    b = records["planetmath:Bijection"]
    assert r"\PMlinkname{injective}{Injective}" in b["body_latex"] and r"\PMlinkescapeword{function}" in b["body_latex"]
    assert b["body_expanded"] == (
        "A function $f\\colon A \\to B$ is a \\emph{bijection} if it is both injective\n"
        "and surjective; see the picture."
    )


def test_pm_links_keep_their_text_and_escapes_vanish():
    text = (r"\PMlinkescapeword{ring} \PMlinkescapephrase{simple group}A \PMlinkname{field}{Field} is a "
            r"\PMlinkID{ring}{42} (\PMlinktofile{figure}{f.eps}, \PMlinkexternal{web}{http://x.org}); "
            r"\PMlinkescapetext{{every} ring} and \PMlinkescaptetext{this}.")
    assert pm_links_to_text(text) == "A field is a ring (figure, web); {every} ring and this."


def test_stacks_reference_and_history_blocks_leave_the_readable_body():
    # plasTeX prints Stacks' comment environments as \begin{X} \end{X} text \end{X}.
    mangled = (r"\begin{reference} \end{reference} \cite[1.M]{MatCA} \end{reference} \begin{history} \end{history} "
               r"We quote. \end{history} Let $R$ be a ring.")
    assert readable(mangled) == "Let $R$ be a ring."
    written = "\\begin{reference}\n\\cite{MatCA}\n\\end{reference}\nLet $R$ be a ring."
    assert readable(written) == "Let $R$ be a ring."


def test_napkin_hints_and_solutions_are_not_part_of_the_statement():
    text = ("Show that $G \\cong \\mathbb Z/p$.\n\t\\begin{hint}\n\t\tGenerated groups.\n\t\\end{hint}\n"
            "\t\\begin{sol}\n\t\tLook at $\\langle g \\rangle$.\n\t\\end{sol}")
    assert readable(text) == "Show that $G \\cong \\mathbb Z/p$."


def test_labels_index_entries_and_overlays_go():
    text = (r"Let $A$ be a set\index{set!countable}\label{#2:#3:defn}. \pause Then"
            "\n\\begin{enumerate}\n\\item<2-> one\n\\item \\pause two\n\\end{enumerate}\n\\only<3>{Done.}")
    assert readable(text) == "Let $A$ be a set. Then\n\\begin{enumerate}\n\\item one\n\\item two\n\\end{enumerate}\n{Done.}"


def test_text_without_markup_is_unchanged():
    text = "Let $x \\in \\mathbb{R}$; then $x^2 \\geq 0$ <really>."
    assert readable(text) == text


def test_a_fallback_number_with_an_unstepped_counter_is_not_taken():
    # Open Logic files parsed on their own: plasTeX prints ".1", the regex parser "0.1"; neither is printed anywhere.
    plastex = [RawStatement("defn", "definition", "B", "plastex", number=".1", line=4)]
    fill_from_fallback(plastex, [RawStatement("defn", "definition", "B", "fallback", number="0.1", line=4)])
    assert plastex[0].number is None


def test_a_label_plastex_returns_as_an_object_repr_is_replaced_by_the_written_one():
    bad = "<plasTeX.TeXFragment object at 0x7f84584c0290>"
    plastex = [RawStatement("ex", "example", "B", "plastex", label=bad, labels=[bad], line=34)]
    fallback = [RawStatement("ex", "example", "B", "fallback", label="ex:R[x]/(x^{n+1})",
                             labels=["ex:R[x]/(x^{n+1})"], line=34)]
    fill_from_fallback(plastex, fallback)
    assert (plastex[0].label, plastex[0].labels) == ("ex:R[x]/(x^{n+1})", ["ex:R[x]/(x^{n+1})"])
