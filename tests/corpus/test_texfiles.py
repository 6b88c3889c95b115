from pathlib import Path

import pytest

from corpus_build.texfiles import BadFile, find_main_files, flatten, read_tex, strip_comments


def test_strip_comments_keeps_escaped_percent_verb_and_lines():
    text = "a $50\\%$ b % gone\n\\verb|%x| kept % gone too\n% whole line\nend"
    assert strip_comments(text) == "a $50\\%$ b \n\\verb|%x| kept \n\nend"


def test_percent_inside_math_is_still_a_comment():
    assert strip_comments("$a % b$\nc$") == "$a \nc$"


def test_read_tex_non_utf8_and_binary(tmp_path: Path):
    p = tmp_path / "latin.tex"
    p.write_bytes("Satz über $x$".encode("latin-1"))
    text, note = read_tex(p)
    assert text == "Satz über $x$" and "not UTF-8" in note
    b = tmp_path / "bin.tex"
    b.write_bytes(b"\x00\x01\x02PNG" * 100)
    with pytest.raises(BadFile, match="binary"):
        read_tex(b)


def test_read_tex_size_cap(tmp_path: Path):
    p = tmp_path / "big.tex"
    p.write_text("x" * 2000)
    with pytest.raises(BadFile, match="too large"):
        read_tex(p, max_bytes=1000)


def test_flatten_resolves_includes_maps_lines_and_stops_cycles(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    # ../outside exists beside the source folder (an include must not reach it); ../gone exists nowhere.
    (tmp_path / "outside.tex").write_text("SECRET\n")
    (src / "main.tex").write_text("A\n\\input{a}\nB % c\n\\include{missing}\n\\input{../outside}\n\\input{../gone}\n")
    (src / "a.tex").write_text("a1\na2 \\input{main}\n")
    flat = flatten(src / "main.tex", src)
    assert flat.files == ["main.tex", "a.tex"]
    assert "a1\na2" in flat.text and "% c" not in flat.text and "SECRET" not in flat.text
    assert sorted(r for _, r in flat.problems) == [
        "include cycle: main",
        "include leaves the source folder: ../outside",
        "included file not found: ../gone",
        "included file not found: missing",
    ]
    line = flat.text.split("\n").index("a1") + 1
    assert flat.line_map.locate(line) == ("a.tex", 1)
    assert flat.line_map.locate(flat.text.split("\n").index("B ") + 1) == ("main.tex", 3)


def test_find_main_files_prefers_root_document():
    texts = {
        "main.tex": "\\documentclass{book}\\begin{document}\\include{ch1}\\end{document}",
        "ch1.tex": "\\chapter{One}",
        "old.tex": "\\documentclass{article}\\begin{document}\\end{document}",
    }
    assert find_main_files(texts) == ["main.tex"]
    del texts["main.tex"]
    assert find_main_files(texts) == ["old.tex"]


def test_include_forms(tmp_path: Path):
    (tmp_path / "d").mkdir()
    (tmp_path / "main.tex").write_text("\\input{a}\n{\\bf x}\\import{d/}{b}\\subfile{c.tex}\\input e\n")
    for name, body in (("a.tex", "AAA"), ("d/b.tex", "BBB"), ("c.tex", "CCC"), ("e.tex", "EEE")):
        (tmp_path / name).write_text(body)
    flat = flatten(tmp_path / "main.tex", tmp_path)
    assert flat.files == ["main.tex", "a.tex", "d/b.tex", "c.tex", "e.tex"] and flat.problems == []
    assert "{\\bf x}" in flat.text
