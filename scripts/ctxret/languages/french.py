"""French: the Snowball french analyser for BM25, English reports and X1 wording."""
FRENCH = dict(  # a ctxret.languages.Language
    code="fr", name="French", analyser="french", report="en", names={"en": "French", "ko": "프랑스어"})
