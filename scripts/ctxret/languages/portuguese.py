"""Portuguese: the Snowball portuguese analyser for BM25, English reports and X1 wording."""
PORTUGUESE = dict(  # a ctxret.languages.Language
    code="pt", name="Portuguese", analyser="portuguese", report="en", names={"en": "Portuguese", "ko": "포르투갈어"})
