"""ctxret.questions: the question sets of a run, read through their formats (ctxret.importers),
fingerprinted by content and counted (`sets`); generated sets' sampling, prompts and filters
(`generation`). May import importers, text, languages and the shared leaves."""
