"""The index build: records -> slogans -> embeddings -> the store, in one process
(:mod:`~theorem_rag.indexing.ingest`) or spread over Ray Data workers (:mod:`~theorem_rag.indexing.ray_build`), both
with the same steps. (Not ``build/``: ``.gitignore`` and pytest's ``norecursedirs`` both skip folders of that name.)"""
