"""ctxret.presentation: computed dicts into words, rows, Markdown and figures, in the report
language (`wording`); reads no file, computes no figure. `pages` (Markdown and HTML pages and
tables), `figures`, `ledger_text`, `explorer_page`. May import evaluation, contexts, languages
and the shared leaves."""
