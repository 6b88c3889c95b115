"""Untrusted sources stay in their folder: no byte of a file outside a source's folder reaches a record, a report, a
log line, a slogan or the index, whatever TeX primitive the document names it with.

A hostile corpus is written beside a secret (``tmp_path/secret.tex`` and its variants, outside the corpus folder)
and asks for the secret every way TeX allows: ``\\input`` through a macro, ``\\csname input\\endcsname``,
``\\let\\x\\input``, ``\\InputIfFileExists``, ``\\include``, ``\\input"..."``, ``\\openin``/``\\read``,
``\\verbatiminput``, ``\\lstinputlisting``, ``../`` chains, absolute paths, ``~``, symlinks (a file and a folder),
``\\jobname`` and xr's ``\\externaldocument`` (which unpickles a file: the pickles here would run a command). A
``kpsewhich`` on the PATH answers as TeX Live's does (any existing path, ``~`` expanded): with TeX Live installed,
plasTeX used it to find files. The corpus is parsed by the plasTeX path and by the regex path and indexed.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from psycopg import sql

from corpus_build import plastex_child
from corpus_build.plastex_parser import parse_with_plastex

SECRET = "SECRET-" + "7f3a9c" * 3  # what the files outside the corpus hold; the names never contain it
ROOT = Path(__file__).resolve().parents[2]

FAKE_KPSEWHICH = """#!/bin/sh
# TeX Live's kpsewhich for a path: print it when that file exists (~ expanded)
f="$1"
case "$f" in "~/"*) f="$HOME/${f#"~/"}" ;; esac
[ -f "$f" ] && echo "$f"
exit 0
"""


class _RunCommand:
    """A pickle that runs a shell command when loaded (what xr's ``\\externaldocument`` would load)."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):
        return os.system, (self.command,)


# (name, TeX): one statement per way of asking for a file outside the folder (``{base}``: the folder the corpus and
# the secret are in), and one that includes a file inside the folder.
WAYS = [
    ("macro", r"\def\f{{{base}/secret}}\input\f"),
    ("preamble-macro", r"\input\secretpath"),
    ("csname", r"\csname input\endcsname{{../secret}}"),
    ("let", r"\let\x\input \x{{../secret}}"),
    ("ifexists", r"\InputIfFileExists{{../secret.tex}}{{yes}}{{no}}"),
    ("include", r"\include{{../secret}}"),
    ("quoted", r'\input"../secret.tex" '),
    ("openin", r"\openin1=../secret.tex \read1 to\l \l \closein1"),
    ("verbatim", r"\verbatiminput{{../secret.tex}}"),
    ("listing", r"\lstinputlisting{{../secret.tex}}"),
    ("dots", r"\def\d{{sub/../../sub/../../secret}}\input\d"),
    ("absolute", r"\input {base}/secret.tex"),
    ("home", r"\def\h{{~/secret}}\input\h \input{{~/secret}}"),
    ("link", r"\def\s{{link}}\input\s"),
    ("linkdir", r"\def\s{{up/secret}}\input\s"),
    ("jobname", r"\input{{../\jobname}} \edef\j{{../\jobname}}\input\j"),
    ("xr", r"\externaldocument{{../secret}}"),
    ("pickle", r"\externaldocument{{evil}}"),
    ("inside", r"\def\i{{inner}}\input\i"),
]
PACKAGES = r"\usepackage{listings}\usepackage{xr}\usepackage{verbatim}"


def _statement(base: Path, name: str) -> str:
    tex = dict(WAYS)[name].format(base=base)
    return rf"\begin{{theorem}}\label{{t:{name}}} Claim {name}. {tex} \end{{theorem}}"


def _hostile(tmp_path: Path) -> Path:
    """The corpus folder ``tmp_path/corpus`` (a file per way of asking) and, outside it, the secret under every
    name the corpus asks for."""
    base = tmp_path.resolve()
    for name in ("secret", "secret.tex", "secret.txt", "secret.sty", "document.tex"):
        (base / name).write_text(f"The secret is {SECRET}.\n")
    (base / "home").mkdir()
    (base / "home" / "secret.tex").write_text(f"The secret is {SECRET}.\n")
    pwned = base / "pwned"
    (base / "secret.paux").write_bytes(pickle.dumps(_RunCommand(f"echo {SECRET} > {pwned}")))
    corpus = base / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "evil.paux").write_bytes(pickle.dumps(_RunCommand(f"echo {SECRET} > {pwned}")))
    (corpus / "inner.tex").write_text("Inside the folder.\n")
    os.symlink(base / "secret.tex", corpus / "link.tex")
    os.symlink(base, corpus / "up")
    for name, _ in WAYS:
        (corpus / f"way-{name}.tex").write_text(
            "\\documentclass{article}\n\\newtheorem{theorem}{Theorem}\n"
            f"\\newcommand{{\\secretpath}}{{{base}/secret}}\n"
            f"\\begin{{document}}\n{PACKAGES}\n{_statement(base, name)}\n\\end{{document}}\n"
        )
    bin_dir = base / "bin"
    bin_dir.mkdir()
    (bin_dir / "kpsewhich").write_text(FAKE_KPSEWHICH)
    (bin_dir / "kpsewhich").chmod(0o755)
    return corpus


def _hostile_env(base: Path) -> dict[str, str]:
    return {**os.environ, "PATH": f"{base / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(base / "home")}


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` but the records, with its bytes (symlinks not followed)."""
    return {str(p): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and not p.is_symlink() and "records" not in p.relative_to(folder).parts}  # fmt: skip


def _leaks(folder: Path) -> list[str]:
    """Files under ``folder`` that hold the secret."""
    return [str(p) for p in folder.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]


def _parse(base: Path, corpus: Path, names: list[str]):
    from corpus_build.extract import preamble_for
    from corpus_build.macros import collect_macros
    from corpus_build.theorems import DEFAULT_ENVS

    macros = collect_macros(f"\\newcommand{{\\secretpath}}{{{base}/secret}}")
    body = "\n".join([PACKAGES] + [_statement(base, n) for n in names])
    return parse_with_plastex(body, theorem_envs={"theorem": "theorem"}, preamble=preamble_for(DEFAULT_ENVS, macros),
                              base_dir=str(corpus))  # fmt: skip


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    """The hostile corpus, with the environment every plasTeX child runs in (the kpsewhich above on the PATH)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the fork and the fork server need Linux")
    corpus = _hostile(tmp_path)
    for key, value in _hostile_env(tmp_path.resolve()).items():
        monkeypatch.setenv(key, value)
    plastex_child._SERVER.close()  # the next fork server starts with this environment
    yield tmp_path.resolve(), corpus
    plastex_child._SERVER.close()


def _way(monkeypatch, way: str) -> None:
    monkeypatch.setattr(plastex_child, "_can_fork", lambda: way == "fork")
    monkeypatch.setattr(plastex_child, "_use_server", lambda: way == "server")


def test_plastex_opens_no_file_outside_the_folder_whatever_the_primitive(hostile, monkeypatch):
    base, corpus = hostile
    _way(monkeypatch, "fork")
    refused = []
    for name, _ in WAYS:
        result = _parse(base, corpus, [name])
        # \lstinputlisting raises the refusal out of plasTeX (the document then falls back to the regex parser)
        assert result.error is None or name == "listing", (name, result.error)
        assert not [s for s in result.statements if SECRET in s.body_expanded + s.body], name
        # every file plasTeX read is in the folder; what it asked for outside, the sandbox refused and recorded
        assert all(Path(p).is_relative_to(corpus) for p in result.opened), (name, result.opened)
        refused += result.refused
        if name == "inside":
            assert result.opened == [str(corpus / "inner.tex")]
            assert "Inside the folder." in result.statements[0].body_expanded
    outside = "look up a file outside the source folder: "
    assert {r for r in refused if r.startswith(outside)} >= {outside + n for n in (
        f"{base}/secret", f"{base}/secret.tex", "../secret", "../secret.tex", "sub/../../sub/../../secret",
        "link.tex", "up/secret", "up/secret.tex")}  # fmt: skip
    assert "open a file outside the source folder: ../secret.paux" in refused  # xr opens without a look-up
    assert "open a file outside the source folder: ../secret.tex" in refused  # so does \lstinputlisting
    assert "unpickle: posix" in refused  # the pickle inside the folder is opened, never loaded
    assert not (base / "pwned").exists()


@pytest.mark.parametrize("way", ["fork", "server", "interpreter"])
def test_every_kind_of_child_is_confined(hostile, monkeypatch, way):
    base, corpus = hostile
    _way(monkeypatch, way)
    names = [n for n, _ in WAYS if n != "listing"]
    result = _parse(base, corpus, names)
    assert result.error is None
    assert [s.label for s in result.statements] == [f"t:{n}" for n in names]
    assert not [s.label for s in result.statements if SECRET in s.body_expanded]
    assert sorted(result.opened) == [str(corpus / "evil.paux"), str(corpus / "inner.tex")]
    assert f"look up a file outside the source folder: {base}/secret" in result.refused
    assert "unpickle: posix" in result.refused
    assert not (base / "pwned").exists()


def _cli(*args: str, env: dict[str, str] | None = None) -> str:
    """A CLI command in its own process, with ``env`` (the fork server and every child inherit it)."""
    proc = subprocess.run([sys.executable, "-c", "from theorem_rag.cli import main; main()", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def _database_leaks(dsn: str, prefix: str) -> list[str]:
    """Tables of the index (statements, text, slogan cache, documents, vectors, ...) with a row holding the secret."""
    import psycopg

    found = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE %s", [prefix + "%"])]
        for t in tables:
            query = sql.SQL("SELECT count(*) FROM {t} AS x WHERE x::text LIKE %s").format(t=sql.Identifier(t))
            if conn.execute(query, [f"%{SECRET}%"]).fetchone()[0]:
                found.append(t)
    assert len(tables) >= 8
    return found


@pytest.mark.db
@pytest.mark.models
@pytest.mark.slow
@pytest.mark.parametrize("parser", ["plastex", "fallback"])
def test_no_byte_from_outside_the_folder_reaches_records_report_logs_or_index(tmp_path, pg_dsn, caplog, parser):
    from theorem_rag.cli import main

    corpus = _hostile(tmp_path)
    base = tmp_path.resolve()
    before = _files(base)
    out = base / "records"
    flags = ["--no-plastex"] if parser == "fallback" else []
    log = _cli("corpus", "parse", str(corpus), "--out", str(out), "--quiet", *flags, env=_hostile_env(base))
    assert SECRET not in log
    assert _leaks(out) == []
    records = [line for line in (out / "theorems.jsonl").read_text().splitlines() if line]
    assert len(records) == len(WAYS)
    parsers = {json.loads(r)["parser"] for r in records}
    assert parsers == ({"plastex", "fallback"} if parser == "plastex" else {"fallback"})
    report = (out / "report.json").read_text()
    assert "symlink points outside the source folder" in report  # link.tex and up/, left out of the walk
    if parser == "plastex":
        assert "plasTeX was refused: " in report and "look up a file outside the source folder: link.tex" in report
    assert not (base / "pwned").exists()

    table = f"hostile_{uuid.uuid4().hex[:8]}"
    caplog.set_level(logging.DEBUG)
    res = CliRunner().invoke(main, ["index", "build", "--records", str(out), "--database-url", pg_dsn, "--table", table,
                                    "--slogan-writer", "offline", "--embed-backend", "torch"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert f"{len(WAYS)} statements" in res.output
    assert SECRET not in res.output and SECRET not in caplog.text
    assert _database_leaks(pg_dsn, table) == []
    assert _files(base) == before  # and nothing was written beside the records: not in the source folder, not beside


def test_marker_files_linked_out_of_the_folder_are_not_read(tmp_path):
    """A manifest or a Stacks tags file is read by the driver, not by plasTeX: a link out of the folder is not
    followed either (the folder is then an ordinary paper)."""
    from corpus_build.parse import parse_sources

    base = tmp_path.resolve()
    (base / "manifest.jsonl").write_text(json.dumps({"id": "p1", "title": f"The secret is {SECRET}"}) + "\n")
    (base / "tags").write_text(f"{SECRET},algebra-lemma-one\n")
    papers, stacks = base / "papers", base / "stacks"
    (papers / "p1").mkdir(parents=True)
    (papers / "MANIFEST.jsonl").symlink_to(base / "manifest.jsonl")
    (papers / "p1" / "main.tex").write_text("\\begin{theorem}\\label{one}Every prime $p>2$ is odd.\\end{theorem}\n")
    (stacks / "tags").mkdir(parents=True)
    (stacks / "tags" / "tags").symlink_to(base / "tags")
    (stacks / "preamble.tex").write_text("\\newtheorem{lemma}{Lemma}\n")
    (stacks / "algebra.tex").write_text("\\begin{lemma}\\label{lemma-one}Every field is a ring.\\end{lemma}\n")
    out = base / "records"
    report = parse_sources([papers, stacks], out, use_plastex=False, progress=False)
    assert _leaks(out) == []
    assert [s.corpus for s in report.sources] == ["paper", "paper"]
    assert [s.records_kept for s in report.sources] == [1, 1]
