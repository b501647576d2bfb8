"""German: the Snowball german analyser for BM25, English reports and X1 wording."""
GERMAN = dict(  # a ctxret.languages.Language
    code="de", name="German", analyser="german", report="en", names={"en": "German", "ko": "독일어"})
