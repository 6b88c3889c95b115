"""Hostile inputs: each gets a clear report entry, nothing crashes, nothing lands outside the output folder."""

import io
import json
import os
import tarfile
from pathlib import Path

from corpus_build.parse import parse_sources
from corpus_build.sources import extract_tar, walk_tree

GOOD = rb"""\documentclass{article}\newtheorem{lemma}{Lemma}\begin{document}
\begin{lemma}\label{l:ok} A good lemma in a tarball is parsed.\end{lemma}\end{document}
"""


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tf.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _member(name: str, data: bytes | None = b"x", kind: bytes = tarfile.REGTYPE, link: str = "") -> tuple:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info, data


def _failed(report) -> dict[str, str]:
    return {f["path"]: f["reason"] for s in report.sources for f in s.failed}


def test_tarball_members_escaping_the_folder_are_refused(tmp_path: Path):
    archive = _tar(
        tmp_path / "paper.tar.gz",
        [
            _member("paper/main.tex", GOOD),
            _member("../../evil.tex", b"owned"),
            _member("/abs/evil.tex", b"owned"),
            _member("paper/link.tex", None, tarfile.SYMTYPE, "../../../etc/passwd"),
            _member("paper/hard.tex", None, tarfile.LNKTYPE, "/etc/passwd"),
        ],
    )
    out = tmp_path / "out"
    before = set(os.listdir(tmp_path))
    report = parse_sources([archive], out, use_plastex=False, progress=False)
    failed = _failed(report)
    assert "escapes the target folder" in failed["../../evil.tex"]
    assert "absolute path" in failed["/abs/evil.tex"]
    assert "link" in failed["paper/link.tex"] and "link" in failed["paper/hard.tex"]
    assert set(os.listdir(tmp_path)) == before | {"out"}
    assert sorted(os.listdir(out)) == ["documents.jsonl", "report.json", "report.md", "theorems.jsonl"]
    ids = [json.loads(line)["id"] for line in (out / "theorems.jsonl").read_text().splitlines()]
    assert ids == ["paper:l:ok"]


def test_extract_tar_never_writes_outside(tmp_path: Path):
    archive = _tar(tmp_path / "a.tar.gz", [_member("x/../../y.tex", b"no"), _member("ok/a.tex", b"yes")])
    dest = tmp_path / "dest"
    dest.mkdir()
    problems = extract_tar(archive, dest, max_member_bytes=100)
    assert [p.path for p in problems] == ["x/../../y.tex"]
    assert (dest / "ok" / "a.tex").read_bytes() == b"yes" and not (tmp_path / "y.tex").exists()


def test_not_a_tarball(tmp_path: Path):
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"this is not gzip")
    report = parse_sources([bad], tmp_path / "out", use_plastex=False, progress=False)
    assert "tar archive" in _failed(report)["bad.tar.gz"]


def test_symlink_loop_binary_huge_and_empty_files(tmp_path: Path):
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "main.tex").write_bytes(GOOD)
    (src / "sub" / "loop").symlink_to(src, target_is_directory=True)
    (src / "self.tex").symlink_to(src / "self.tex")
    (src / "figure.tex").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00" * 50)
    (src / "empty.tex").write_bytes(b"")
    (src / "latin1.tex").write_bytes("\\begin{lemma}F\xfcr alle $x$ gilt das.\\end{lemma}".encode("latin-1"))
    with open(src / "huge.tex", "wb") as f:
        f.truncate(50 * 1024 * 1024)
    out = tmp_path / "out"
    report = parse_sources([src], out, use_plastex=False, progress=False, max_file_bytes=20 * 1024 * 1024)
    failed = _failed(report)
    assert "symlink loop" in failed["sub/loop"]
    assert "symlink" in failed["self.tex"]
    assert "binary" in failed["figure.tex"]
    assert "too large" in failed["huge.tex"]
    rep = report.sources[0]
    assert "empty.tex" in rep.without_statements
    assert {n["path"]: n["note"] for n in rep.notes}["latin1.tex"].startswith("not UTF-8")
    bodies = {json.loads(x)["id"]: json.loads(x)["body_latex"] for x in (out / "theorems.jsonl").open()}
    assert bodies == {"src:l:ok": "A good lemma in a tarball is parsed.",
                      "src:latin1.tex#lemma-74636183": "Für alle $x$ gilt das."}
    md = (out / "report.md").read_text()
    for name in ("sub/loop", "figure.tex", "huge.tex", "self.tex"):
        assert f"`{name}`" in md


def test_walk_tree_symlink_outside_root(tmp_path: Path):
    (tmp_path / "outside.tex").write_text("x")
    root = tmp_path / "root"
    root.mkdir()
    (root / "in.tex").symlink_to(tmp_path / "outside.tex")
    tree = walk_tree(root)
    assert tree.files == [] and tree.problems[0].reason == "symlink points outside the source folder"


def test_missing_and_unsupported_sources(tmp_path: Path):
    (tmp_path / "notes.pdf").write_bytes(b"%PDF")
    report = parse_sources([tmp_path / "nope", tmp_path / "notes.pdf"], tmp_path / "out", use_plastex=False,
                           progress=False)
    failed = _failed(report)
    assert failed[str(tmp_path / "nope")] == "no such file or folder"
    assert "not a folder, tarball" in failed[str(tmp_path / "notes.pdf")]


def test_extract_tar_caps_the_member_count_without_reading_the_whole_index(tmp_path: Path):
    archive = _tar(tmp_path / "many.tar", [_member(f"p/f{i:03d}.tex", b"x") for i in range(50)])
    dest = tmp_path / "dest"
    dest.mkdir()
    problems = extract_tar(archive, dest, max_member_bytes=100, max_members=10)
    assert [(p.path, p.reason) for p in problems] == [
        ("many.tar", "archive has more than 10 members; the rest is skipped")]
    assert sorted(os.listdir(dest / "p")) == [f"f{i:03d}.tex" for i in range(10)]


def test_extract_tar_caps_the_total_size_written(tmp_path: Path):
    archive = _tar(tmp_path / "big.tar", [_member(f"p/f{i}.tex", b"y" * 40) for i in range(5)])
    dest = tmp_path / "dest"
    dest.mkdir()
    problems = extract_tar(archive, dest, max_member_bytes=100, max_total_bytes=100)
    assert [(p.path, p.reason) for p in problems] == [
        ("big.tar", "archive expands to more than 100 bytes; the rest is skipped from p/f2.tex")]
    assert sorted(os.listdir(dest / "p")) == ["f0.tex", "f1.tex"]
    assert sum((dest / "p" / f).stat().st_size for f in os.listdir(dest / "p")) == 80
