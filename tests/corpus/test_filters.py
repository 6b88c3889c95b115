from collections import Counter

import pytest

from corpus_build.filters import apply_filters, reason_to_drop


@pytest.mark.parametrize(
    "body, reason",
    [
        ("   ", "empty"),
        ("Let $x be a real number.", "odd_dollars"),
        ("Short.", "too_short"),
        ("A short phrase no period", "short_no_period_no_math"),
        ("Let $G$ be a group and $H$ a subgroup such that", "ends_mid_sentence"),
        ("Let $G$ be a group and suppose that for all", "ends_mid_sentence"),
        ("Let $G$ be a finite group acting on a set $X$, where", "ends_mid_sentence"),
        ("Let $G$ be a finite group acting on a set $X$ with $f$ =", "ends_mid_sentence"),
        ("Let $G$ be a finite group acting on the following sets (", "ends_mid_sentence"),
        ("Let $G$ be a finite group acting on the following set:", "ends_mid_sentence"),
        ("Every group of prime order is cyclic.", None),
        ("$x^2 \\geq 0$", None),
        ("Cost is $5 and 50\\% of $x$ ends fine\\%", "odd_dollars"),
        ("A statement that has 50\\% sure math and ends in percent \\%", None),
        ("Let $G$ be a group. Then $G$ is a group or", "ends_mid_sentence"),
        ("Sets and operators, explained thoroughly and well", None),
        # A display ending in a line break: "\\$$" is a break then "$$" (PlanetMath's Fresnel formulas entry)
        ("We find $$\\int_0^\\infty f = 1.\\\\$$ as claimed.", None),
        ("It costs \\\\\\$5 after a line break, and $x$ more.", None),
        ("After a line break \\\\$x is unbalanced.", "odd_dollars"),
    ],
)
def test_each_filter(body, reason):
    assert reason_to_drop(body) == reason


def test_duplicates_are_per_scope_and_counted():
    counts: Counter = Counter()
    items = [("d1", "A statement long enough to stay."), ("d1", "A statement  long enough\nto stay."),
             ("d2", "A statement long enough to stay."), ("d1", "")]
    kept = list(apply_filters(items, lambda i: i[1], counts, lambda i: i[0]))
    assert [i[0] for i in kept] == ["d1", "d2"]
    assert counts == Counter({"duplicate": 1, "empty": 1})
