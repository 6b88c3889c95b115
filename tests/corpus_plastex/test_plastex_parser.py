"""plasTeX parser on small hand-written documents: numbering, names, labels, refs, macros, failures."""

from __future__ import annotations

import doctest
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from corpus_build import fork_server, plastex_child, plastex_parser, tex_scan
from corpus_build.plastex_parser import compose_document, parse_with_plastex, scan_environments

FIXTURES = Path(__file__).parent / "fixtures"
ENVS = {"theorem": "theorem", "lemma": "lemma", "mainthm": "theorem", "defn": "definition"}


@pytest.fixture(scope="module")
def numbering():
    result = parse_with_plastex((FIXTURES / "numbering.tex").read_text(), theorem_envs=ENVS, base_dir=str(FIXTURES))
    assert result.error is None
    return result


def test_finds_every_statement_in_order(numbering):
    assert [(s.env, s.kind, s.line) for s in numbering.statements] == [
        ("theorem", "theorem", 13),
        ("lemma", "lemma", 23),
        ("mainthm", "theorem", 30),
        ("lemma", "lemma", 34),
        ("defn", "definition", 37),
    ]
    assert numbering.truncated is False
    assert all(s.parser == "plastex" for s in numbering.statements)


def test_numbers_follow_shared_counters_sections_and_stars(numbering):
    # lemma shares theorem's counter, which is numbered within sections; mainthm is unnumbered.
    assert [s.number for s in numbering.statements] == ["1.1", "1.2", None, "2.1", "1"]


def test_names_labels_and_sections(numbering):
    first, second, _, fourth, defn = numbering.statements
    assert first.name == "Foo bar"
    assert first.label == "thm:a"
    assert first.labels == ["thm:a", "thm:a2"]
    assert first.section == ["Schemes", "Affine"]
    assert second.name is None and second.labels == ["lem:c"]
    assert fourth.section == ["Curves"] and fourth.label is None
    assert defn.name == "{Ring [commutative]}"


def test_body_as_written_keeps_math_percent_and_verb_and_drops_comments(numbering):
    assert numbering.statements[0].body == (
        "Let $X = \\Spec R$ and $50\\%$ of $R$.\n"
        "\\begin{enumerate}\n"
        "\\item one \\verb|\\end{theorem}|\n"
        "\\item two \\unknownmacro{x}\n"
        "\\end{enumerate}"
    )


def test_body_expanded_expands_user_macros_only_where_there_are_some(numbering):
    first = numbering.statements[0]
    assert "\\operatorname {Spec}R" in first.body_expanded
    assert "\\Spec" not in first.body_expanded
    assert "\\unknownmacro {x}" in first.body_expanded
    assert "\\label" not in first.body_expanded and "a comment" not in first.body_expanded
    assert numbering.statements[1].body_expanded == ""


def test_refs_come_from_the_proof_right_after_the_statement(numbering):
    assert numbering.statements[0].refs == ["thm:b", "lem:c", "lem:d", "x"]
    # The lemma's proof is separated from it by text, so it is not the lemma's proof.
    assert numbering.statements[1].refs == []


def test_body_without_preamble_is_wrapped_and_user_preamble_macros_apply():
    result = parse_with_plastex(
        "\\section{Intro}\n\\begin{lem}[Easy]\\label{e} $\\Z \\ne \\emptyset$ \\end{lem}\n"
        "\\begin{thm*} Unnumbered. \\end{thm*}\n\\begin{lem} Again. \\end{lem}",
        theorem_envs={"lem": "lemma", "thm*": "theorem"},
        preamble="\\def\\Z{\\mathbb{Z}}",
    )
    assert result.error is None and result.truncated is False
    assert [(s.env, s.number, s.name, s.label, s.line) for s in result.statements] == [
        ("lem", "1", "Easy", "e", 2),
        ("thm*", None, None, None, 3),
        ("lem", "2", None, None, 4),
    ]
    assert result.statements[0].body == "$\\Z \\ne \\emptyset$"
    # plasTeX re-spaces the source it writes back; TeX reads both the same way.
    assert result.statements[0].body_expanded == "$\\mathbb {Z}\\ne \\emptyset $"


def test_declaretheorem_siblings_share_a_counter():
    preamble = (
        "\\usepackage{thmtools}\n\\declaretheorem[name=Theorem,numberwithin=section]{theorem}\n"
        "\\declaretheorem[name=Lemma,sibling=theorem]{lemma}\n"
    )
    text = "\\section{A}\\begin{theorem}T\\end{theorem}\\begin{lemma}L\\end{lemma}"
    result = parse_with_plastex(text, theorem_envs={"theorem": "theorem", "lemma": "lemma"}, preamble=preamble)
    assert [s.number for s in result.statements] == ["1.1", "1.2"]


def test_missing_end_is_reported_as_truncated_and_loses_nothing():
    result = parse_with_plastex((FIXTURES / "unclosed.tex").read_text(), theorem_envs={"lemma": "lemma"})
    assert result.error is None
    assert result.truncated is True
    assert [(s.label, s.line, s.number) for s in result.statements] == [("l1", 1, "1"), (None, 3, "2")]
    assert result.statements[0].body.startswith("First.\n\\begin{lemma}\nSecond.")
    assert result.statements[0].body.endswith("Tail.")
    assert result.statements[1].body == "Second."


def test_empty_text_and_text_without_statements_do_not_start_plastex():
    for text in ("", "   \n", "Just prose, \\begin{proof} no statement. \\end{proof}"):
        result = parse_with_plastex(text, theorem_envs={"lemma": "lemma"})
        assert (result.statements, result.truncated, result.error) == ([], False, None)


WAYS = ("fork", "server", "interpreter")


def _run_as(monkeypatch, way: str) -> None:
    """plasTeX run in a fork of this process, in a fork of the fork server (a process that may not fork itself), or
    in a fresh interpreter."""
    if way != "interpreter" and not sys.platform.startswith("linux"):
        pytest.skip("the fork and the fork server need Linux")
    monkeypatch.setattr(plastex_child, "_can_fork", lambda: way == "fork")
    monkeypatch.setattr(plastex_child, "_use_server", lambda: way == "server")


@pytest.fixture(params=WAYS)
def child(request, monkeypatch):
    _run_as(monkeypatch, request.param)
    return request.param


def test_a_fork_the_fork_server_and_a_fresh_interpreter_give_the_same_statements(monkeypatch):
    text = (FIXTURES / "numbering.tex").read_text()
    broken = dict(theorem_envs={"lemma": "lemma"}, preamble="\\def\\x{{\\x}}\n\\newtheorem{lemma}{Lemma}[section]")
    runs = {}
    for way in WAYS:
        _run_as(monkeypatch, way)
        runs[way] = (parse_with_plastex(text, theorem_envs=ENVS, base_dir=str(FIXTURES)).statements,
                     parse_with_plastex("\\section{A}\\begin{lemma} $\\x$ \\end{lemma}", **broken).warning)
    assert len(runs["fork"][0]) == 5 and runs["fork"][1]
    assert runs["fork"] == runs["server"] == runs["interpreter"]


def test_a_threaded_process_parses_through_one_fork_server_started_once(monkeypatch):
    if not sys.platform.startswith("linux"):
        pytest.skip("the fork server needs Linux")
    monkeypatch.setattr(plastex_child, "_SERVER", fork_server.ForkServer(plastex_child._SERVER.target,
                                                                         plastex_child._SERVER.preload))
    monkeypatch.setattr(plastex_child, "_run_interpreter", lambda job, wall_s: pytest.fail("a fresh interpreter"))
    lemma = "\\section{A}\\begin{lemma}[N] $x^2$ is fine. \\end{lemma}"
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)  # this process may not fork now
    other.start()
    try:
        first = parse_with_plastex(lemma, theorem_envs={"lemma": "lemma"})
        server = plastex_child._SERVER.pid
        assert server is not None and server != os.getpid()
        assert len(os.listdir(f"/proc/{server}/task")) == 1  # the server itself may fork
        again = [parse_with_plastex(lemma, theorem_envs={"lemma": "lemma"}) for _ in range(3)]
        assert plastex_child._SERVER.pid == server  # no new process but the forks of the server
        assert [r.statements for r in again] == [first.statements] * 3 and first.statements[0].name == "N"
        os.kill(server, signal.SIGKILL)  # a server that died is started again for the next parse
        deadline = time.monotonic() + 10
        while Path(f"/proc/{server}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":  # dead, not reaped
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert parse_with_plastex(lemma, theorem_envs={"lemma": "lemma"}).statements == first.statements
        assert plastex_child._SERVER.pid not in (None, server)
    finally:
        stop.set()
        other.join()
        plastex_child._SERVER.close()
    assert plastex_child._SERVER.pid is None


PARSE_IN_A_THREADED_PROCESS = """
import logging, sys, threading
from corpus_build.extract import plastex_available
from corpus_build.plastex_parser import parse_with_plastex
stop = threading.Event()
threading.Thread(target=stop.wait, daemon=True).start()
assert plastex_available()
r = parse_with_plastex("\\\\begin{lemma}[N] A. \\\\end{lemma}", theorem_envs={"lemma": "lemma"})
print(r.statements[0].name, "plasTeX" in sys.modules, logging.getLoggerClass() is logging.Logger)
"""


def test_a_process_that_does_not_fork_never_imports_plastex():
    """plasTeX sets logging's logger class for the whole process on import: a threaded caller (an app, a Ray
    worker) parses through the fork server and keeps plasTeX, and its logger class, out of its own process."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the fork server needs Linux")
    out = subprocess.run([sys.executable, "-c", PARSE_IN_A_THREADED_PROCESS], capture_output=True, text=True,
                         timeout=120, cwd=Path(plastex_child.__file__).parents[1])  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["N", "False", "True"]


def test_no_fork_while_another_thread_runs():
    # A lock another thread holds at the fork would stay held in the child, which would then wait forever.
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert plastex_child._can_fork() is False
    finally:
        stop.set()
        other.join()


def test_a_forked_child_that_blocks_is_stopped_by_the_wall_clock(monkeypatch):
    if not hasattr(os, "fork"):
        pytest.skip("this platform cannot fork")
    # The fork inherits this stand-in: a parse that waits without using its CPU time.
    monkeypatch.setattr(plastex_child, "_parse_source", lambda source, envs: time.sleep(60))
    started = time.perf_counter()
    with pytest.raises(subprocess.TimeoutExpired):
        plastex_child._run_forked(("x", ["lemma"], None, 1 << 30, 5), 1.0)
    assert time.perf_counter() - started < 10


def test_macro_loop_times_out_with_an_error(child):
    # The loop never ends by itself: coming back at all, with this error, shows the child was stopped.
    result = parse_with_plastex(
        "\\begin{lemma} A. \\end{lemma}\n\\def\\x{\\x}\\x", theorem_envs={"lemma": "lemma"}, timeout_s=2
    )
    assert result.error == "plasTeX timed out after 2 s of CPU time"
    assert result.truncated is True and result.statements == []


def test_scan_ignores_comments_and_verbatim():
    text = (
        "% \\begin{lemma} commented\n"
        "\\begin{verbatim}\n\\begin{lemma}\n\\end{verbatim}\n"
        "\\verb+\\begin{lemma}+ 100\\% \\begin{lemma}[N] B % c\n\\end{lemma}"
    )
    assert [(s.name, s.body, s.line, s.closed) for s in scan_environments(text, ["lemma"])] == [
        ("N", "B", 5, True)
    ]


def test_compose_keeps_user_theorem_definitions_and_defines_missing_ones_first():
    doc = compose_document(
        "\\begin{document}\\end{document}",
        "\\documentclass{book}\n\\newtheorem{lemma}[theorem]{Lemma}",
        {"lemma": "lemma", "claim": "claim"},
    )
    assert doc == (
        "\\newtheorem{claim}{Claim}\n\\documentclass{book}\n\\newtheorem{lemma}[theorem]{Lemma}\n\n"
        "\\begin{document}\\end{document}"
    )


def test_preamble_macro_that_breaks_plastex_leads_to_a_second_parse_without_macros():
    result = parse_with_plastex(
        "\\section{A}\\begin{lemma}\\label{a} $\\x$ and $\\y$\\end{lemma}",
        theorem_envs={"lemma": "lemma"},
        preamble="\\newcommand{\\y}{Y}\n\\def\\x{{\\x}}\n\\newtheorem{lemma}{Lemma}[section]",
        timeout_s=20,
    )
    assert result.error is None and result.truncated is False
    assert result.warning == (
        "plasTeX recursed too deeply (a macro that expands to itself?); "
        "parsed again with only the theorem set-up of the preamble, macros unexpanded"
    )
    [lemma] = result.statements
    assert (lemma.body, lemma.body_expanded, lemma.number, lemma.label, lemma.section) == (
        "$\\x$ and $\\y$", "", "1.1", "a", ["A"]
    )


def test_environment_defined_through_a_user_macro_keeps_the_users_counter():
    # HoTT defines its lemma-like environments through a wrapper macro around \newtheorem.
    preamble = "\\newtheorem{thm}{Theorem}[section]\n\\def\\defthm#1#2{\\newtheorem{#1}[thm]{#2}}\n\\defthm{lem}{Lemma}"
    text = "\\section{A}\\begin{thm}T\\end{thm}\\begin{lem}L\\end{lem}\\section{B}\\begin{lem}M\\end{lem}"
    result = parse_with_plastex(text, theorem_envs={"thm": "theorem", "lem": "lemma"}, preamble=preamble)
    assert [(s.env, s.number) for s in result.statements] == [("thm", "1.1"), ("lem", "1.2"), ("lem", "2.1")]


def test_compose_puts_the_callers_preamble_after_the_documents_own_class_line():
    doc = compose_document("\\documentclass{amsart}\n\\begin{document}x", "\\def\\R{\\mathbb{R}}", {"thm": "theorem"})
    assert doc == (
        "\\newtheorem{thm}{Theorem}\n\\documentclass{amsart}\n\n\\def\\R{\\mathbb{R}}\n"
        "\\begin{document}x\n\\end{document}\n"
    )


def test_missing_plastex_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "plasTeX", None)
    with pytest.raises(ImportError, match=r'pip install "theorem-rag\[corpus\]"'):
        parse_with_plastex("\\begin{lemma}x\\end{lemma}", theorem_envs={"lemma": "lemma"})


def test_importing_the_module_does_not_import_plastex():
    code = "import sys, corpus_build.plastex_parser; print('plasTeX' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_statement_plastex_skips_does_not_shift_the_bodies_after_it():
    text = (
        "\\begin{lemma}\\label{a} First. \\end{lemma}\n"
        "\\iffalse\n\\begin{lemma}\\label{x} Skipped by TeX. \\end{lemma}\n\\fi\n"
        "\\begin{lemma}\\label{b} Third. \\end{lemma}\n"
    )
    result = parse_with_plastex(text, theorem_envs={"lemma": "lemma"})
    assert [(s.label, s.body, s.line, s.number) for s in result.statements] == [
        ("a", "First.", 1, "1"),
        ("b", "Third.", 5, "2"),
    ]
    # The text scan does not run \iffalse, so it sees one environment more than plasTeX returns.
    assert result.truncated is True


def test_comment_environment_is_skipped_whether_or_not_the_preamble_loads_the_package():
    text = (
        "\\begin{comment}\n\\begin{lemma} Hidden. \\end{lemma}\n\\end{comment}\n\\begin{lemma} Seen. \\end{lemma}\n"
        "% \\begin{comment}\n\\begin{lemma} Also seen. \\end{lemma}\n% \\end{comment}"
    )
    result = parse_with_plastex(text, theorem_envs={"lemma": "lemma"})
    assert [(s.body, s.line, s.number) for s in result.statements] == [("Seen.", 4, "1"), ("Also seen.", 6, "2")]
    assert result.truncated is False


def test_a_label_inside_a_nested_statement_is_the_nested_statements_own():
    text = (
        "\\begin{theorem}\\label{outer} Outer, and\n\\begin{lemma}\\label{inner} inner.\\end{lemma}\n\\end{theorem}\n"
        "\\begin{theorem} Unlabelled, holding\n\\begin{lemma}\\label{deep} a lemma.\\end{lemma}\n\\end{theorem}\n"
    )
    assert [s.labels for s in scan_environments(text, ["theorem", "lemma"])] == [("outer",), ("inner",), (), ("deep",)]
    result = parse_with_plastex(text, theorem_envs={"theorem": "theorem", "lemma": "lemma"})
    assert [(s.env, s.label, s.line) for s in result.statements] == [
        ("theorem", "outer", 1), ("lemma", "inner", 2), ("theorem", None, 4), ("lemma", "deep", 5),
    ]


def test_ifnextchar_and_ifstar_take_one_branch():
    # plasTeX has no \@ifnextchar: without the parser's own, \lam below recursed until plasTeX died.
    preamble = (
        "\\makeatletter\n\\def\\lam#1{L#1\\@ifnextchar\\bgroup{\\lam}{.}}\n"
        "\\def\\foo{\\@ifnextchar[{\\foo@opt}{\\foo@opt[D]}}\n\\def\\foo@opt[#1]#2{<#1|#2>}\n"
        "\\def\\bar{\\@ifstar{S}{N}}\n\\makeatother"
    )
    text = "\\begin{lemma} $\\lam{x}{y} z$ \\foo{a} \\foo[b]{c} \\bar* \\bar x \\end{lemma}"
    result = parse_with_plastex(text, theorem_envs={"lemma": "lemma"}, preamble=preamble, timeout_s=20)
    assert (result.error, result.warning) == (None, None)
    assert result.statements[0].body_expanded == "$LxLy.z$ <D|a> <b|c> S Nx"


def test_newaliascnt_shares_the_counter_and_its_format():
    preamble = (
        "\\usepackage{aliascnt}\n\\newtheorem{thm}{Theorem}[section]\n"
        "\\newaliascnt{lem}{thm}\n\\newtheorem{lem}[lem]{Lemma}\n\\aliascntresetthe{lem}"
    )
    text = "\\section{A}\\begin{lem}L\\end{lem}\\begin{thm}T\\end{thm}\\section{B}\\begin{lem}M\\end{lem}"
    result = parse_with_plastex(text, theorem_envs={"thm": "theorem", "lem": "lemma"}, preamble=preamble)
    assert [(s.env, s.number) for s in result.statements] == [("lem", "1.1"), ("thm", "1.2"), ("lem", "2.1")]


@pytest.mark.parametrize("module", [plastex_parser, tex_scan], ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_number_plastex_cannot_print_is_replaced_by_the_fallbacks():
    # A \the<counter> plasTeX renders badly (as Stacks' class gave ``Alph@̧section.1``) must not reach a record.
    from corpus_build.extract import extract_statements
    from corpus_build.theorems import DEFAULT_ENVS, parse_theorem_decls

    text = ("\\documentclass{amsart}\n\\newtheorem{lemma}[subsection]{Lemma}\n\\begin{document}\n"
            "\\renewcommand{\\thesubsection}{\\c{s}\\arabic{section}(\\arabic{subsection})}\n"
            "\\section{One}\n\\begin{lemma}First.\\end{lemma}\n"
            "\\section{Two}\n\\subsection{Sub}\n\\begin{lemma}Second.\\end{lemma}\n\\end{document}\n")
    plain = parse_with_plastex(text.split("\\begin{document}")[1], theorem_envs={"lemma": "lemma"},
                               preamble="\\newtheorem{lemma}[subsection]{Lemma}")
    assert [s.number for s in plain.statements] == ["ş1(1)", "ş2(2)"]
    ext = extract_statements(text, parse_theorem_decls(text, dict(DEFAULT_ENVS)), {})
    assert (ext.parser, [s.number for s in ext.statements]) == ("plastex", ["1.1", "2.2"])
