"""Lean 4 source text as declarations, without a Lean toolchain: a masking lexer, commands, scopes and names.

:mod:`~corpus_build.lean.lexer` blanks comments and strings and cuts a file into top-level commands;
:mod:`~corpus_build.lean.syntax` reads binders and a declaration's header; :mod:`~corpus_build.lean.decls` walks
the commands of one file with its namespaces, sections and variables, and :mod:`~corpus_build.lean.fields` the
fields and constructors of a type; :mod:`~corpus_build.lean.library` completes what needs the whole library:
anonymous instances named as Lean does (:mod:`~corpus_build.lean.instances`) and what ``@[to_additive]`` and
``@[to_dual]`` generate (:mod:`~corpus_build.lean.additive`); :mod:`~corpus_build.lean.refs` resolves the names a
proof or body mentions to the declarations they mean ("uses / used by").
"""
