"""Query understanding, pure (no database, model or network): what a query means before it is searched.

Acronyms (curated and mined from the corpora), "definition of" and bare terms, formulas in LaTeX or ASCII math
(read by the slogans' own LaTeX reader), French, German and Spanish names of results (a documented glossary),
accents, repeated words, arXiv ids, DOIs and paper titles. (The confidence of a ranking, scored after the search,
is :mod:`theorem_rag.retrieval.confidence`.)

>>> understand("FTC").variants
('fundamental theorem of calculus',)
"""

from theorem_rag.query_understanding.plan import QueryPlan, understand

__all__ = ["QueryPlan", "understand"]
