"""Japanese: SudachiPy's content morphemes for BM25, English reports, X1 in Japanese, contexts
checked for Kana."""
JAPANESE = dict(  # a ctxret.languages.Language
    code="ja", name="Japanese", analyser="japanese", report="en", checked_script="kana",
    names={"en": "Japanese", "ko": "일본어"},
    x1={"doc": "「{title}」", "untitled": "この文書",
        "section": "この部分は{doc}の「{section}」の節に属する。", "section_lead": "節の最初の文",
        "intro": "この部分は{doc}の導入部に属する。", "intro_lead": "文書の最初の文",
        "document": "この部分は{doc}の一部である。", "before": "直前の文", "after": "直後の文"})
