"""English: bm25s's English analysis (stopwords, the Snowball stemmer) for BM25, English reports;
its X1 wording is every language's without one of its own."""
ENGLISH = dict(  # a ctxret.languages.Language
    code="en", name="English", analyser="english", report="en",
    names={"en": "English", "ko": "영어"},
    x1={"doc": "“{title}”", "untitled": "the text",
        "section": "This part belongs to the section “{section}” of {doc}.",
        "section_lead": "The section's first sentence",
        "intro": "This part belongs to the introduction of {doc}.",
        "intro_lead": "The text's first sentence",
        "document": "This part is from {doc}.",
        "before": "The sentence before it", "after": "The sentence after it"})
