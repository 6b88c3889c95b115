"""Every citation format of a statement, in one place (neutral, pure): cards, REST, MCP and tools use these.

- :func:`reference`: one line for agents, with the stable id (``Lemma 10.20.1 [stacks:00DV], ..., url``).
- :func:`citation`: one line for a reader (``Stacks Project, Lemma 10.20.1 (Tag 00DV)``).
- :func:`source_cite`: the ``\\cite`` the source itself asks for (Stacks: ``\\cite[Tag 00DV]{stacks-project}``;
  a Lean declaration: its full name in the mathlib paper, ``\\cite[\\texttt{Nat.Prime.two\\_le}]{mathlib}``).
- :func:`bibtex`: the BibTeX entry that ``\\cite`` needs (the Stacks project's own entry, a paper's from its
  metadata with the arXiv id, a PlanetMath entry with its url, the books').
- :func:`markdown`: a Markdown link.

>>> t = Theorem(id="stacks:00DV", source="stacks", kind="lemma", number="10.20.1", name="Nakayama's lemma",
...             body_latex="b", doc_id="stacks:algebra", url="https://stacks.math.columbia.edu/tag/00DV",
...             meta={"tag": "00DV"})
>>> citation(t), source_cite(t), markdown(t)
("Stacks Project, Lemma 10.20.1 (Nakayama's lemma) (Tag 00DV)", '\\\\cite[Tag 00DV]{stacks-project}', "[Stacks Project, Lemma 10.20.1 (Nakayama's lemma) (Tag 00DV)](https://stacks.math.columbia.edu/tag/00DV)")
>>> print(bibtex(t))
@misc{stacks-project,
  shorthand    = {Stacks},
  author       = {The {Stacks project authors}},
  title        = {The Stacks project},
  howpublished = {\\url{https://stacks.math.columbia.edu}},
  year         = {2026},
}

A Lean declaration is cited by its full name in the paper the mathlib community asks for:

>>> lean = Theorem(id="mathlib:Nat.Prime.two_le", source="mathlib", kind="theorem", name="Nat.Prime.two_le",
...                body_latex="theorem Nat.Prime.two_le {p : ℕ} (hp : p.Prime) : 2 ≤ p", doc_id="mathlib-module:M",
...                url="https://github.com/leanprover-community/mathlib4/blob/54df8a3/Mathlib/Data/Nat/Prime/Defs.lean#L40",
...                meta={"language": "lean", "lean_kind": "theorem", "module": "Mathlib.Data.Nat.Prime.Defs"})
>>> citation(lean)
'Mathlib, theorem Nat.Prime.two_le (Mathlib.Data.Nat.Prime.Defs), https://github.com/leanprover-community/mathlib4/blob/54df8a3/Mathlib/Data/Nat/Prime/Defs.lean#L40'
>>> source_cite(lean), bibtex(lean).splitlines()[0]
('\\\\cite[\\\\texttt{Nat.Prime.two\\\\_le}]{mathlib}', '@inproceedings{mathlib,')
"""

from __future__ import annotations

import re

from theorem_rag.records import Document, Theorem, is_lean

SOURCE_LABELS = {
    "stacks": "Stacks Project",
    "planetmath": "PlanetMath",
    "openlogic": "Open Logic Project",
    "napkin": "Napkin",
    "hott": "HoTT Book",
    "lebl-ra": "Lebl, Basic Analysis",
    "cring": "CRing Project",
    "mathlib": "Mathlib",
}

# The works behind the corpora, as their authors ask to be cited (the Stacks entry is the project's own).
_WORKS = {
    "stacks": ("misc", "stacks-project", [
        ("shorthand", "Stacks"), ("author", "The {Stacks project authors}"), ("title", "The Stacks project"),
        ("howpublished", r"\url{https://stacks.math.columbia.edu}"), ("year", "2026")]),
    "hott": ("book", "hottbook", [
        ("author", "The {Univalent Foundations Program}"),
        ("title", "Homotopy Type Theory: Univalent Foundations of Mathematics"),
        ("publisher", "Institute for Advanced Study"), ("address", "Princeton"), ("year", "2013"),
        ("howpublished", r"\url{https://homotopytypetheory.org/book}")]),
    "napkin": ("misc", "napkin", [
        ("author", "Evan Chen"), ("title", "An Infinitely Large Napkin"),
        ("howpublished", r"\url{https://venhance.github.io/napkin/Napkin.pdf}")]),
    "lebl-ra": ("book", "lebl-ra", [
        ("author", r"Ji{\v{r}}{\'{\i}} Lebl"), ("title", "Basic Analysis: Introduction to Real Analysis"),
        ("howpublished", r"\url{https://www.jirka.org/ra/}")]),
    "openlogic": ("misc", "openlogic", [
        ("author", "{The Open Logic Project}"), ("title", "The Open Logic Text"),
        ("howpublished", r"\url{https://openlogicproject.org}")]),
    "cring": ("misc", "cring-project", [
        ("author", "{The CRing Project contributors}"), ("title", "The CRing Project"),
        ("howpublished", r"\url{https://github.com/aisejohan/cring}"), ("year", "2013")]),
    # the paper the mathlib community asks users to cite (its README)
    "mathlib": ("inproceedings", "mathlib", [
        ("author", "{The mathlib Community}"), ("title", "The {L}ean Mathematical Library"),
        ("booktitle", "Proceedings of the 9th ACM SIGPLAN International Conference on Certified Programs and Proofs"),
        ("series", "CPP 2020"), ("pages", "367--381"), ("publisher", "ACM"), ("year", "2020"),
        ("doi", "10.1145/3372885.3373824")]),
}  # fmt: skip


def clean_title(title: str) -> str:
    """A document title without LaTeX line breaks and ties: ``A \\\\ B~C`` -> ``A B C``."""
    return " ".join(title.replace("\\\\", " ").replace("~", " ").split())


def heading(theorem: Theorem) -> str:
    """``Lemma 10.18.2 (Nakayama)``: kind, number and name as plain text; a Lean declaration as Lean says it,
    its kind and full name (``theorem Nat.Prime.two_le``).

    >>> heading(Theorem(id="x", source="s", kind="theorem", body_latex="b", doc_id="d", name="Cantor"))
    'Theorem (Cantor)'
    >>> heading(Theorem(id="mathlib:Nat.Prime.two_le", source="mathlib", kind="theorem", body_latex="", doc_id="d",
    ...                 name="Nat.Prime.two_le", meta={"language": "lean", "lean_kind": "theorem"}))
    'theorem Nat.Prime.two_le'
    """
    if is_lean(theorem):
        meta = theorem.meta or {}
        return f"{meta.get('lean_kind') or theorem.kind} {_lean_name(theorem)}"
    parts = [theorem.kind.capitalize()]
    if theorem.number:
        parts.append(theorem.number)
    out = " ".join(parts)
    return f"{out} ({theorem.name})" if theorem.name else out


def _lean_name(theorem: Theorem) -> str:
    """A Lean declaration's full name: its name, else its id without the source."""
    return theorem.name or theorem.id.split(":", 1)[-1]


def stacks_tag(theorem: Theorem) -> str | None:
    """The Stacks tag of a Stacks statement (``00DV``), else None."""
    if theorem.source != "stacks":
        return None
    tag = (theorem.meta or {}).get("tag") or theorem.id.split(":", 1)[-1]
    return tag if len(tag) == 4 and tag.isalnum() else None


def safe_url(url: str | None) -> str | None:
    return url if url and url.lower().startswith(("https://", "http://")) else None


def short_authors(document: Document) -> str:
    """``A``, ``A and B`` or ``A et al.``."""
    names = [a.replace("~", " ") for a in document.authors]
    if not names:
        return ""
    return names[0] + (" et al." if len(names) > 2 else f" and {names[1]}" if len(names) == 2 else "")


def reference(theorem: Theorem, title: str | None = None) -> str:
    """One line that identifies a statement for an agent: kind, number, name, id, document and link.

    >>> reference(Theorem(id="x:1", source="x", kind="theorem", body_latex="...", doc_id="x"), "On X")
    'Theorem [x:1], On X'
    """
    parts = [f"{heading(theorem)} [{theorem.id}]", title or theorem.doc_id]
    if theorem.url:
        parts.append(theorem.url)
    return ", ".join(parts)


def citation(theorem: Theorem, document: Document | None = None) -> str:
    """A one-line citation a mathematician can paste: source, statement and where to find it.

    >>> doc = Document(id="p", source="p", title="Rank of groups", authors=("A. B", "C. D", "E. F"), year=2016,
    ...                url="https://arxiv.org/abs/1601.00001")
    >>> citation(Theorem(id="p:lem", source="p", kind="lemma", body_latex="b", doc_id="p", number="3.2"), doc)
    'A. B et al., Rank of groups (2016), Lemma 3.2, https://arxiv.org/abs/1601.00001'
    """
    what = heading(theorem)
    tag = stacks_tag(theorem)
    if tag:
        return f"Stacks Project, {what} (Tag {tag})"
    if is_lean(theorem):
        module = (theorem.meta or {}).get("module")
        where = f", {theorem.url}" if safe_url(theorem.url) else ""
        return f"{SOURCE_LABELS['mathlib']}, {what}" + (f" ({module})" if module else "") + where
    if theorem.source in SOURCE_LABELS:
        title = f", {clean_title(document.title)}" if document is not None and document.title else ""
        where = f", {theorem.url}" if safe_url(theorem.url) else ""
        return f"{SOURCE_LABELS[theorem.source]}{title}, {what}{where}"
    if document is not None:
        head = ", ".join(p for p in (short_authors(document), clean_title(document.title)) if p)
        year = f" ({document.year})" if document.year else ""
        url = safe_url(document.url) or safe_url(theorem.url)
        return f"{head}{year}, {what}" + (f", {url}" if url else "")
    return f"{theorem.source}, {what}" + (f", {theorem.url}" if safe_url(theorem.url) else "")


def link(theorem: Theorem, document: Document | None = None) -> str | None:
    """Where the statement can be read: its own url, else its document's."""
    return safe_url(theorem.url) or (safe_url(document.url) if document is not None else None)


def markdown(theorem: Theorem, document: Document | None = None) -> str:
    """The citation as a Markdown link (plain text when there is no url); brackets in the text are escaped."""
    text = citation(theorem, document).replace("[", r"\[").replace("]", r"\]")
    url = link(theorem, document)
    return f"[{text}]({url.replace(')', '%29')})" if url else text


def _arxiv_id(document: Document | None) -> str | None:
    if document is None:
        return None
    found = (document.meta or {}).get("arxiv_id")
    if not found and document.url:
        m = re.search(r"arxiv\.org/abs/([\w./-]+)", document.url)
        found = m[1] if m else None
    return str(found) if found else None


def _work(theorem: Theorem) -> str:
    """The key of :data:`_WORKS` a statement is cited from when it has one: a Lean declaration's is mathlib's."""
    return "mathlib" if is_lean(theorem) else theorem.source


def bibtex_key(theorem: Theorem, document: Document | None = None) -> str:
    """The key :func:`source_cite` and :func:`bibtex` use."""
    if _work(theorem) in _WORKS:
        return _WORKS[_work(theorem)][1]
    if theorem.source == "planetmath":
        return "planetmath-" + re.sub(r"[^A-Za-z0-9]+", "-", theorem.id.split(":", 1)[-1]).strip("-")
    first = (document.authors[0] if document is not None and document.authors else "") or theorem.doc_id
    last = re.sub(r"[^a-z]", "", first.replace("~", " ").split()[-1].lower()) if first.split() else "anon"
    year = str(document.year) if document is not None and document.year else ""
    word = re.sub(r"[^a-z]", "", next((w for w in clean_title(document.title if document else "").lower().split()
                                        if len(w) > 3), theorem.doc_id.lower()))  # fmt: skip
    return f"{last or 'anon'}{year}{word[:12]}"


def source_cite(theorem: Theorem, document: Document | None = None) -> str:
    """The LaTeX citation of this statement in the source's own form: ``\\cite[Tag 00DV]{stacks-project}``,
    ``\\cite[Lemma 3.2]{key}`` for papers and books, ``\\cite{planetmath-Bijection}`` for an entry."""
    key = bibtex_key(theorem, document)
    tag = stacks_tag(theorem)
    if tag:
        return f"\\cite[Tag {tag}]{{{key}}}"
    if is_lean(theorem):
        return f"\\cite[\\texttt{{{_tex_escape(_lean_name(theorem))}}}]{{{key}}}"
    if theorem.source == "planetmath":
        return f"\\cite{{{key}}}"
    return f"\\cite[{heading(theorem) if theorem.number else theorem.kind.capitalize()}]{{{key}}}"


def _tex_escape(text: str) -> str:
    r"""Text set in LaTeX as written: ``Nat.Prime.two_le`` -> ``Nat.Prime.two\_le``.

    >>> print(_tex_escape("a_b#c&d%e$f{g}h~i^j\\k"))
    a\_b\#c\&d\%e\$f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k
    """
    out = text.replace("\\", "\0")
    for c in "_#&%${}":
        out = out.replace(c, "\\" + c)
    return out.replace("~", r"\textasciitilde{}").replace("^", r"\textasciicircum{}").replace("\0", r"\textbackslash{}")


def _bib_escape(value: str) -> str:
    """Braces balanced (a field must parse) and ``%`` escaped; LaTeX in titles is kept as written."""
    value = " ".join(value.replace("%", r"\%").split())
    depth = 0
    out = []
    for c in value:
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                continue
            depth -= 1
        out.append(c)
    return "".join(out) + "}" * depth


def _entry(kind: str, key: str, fields: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in fields)
    body = "".join(f"  {k.ljust(width)} = {{{_bib_escape(v)}}},\n" for k, v in fields if v)
    return f"@{kind}{{{key},\n{body}}}"


def bibtex(theorem: Theorem, document: Document | None = None) -> str:
    """The BibTeX entry for :func:`source_cite`: the work's own entry for the corpora, a paper's from its
    metadata (``eprint`` and ``archivePrefix`` when it has an arXiv id), a PlanetMath entry with its url."""
    key = bibtex_key(theorem, document)
    if _work(theorem) in _WORKS:
        kind, _, fields = _WORKS[_work(theorem)]
        return _entry(kind, key, fields)
    if theorem.source == "planetmath":
        name = theorem.name or (document.title if document is not None else "") or theorem.id.split(":", 1)[-1]
        return _entry("misc", key, [("author", "{PlanetMath contributors}"), ("title", name),
                                    ("howpublished", rf"\url{{{safe_url(theorem.url) or 'https://planetmath.org'}}}"),
                                    ("note", f"PlanetMath entry {theorem.id.split(':', 1)[-1]}")])  # fmt: skip
    fields = [("author", " and ".join(a.replace("~", " ") for a in document.authors) if document else ""),
              ("title", clean_title(document.title) if document and document.title else theorem.doc_id),
              ("year", str(document.year) if document is not None and document.year else "")]  # fmt: skip
    arxiv = _arxiv_id(document)
    if arxiv:
        fields += [("eprint", arxiv), ("archivePrefix", "arXiv"), ("url", f"https://arxiv.org/abs/{arxiv}")]
    elif link(theorem, document):
        fields.append(("howpublished", rf"\url{{{link(theorem, document)}}}"))
    return _entry("misc", key, fields)
