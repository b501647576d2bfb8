"""Spanish: the Snowball spanish analyser for BM25, English reports and X1 wording."""
SPANISH = dict(  # a ctxret.languages.Language
    code="es", name="Spanish", analyser="spanish", report="en", names={"en": "Spanish", "ko": "스페인어"})
