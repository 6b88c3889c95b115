"""The names only the whole library decides: anonymous instances, what translation attributes generate, aliases.

Each file is read on its own (:func:`corpus_build.lean.decls.read_file`); :func:`complete` then sees every file at
once: it names anonymous instances (:func:`~corpus_build.lean.instances.instance_name`, which needs every declared
name), adds a declaration for each ``@[to_additive]``/``@[to_dual]`` (and ``attribute [to_additive] foo``) whose
target the text does not declare, right after its source, and gives simple aliases their target's statement.
Translations are worked out shortest source name first, so a namespace (``Subgroup``) is translated before the
names inside it (``Subgroup.mul_mem``), as the order of mathlib's files guarantees there.

>>> from corpus_build.lean.decls import read_file
>>> f = read_file("attribute [to_additive existing] CommMonoid\\n"
...               "@[to_additive] theorem mul_comm' [CommMonoid M] (a b : M) : a * b = b * a := sorry\\n"
...               "alias mul_comm'' := mul_comm'\\n", "X.lean")
>>> counts = complete([f], {})
>>> [(d.name, d.statement, d.extra.get("generated_from")) for d in f.decls]  # doctest: +NORMALIZE_WHITESPACE
[("mul_comm'", "theorem mul_comm' [CommMonoid M] (a b : M) : a * b = b * a", None),
 ("add_comm'", "theorem add_comm' [AddCommMonoid M] (a b : M) : a + b = b + a", "mul_comm'"),
 ("mul_comm''", "theorem mul_comm'' [CommMonoid M] (a b : M) : a * b = b * a", None)]
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from corpus_build.lean.additive import ATTRIBUTES, Dictionary, read_translation, target_name, translate_statement
from corpus_build.lean.decls import LeanDecl, LeanFile
from corpus_build.lean.instances import instance_name, instance_needs, name_suffixes


def resolve(name: str, namespace: str, opens: tuple[str, ...], known: set[str] | dict) -> str | None:
    """The declaration a name written in ``namespace`` (with ``opens``) means, if the library declares it.

    >>> resolve("bar", "Foo.Baz", (), {"Foo.bar"}), resolve("_root_.bar", "Foo", (), {"bar"})
    ('Foo.bar', 'bar')
    """
    if name.startswith("_root_."):
        name = name[len("_root_.") :]
        return name if name in known else None
    parts = namespace.split(".") if namespace else []
    for k in range(len(parts), -1, -1):
        full = ".".join(parts[:k] + [name])
        if full in known:
            return full
    return next((f"{o}.{name}" for o in opens if f"{o}.{name}" in known), None)


def name_instances(files: list[LeanFile], counts: Counter) -> None:
    """Give every anonymous instance the name Lean generates (in file order: a taken name gets ``_1``...)."""
    known = {d.name for f in files for d in f.decls if d.name}
    needs = {d.name: n for f in files for d in f.decls if d.params and (n := instance_needs(d.params))}
    suffixes = name_suffixes(known)
    for f in files:
        for d in f.decls:
            if d.kind == "instance" and not d.name:
                d.name = instance_name(d.namespace, d.type_code, d.binders_code, d.scope_types, known=known,
                                       opens=d.opens, suffixes=suffixes, needs=needs)
                d.statement = d.statement.replace("instance ", f"instance {d.name} ", 1)
                d.extra["anonymous instance"] = True
                known.add(d.name)
                counts["anonymous instances named"] += 1


def generate_translations(files: list[LeanFile], dictionaries: dict[str, Dictionary], counts: Counter) -> None:
    """Add the declarations ``to_additive``/``to_dual`` generate, each right after its source (see module docs)."""
    known = {d.name: d for f in files for d in f.decls if d.name}
    jobs = []  # (source name, translation, source declaration or None, file index, order)
    for k, f in enumerate(files):
        for d in f.decls:
            jobs += [(d.name, t, d, k) for a in d.attributes if (t := read_translation(a))]
        for c in f.attribute_commands:
            for a in c.attributes:
                if (t := read_translation(a)) is None:
                    continue
                for n in c.names:
                    full = resolve(n, c.namespace, (), known) or n
                    jobs.append((full, t, known.get(full), k))
    pairs = {name: {} for name in ATTRIBUTES}
    for f in files:
        for src, tgt in f.translations:
            pairs["to_additive"][src] = tgt
    added: dict[int, list[tuple[LeanDecl, LeanDecl]]] = {}
    for src, t, decl, k in sorted(jobs, key=lambda j: j[0].count(".")):
        d = dictionaries.get(t.attribute) or ATTRIBUTES[t.attribute]
        tgt = target_name(src, t, pairs[t.attribute], d)
        if tgt is None:
            continue
        pairs[t.attribute][src] = tgt
        if t.attribute == "to_dual":
            pairs[t.attribute].setdefault(tgt, src)
        if t.hint in ("existing", "self") or tgt in known:
            counts[f"{t.attribute}: target written in the text"] += 1
            continue
        if decl is None:
            counts[f"{t.attribute}: source not found"] += 1
            continue
        kept = {"direction": decl.extra["direction"]} if "direction" in decl.extra else {}  # of an `↔`'s alias
        new = replace(decl, name=tgt, namespace=tgt.rpartition(".")[0], body="", doc=t.doc or None,
                      attributes=[], extra={"generated": t.attribute, "generated_from": src, **kept})
        known[tgt] = new
        added.setdefault(k, []).append((decl, new))
        counts[f"{t.attribute}: generated"] += 1
    for k, new in added.items():
        for source, d in new:
            d.statement = translate_statement(source.statement, pairs[d.extra["generated"]], d.extra["generated"])
            if source.alias_of:  # `@[to_additive] alias foo := bar`: the translation is an alias of bar's translation
                target = resolve(source.alias_of, source.namespace, source.opens, known) or source.alias_of
                d.alias_of = "_root_." + pairs[d.extra["generated"]].get(target, target)
        _insert_after(files[k], new)


def _insert_after(f: LeanFile, new: list[tuple[LeanDecl, LeanDecl]]) -> None:
    after: dict[int, list[LeanDecl]] = {}
    for source, d in new:
        after.setdefault(id(source), []).append(d)
    out = []
    for d in f.decls:
        out.append(d)
        out += after.pop(id(d), [])
    for rest in after.values():  # sources named by an `attribute` command in another file
        out += rest
    f.decls = out


def resolve_aliases(files: list[LeanFile], counts: Counter) -> None:
    """An alias states what its target states (``alias foo := bar``: the same statement under its name); one
    direction of an ``↔`` (``alias ⟨foo, bar⟩ := baz``) says which and gives the ``↔``. An alias whose target the
    library does not declare keeps its ``alias`` line."""
    known = {d.name: d for f in files for d in f.decls if d.name and d.kind != "alias"}
    for f in files:
        for d in f.decls:
            if d.kind != "alias":
                continue
            target = known.get(resolve(d.alias_of, d.namespace, d.opens, known) or "")
            if target is None:
                counts["aliases whose target is not found"] += 1
                continue
            d.extra["alias_of"] = target.name
            direction = d.extra.get("direction")
            if direction:
                arrow = "→" if direction == "mp" else "←"
                d.statement = f"theorem {d.name} : the {arrow} direction of {target.statement}"
                d.kind = "theorem"
            else:
                d.statement = re.sub(r"^(\w+) \S+", lambda m: f"{m.group(1)} {d.name}", target.statement, count=1)
                d.kind = target.kind
            counts["aliases resolved"] += 1


def complete(files: list[LeanFile], dictionaries: dict[str, Dictionary]) -> Counter:
    """Name instances, generate translations and resolve aliases across ``files`` (changed in place)."""
    counts: Counter = Counter()
    name_instances(files, counts)
    generate_translations(files, dictionaries, counts)
    resolve_aliases(files, counts)
    return counts
