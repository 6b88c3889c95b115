from dataclasses import replace

from theorem_rag.records import Document, Theorem


def test_theorem_roundtrip_and_hash():
    t = Theorem(id="x:1", source="x", kind="lemma", body_latex="Let $G$ be a group.", doc_id="x", section=["A", "B"])
    assert Theorem.from_dict(t.to_dict()) == t
    assert t.section == ("A", "B")
    assert replace(t, id="x:2").content_hash == t.content_hash  # the same record under another id
    edits = [replace(t, body_latex="Let $H$ be a group."), replace(t, body_expanded="Let $G$ be a group!"),
             replace(t, label="lemma-groups"), replace(t, section=("A", "C")), replace(t, doc_id="y")]
    assert len({t.content_hash, *(e.content_hash for e in edits)}) == 1 + len(edits)  # every edit is seen


def test_from_dict_ignores_paper_fields_and_requires_core():
    d = {"id": "p:1", "source": "p", "kind": "theorem", "body_latex": "B.", "doc_id": "p", "title": "T"}
    assert Theorem.from_dict(d).id == "p:1"
    import pytest

    with pytest.raises(ValueError, match="body_latex"):
        Theorem.from_dict({"id": "p:2", "source": "p", "kind": "theorem", "doc_id": "p"})
    assert Document.from_dict({"id": "p", "source": "p", "authors": "A. B."}).authors == ("A. B.",)
