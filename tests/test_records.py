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


def test_formula_keys_travel_with_a_record_but_are_not_part_of_it(monkeypatch):
    import json

    import pytest

    from theorem_rag import formula_keys as fk
    from theorem_rag.errors import InputError

    plain = Theorem(id="x:1", source="x", kind="lemma", body_latex=r"If $a \le b$ then $a + c \le b + c$.", doc_id="x")
    carried = replace(plain, formula_keys=fk.carry(plain.text))
    assert carried == plain and hash(carried) == hash(plain) and carried.content_hash == plain.content_hash
    assert "formula_keys" not in plain.to_dict()  # records written without keys read as before
    back = Theorem.from_dict(json.loads(carried.to_json()))
    assert back.formula_keys == carried.formula_keys and back.formula_keys[1] == tuple(fk.formula_keys(plain.text))
    assert fk.keys_for(plain.text, back.formula_keys) == fk.formula_keys(plain.text)
    monkeypatch.setattr(fk, "VERSION", "another")  # keys of another version of the reader are computed again
    assert fk.stamp(plain.text) != carried.formula_keys[0]
    monkeypatch.setattr(fk, "formula_keys", lambda text: ["recomputed"])
    assert fk.keys_for(plain.text, back.formula_keys) == ["recomputed"]
    for bad in ({"stamp": 1, "keys": []}, {"stamp": "s"}, {"stamp": "s", "keys": [1]}, "s"):
        with pytest.raises(InputError, match="formula_keys"):
            Theorem.from_dict({**plain.to_dict(), "formula_keys": bad})
