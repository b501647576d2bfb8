"""Dutch: the Snowball dutch analyser for BM25, English reports and X1 wording."""
DUTCH = dict(  # a ctxret.languages.Language
    code="nl", name="Dutch", analyser="dutch", report="en", names={"en": "Dutch", "ko": "네덜란드어"})
