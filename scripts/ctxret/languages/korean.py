"""Korean: Kiwi's morphemes for BM25, Korean reports, contexts checked for Hangul."""
KOREAN = dict(  # a ctxret.languages.Language
    code="ko", name="Korean", analyser="kiwi", report="ko", checked_script="hangul",
    names={"en": "Korean", "ko": "한국어"},
    x1={"doc": "「{title}」 글", "untitled": "이 글",
        "section": "이 부분은 {doc}의 「{section}」 절에 속한다.", "section_lead": "절의 첫 문장",
        "intro": "이 부분은 {doc}의 도입부에 속한다.", "intro_lead": "글의 첫 문장",
        "document": "이 부분은 {doc}의 일부다.", "before": "바로 앞 문장", "after": "바로 뒤 문장"})
