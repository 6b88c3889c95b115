"""Write the dev probe set (benchmarks/probes/dev_probes.jsonl) and the nonsense set (nonsense.jsonl).

The queries and their gold ids were written by hand from the corpora (PlanetMath canonical names, Stacks tags,
the papers' manifest), one pattern per id prefix: ``<pattern>-<n>``. Papers' gold statements (every statement of
the paper) and the ids of the book corpora are read from the records, by document id or by the name written
below, so a gold id is never copied from a search result. Run::

    python benchmarks/probes/make_probes.py --records /work/main/data/records
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

PM = "planetmath:"
FLT_LITTLE, FLT_LAST = PM + "FermatsLittleTheorem", PM + "FermatsLastTheorem"
CRT = [PM + "ChineseRemainderTheorem", PM + "ChineseRemainderTheorem1", "stacks:00DT"]
FTC = [PM + "FundamentalTheoremOfCalculus", PM + "FundamentalTheoremOfIntegralCalculus",
       PM + "FundamentalTheoremOfCalculusForRiemannIntegration"]
MVT = [PM + "MeanvalueTheorem"]
AC = [PM + "AxiomOfChoice"]
IVT = [PM + "IntermediateValueTheorem"]

PROBES: dict[str, list[tuple[str, list[str]]]] = {
    "abbrev": [
        ("FTA", [PM + "FundamentalTheoremOfArithmetic"]),
        ("AC", AC),
        ("CRT", CRT),
        ("FLT", [FLT_LAST, FLT_LITTLE]),
        ("IVT", IVT),
        ("MVT", MVT),
        ("FTC", FTC),
        ("CH", [PM + "ContinuumHypothesis"]),
        ("ZF axioms", [PM + "ZermeloFraenkelAxioms"]),
        ("PID", ["stacks:034U"]),
        ("UFD", ["stacks:034S"]),
        ("gcd", [PM + "GreatestCommonDivisor"]),
        ("lcm", [PM + "LeastCommonMultiple"]),
        ("PNT", [PM + "PrimeNumberTheorem"]),
        ("CSB theorem", [PM + "SchroderBernsteinTheorem"]),
        ("FTGT", [PM + "FundamentalTheoremOfGaloisTheory"]),
        ("proof of the IVT", IVT),
        ("AC implies excluded middle", [PM + "1015TheAxiomOfChoiceImpliesExcludedMiddle"]),
    ],
    "bare": [
        ("metric space", [PM + "MetricSpace"]),
        ("ultrafilter", [PM + "Ultrafilter"]),
        ("Cauchy sequence", [PM + "CauchySequence"]),
        ("Hausdorff space", [PM + "HausdorffSpace"]),
        ("normal subgroup", [PM + "NormalSubgroup"]),
        ("local ring", ["stacks:07BI"]),
        ("scheme", ["stacks:01IJ"]),
        ("flat module", ["stacks:00HB"]),
        ("determinant", [PM + "Determinant"]),
        ("eigenvalue", [PM + "Eigenvalue", PM + "Eigenvalue1"]),
        ("uniform space", [PM + "UniformSpace"]),
        ("cardinal number", [PM + "CardinalNumber"]),
        ("site", ["stacks:00VH"]),
        ("monoid", [PM + "Monoid"]),
        ("quadratic residue", [PM + "QuadraticResidue"]),
    ],
    "defof": [
        ("definition of an étale morphism", ["stacks:02GI"]),
        ("what is a smooth morphism", ["stacks:01V5"]),
        ("what is a proper morphism", ["stacks:01W1"]),
        ("definition of a valuation ring", ["stacks:00I9"]),
        ("what is an Artinian ring", ["stacks:00J5"]),
        ("define a regular local ring", ["stacks:00KU"]),
        ("what is a uniformly continuous function", [PM + "UniformlyContinuous", PM + "UniformContinuity"]),
        ("definition of an abelian group", [PM + "AbelianGroup"]),
        ("what is a cyclic group", [PM + "CyclicGroup"]),
        ("definition of the Euler phi function", [PM + "EulerPhiFunction"]),
        ("what is an equivalence class", [PM + "EquivalenceClass"]),
        ("definition of a Baire space", [PM + "BaireSpace", PM + "BaireSpace1"]),
        ("what's a semigroup", [PM + "Semigroup"]),
        ("meaning of Sylow p-subgroup", [PM + "SylowPsubgroup"]),
        ("what is a scheme", ["stacks:01IJ"]),
        ("definition: flat ring map", ["stacks:00HB"]),
    ],
    "trunc": [
        ("fermat last", [FLT_LAST]),
        ("fermat little", [FLT_LITTLE]),
        ("bolzano weierstrass", [PM + "BolzanoWeierstrassTheorem"]),
        ("cayley hamilton", [PM + "CayleyHamiltonTheorem"]),
        ("chinese remainder", CRT),
        ("baire category", [PM + "BaireCategoryTheorem"]),
        ("heine borel", [PM + "HeineBorelTheorem"]),
        ("schroder bernstein", [PM + "SchroderBernsteinTheorem"]),
        ("jordan holder", [PM + "JordanHolderDecompositionTheorem", PM + "JordanHolderDecomposition"]),
        ("rank nullity", [PM + "RanknullityTheorem"]),
        ("banach fixed point", [PM + "BanachFixedPointTheorem"]),
        ("urysohn metrization", [PM + "UrysohnMetrizationTheorem"]),
        ("dirichlet primes arithmetic progression", [PM + "DirichletsTheoremOnPrimesInArithmeticProgressions"]),
        ("cauchy schwarz", [PM + "CauchySchwarzInequality"]),
        ("fundamental theorem galois", [PM + "FundamentalTheoremOfGaloisTheory"]),
    ],
    "eponym": [
        ("Lagranges theorem", [PM + "LagrangesTheorem"]),
        ("Wilsons theorem", [PM + "WilsonsTheorem"]),
        ("Rolles theorem", [PM + "RollesTheorem"]),
        ("Urysohns lemma", [PM + "UrysohnsLemma"]),
        ("Tychonoffs theorem", [PM + "TychonoffsTheorem"]),
        ("Cantors theorem", [PM + "CantorsTheorem"]),
        ("Eulers criterion", [PM + "EulersCriterion"]),
        ("Cayleys theorem", [PM + "CayleysTheorem"]),
        ("Burnsides theorem", [PM + "BurnsidesTheorem"]),
        ("Bezouts lemma", [PM + "BezoutsLemmanumberTheory"]),
        ("Nakayamas lemma", ["stacks:00DV"]),
        ("Yonedas lemma", ["stacks:001P"]),
        ("Bolzanos theorem", [PM + "BolzanosTheorem"]),
        ("Dirichlets unit theorem", [PM + "DirichletsUnitTheorem"]),
        ("Lagrange four square theorem", [PM + "LagrangesFoursquareTheorem"]),
        ("Fermat theorem stationary points", [PM + "FermatsTheoremstationaryPoints"]),
    ],
    "lang": [
        ("petit théorème de Fermat", [FLT_LITTLE]),
        ("grand théorème de Fermat", [FLT_LAST]),
        ("théorème des valeurs intermédiaires", IVT),
        ("théorème chinois des restes", CRT),
        ("axiome du choix", AC),
        ("théorème de Lagrange en théorie des groupes", [PM + "LagrangesTheorem"]),
        ("lemme de Nakayama", ["stacks:00DV"]),
        ("Satz von Lagrange", [PM + "LagrangesTheorem"]),
        ("Zwischenwertsatz", IVT),
        ("Mittelwertsatz", MVT),
        ("Auswahlaxiom", AC),
        ("Satz von Rolle", [PM + "RollesTheorem"]),
        ("Hauptsatz der Differential- und Integralrechnung", FTC),
        ("Chinesischer Restsatz", CRT),
        ("teorema del valor medio", MVT),
        ("teorema fundamental de la aritmética", [PM + "FundamentalTheoremOfArithmetic"]),
        ("axioma de elección", AC),
        ("pequeño teorema de Fermat", [FLT_LITTLE]),
        ("teorema de los números primos", [PM + "PrimeNumberTheorem"]),
        ("hipótesis del continuo", [PM + "ContinuumHypothesis"]),
        ("Primzahlsatz", [PM + "PrimeNumberTheorem"]),
        ("critère d'Euler", [PM + "EulersCriterion"]),
    ],
    "latex": [
        (r"$a^{p-1} \equiv 1 \pmod p$", [FLT_LITTLE]),
        (r"$x^n + y^n = z^n$ has no solutions for $n > 2$", [FLT_LAST]),
        (r"$(p-1)! \equiv -1 \pmod{p}$", [PM + "WilsonsTheorem"]),
        (r"$a^{\varphi(n)} \equiv 1 \pmod n$", [PM + "EulerFermatTheorem"]),
        (r"$\sum_{n=1}^\infty \frac{1}{n^2} = \frac{\pi^2}{6}$", [PM + "BaselProblem"]),
        (r"$|\langle x, y\rangle| \le \|x\| \|y\|$", [PM + "CauchySchwarzInequality"]),
        (r"$\int_a^b f'(x)\,dx = f(b) - f(a)$", FTC),
        (r"$f(b) - f(a) = f'(c)(b-a)$", MVT),
        (r"$|G| = [G:H]\,|H|$", [PM + "LagrangesTheorem"]),
        (r"$\dim V = \operatorname{rank} T + \operatorname{nullity} T$", [PM + "RanknullityTheorem"]),
        (r"$(x+y)^n = \sum_{k=0}^n \binom{n}{k} x^k y^{n-k}$", [PM + "BinomialTheorem"]),
        (r"$\pi(x) \sim \frac{x}{\ln x}$", [PM + "PrimeNumberTheorem"]),
        (r"$|A| < |\mathcal{P}(A)|$", [PM + "CantorsTheorem"]),
        (r"\lim_{x\to a} \frac{f(x)}{g(x)} = \lim_{x\to a} \frac{f'(x)}{g'(x)}", [PM + "LHopitalsRule"]),
    ],
    "ascii": [
        ("a^(p-1) = 1 mod p", [FLT_LITTLE]),
        ("(p-1)! = -1 mod p", [PM + "WilsonsTheorem"]),
        ("x^n + y^n = z^n no solutions n>2", [FLT_LAST]),
        ("a^phi(n) = 1 (mod n)", [PM + "EulerFermatTheorem"]),
        ("sum 1/n^2 = pi^2/6", [PM + "BaselProblem"]),
        ("|<x,y>| <= ||x|| ||y||", [PM + "CauchySchwarzInequality"]),
        ("f(b)-f(a) = f'(c)(b-a)", MVT),
        ("|G| = [G:H] |H|", [PM + "LagrangesTheorem"]),
        ("(x+y)^n = sum C(n,k) x^k y^(n-k)", [PM + "BinomialTheorem"]),
        ("pi(x) ~ x/ln(x)", [PM + "PrimeNumberTheorem"]),
        ("a^2 + b^2 = c^2 integer solutions", [PM + "PythagoreanTriplet", PM + "PythagoreanTriangle"]),
    ],
    "repeat": [
        ("lemma lemma nakayama nakayama", ["stacks:00DV"]),
        ("theorem theorem theorem lagrange", [PM + "LagrangesTheorem"]),
        ("fermat fermat little little theorem", [FLT_LITTLE]),
        ("chinese chinese remainder remainder theorem", CRT),
        ("heine heine borel borel", [PM + "HeineBorelTheorem"]),
        ("axiom axiom axiom of choice choice", AC),
        ("cauchy cauchy sequence sequence sequence", [PM + "CauchySequence"]),
        ("yoneda yoneda yoneda lemma", ["stacks:001P"]),
        ("wilson wilson theorem theorem", [PM + "WilsonsTheorem"]),
        ("prime prime number number theorem theorem", [PM + "PrimeNumberTheorem"]),
        ("rolle rolle rolle", [PM + "RollesTheorem"]),
    ],
    "typo": [
        ("Nakayma lemma", ["stacks:00DV"]),
        ("Pythagoren triple", [PM + "PythagoreanTriplet"]),
        ("Cayley Hamiltn theorem", [PM + "CayleyHamiltonTheorem"]),
        ("Bolzano Weirstrass theorem", [PM + "BolzanoWeierstrassTheorem"]),
        ("Chinese remaindr theorem", CRT),
        ("Fermats littel theorem", [FLT_LITTLE]),
        ("Heine Borell theorem", [PM + "HeineBorelTheorem"]),
        ("Lagrnage theorem", [PM + "LagrangesTheorem"]),
        ("Cauchy Schwartz inequality", [PM + "CauchySchwarzInequality"]),
        ("Tychonof theorem", [PM + "TychonoffsTheorem"]),
        ("Urysohns lema", [PM + "UrysohnsLemma"]),
        ("Schroder Bernstien theorem", [PM + "SchroderBernsteinTheorem"]),
        ("Yonda lemma", ["stacks:001P"]),
        ("Sylow theroems", [PM + "SylowTheorems"]),
    ],
}

# Papers: an arXiv id (bare, prefixed, as a link) or the title routes to the paper; any of its statements is gold.
PAPERS: list[tuple[str, str]] = [
    ("2307.00073", "sag-foundations"),
    ("arXiv:2405.13916", "sag-projective-space"),
    ("https://arxiv.org/abs/2412.03203", "sag-stone-duality"),
    ("arxiv 2504.08495", "sag-differential-geometry"),
    ("2503.20170v1", "tao-factorial-large-factors"),
    ("A Foundation for Synthetic Algebraic Geometry", "sag-foundations"),
    ("Decomposing a factorial into large factors", "tao-factorial-large-factors"),
    ("New Foundations is consistent", "con-nf-new-foundations"),
    ("Lower bounds for witness-finding algorithms", "finkelstein-witness-finding"),
    ("Polynomial-time kernel reductions", "finkelstein-kernel-reductions"),
    ("The sphere eversion project", "sphere-eversion-blueprint"),
    ("Database of known results on analytic number theory exponents", "antedb-exponent-database"),
    ("Highly parallel approximations for inherently sequential problems", "finkelstein-nc-approximation"),
    ("Formalizing Carleson's theorem in Lean", "carleson-formalization-paper"),
    ("size-depth-alternation tradeoffs for circuits", "finkelstein-size-depth"),
    ("Projective space in synthetic algebraic geometry", "sag-projective-space"),
]

NONSENSE = [
    "asdfghjkl", "hello world", "qwerty uiop", "recipe for chocolate chip cookies",
    "weather forecast for tomorrow in Paris", "how to bake sourdough bread", "best pizza near me",
    "lorem ipsum dolor sit amet", "football world cup results", "cheap flights to London", "zxcvbnm",
    "how do I fix my car engine", "taylor swift concert tickets", "what time is it", "banana smoothie ingredients",
    "netflix series recommendations", "aaaaaaaa", "kjhgfdsa poiuy", "stock market today", "how to train a puppy",
    "guitar chords for wonderwall", "password reset email", "the quick brown fox jumps over the lazy dog",
    "buy running shoes online", "vacation in Hawaii", "is it going to rain this weekend",
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--records", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent)
    args = ap.parse_args()
    ids: set[str] = set()
    by_doc: dict[str, list[str]] = {}
    with open(args.records / "theorems.jsonl", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            ids.add(d["id"])
            by_doc.setdefault(d["doc_id"], []).append(d["id"])
    rows, missing = [], []
    for pattern, items in PROBES.items():
        for i, (query, gold) in enumerate(items, 1):
            present = [g for g in gold if g in ids]
            missing += [(query, g) for g in gold if g not in ids]
            if present:
                rows.append({"id": f"{pattern}-{i:02d}", "query": query, "relevant": present})
    for i, (query, doc) in enumerate(PAPERS, 1):
        if not by_doc.get(doc):
            missing.append((query, doc))
            continue
        rows.append({"id": f"paper-{i:02d}", "query": query, "relevant": by_doc[doc], "relevant_papers": [doc]})
    (args.out / "dev_probes.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                              encoding="utf-8")
    (args.out / "nonsense.jsonl").write_text(
        "".join(json.dumps({"id": f"nonsense-{i:02d}", "query": q}) + "\n" for i, q in enumerate(NONSENSE, 1)),
        encoding="utf-8")
    print(f"{len(rows)} probes, {len(NONSENSE)} nonsense; gold ids not in the records: {missing}")


if __name__ == "__main__":
    main()
