"""Theorem-like environment declarations (``\\newtheorem``, thmtools ``\\declaretheorem``) and their kinds.

>>> envs = parse_theorem_decls(r"\\newtheorem{thm}{Theorem}[section] \\newtheorem{lem}[thm]{Lemma}")
>>> envs["lem"].kind, envs["lem"].counter, envs["thm"].within
('lemma', 'thm', 'section')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from corpus_build.macros import read_group

# Printed names (lowercased, also German and French) and common environment names onto the corpus's kinds.
_KIND_WORDS = {
    "theorem": "theorem", "thm": "theorem", "satz": "theorem", "théorème": "theorem", "theoreme": "theorem",
    "teorema": "theorem", "main theorem": "theorem", "theorem*": "theorem",
    "lemma": "lemma", "lem": "lemma", "lemme": "lemma", "hilfssatz": "lemma", "sublemma": "lemma",
    "proposition": "proposition", "prop": "proposition", "proposició": "proposition",
    "corollary": "corollary", "cor": "corollary", "coro": "corollary", "korollar": "corollary",
    "folgerung": "corollary", "corollaire": "corollary", "corolario": "corollary",
    "definition": "definition", "defn": "definition", "def": "definition", "dfn": "definition",
    "définition": "definition", "definitions": "definition",
    "remark": "remark", "rem": "remark", "remarks": "remark", "rmk": "remark", "bemerkung": "remark",
    "remarque": "remark", "observation": "remark", "note": "remark",
    "example": "example", "ex": "example", "exm": "example", "exa": "example", "examples": "example",
    "beispiel": "example", "exemple": "example",
    "exercise": "exercise", "exer": "exercise", "exercice": "exercise", "aufgabe": "exercise",
    "problem": "exercise", "prob": "exercise", "question": "exercise", "ques": "exercise",
    "situation": "situation",
    "conjecture": "conjecture", "conj": "conjecture", "vermutung": "conjecture", "hypothesis": "conjecture",
    "axiom": "axiom", "ax": "axiom",
    "notation": "notation", "convention": "notation", "abuse of notation": "notation",
    "claim": "claim", "fact": "fact",
}


def kind_for(printed: str, env: str = "") -> str | None:
    """The corpus kind for a printed theorem name (or, failing that, the environment name); None if unknown.

    >>> kind_for("Satz"), kind_for(r"\\lemmaname"), kind_for("Main Theorem"), kind_for("Algorithm")
    ('theorem', 'lemma', 'theorem', None)
    """
    for cand in (printed, env):
        s = re.sub(r"[{}$]|\\(text\w*|emph|textbf)\b", "", cand or "").strip().lower()
        s = re.sub(r"^\\(\w+?)(name)?$", r"\1", s)
        if s in _KIND_WORDS:
            return _KIND_WORDS[s]
        for word in reversed(re.findall(r"[a-zéè]+", s)):
            if word in _KIND_WORDS and len(word) > 3:
                return _KIND_WORDS[word]
    return None


# Declared with \newtheorem in some papers, but never a statement of their own.
NOT_STATEMENTS = frozenset({"proof", "proof*", "pf", "sketch"})


@dataclass(frozen=True)
class TheoremEnv:
    """A declared theorem-like environment: its printed name, kind and numbering.

    ``counter`` is the counter it steps (its own name, or a shared one: ``[thm]`` or ``[subsection]``);
    ``within`` the counter that resets it (``[section]``); ``numbered`` is False for starred forms.
    """

    name: str
    printed: str
    kind: str | None
    counter: str
    within: str | None = None
    numbered: bool = True
    style: str | None = None


_NEWTHM = re.compile(r"\\(newtheorem|declaretheorem|newaliascnt|theoremstyle)(\*?)\s*")


def _opts(s: str) -> dict[str, str]:
    out = {}
    for part in re.split(r",(?![^{]*\})", s):
        k, _, v = part.partition("=")
        out[k.strip()] = v.strip().strip("{}").strip()
    return out


def theorem_wrappers(text: str) -> dict:
    """User macros that declare theorems (``\\def\\defthm#1#2{\\newtheorem{#1}...}``), to expand before parsing."""
    from corpus_build.macros import collect_macros

    return {k: m for k, m in collect_macros(text).items() if re.search(r"\\(newtheorem|declaretheorem)", m.body)}


def parse_theorem_decls(
    text: str, into: dict[str, TheoremEnv] | None = None, wrappers: dict | None = None
) -> dict[str, TheoremEnv]:
    """Every theorem-like environment declared in ``text``; macro templates with ``#1`` are ignored.

    ``wrappers`` (from :func:`theorem_wrappers`) are expanded first, so environments declared through a
    user macro count too; ``\\newaliascnt{a}{b}`` makes ``a`` share ``b``'s counter.
    """
    if wrappers:
        from corpus_build.macros import expand_macros

        text = expand_macros(text, wrappers, max_depth=2)
    envs = dict(into or {})
    style = None
    aliases: dict[str, str] = {}
    for m in _NEWTHM.finditer(text):
        cmd, star, i = m.group(1), m.group(2), m.end()
        if cmd == "theoremstyle":
            g = read_group(text, i)
            style = g[0].strip() if g else style
            continue
        if cmd == "newaliascnt":
            a = read_group(text, i)
            b = read_group(text, a[1]) if a else None
            if a and b and "#" not in a[0] + b[0]:
                aliases[a[0].strip()] = b[0].strip()
            continue
        if cmd == "declaretheorem":
            opts = read_group(text, i, "[", "]")
            j = opts[1] if opts else i
            g = read_group(text, j)
            if g is None:
                continue
            o = _opts(opts[0]) if opts else {}
            for name in (n.strip() for n in g[0].split(",")):
                if not name or "#" in name or name in NOT_STATEMENTS:
                    continue
                printed = o.get("name") or o.get("title") or name.capitalize()
                numbered = not (star or "unnumbered" in o or o.get("numbered", "yes") == "no")
                counter = o.get("sibling") or o.get("sharenumber") or name
                within = o.get("numberwithin") or o.get("parent")
                envs[name] = TheoremEnv(
                    name, printed, kind_for(printed, name), counter, within, numbered, o.get("style", style)
                )
            continue
        g = read_group(text, i)
        if g is None or "#" in g[0]:
            continue
        name, j = g[0].strip(), g[1]
        if name in NOT_STATEMENTS:
            continue
        while j < len(text) and text[j] in " \t\n":
            j += 1
        shared = read_group(text, j, "[", "]")
        if shared:
            j = shared[1]
            while j < len(text) and text[j] in " \t\n":
                j += 1
        p = read_group(text, j)
        if p is None:
            continue
        printed, j = p[0].strip(), p[1]
        within = read_group(text, j, "[", "]") if not shared else None
        envs[name] = TheoremEnv(
            name,
            printed,
            kind_for(printed, name),
            aliases.get(shared[0].strip(), shared[0].strip()) if shared else name,
            within[0].strip() if within else None,
            not star,
            style,
        )
    return envs


DEFAULT_ENVS = parse_theorem_decls(
    "\n".join(
        rf"\newtheorem{{{n}}}{{{n.capitalize()}}}"
        for n in ("theorem", "lemma", "proposition", "corollary", "definition", "remark", "example", "exercise")
    )
)
