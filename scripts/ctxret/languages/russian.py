"""Russian: the Snowball russian analyser for BM25, English reports and X1 wording."""
RUSSIAN = dict(  # a ctxret.languages.Language
    code="ru", name="Russian", analyser="russian", report="en", names={"en": "Russian", "ko": "러시아어"})
