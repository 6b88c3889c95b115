"""Words for LaTeX commands: the tables the offline slogan writer reads LaTeX with (pure data).

Each table maps a command name (without backslash) to plain English. They favour words a reader would type in a
search box ("isomorphic to", "direct sum", "spectrum") over the symbol's shape ("cong", "oplus", "Spec").

>>> SYMBOL_WORDS["cong"], OPERATOR_WORDS["Spec"], GREEK["alpha"]
('isomorphic to', 'spectrum', 'alpha')
"""

from __future__ import annotations

# Relations, arrows and binary operators: replaced wherever they occur, surrounded by spaces.
SYMBOL_WORDS: dict[str, str] = {
    "to": "to", "rightarrow": "to", "longrightarrow": "to", "xrightarrow": "to", "leftarrow": "from",
    "longleftarrow": "from", "xleftarrow": "from", "mapsto": "maps to", "longmapsto": "maps to",
    "hookrightarrow": "injects into", "twoheadrightarrow": "surjects onto", "dashrightarrow": "rational map to",
    "Rightarrow": "implies", "Longrightarrow": "implies", "implies": "implies", "Leftarrow": "is implied by",
    "Leftrightarrow": "if and only if", "Longleftrightarrow": "if and only if", "iff": "if and only if",
    "leftrightarrow": "corresponds to", "cong": "isomorphic to", "simeq": "isomorphic to", "approx": "approximately",
    "sim": "equivalent to", "equiv": "equivalent to", "neq": "not equal to", "ne": "not equal to",
    "leq": "at most", "le": "at most", "geq": "at least", "ge": "at least", "ll": "much less than",
    "subset": "subset of", "subseteq": "subset of", "subsetneq": "proper subset of", "supset": "containing",
    "supseteq": "containing", "in": "in", "notin": "not in", "ni": "containing", "cap": "intersection",
    "cup": "union", "bigcap": "intersection", "bigcup": "union", "setminus": "minus", "times": "times",
    "otimes": "tensor", "bigotimes": "tensor", "oplus": "direct sum", "bigoplus": "direct sum",
    "prod": "product", "coprod": "coproduct", "amalg": "coproduct", "sum": "sum", "int": "integral",
    "oint": "integral", "circ": "composed with", "cdot": "times", "wedge": "wedge", "bigwedge": "exterior power",
    "vee": "or", "bigvee": "join", "neg": "not", "lnot": "not", "land": "and", "lor": "or", "forall": "for all",
    "exists": "there exists", "nexists": "there is no", "emptyset": "empty set", "varnothing": "empty set",
    "infty": "infinity", "partial": "boundary", "nabla": "nabla", "perp": "orthogonal", "mid": "divides",
    "nmid": "does not divide", "parallel": "parallel", "vdash": "proves", "models": "satisfies",
    "dashv": "left adjoint", "top": "true", "bot": "false", "pm": "plus or minus", "star": "star",
    "ast": "star", "dagger": "dagger", "triangleleft": "normal subgroup of", "lhd": "normal subgroup of",
    "rtimes": "semidirect product", "ltimes": "semidirect product", "boxtimes": "external tensor",
    "sqrt": "square root", "aleph": "aleph", "hbar": "h bar", "ell": "l", "wp": "Weierstrass p",
    "Re": "real part", "lceil": "ceiling", "lfloor": "floor", "langle": "", "rangle": "", "ldots": "",
    "cdots": "", "dots": "", "vdots": "", "ddots": "", "quad": "", "qquad": "", "colon": ":", "lbrace": "",
    "rbrace": "", "coloneqq": "=", "coloneq": "=", "eqqcolon": "=", "defeq": "=",
}

# Named operators and the Stacks-style macros for them; an argument in parentheses reads "of ...".
OPERATOR_WORDS: dict[str, str] = {
    "Spec": "spectrum", "Proj": "Proj", "Hom": "Hom", "SheafHom": "sheaf Hom", "Ext": "Ext",
    "SheafExt": "sheaf Ext", "Tor": "Tor", "Ker": "kernel", "ker": "kernel", "Coker": "cokernel",
    "coker": "cokernel", "Im": "image", "Coim": "coimage", "lim": "limit", "colim": "colimit",
    "varinjlim": "colimit", "varprojlim": "limit", "injlim": "colimit", "projlim": "limit",
    "Mor": "morphisms", "Ob": "objects", "Sh": "sheaves", "PSh": "presheaves", "QCoh": "quasi-coherent modules",
    "Sch": "schemes", "NL": "naive cotangent complex", "CH": "Chow group", "Pic": "Picard group",
    "Picardfunctor": "Picard functor", "Picardstack": "Picard stack", "Quotfunctor": "Quot functor",
    "Hilbfunctor": "Hilbert functor", "QCohstack": "stack of quasi-coherent sheaves",
    "Cohstack": "stack of coherent sheaves", "Spacesstack": "stack of spaces", "Curvesstack": "stack of curves",
    "Polarizedstack": "stack of polarized schemes", "Complexesstack": "stack of complexes",
    "Deformationcategory": "deformation category", "etale": "etale", "proetale": "pro-etale",
    "Gal": "Galois group", "Aut": "automorphisms", "End": "endomorphisms", "Isom": "isomorphisms",
    "Der": "derivations", "Supp": "support", "Ass": "associated primes", "WeakAss": "weakly associated primes",
    "Frac": "fraction field", "Div": "divisors", "Cl": "class group", "Br": "Brauer group", "Sym": "symmetric power",
    "Tot": "total complex", "Cone": "cone", "Fix": "fixed points", "id": "identity", "Id": "identity",
    "dim": "dimension", "codim": "codimension", "deg": "degree", "det": "determinant", "rank": "rank",
    "rk": "rank", "tr": "trace", "Tr": "trace", "Nm": "norm", "Norm": "norm", "length": "length",
    "depth": "depth", "gcd": "gcd", "lcm": "lcm", "max": "maximum", "min": "minimum", "sup": "supremum",
    "inf": "infimum", "limsup": "limsup", "liminf": "liminf", "log": "log", "exp": "exp", "sin": "sine",
    "cos": "cosine", "tan": "tangent", "arg": "argument", "Ann": "annihilator", "Rad": "radical",
    "rad": "radical", "mod": "modulo", "bmod": "modulo", "pmod": "modulo", "GL": "general linear group",
    "SL": "special linear group", "PGL": "projective linear group", "Lie": "Lie algebra",
    "Fun": "functors", "Sets": "sets", "Ab": "abelian groups", "Mod": "modules", "Alg": "algebras",
}

# \mathbf / \mathbb letters with a standard meaning.
BLACKBOARD_WORDS: dict[str, str] = {
    "Z": "integers", "Q": "rationals", "R": "real numbers", "C": "complex numbers", "N": "natural numbers",
}

# Bold letters that name a space only with an exponent (P^n, A^1): elsewhere authors use them for anything.
SPACE_WORDS: dict[str, str] = {"P": "projective space", "A": "affine space"}

GREEK: dict[str, str] = {
    name: name
    for name in (
        "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi "
        "rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma "
        "Upsilon Phi Psi Omega"
    ).split()
}
GREEK.update({"varepsilon": "epsilon", "vartheta": "theta", "varpi": "pi", "varrho": "rho", "varsigma": "sigma",
              "varphi": "phi"})

# Commands whose braced argument is kept as plain text (fonts, boxes, accents over a letter).
KEEP_ARGUMENT = frozenset(
    "text textit textbf textrm textsf texttt textup textnormal emph mathrm mathit mathbf mathsf mathtt "
    "mathcal mathscr mathfrak mathbb boldsymbol bm operatorname mbox hbox underline overline widetilde "
    "widehat tilde hat bar check breve vec dot ddot acute grave underbrace overbrace textsc textsl "
    "ensuremath fbox small footnotesize large Large mathop mathbin mathrel mathord".split()
)

# Commands dropped together with their braced argument (cross-references, indexing and glossary entries, a
# bibliography item's key, layout, a colour switch's colour, and the metadata of Lean blueprints: ``\uses{labels}``
# lists what a statement depends on and ``\lean{names}`` its Lean declarations; neither prints in the paper, and read
# as words they put label fragments into a statement's slogan).
DROP_WITH_ARGUMENT = frozenset(
    "label ref eqref cref Cref autoref pageref cite citep citet nocite index hyperref url href footnote "
    "vspace hspace phantom hphantom vphantom marginpar ollabel olref uses lean proves discussion color pagecolor "
    "glsadd bibitem".split()
)
# Commands dropped without an argument (Lean blueprints' status marks).
DROP_ALONE = frozenset("leanok mathlibok notready".split())


def dropped_with_argument(name: str) -> bool:
    r"""Whether a command (without its backslash) is read as nothing, together with its braced argument: those of
    :data:`DROP_WITH_ARGUMENT` (labels, indexing, layout, blueprint metadata) and every cross-reference or citation
    command, whatever its package or the paper that defines it (``\axiomref``, ``\sectionref``, ``\nameref``,
    ``\autocite``, ``\parencite``, ``\citeauthor``): its argument is a key, which prints as a number or a citation,
    never as words of the statement.

    >>> [dropped_with_argument(n) for n in ("axiomref", "autocite", "citeauthor", "Cref", "vspace", "mathrm", "prefix")]
    [True, True, True, True, True, False, False]
    """
    return name in DROP_WITH_ARGUMENT or (len(name) > 3 and name.endswith("ref")) or "cite" in name.lower()


# Abbreviations found in labels (lemma-qc-qs-...), read back as words.
LABEL_ABBREVIATIONS: dict[str, str] = {
    "qc": "quasi-compact", "qs": "quasi-separated", "qcqs": "quasi-compact quasi-separated",
    "ft": "finite type", "fp": "finite presentation", "lft": "locally of finite type",
    "lfp": "locally of finite presentation", "ses": "short exact sequence", "les": "long exact sequence",
    "iso": "isomorphism", "isom": "isomorphism", "mor": "morphism", "mod": "module", "alg": "algebra",
    "def": "definition", "dvr": "discrete valuation ring", "noeth": "Noetherian", "fppf": "fppf",
    "fpqc": "fpqc", "qcoh": "quasi-coherent", "coh": "coherent", "proj": "projective", "nr": "number",
    "cm": "Cohen-Macaulay", "ci": "complete intersection", "lci": "local complete intersection",
    "pic": "Picard", "ext": "Ext", "hom": "Hom", "spec": "spectrum", "dim": "dimension", "tor": "Tor",
    "gr": "graded", "el": "elementary", "prop": "property", "props": "properties", "equiv": "equivalence",
    "char": "characteristic", "fin": "finite", "ab": "abelian", "cat": "category", "cats": "categories",
    "sh": "sheaf", "psh": "presheaf", "top": "topological", "sep": "separated", "univ": "universal",
}
