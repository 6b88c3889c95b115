"""Prompt building and the post-check on LLM answers (pure)."""

from __future__ import annotations

import pytest

from theorem_rag.records import Document, Theorem
from theorem_rag.slogans.prompts import MAX_CONTEXT_CHARS, SYSTEM_PROMPT, build_messages, clean_slogan, truncate

T = Theorem(id="a", source="x", kind="lemma", doc_id="d", name="Nakayama", body_latex=r"Let $M$ be finite. $IM = M$.")
DOC = Document(id="d", source="x", title="Modules", abstract="Abstract words.", introduction="Intro. " * 5000)


def test_rules_are_in_the_system_prompt():
    for rule in ("At most four sentences", "Plain ASCII", "No LaTeX", '"this theorem"', "No proof steps"):
        assert rule in SYSTEM_PROMPT


def test_body_strategy_sends_the_statement_only():
    system, user = build_messages(T, DOC, "body")
    assert system["content"] == SYSTEM_PROMPT
    assert user["content"] == (
        "The lemma [Nakayama] in LaTeX:\n<statement>\nLet $M$ be finite. $IM = M$.\n</statement>\n\nWrite its slogan."
    )


def test_abstract_and_introduction_strategies_add_truncated_context():
    assert 'abstract of the paper the statement comes from, for context only: ("Modules")' in (
        build_messages(T, DOC, "abstract")[1]["content"]
    )
    intro = build_messages(T, DOC, "introduction")[1]["content"]
    assert "Intro. Intro." in intro and "[...]" in intro
    assert len(intro) < MAX_CONTEXT_CHARS["introduction"] + 400


def test_missing_context_falls_back_to_the_statement():
    assert build_messages(T, None, "introduction") == build_messages(T, DOC, "body")


def test_unknown_context_is_refused():
    with pytest.raises(ValueError, match="slogan context must be one of"):
        build_messages(T, DOC, "paper")


def test_truncate_cuts_at_a_sentence():
    assert truncate("One. Two three. Four five six.", 20) == "One. Two three. [...]"
    assert truncate("short", 20) == "short"


@pytest.mark.parametrize(
    ("answer", "slogan"),
    [
        ("Slogan: A finite module $M$ with $IM = M$ is killed by some $1 + i$.",
         "A finite module M with IM = M is killed by some 1 + i."),
        ('"This theorem shows that every PID is a UFD."', "Every PID is a UFD."),
        ("**Summary:** r\u00e9gular rings are normal.", "Regular rings are normal."),
        ("One. Two. Three. Four. Five.", "One. Two. Three. Four."),
        ("<think>hmm</think> Flat modules are torsion free.", "Flat modules are torsion free."),
    ],
)
def test_clean_slogan(answer, slogan):
    assert clean_slogan(answer) == slogan


@pytest.mark.parametrize("answer", ["", "   ", "$$ $$", "Slogan:", None])
def test_clean_slogan_rejects_empty_answers(answer):
    with pytest.raises(ValueError, match="no usable slogan"):
        clean_slogan(answer)
