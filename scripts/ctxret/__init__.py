"""ctxret: does Contextual Retrieval find more right answers on your documents? The package of the
workflow, in wings by what each part serves (docs/architecture.md): config, text, languages,
importers, chunkers, questions, embedding, contexts, retrieval, evaluation, runtime, presentation,
stages; the shared leaves (errors, fileio, store, secrets, yaml_lines) and the commands
(`python -m ctxret`, `.report`, `.resume`, `.settings`, `.search_results`) at the top."""
