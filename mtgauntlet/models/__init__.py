"""Model backends behind small interfaces (LLM, translator, QE, NLI, infiller, annotator, embedder, difficulty),
chosen by spec strings (:mod:`mtgauntlet.models.registry`). ``mg.list_models()`` lists them."""
