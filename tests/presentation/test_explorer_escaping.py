"""The explorer page's embedded data cannot break out of its script element: a chunk's or a
question's text holding `</script>` or `<!--<script>` reads back the same from the page, and the
raw page holds no such markup inside the data."""
import json
from html.parser import HTMLParser

from ctxret.presentation.explorer_page import explorer_html
from ctxret.presentation.wording import WORDING
from ctxret.stages.explorer import explorer_data

NASTY = ["</script><script>alert(1)</script>", "<!--<script>", "a </SCRIPT > b", "x <!-- y --> & z"]


class Scripts(HTMLParser):
    """Each script element's text, as an HTML parser splits the page."""

    def __init__(self):
        super().__init__()
        self.found: list[tuple[dict, str]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.found.append((dict(attrs), ""))

    def handle_data(self, data):
        if self.found and self.lasttag == "script":
            attrs, text = self.found[-1]
            self.found[-1] = (attrs, text + data)


def nasty_page() -> tuple[dict, str]:
    chunks = {f"{i:05d}": {"name": f"doc#{i}", "title": text, "section": NASTY[-1 - i], "text": f"chunk {text}"}
              for i, text in enumerate(NASTY)}
    gold = {f"q{i}": {"set": "K", "generated": False, "question": f"why {text}?", "gold_chunks": [f"{i:05d}"]}
            for i, text in enumerate(NASTY)}
    runs = {"bm25:T1": {q: list(chunks) for q in gold}, "e5:T1": {q: list(reversed(chunks)) for q in gold}}
    data = explorer_data(gold, chunks, runs, {"comparisons": [{"a": "bm25:T1", "b": "e5:T1", "group": "K", "k": 5}]},
                         {"K": list(gold)}, {"bm25:T1": "bm25", "e5:T1": "dense"}, {"A1": {"00001": NASTY[0]}})
    return data, explorer_html(data, WORDING["en"], "</script><!--", "en")


def test_text_with_script_markup_reads_back_from_the_page_unchanged():
    data, page = nasty_page()
    parser = Scripts()
    parser.feed(page)
    assert [attrs.get("id") for attrs, _ in parser.found] == ["data", None]   # the data, then the page's script
    shown = json.loads(parser.found[0][1])
    assert [q["q"] for q in shown["questions"]] == [f"why {t}?" for t in NASTY]
    assert [c["text"] for c in shown["chunks"]] == [c["text"] for c in data["chunks"]]
    assert {k: shown[k] for k in data} == data


def test_the_raw_data_holds_no_markup_that_could_end_or_comment_out_its_script():
    _, page = nasty_page()
    start = page.index('<script type="application/json" id="data">') + len('<script type="application/json" id="data">')
    raw = page[start:page.index("</script>", start)]
    assert raw.startswith("{") and raw.endswith("}")
    assert not any(s in raw.lower() for s in ("<!--", "</script", "<script", "-->"))
    assert "\\u003c/script\\u003e" in raw      # the text is there, escaped
