"""PlanetMath: one encyclopedia entry per file; the entry body is the statement, ``\\pm...`` macros the metadata."""

from __future__ import annotations

import re

from corpus_build.adapters.base import Adapter, Unit, env_body
from corpus_build.raw import RawStatement
from theorem_rag.records import Document

# \pmtype values onto corpus kinds; the original type is kept in meta["pmtype"].
PMTYPE_KINDS = {
    "definition": "definition", "theorem": "theorem", "result": "theorem", "corollary": "corollary",
    "conjecture": "conjecture", "axiom": "axiom", "example": "example", "application": "example",
    "proof": "remark", "derivation": "remark", "feature": "remark", "topic": "remark",
    "algorithm": "definition", "data structure": "definition", "bibliography": "remark",
}


def pm_fields(text: str) -> dict[str, list[str]]:
    r"""Every ``\pmNAME{...}`` metadata field, as lists of values (``\pmclassification{msc}{54-00}`` gives ``54-00``).

    >>> pm_fields(r"\pmcanonicalname{Bijection}\pmsynonym{bijective}{Bijection}\pmclassification{msc}{03E20}")
    {'canonicalname': ['Bijection'], 'synonym': ['bijective'], 'classification': ['03E20']}
    """
    out: dict[str, list[str]] = {}
    for m in re.finditer(r"\\pm([a-z]+)\{([^{}]*)\}(?:\{([^{}]*)\})?", text):
        key, a, b = m.group(1), m.group(2).strip(), (m.group(3) or "").strip()
        value = b if key == "classification" else a
        out.setdefault(key, []).append(value)
    return out


class PlanetMathAdapter(Adapter):
    """``planetmath:<canonicalname>``, kind from ``\\pmtype``; synonyms, MSC classes and related entries in meta."""

    source = "planetmath"
    license = "CC-BY-SA-3.0"

    def main_files(self, texts):
        return sorted(r for r, t in texts.items() if "\\pmcanonicalname" in t)

    def doc_id(self, main: str) -> str:
        return f"planetmath-entry:{main}"

    def statements(self, unit: Unit) -> list[RawStatement]:
        """The entry as one statement (none when the file is not an entry)."""
        text = unit.flat.text
        f = pm_fields(text)
        if not f.get("canonicalname"):
            return []
        pmtype = (f.get("type") or [""])[0]
        body = env_body(text, "document")
        start = text.find("\\begin{document}")
        unit.meta.update(pm=f)
        return [
            RawStatement(
                env="pmentry",
                kind=PMTYPE_KINDS.get(pmtype.lower(), "remark"),
                body=body,
                parser="fallback",
                name=(f.get("title") or [None])[0],
                label=f["canonicalname"][0],
                labels=[f["canonicalname"][0]],
                refs=[],
                line=text.count("\n", 0, start) + 1 if start >= 0 else 1,
            )
        ]

    def theorem_id(self, raw: RawStatement, unit: Unit, index: int) -> str:
        return f"planetmath:{raw.label}"

    def ref_ids(self, raw: RawStatement, unit: Unit) -> list[str]:
        return []

    def url(self, raw: RawStatement, theorem_id: str, unit: Unit) -> str | None:
        return f"https://planetmath.org/{raw.label.lower()}"

    def meta(self, raw: RawStatement, unit: Unit) -> dict:
        f = unit.meta.get("pm", {})
        return {
            "pmtype": (f.get("type") or [""])[0],
            "synonyms": f.get("synonym", []),
            "msc": f.get("classification", []),
            "related": f.get("related", []),
            "defines": f.get("defines", []),
            "title": (f.get("title") or [""])[0],
            "collection": unit.main.split("/", 1)[0] if "/" in unit.main else "",
        }

    def document(self, unit: Unit) -> Document:
        f = unit.meta.get("pm", {})
        name = (f.get("canonicalname") or [unit.main])[0]
        return Document(
            id=unit.doc_id,
            source=self.source,
            title=(f.get("title") or [""])[0],
            authors=tuple(f.get("author", [])),
            license=self.license,
            url=f"https://planetmath.org/{name.lower()}",
            meta={"msc": f.get("classification", [])},
        )
