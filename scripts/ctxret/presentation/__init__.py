"""Presentation: computed dicts into words, rows, Markdown and figures, in the report language
(`wording`); reads no file, computes no figure."""
