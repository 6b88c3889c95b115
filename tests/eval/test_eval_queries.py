"""Loading query sets: the shared format, and clear file:line errors for bad lines."""

import json
import re

import pytest

from theorem_rag.eval.queries import Query, QueryFileError, load_queries, load_styles, query_set_name


def write(tmp_path, lines, name="set.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def test_loads_all_fields_and_skips_blank_lines(tmp_path):
    path = write(tmp_path, [
        {"id": "q1", "query": "null set", "relevant": ["planetmath:EmptySet"]},
        "",
        {"id": "q2", "query": "lemma", "relevant": ["a", "b", "a"], "relevant_papers": ["p"], "exclude": ["s:1"]},
    ])
    assert load_queries(path) == [
        Query("q1", "null set", ("planetmath:EmptySet",)),
        Query("q2", "lemma", ("a", "b"), ("p",), ("s:1",)),
    ]
    assert query_set_name(path) == "set"


@pytest.mark.parametrize(
    "bad, message",
    [
        ("{not json", "not valid JSON"),
        ({"id": "q", "query": "x"}, "at least one theorem id"),
        ({"id": "q", "query": "x", "relevant": []}, "at least one theorem id"),
        ({"id": "q", "query": "", "relevant": ["a"]}, "'query' must be a non-empty string"),
        ({"query": "x", "relevant": ["a"]}, "'id' must be a non-empty string"),
        ({"id": "q", "query": "x", "relevant": "a"}, "'relevant' must be a list"),
        ({"id": "q", "query": "x", "relevant": ["a"], "exclude": [1]}, "'exclude' must be a list"),
        ({"id": "q", "query": "x", "relevant": ["a"], "relevent": ["b"]}, "unknown field"),
        (["q", "x"], "expected a JSON object"),
    ],
)
def test_bad_line_names_file_and_line(tmp_path, bad, message):
    path = write(tmp_path, [{"id": "ok", "query": "fine", "relevant": ["a"]}, bad])
    with pytest.raises(QueryFileError, match=message) as e:
        load_queries(path)
    assert f"{path}:2:" in str(e.value)


def test_duplicate_ids_and_empty_file(tmp_path):
    q = {"id": "q", "query": "x", "relevant": ["a"]}
    with pytest.raises(QueryFileError, match=r":2: duplicate query id 'q' \(first on line 1\)"):
        load_queries(write(tmp_path, [q, q]))
    with pytest.raises(QueryFileError, match="no queries"):
        load_queries(write(tmp_path, [""], name="empty.jsonl"))
    with pytest.raises(QueryFileError, match="cannot read"):
        load_queries(tmp_path / "absent.jsonl")


def test_shared_dev_sets_load():
    """Every set in the shared folder loads whole, with the number of queries its README's table gives; a set
    added, removed or changed without the table (or a line the loader rejects) fails here."""
    from shared_data import shared_dir

    root = shared_dir() / "eval"
    if not root.is_dir():
        pytest.fail(f"the shared dev sets are expected in {root} (or set THEOREM_RAG_SHARED)")
    sizes = {p.name: len(load_queries(p)) for p in sorted(root.glob("*.jsonl"))}
    rows = re.findall(r"^\| `([\w.-]+\.jsonl)` \| ([\d,]+) \|", (root / "README.md").read_text(), re.M)
    documented = {name: int(n.replace(",", "")) for name, n in rows}
    assert sizes == documented
    assert {"stacks_slogans_dev.jsonl", "stacks_proof_refs.jsonl", "planetmath_synonyms.jsonl",
            "research_dev.jsonl"} <= set(sizes)  # fmt: skip


def test_styles_are_read_from_beside_the_set(tmp_path):
    queries = write(tmp_path, [{"id": "q1", "query": "x", "relevant": ["a"]}], name="mine.jsonl")
    assert load_styles(queries) == {}
    (tmp_path / "mine.styles.tsv").write_text("kind\tstyle\tid\ntheorem\tlean\tq1\n\ndef\tlatex\tq2\n")
    assert load_styles(queries) == {"q1": "lean", "q2": "latex"}


@pytest.mark.parametrize("text,message", [
    ("id\tkind\nq1\ttheorem\n", r"mine.styles.tsv:1: the header must name an 'id' and a 'style' column"),
    ("id\tstyle\nq1\n", r"mine.styles.tsv:2: expected a query id and a style"),
    ("id\tstyle\nq1\tlean\nq1\tlatex\n", r"mine.styles.tsv:3: query id 'q1' given a style twice"),
])  # fmt: skip
def test_a_bad_styles_file_names_file_and_line(tmp_path, text, message):
    (tmp_path / "mine.styles.tsv").write_text(text)
    with pytest.raises(QueryFileError, match=message):
        load_styles(tmp_path / "mine.jsonl")
