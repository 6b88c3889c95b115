"""PlanetMath entries: ``planetmath:<canonicalname>``, the same in every parse that holds the entry's area first."""

import json
from pathlib import Path

from corpus_build.parse import parse_sources

ENTRY = "\\pmcanonicalname{%s}\n\\pmtitle{%s}\n\\pmtype{Theorem}\n\\begin{document}\n%s\n\\end{document}\n"


def write_areas(root: Path, areas: dict[str, dict[str, tuple[str, str]]]) -> Path:
    """``{area: {file: (canonical name, body)}}`` as a PlanetMath folder."""
    for area, entries in areas.items():
        (root / area).mkdir(parents=True, exist_ok=True)
        for name, (canonical, body) in entries.items():
            (root / area / name).write_text(ENTRY % (canonical, canonical, body))
    return root


def _ids(src: Path, out: Path) -> dict[str, str]:
    parse_sources([src], out, use_plastex=False, progress=False)
    return {r["id"]: r["file"] for r in map(json.loads, (out / "theorems.jsonl").open())}


def test_an_entry_whose_display_ends_in_a_line_break_is_kept(tmp_path: Path):
    """``\\\\$$`` ends a display after a line break; 16 entries ending one were dropped as having an odd number of
    dollars, 4 of them answers of the synonym set (8 queries)."""
    fresnel = r"$$\int_0^\infty\cos{x^2}\,dx = \frac{\sqrt{2\pi}}{4}.\\$$ This holds, Q.E.D."
    areas = {"26_Real_functions": {"26B15-FresnelFormulas.tex": ("FresnelFormulas", fresnel)}}
    root = write_areas(tmp_path / "pm", areas)
    assert _ids(root, tmp_path / "out") == {"planetmath:FresnelFormulas": "26_Real_functions/26B15-FresnelFormulas.tex"}


def test_a_canonical_name_in_two_areas_keeps_its_bare_id_in_the_first_area(tmp_path: Path):
    """The entry of the area that sorts first keeps ``planetmath:<name>``, the next ``#2``; an area that sorts later
    moves no id (the six areas indexed before all sixty: none of their 3,847 ids moved, tests/corpus/
    test_shared_corpora.py)."""
    picard = {"34_Ordinary_differential_equations": {
        "34A12-PicardsTheorem.tex": ("PicardsTheorem", "A Lipschitz initial value problem has a unique solution.")}}
    earlier = {"32_Several_complex_variables_and_analytic_spaces": {
        "32H25-PicardsTheorem1.tex": ("PicardsTheorem", "An entire function omitting two values is constant.")}}
    later = {"60_Probability_theory_and_stochastic_processes": {
        "60A99-ChebyshevsInequality.tex": ("ChebyshevsInequality", "A variable is rarely far from its mean $\\mu$.")}}
    alone = _ids(write_areas(tmp_path / "a", {**picard, **later}), tmp_path / "out-a")
    both = _ids(write_areas(tmp_path / "b", {**later, **picard, **earlier}), tmp_path / "out-b")
    assert alone == {"planetmath:PicardsTheorem": "34_Ordinary_differential_equations/34A12-PicardsTheorem.tex",
                     "planetmath:ChebyshevsInequality": "60_Probability_theory_and_stochastic_processes/"
                                                        "60A99-ChebyshevsInequality.tex"}  # fmt: skip
    assert both == {"planetmath:PicardsTheorem": "32_Several_complex_variables_and_analytic_spaces/"
                                                 "32H25-PicardsTheorem1.tex",
                    "planetmath:PicardsTheorem#2": alone["planetmath:PicardsTheorem"],
                    "planetmath:ChebyshevsInequality": alone["planetmath:ChebyshevsInequality"]}  # fmt: skip
