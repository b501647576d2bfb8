"""Chinese: jieba's words for BM25, English reports, X1 in Chinese, contexts checked for Han."""
CHINESE = dict(  # a ctxret.languages.Language
    code="zh", name="Chinese", analyser="chinese", report="en", checked_script="han",
    names={"en": "Chinese", "ko": "중국어"},
    x1={"doc": "《{title}》", "untitled": "本文",
        "section": "这一部分属于{doc}的“{section}”一节。", "section_lead": "该节的第一句",
        "intro": "这一部分属于{doc}的引言。", "intro_lead": "全文的第一句",
        "document": "这一部分出自{doc}。", "before": "前一句", "after": "后一句"})
