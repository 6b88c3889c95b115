"""An evenly spread subset of a records folder, for a small seed index when the full index is not built yet.

    python benchmarks/scale_seed_subset.py data/records /tmp/seed_records --n 5000
    python benchmarks/scale_seed_subset.py --latex ../shared/corpora /tmp/seed_records --n 5000
    theorem-rag index build --records /tmp/seed_records --data-dir /work/data/scale_seed

Every k-th statement (k = total / n) of the records, in their order (so each corpus keeps its share), with the
documents they belong to. ``--latex`` reads theorem-like environments of every corpus folder's ``.tex`` files with a
regular expression instead (no parser: raw LaTeX, the optional argument as name, one document per file), for when
no records exist yet. ``bench_scale.py --seed-data-dir`` then reads slogans and vectors from that index. Writes
``theorems.jsonl`` and ``documents.jsonl`` into the output folder.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from theorem_rag.record_files import read_records
from theorem_rag.records import Document, Theorem

_ENV = re.compile(
    r"\\begin\{(lemma|theorem|proposition|definition|corollary|remark|example)\}(\[[^\]]*\])?(.*?)\\end\{\1\}", re.S
)


def latex_records(root: Path) -> tuple[list[Theorem], list[Document]]:
    """Theorem-like environments of each corpus folder under ``root`` (regex, no parser), one document per file."""
    theorems, documents = [], []
    for corpus in sorted(p for p in root.iterdir() if p.is_dir()):
        for tex in sorted(corpus.rglob("*.tex")):
            found = [m for m in _ENV.finditer(tex.read_text(errors="replace")) if m.group(3).strip()]
            if not found:
                continue
            doc_id = f"{corpus.name}:{tex.relative_to(corpus).as_posix()}"
            documents.append(Document(id=doc_id, source=corpus.name, title=tex.stem))
            for i, m in enumerate(found, 1):
                name = (m.group(2) or "")[1:-1].strip() or None
                theorems.append(Theorem(id=f"{doc_id}#{i}", source=corpus.name, kind=m.group(1), doc_id=doc_id,
                                        body_latex=m.group(3).strip(), name=name))  # fmt: skip
    return theorems, documents


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("records", type=Path, help="a records folder, or with --latex a folder of corpus folders")
    p.add_argument("out", type=Path)
    p.add_argument("--n", type=int, default=5000)
    p.add_argument("--latex", action="store_true", help="extract statements from LaTeX sources by a regex")
    args = p.parse_args(argv)
    if args.latex:
        all_theorems, all_documents = latex_records(args.records)
    else:
        got = read_records(args.records)
        all_theorems, all_documents = got.theorems, got.documents
    step = max(1, len(all_theorems) // args.n)
    theorems = all_theorems[::step][: args.n]
    docs = {t.doc_id for t in theorems}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "theorems.jsonl").write_text("".join(t.to_json() + "\n" for t in theorems))
    (args.out / "documents.jsonl").write_text(
        "".join(json.dumps(d.to_dict(), ensure_ascii=False) + "\n" for d in all_documents if d.id in docs)
    )
    by_source: dict[str, int] = {}
    for t in theorems:
        by_source[t.source] = by_source.get(t.source, 0) + 1
    print(f"{len(theorems)} of {len(all_theorems)} statements (every {step}th), {len(docs)} documents: {by_source}")


if __name__ == "__main__":
    main()
