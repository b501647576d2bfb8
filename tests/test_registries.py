"""Every plug-in family is registered in one place, and the schema's enums are those registries:
a new chunker is its module and one registry entry (here a `sentence` chunker, added by the test)."""
import re
from types import SimpleNamespace

import pytest
from conftest import settings
from test_chunkers import DEMO
from workflow import ROOT

from ctxret.chunkers import CHUNKERS, Strategy
from ctxret.config.plan import plan
from ctxret.embedding.models import EMBEDDING_BACKENDS
from ctxret.errors import InputError
from ctxret.fileio import read_jsonl, write_jsonl
from ctxret.importers import CORPUS_FORMATS, SET_FORMATS
from ctxret.languages import letters_by_script
from ctxret.settings import load_schema
from ctxret.stages import chunks


def enum_at(schema: dict, *path: str) -> list:
    node = schema
    for key in path:
        node = node[key]
    return node["enum"]


def test_the_schemas_enums_are_the_registries():
    schema = load_schema()
    props = schema["properties"]
    assert enum_at(props, "chunking", "properties", "chunker") == ["", *CHUNKERS]
    assert enum_at(props, "chunking", "properties", "compare", "items") == list(CHUNKERS)
    assert enum_at(props, "corpus", "properties", "format") == list(CORPUS_FORMATS)
    a_set = props["questions"]["properties"]["sets"]["additionalProperties"]["oneOf"][1]
    assert enum_at(a_set, "properties", "format") == list(SET_FORMATS)
    assert enum_at(props, "models", "additionalProperties", "properties", "backend") == list(EMBEDDING_BACKENDS)
    text = (ROOT / "config" / "schema.yaml").read_text(encoding="utf-8")
    for names in (CHUNKERS, CORPUS_FORMATS, SET_FORMATS, EMBEDDING_BACKENDS):  # not listed a second time
        assert ", ".join(names) not in text


def sentence_spans(doc: dict, settings: dict, tools) -> list[dict]:
    """One chunk per sentence (ends at . ! ? or a line break), its section the unit it starts in."""
    from ctxret.text.documents import units_of
    units = units_of(doc)
    out = []
    for m in re.finditer(r"[^\s][^.!?\n]*[.!?]?", doc["body"]):
        section = next(u["section"] for u in reversed(units) if u["start"] <= m.start())
        out.append({"section": section, "start": m.start(), "end": m.end()})
    return out


@pytest.fixture
def sentence(monkeypatch):
    monkeypatch.setitem(CHUNKERS, "sentence", Strategy(sentence_spans))   # the one registry line


def test_a_chunker_added_by_one_registry_entry_is_configured_planned_and_run(sentence, tmp_path):
    config = settings(results=str(tmp_path / "results"), store=str(tmp_path / "store"), variants=["T1"],
                      chunking={"chunker": "sentence", "compare": ["paragraph"]})
    p = plan(config, ROOT, letters_by_script(d["body"] for d in DEMO))
    assert (p.chunker.name, p.chunker.settings) == ("sentence", {})
    assert [c.variant for c in p.chunkers] == ["T1", "T1.paragraph"]
    docs = tmp_path / "docs.jsonl"
    write_jsonl(docs, DEMO)
    out = tmp_path / "chunks.jsonl"
    chunks.chunks(input=SimpleNamespace(docs=str(docs)), output=SimpleNamespace(chunks=str(out)),
               params=SimpleNamespace(chunker="sentence", settings=p.chunker.settings, format="manifests",
                                      t1_template=config["chunking"]["t1_template"]))
    rows = read_jsonl(out)
    assert len(rows) > 3 * len(DEMO)
    for doc in DEMO:
        own = [r for r in rows if r["slug"] == doc["slug"]]
        assert all(r["text"] == doc["body"][r["start"]:r["end"]] for r in own)
        covered = {i for r in own for i in range(r["start"], r["end"])}
        assert all(doc["body"][i].isspace() for i in range(len(doc["body"])) if i not in covered)


def test_an_unregistered_name_is_refused_with_the_registered_ones():
    with pytest.raises(InputError, match=r"chunking.chunker: 'sentence' is not one of \['', 'paragraph'"):
        settings(chunking={"chunker": "sentence"})
