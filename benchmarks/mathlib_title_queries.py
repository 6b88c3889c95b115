"""The second mathlib dev set (issue 56): the ``title -> decl`` pairs of mathlib's ``docs/*.yaml``, as queries.

``100.yaml`` and ``1000.yaml`` name famous theorems (``title: Binomial theorem``, ``decl: add_pow``);
``undergrad.yaml`` and ``overview.yaml`` name the notions of a curriculum (``kernel of a linear map: 'LinearMap.ker'``).
Each title becomes a query whose relevant ids are its declarations, kept only where the parsed records hold the
declaration (the share of names the parse produces is :mod:`benchmarks.mathlib_names`'s to report, not this set's).

    theorem-rag corpus parse ../shared/corpora/mathlib4 --out /tmp/mathlib
    python benchmarks/mathlib_title_queries.py /tmp/mathlib --out benchmarks/results/mathlib_dev/mathlib_titles_dev.jsonl

The file says which yaml each query came from (``style``: ``famous`` or ``curriculum``), so ``theorem-rag eval``
breaks the score down by it (``mathlib_titles_dev.styles.tsv`` beside it).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "mathlib4"


def famous(path: Path) -> list[tuple[str, list[str]]]:
    """``(title, [decl, ...])`` of ``100.yaml``/``1000.yaml`` entries that name a declaration."""
    out = []
    for entry in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).values():
        decls = ([entry["decl"]] if entry.get("decl") else []) + list(entry.get("decls") or [])
        if entry.get("title") and decls:
            out.append((str(entry["title"]), [str(d) for d in decls]))
    return out


def curriculum(path: Path) -> list[tuple[str, list[str]]]:
    """``(topic, [decl])`` for every leaf of ``undergrad.yaml``/``overview.yaml`` that names a declaration (a leaf
    whose value is a web address or a documentation page names none)."""
    out: list[tuple[str, list[str]]] = []

    def walk(node: object) -> None:
        if not isinstance(node, dict):
            return
        for key, value in node.items():
            if isinstance(value, str):
                if value and "/" not in value and " " not in value.strip():
                    out.append((str(key).strip(), [value.strip()]))
            else:
                walk(value)

    walk(yaml.safe_load(path.read_text(encoding="utf-8")))
    return out


def declared(records: Path) -> set[str]:
    """The ids of the parsed records (``theorems.jsonl``), read without loading the statements."""
    ids = set()
    with (records / "theorems.jsonl").open(encoding="utf-8") as f:
        for line in f:
            m = re.match(r'\{"id": "((?:[^"\\]|\\.)*)"', line)
            if m:
                ids.add(json.loads(f'"{m.group(1)}"'))
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", type=Path, help="folder written by `theorem-rag corpus parse` of mathlib")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    ids = declared(args.records)
    rows, styles, seen, named = [], [], set(), 0
    for name, read, style in (("100.yaml", famous, "famous"), ("1000.yaml", famous, "famous"),
                              ("undergrad.yaml", curriculum, "curriculum"), ("overview.yaml", curriculum, "curriculum")):  # fmt: skip
        for title, decls in read(args.corpus / "docs" / name):
            named += 1
            relevant = sorted({f"mathlib:{d}" for d in decls} & ids)
            key = (title.lower(), tuple(relevant))
            if not relevant or key in seen:
                continue
            seen.add(key)
            qid = f"mathlib-titles-{len(rows) + 1:04d}"
            rows.append({"id": qid, "query": title, "relevant": relevant})
            styles.append(f"{qid}\t{style}\t{name}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    tsv = args.out.with_name(args.out.name.removesuffix(".jsonl") + ".styles.tsv")
    tsv.write_text("id\tstyle\tfile\n" + "".join(s + "\n" for s in styles), encoding="utf-8")
    print(f"{len(rows)} queries from {named} titles that name a declaration (the rest: not parsed, or repeated); "
          f"{args.out}, {tsv}")


if __name__ == "__main__":
    main()
