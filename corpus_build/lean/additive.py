"""What ``@[to_additive]`` and ``@[to_dual]`` generate: names, statements translated as far as the text allows.

mathlib's translation attributes (``Mathlib/Tactic/Translate/``) make a second declaration from the first: its
name is given (``@[to_additive add_foo]``, relative to the source's namespace unless it has dots) or guessed
from the source's: the longest namespace prefix already translated is replaced (``Subgroup`` -> ``AddSubgroup``),
and the last component is cut into words (``mul_one``, ``CommMonoid``) that a dictionary translates one by one
(``mul`` -> ``add``, ``monoid`` -> ``addMonoid``), then a few abbreviations are fixed (``addSupport`` ->
``support``). ``existing`` and ``self`` name a declaration written by hand (nothing is generated, the pair is
recorded), ``none`` an auxiliary one. The dictionaries are read from the library's own ``ToAdditive.lean`` and
``ToDual.lean`` when they are there (:func:`read_dictionaries`), so they follow its version; :data:`ADDITIVE` is
the core of them for sources without.

>>> guess_name("mul_inv_cancel", ADDITIVE), guess_name("CommMonoid", ADDITIVE), guess_name("prod_mul'", ADDITIVE)
('add_neg_cancel', 'AddCommMonoid', "sum_add'")
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from corpus_build.lean.syntax import Unbalanced, close_of


@dataclass(frozen=True)
class Dictionary:
    """A translation attribute's word dictionary (lower-case word -> words) and abbreviation fixes."""

    words: dict[str, tuple[str, ...]]
    abbreviations: dict[str, str] = field(default_factory=dict)


ADDITIVE = Dictionary(
    {"one": ("Zero",), "mul": ("Add",), "smul": ("VAdd",), "inv": ("Neg",), "div": ("Sub",), "prod": ("Sum",),
     "pow": ("NSMul",), "npow": ("NSMul",), "zpow": ("ZSMul",), "monoid": ("Add", "Monoid"),
     "submonoid": ("Add", "Submonoid"), "group": ("Add", "Group"), "subgroup": ("Add", "Subgroup"),
     "semigroup": ("Add", "Semigroup"), "units": ("Add", "Units"), "unit": ("Add", "Unit"),
     "commute": ("Add", "Commute"), "finprod": ("Finsum",), "tprod": ("TSum",), "zpowers": ("ZMultiples",),
     "powers": ("Multiples",), "multipliable": ("Summable",)},
    {"commAdd": "AddComm", "zero_le": "Nonneg", "zeroLE": "Nonneg", "zero_lt": "Pos", "zeroLT": "Pos",
     "lezero": "Nonpos", "le_zero": "Nonpos", "ltzero": "Neg", "lt_zero": "Neg", "addSupport": "Support",
     "addIndicator": "Indicator", "isEven": "Even", "orderOf": "AddOrderOf"},
)
DUAL = Dictionary({"top": ("Bot",), "bot": ("Top",), "inf": ("Sup",), "sup": ("Inf",), "min": ("Max",),
                   "max": ("Min",), "lower": ("Upper",), "upper": ("Lower",), "least": ("Greatest",),
                   "greatest": ("Least",), "succ": ("Pred",), "pred": ("Succ",)})
ATTRIBUTES = {"to_additive": ADDITIVE, "to_dual": DUAL}
_END_CAPITAL = {"LE": ("",), "LT": ("",), "GE": ("",), "GT": ("",), "WF": ("",), "Coe": ("TC", "T", "HTCT")}
_PAIR_LIST = re.compile(r'\("([^"]+)",\s*\[([^\]]*)\]\)')
_PAIR = re.compile(r'\("([^"]+)",\s*"([^"]+)"\)')


def read_dictionaries(source: str) -> Dictionary | None:
    """The ``nameDict`` and ``abbreviationDict`` of a translation attribute's Lean source, or None if absent."""
    words = source.split("def nameDict", 1)
    abbreviations = source.split("def abbreviationDict", 1)
    if len(words) < 2:
        return None
    word_list = words[1].split("]\n\n", 1)[0] if "]\n\n" in words[1] else words[1]
    table = {k: tuple(re.findall(r'"([^"]*)"', v)) for k, v in _PAIR_LIST.findall(word_list)}
    fixes = dict(_PAIR.findall(abbreviations[1].split("]\n", 1)[0])) if len(abbreviations) > 1 else {}
    return Dictionary(table, fixes) if table else None


def _upper(c: str) -> bool:
    return "A" <= c <= "Z"


def split_case(s: str) -> list[str]:
    """A name part cut into words as mathlib's ``String.splitCase`` cuts it.

    >>> split_case("InvHMulLEConjugate₂SMul_ne_top")
    ['Inv', 'HMul', 'LE', 'Conjugate₂', 'SMul', '_', 'ne', '_', 'top']
    """
    out: list[str] = []
    i0 = 0
    while True:
        i1 = i0 + 1
        if i1 >= len(s):
            out.append(s)
            return out
        if s[i0] == "_" or s[i1] == "_":
            out.append(s[:i1])
            s, i0 = s[i1:], 0
            continue
        if _upper(s[i1]):
            tails = _END_CAPITAL.get(s[:i1], ())
            tail = next((t for t in tails if s[i1:].startswith(t)), None)
            if tail is not None:
                out.append(s[:i1] + tail)
                s, i0 = s[i1 + len(tail) :], 0
                continue
            if not _upper(s[i0]):
                out.append(s[:i1])
                s, i0 = s[i1:], 0
                continue
        i0 = i1


def _decapitalize_seq(s: str) -> str:
    k = 0
    while k < len(s) and _upper(s[k]):
        k += 1
    return s[:k].lower() + s[k:]


def _decapitalize_like(model: str, s: str) -> str:
    return s if model[:1] and _upper(model[0]) else _decapitalize_seq(s)


def _apply_words(d: Dictionary, parts: list[str]) -> list[str]:
    out: list[str] = []
    for x in parts:
        y = d.words.get(x.lower())
        if y is None:
            out.append(x)
        else:
            out += [_decapitalize_like(x, y[0]), *y[1:]]
    return out


def _fix_abbreviations(d: Dictionary, parts: list[str]) -> str:
    """mathlib's ``fixAbbreviation``: the longest runs of words that spell an abbreviation are replaced."""
    out: list[str] = []
    rest, acc = list(parts), []
    while rest or acc:
        if not rest:
            out.append(acc[0])
            rest, acc = acc[1:], []
            continue
        pre, seq = rest[0], acc + [rest[0]]
        joined = "".join(seq)
        if pre == "_" and joined[:1] and _upper(joined[0]):
            out.append(seq[0])
            rest, acc = seq[1:] + rest[1:], []
            continue
        post = d.abbreviations.get(_decapitalize_seq(joined))
        if post is not None:
            out.append(_decapitalize_like(joined, post))
            rest, acc = rest[1:], []
            continue
        rest, acc = rest[1:], seq
    return "".join(out)


def guess_name(part: str, d: Dictionary) -> str:
    """The translated last component of a name (``'`` separated pieces translated one by one)."""
    return "'".join(_fix_abbreviations(d, _apply_words(d, split_case(p))) if p else p for p in part.split("'"))


@dataclass(frozen=True)
class Translation:
    """A ``to_additive``/``to_dual`` attribute: its hint (``existing``, ``self``, ``none`` or ``""``), the target
    name as written (``""``: guessed) and the documentation given for the target."""

    attribute: str
    hint: str = ""
    target: str = ""
    doc: str = ""


_ATTR = re.compile(r"(?:scoped\s+|local\s+)?(to_additive|to_dual)(?![\w'])\??")


def read_translation(attribute: str) -> Translation | None:
    """The translation an attribute asks for, or None for any other attribute.

    >>> read_translation("to_additive (attr := simp) add_foo /-- Addition. -/")
    Translation(attribute='to_additive', hint='', target='add_foo', doc='Addition.')
    >>> read_translation("to_additive existing"), read_translation("simp")
    (Translation(attribute='to_additive', hint='existing', target='', doc=''), None)
    """
    m = _ATTR.match(attribute)
    if m is None:
        return None
    rest, doc = attribute[m.end() :].strip(), ""
    d = re.search(r'/--(.*?)-/\s*$|"((?:[^"\\]|\\.)*)"\s*$', rest, re.S)
    if d:
        doc, rest = (d.group(1) or d.group(2) or "").strip(), rest[: d.start()].strip()
    hint = re.match(r"(existing|self|none)\b", rest)
    if hint:
        rest = rest[hint.end() :].strip()
    while rest.startswith("("):
        try:
            rest = rest[close_of(rest, 0) :].strip()
        except Unbalanced:
            return None
    target = rest.split()[0] if rest else ""
    return Translation(m.group(1), hint.group(1) if hint else "", target, doc)


def translate_namespace(namespace: str, translations: dict[str, str]) -> str:
    """``namespace`` with its longest prefix that has a translation replaced (``Name.mapPrefix``)."""
    parts = namespace.split(".") if namespace else []
    for k in range(len(parts), 0, -1):
        pre = ".".join(parts[:k])
        if pre in translations:
            return ".".join([translations[pre]] + parts[k:])
    return namespace


def target_name(source: str, t: Translation, translations: dict[str, str], d: Dictionary) -> str | None:
    """The name the attribute gives the translation of ``source`` (a full name), or None (``none``; a name
    that would equal the source). ``existing`` and ``self`` still name the pair they record.

    >>> target_name("Subgroup.mul_mem", Translation("to_additive"), {"Subgroup": "AddSubgroup"}, ADDITIVE)
    'AddSubgroup.add_mem'
    >>> target_name("Foo.bar", Translation("to_additive", target="Baz.qux"), {}, ADDITIVE)
    'Baz.qux'
    """
    if t.hint == "self":
        return source
    if t.hint == "none":
        return None
    pre, _, last = source.rpartition(".")
    namespace = translate_namespace(pre, translations)
    if not t.target:
        result = f"{namespace}.{guess_name(last, d)}" if namespace else guess_name(last, d)
    elif t.target.startswith("_root_."):
        result = t.target[len("_root_.") :]
    else:
        keep = namespace.split(".") if namespace else []
        drop = t.target.count(".")
        keep = keep[: len(keep) - drop] if drop <= len(keep) else []
        result = ".".join(keep + [t.target])
    return None if result == source else result


_IDENT = re.compile(r"(?<![\w.'])[^\W\d][\w'.!?]*")


def translate_statement(text: str, translations: dict[str, str], attribute: str) -> str:
    """A statement with the names that have a translation replaced and, for ``to_additive``, the multiplicative
    notation made additive where the text shows it (``*``, ``∏``, ``⁻¹``, ``/``, ``^``, ``•``, the numeral 1).

    >>> translate_statement("theorem mul_one [Monoid M] (a : M) : a * 1 = a", {"mul_one": "add_zero",
    ...     "Monoid": "AddMonoid"}, "to_additive")
    'theorem add_zero [AddMonoid M] (a : M) : a + 0 = a'
    """
    out = _IDENT.sub(lambda m: translations.get(m.group(), m.group()), text)
    if attribute == "to_additive":
        out = out.replace("∏", "∑").replace("•", "+ᵥ")
        out = re.sub(r"(?<!Type)(?<!Sort)\*", "+", out)
        out = re.sub(r"([\w'.]+|\([^()]*\)) \^ ([\w'.]+|\([^()]*\))", r"\2 • \1", out)
        out = re.sub(r"([\w'.]+|\([^()]*\))⁻¹", r"-\1", out)
        out = re.sub(r"(?<=\s)/(?=\s)", "-", out)
        out = re.sub(r"(?<![\w.'])1(?![\w.'])", "0", out)
    elif attribute == "to_dual":
        out = out.translate(str.maketrans("⊔⊓⊤⊥⨆⨅", "⊓⊔⊥⊤⨅⨆"))
    return out
