"""Italian: the Snowball italian analyser for BM25, English reports and X1 wording."""
ITALIAN = dict(  # a ctxret.languages.Language
    code="it", name="Italian", analyser="italian", report="en", names={"en": "Italian", "ko": "이탈리아어"})
