"""Adapting the embedder to mathematics: pairs mined from the corpus (:mod:`.pairs`) and contrastive training
(:mod:`.train`), which writes a model folder with a model card."""
