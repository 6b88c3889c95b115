"""A rough stand-in for the corpus parser: Stacks and PlanetMath records by regular expressions, for the eval harness.

Use only until ``data/records/theorems.jsonl`` exists; the real parser expands macros, handles every source and
finds proof references. Usage: ``python benchmarks/eval_quick_records.py /work/shared/corpora /tmp/quick_records``;
writes ``theorems.jsonl`` and ``documents.jsonl`` into the output folder and prints their counts.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from theorem_rag.records import Document, Theorem

KINDS = "lemma|proposition|theorem|definition|remark|example|situation|exercise"
ENV = re.compile(r"\\begin\{(" + KINDS + r")\}(\[[^\]]*\])?(.*?)\\end\{\1\}", re.S)
LABEL = re.compile(r"\\label\{([^}]*)\}")


def stacks(root: Path):
    tags = {}
    for line in (root / "tags" / "tags").read_text().splitlines():
        if line and not line.startswith("#"):
            tag, label = line.split(",", 1)
            tags[label] = tag
    for tex in sorted(root.glob("*.tex")):
        chapter = tex.stem
        text = tex.read_text(errors="replace")
        yield Document(id=f"stacks:{chapter}", source="stacks", title=chapter)
        for m in ENV.finditer(text):
            kind, name, body = m.group(1), m.group(2), m.group(3)
            labels = LABEL.findall(body)
            tag = next((tags[f"{chapter}-{lab}"] for lab in labels if f"{chapter}-{lab}" in tags), None)
            if tag is None:
                continue
            yield Theorem(
                id=f"stacks:{tag}", source="stacks", kind=kind, body_latex=LABEL.sub("", body).strip(),
                doc_id=f"stacks:{chapter}", name=name[1:-1] if name else None, label=labels[0], parser="regex",
            )


def planetmath(root: Path):
    for tex in sorted(root.glob("*/*.tex")):
        text = tex.read_text(errors="replace")
        canon = re.search(r"\\pmcanonicalname\{([^}]*)\}", text)
        if not canon:
            continue
        title = re.search(r"\\pmtitle\{([^}]*)\}", text)
        msc = re.findall(r"\\pmclassification\{msc\}\{([^}]*)\}", text)
        body = text.split("\\begin{document}", 1)[-1].split("\\end{document}", 1)[0].strip()
        pm_type = re.search(r"\\pmtype\{([^}]*)\}", text)
        kind = {"Theorem": "theorem", "Result": "theorem", "Definition": "definition"}.get(
            pm_type.group(1) if pm_type else "", "remark")
        tid = f"planetmath:{canon.group(1)}"
        yield Document(id=tid, source="planetmath", title=title.group(1) if title else "", meta={"msc": msc})
        yield Theorem(
            id=tid, source="planetmath", kind=kind, body_latex=body or "(empty)", doc_id=tid,
            name=title.group(1) if title else None, parser="regex", meta={"msc": msc},
        )


def main(corpora: str, out: str) -> None:
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    seen = set()
    counts = {"theorems": 0, "documents": 0}
    with open(out_dir / "theorems.jsonl", "w") as ft, open(out_dir / "documents.jsonl", "w") as fd:
        for rec in [*stacks(Path(corpora) / "stacks"), *planetmath(Path(corpora) / "planetmath")]:
            key = (type(rec).__name__, rec.id)
            if key in seen:
                continue
            seen.add(key)
            is_theorem = isinstance(rec, Theorem)
            (ft if is_theorem else fd).write(rec.to_json() + "\n")
            counts["theorems" if is_theorem else "documents"] += 1
    print(counts)


if __name__ == "__main__":
    main(*sys.argv[1:3])
