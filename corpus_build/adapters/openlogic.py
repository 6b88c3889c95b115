r"""The Open Logic Project: statements live in ``content/<part>/<chapter>/<section>.tex`` with ``\ollabel``.

``\ollabel{x}`` in that file is the LaTeX label ``part:chapter:section:x``; ids are ``openlogic:`` + that.

Open Logic writes its terms as *text tokens* (``!!{formula}``, ``!!{formula}s``, ``!!^a{element}``: "formula",
"formulas", "An element") and its formula metavariables as ``!A``, ``!B`` (printed $\varphi$, $\psi$ under
``\olgreekformulas``); the words they print are set in ``open-logic-config.sty`` (``\settexttoken``). The records
carry the statements as printed, so that slogans and full-text search read "formula", not "!!formula".

>>> from corpus_build.sources import SourceTree
>>> a = OpenLogicAdapter(SourceTree(None, []))
>>> a.learn({"open-logic-config.sty": r"\settexttoken{formula}{formula}{formulas} \settexttoken{element}*{element}"
...          r"{elements} \olgreekformulas",
...          "sty/f.sty": r"\def\olgreekformulas{\gdef\formula{\lookup{A/\varphi,B/\psi}}}"})
>>> a.printed(r"!!^a{element} of every !!{formula}s set; for every !!{formula}~$!A$, $!B \lor !C$")
'An element of every formulas set; for every formula~$\\varphi$, $\\psi \\lor C$'
>>> a.printed(r"\PackageWarning{open-logic-tokenize}{Token element undefined}{\color {red}A} \emph{element}")
'An \\emph{element}'
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from corpus_build.adapters.base import Adapter, Unit

_TOKEN_DEF = re.compile(r"\\settexttoken\{([^{}]+)\}(\*?)\{([^{}]*)\}\{([^{}]*)\}")
_TOKEN_USE = re.compile(r"!!(\^?)(a?)\{([^{}]+)\}(s?)")
_METAVARIABLE = re.compile(r"!([A-Z])")
# ``\article{token}``/``\Article{token}`` (the token's article alone) test ``\ifcsname TOK@a@token``, which no
# parser here decides as TeX would (the tokens are defined by ``\settexttoken``): plasTeX takes the branch that warns of
# an undefined token, with the article in red; the macro reader leaves the whole test. Either reads as the article.
_ARTICLE = re.compile(
    r"\\PackageWarning\s*\{open-logic-tokenize\}\s*\{Token ([^{}]+) undefined\}\s*\{\\color\s*\{red\}\s*(a|A)\}"
    r"|\\ifcsname\s*TOK@a@([^\\]+?)\\endcsname\s*\\tokenformat\{\\usetoken\{(a|A)\}\{[^{}]*\}\}\s*\\else.*?\\fi",
    re.DOTALL)
_FORMULAS_CHOICE = re.compile(r"\\(ol\w*formulas)\b(?!\s*\{)")
_FORMULAS_DEF = re.compile(r"\\def\\(ol\w*formulas)\s*\{\\gdef\\formula\{\\lookup\{([^{}]*)\}\}\}")


class OpenLogicAdapter(Adapter):
    """Each content file is parsed on its own (the book assembles them with ``\\olimport``)."""

    source = "openlogic"
    license = "CC-BY-4.0"

    def main_files(self, texts):
        return []

    def label_id(self, label: str, unit: Unit) -> str:
        if label.count(":") >= 3:
            return f"openlogic:{label}"
        parts = PurePosixPath(unit.main).with_suffix("").parts
        if parts and parts[0] == "content":
            parts = parts[1:]
        return "openlogic:" + ":".join(list(parts[-3:]) + [label])

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.tokens: dict[str, tuple[str, str, str]] = {}  # token -> (singular, plural, article), set by learn
        self.letters: dict[str, str] = {}  # metavariable letter -> what it prints

    def learn(self, texts: dict[str, str]) -> None:
        """The text tokens (singular, plural, article) and the metavariables' letters the tree's style files set."""
        self.tokens = {}
        tables: dict[str, dict[str, str]] = {}
        chosen = ""
        for rel in sorted(texts):
            if not rel.endswith(".sty"):
                continue
            text = texts[rel]
            for name, star, one, many in _TOKEN_DEF.findall(text):
                self.tokens[name] = (one, many, "an" if star else "a")
            for name, pairs in _FORMULAS_DEF.findall(text):
                tables[name] = dict(p.split("/", 1) for p in pairs.split(",") if "/" in p)
            if rel.endswith("config.sty"):
                chosen = next(iter(_FORMULAS_CHOICE.findall(text)), chosen)
        self.letters = tables.get(chosen, {})

    def printed(self, text: str) -> str:
        tokens, letters = self.tokens, self.letters

        def token(m: re.Match) -> str:
            upper, article, name, plural = m.groups()
            one, many, a = tokens.get(name, (name, name + "s", "a"))
            word = f"{a} {one}" if article else many if plural else one
            return word[:1].upper() + word[1:] if upper else word

        def article(m: re.Match) -> str:
            name, case = (m[1], m[2]) if m[1] else (m[3], m[4])
            a = tokens.get(name, ("", "", "a"))[2]
            return a.capitalize() if case == "A" else a

        text = _ARTICLE.sub(article, _TOKEN_USE.sub(token, text))
        return _METAVARIABLE.sub(lambda m: letters.get(m[1], m[1]), text)
