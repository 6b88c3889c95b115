"""The configuration registry, the extra-records hook and the records readers."""

import json

import pytest

from theorem_rag.eval import configs
from theorem_rag.records import Hit, Theorem


def thm(i, body):
    return Theorem(id=i, source="s", kind="lemma", body_latex=body, doc_id=f"doc-{i}")


def test_unknown_config_lists_available():
    with pytest.raises(configs.UnknownConfigError, match="configuration 'dense-magic'; available: .*bm25-latex"):
        configs.build_searcher("dense-magic", None, configs.EvalContext([]))


def test_register_and_build(monkeypatch):
    monkeypatch.setattr(configs, "_REGISTRY", dict(configs._REGISTRY))

    class Retriever:
        def search_batch(self, queries, k, hybrid=True):
            return [[Hit("a", 1.0), Hit("b", 0.5 if hybrid else 0.9)][:k] for _ in queries]

    @configs.register_config("dense-test", "test retriever", needs_index=True)
    def _factory(settings, context):
        return configs.RetrieverSearcher("dense-test", context.require_index("dense-test"), hybrid=False)

    assert "dense-test" in configs.available_configs()
    with pytest.raises(RuntimeError, match="'dense-test' needs the PostgreSQL index"):
        configs.build_searcher("dense-test", None, configs.EvalContext([]))
    searcher = configs.build_searcher("dense-test", None, configs.EvalContext([], index=Retriever()))
    assert searcher.search_batch(["q1", "q2"], 1) == [["a"], ["a"]]


def test_extra_records_added_then_removed_even_on_error():
    searcher = configs.build_searcher("bm25-latex", None, configs.EvalContext([thm("main", "Noetherian ring")]))
    extra = [thm("gold", "Nakayama lemma")]
    with configs.extra_records([searcher, object()], extra) as took:
        assert took == [searcher]
        assert searcher.search("nakayama", 5) == ["gold"]
    assert searcher.ids == ["main"]
    with pytest.raises(KeyError):
        with configs.extra_records([searcher], extra):
            raise KeyError("boom")
    assert searcher.ids == ["main"]


def test_extra_records_clash_leaves_main_corpus_intact():
    searcher = configs.build_searcher("bm25-latex", None, configs.EvalContext([thm("main", "Noetherian ring")]))
    with pytest.raises(ValueError, match="already indexed"):
        with configs.extra_records([searcher], [thm("main", "other text")]):
            pass
    assert searcher.search("noetherian", 5) == ["main"]


def test_read_records_and_errors(tmp_path):
    good = tmp_path / "theorems.jsonl"
    good.write_text(thm("a", "x").to_json() + "\n\n" + thm("b", "y").to_json() + "\n")
    ctx = configs.load_context(tmp_path)
    assert [t.id for t in ctx.theorems] == ["a", "b"] and ctx.doc_of == {"a": "doc-a", "b": "doc-b"}
    assert configs.merge_doc_of(ctx.doc_of, [thm("c", "z")])["c"] == "doc-c"
    (tmp_path / "theorems.jsonl").write_text(thm("a", "x").to_json() + "\n" + thm("a", "x").to_json() + "\n")
    with pytest.raises(ValueError, match=r"theorems.jsonl:2: duplicate id 'a'"):
        configs.load_context(tmp_path)  # strict: the evaluated corpus is never silently smaller
    with pytest.raises(ValueError, match="no such folder or record file"):
        configs.load_context(tmp_path / "nowhere")


def test_retriever_with_single_search_only():
    class Single:
        def search(self, query, k):
            return [Hit(f"{query}-1", 1.0), Hit(f"{query}-2", 0.5)][:k]

    assert configs.RetrieverSearcher("r", Single()).search_batch(["a", "b"], 1) == [["a-1"], ["b-1"]]
