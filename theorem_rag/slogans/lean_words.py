"""Words for Lean 4 names and notation: the tables :mod:`theorem_rag.slogans.lean_text` reads Lean with (pure data).

Like :mod:`theorem_rag.slogans.symbols` for LaTeX, they favour the words a reader types in a search box ("divides",
"ring homomorphism", "less than or equal") over the symbol's shape (``∣``, ``→+*``, ``le``).

>>> NAME_WORDS["dvd"], SYMBOLS["→+*"], WHOLE_WORDS["ZMod"]
('divides', 'ring homomorphism to', 'integers modulo')
"""

from __future__ import annotations

# Whole names and name parts, as written, whose reading is not their split words.
WHOLE_WORDS: dict[str, str] = {
    "Nat": "natural number", "Int": "integer", "Rat": "rational number", "Real": "real", "Complex": "complex",
    "ZMod": "integers modulo", "PNat": "positive natural number", "NNReal": "nonnegative real numbers",
    "ENNReal": "extended nonnegative real numbers", "EReal": "extended real numbers",
    "ENat": "extended natural numbers",
    "Finset": "finite set", "Fintype": "finite type", "Finsupp": "finitely supported function",
    "MvPolynomial": "multivariate polynomial", "nhds": "neighborhoods", "nhdsWithin": "neighborhoods within",
    "tendsto": "tends to", "Tendsto": "tends to", "iff": "if and only if", "NatTrans": "natural transformation",
    "Prop": "proposition",
}
# Pieces of names (a snake_case part or a piece of a camelCase word), by their lowercase form.
NAME_WORDS: dict[str, str] = {
    "le": "less than or equal", "lt": "less than", "ge": "greater than or equal", "gt": "greater than",
    "ne": "not equal", "eq": "equals", "pos": "positive", "neg": "negative", "nonneg": "nonnegative",
    "nonpos": "nonpositive", "mul": "multiplication", "add": "addition", "sub": "subtraction", "div": "division",
    "inv": "inverse", "pow": "power", "zpow": "integer power", "npow": "natural power", "nsmul": "natural multiple",
    "zsmul": "integer multiple", "smul": "scalar multiplication", "vadd": "additive action", "sq": "square",
    "sqrt": "square root", "abs": "absolute value", "nnnorm": "nonnegative norm", "dvd": "divides",
    "gcd": "greatest common divisor", "lcm": "least common multiple", "mem": "member of", "ssubset": "strict subset",
    "inter": "intersection", "compl": "complement", "sdiff": "set difference", "bot": "bottom",
    "comm": "commutative", "assoc": "associative", "inj": "injective", "surj": "surjective", "deriv": "derivative",
    "fderiv": "Frechet derivative", "card": "cardinality", "succ": "successor", "pred": "predecessor",
    "id": "identity", "comp": "composition", "coe": "coercion", "fst": "first", "snd": "second",
    "exp": "exponential", "log": "logarithm", "sin": "sine", "cos": "cosine", "tan": "tangent",
    "tsum": "infinite sum", "tprod": "infinite product", "finsum": "finite sum", "finprod": "finite product",
    "finrank": "finite rank", "det": "determinant", "ker": "kernel", "symm": "symmetric", "trans": "transitive",
    "refl": "reflexive", "antisymm": "antisymmetric", "irrefl": "irreflexive", "ext": "extensionality",
    "mono": "monotone", "anti": "antitone", "nat": "natural", "int": "integer", "rat": "rational",
    "dist": "distance", "edist": "extended distance", "ae": "almost everywhere", "lintegral": "lower integral",
    "hom": "homomorphism", "iso": "isomorphism", "equiv": "equivalence", "alg": "algebra", "grp": "group",
    "cat": "category", "mon": "monoid", "ab": "abelian", "poly": "polynomial", "mv": "multivariate",
    "lin": "linear", "eval": "evaluation", "char": "characteristic", "geom": "geometric", "cont": "continuous",
    "diff": "differentiable", "prod": "product", "iunion": "indexed union", "iinter": "indexed intersection",
    "isup": "indexed supremum", "iinf": "indexed infimum", "ssup": "supremum", "sinf": "infimum",
    "biunion": "indexed union", "binter": "indexed intersection", "icc": "closed interval", "ioo": "open interval",
    "ico": "half-open interval", "ioc": "half-open interval", "ici": "closed ray", "iic": "closed ray",
    "ioi": "open ray", "iio": "open ray", "inst": "", "inf": "inf", "sup": "sup",
}
# Capitalised pieces of a camelCase name that read as an adjective (AddSubgroup, MulAction, CommRing).
CAMEL_WORDS: dict[str, str] = {"Add": "additive", "Mul": "multiplicative", "Comm": "commutative"}

# Lean notation (the reader tries longer symbols first: →+* before →); ``→`` itself reads "implies" or "to".
SYMBOLS: dict[str, str] = {
    "→+*": "ring homomorphism to", "→*": "monoid homomorphism to", "→+": "additive homomorphism to",
    "→ₙ+": "additive homomorphism to", "→ₙ*": "multiplicative homomorphism to", "→ₗᵢ": "linear isometry to",
    "→ₗ": "linear map to", "→ₐ": "algebra homomorphism to", "→L": "continuous linear map to",
    "→ᵃ": "affine map to", "→o": "order homomorphism to", "→⋆ₐ": "star algebra homomorphism to",
    "≃⋆ₐ": "star algebra isomorphic to", "≃ₕ": "homotopy equivalent to", "≃+*": "ring isomorphic to",
    "≃*": "multiplicatively isomorphic to", "≃+": "additively isomorphic to", "≃ₗ": "linearly equivalent to",
    "≃ₐ": "algebra isomorphic to", "≃L": "continuously linearly equivalent to", "≃o": "order isomorphic to",
    "≃ₜ": "homeomorphic to", "≃ᵢ": "isometric to", "≃": "equivalent to", "≌": "equivalent to",
    "≅": "isomorphic to", "↪": "embeds into", "⥤": "functor to", "⟶": "morphism to", "≫": "composed with",
    "⋙": "composed with", "∘": "composed with", "⊗ₜ": "tensor", "⊗": "tensor", "⊕": "direct sum",
    "×ˢ": "product", "×": "times",
    "•": "scalar times", "∀ᶠ": "eventually for all", "∃ᶠ": "frequently", "∀": "for all", "∃!": "there exists a unique",
    "∃": "there exists", "¬": "not", "∧": "and", "∨": "or", "↔": "if and only if", "←": "from", "↦": "maps to",
    "=>": "maps to", "=ᵐ": "almost everywhere equal to", "≠": "not equal to", "≤": "less than or equal to",
    "≥": "greater than or equal to", "<": "less than", ">": "greater than", "⊆": "subset of",
    "⊂": "strict subset of", "⊇": "superset of", "∈": "in", "∉": "not in", "∪": "union", "∩": "intersection",
    "⋃": "union", "⋂": "intersection", "∑ᶠ": "finite sum", "∏ᶠ": "finite product", "∑'": "infinite sum",
    "∏'": "infinite product", "∑": "sum", "∏": "product", "∫⁻": "lower integral", "∫": "integral",
    "∮": "circle integral", "⨆": "supremum", "⨅": "infimum", "⊔": "sup", "⊓": "inf", "⊤": "top", "⊥": "bottom",
    "∣": "divides", "ℕ+": "positive natural numbers", "ℕ∞": "extended natural numbers",
    "ℝ≥0∞": "extended nonnegative real numbers", "ℝ≥0": "nonnegative real numbers", "ℕ": "natural numbers",
    "ℤ": "integers", "ℚ": "rationals", "ℝ": "real numbers", "ℂ": "complex numbers", "⁻¹'": "preimage",
    "⁻¹": "inverse", "''": "image", "ᶜ": "complement", "ᵐᵒᵖ": "multiplicative opposite", "ᵒᵖ": "opposite",
    "ᵀ": "transpose", "ᴴ": "conjugate transpose", "ˣ": "units", "∞": "infinity", "√": "square root of",
    "∅": "empty set", "∆": "symmetric difference", "𝓝": "neighborhoods of", "∂": "with respect to",
    "⌊": "floor of", "⌈": "ceiling of", "≡": "congruent to", "^": "to the power", "%": "mod", "𝟙": "identity",
    "⅟": "inverse of",
}

# Lean kinds read as propositions (-> implies), the kinds that define a notion, the words each kind is introduced by.
PROPOSITIONS = frozenset({"theorem", "lemma", "axiom", "alias"})
DEFINING = frozenset({"def", "abbrev", "structure", "class", "class abbrev", "class inductive", "inductive"})
KIND_WORDS: dict[str, str] = {
    "theorem": "Theorem", "lemma": "Theorem", "alias": "Theorem", "axiom": "Axiom", "def": "Definition",
    "abbrev": "Definition", "opaque": "Definition", "instance": "Instance", "structure": "Structure",
    "class": "Class", "class abbrev": "Class", "class inductive": "Class", "inductive": "Inductive type",
    "field": "Structure field", "constructor": "Constructor",
}
