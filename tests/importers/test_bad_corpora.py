"""Bad corpora: each stops the workflow with one line naming the file (and line), before
anything is paid (tests/bad_inputs.py); what is legal but surprising is a warning line."""
import json
import shutil
import unicodedata
from pathlib import Path
from types import SimpleNamespace

import pytest
from bad_inputs import CORPUS, QUESTIONS, Experiment, _undecodable, check
from test_importers import FORMATS
from workflow import MINI


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_a_bad_input_stops_with_one_line_and_writes_nothing(tmp_path, case):
    check(tmp_path, case)


def test_byte_order_marks_are_accepted(tmp_path):
    x = Experiment(tmp_path)
    for path in (x.manifest("kafka-lag"), x.questions("h")):
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    proc = x.run(QUESTIONS, "results/docs.jsonl")
    assert proc.returncode == 0, proc.stderr[-3000:]
    written = (tmp_path / QUESTIONS).read_text(encoding="utf-8").splitlines()
    assert len(written) == sum(len(x.rows(n)) for n in ("h", "p", "gap"))


def test_a_manifest_added_after_the_freeze_is_named_and_how_to_add_it(tmp_path):
    x = Experiment(tmp_path)
    slugs = x.freeze()
    x.add_article("zookeeper", "주키퍼는 세션을 관리한다.")
    proc = x.run("results/docs.jsonl")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (f"warning: 1 documents are not in the frozen list {slugs} and are left out: zookeeper "
            f"(append a slug to that file to include its document)") in proc.stdout + proc.stderr


# Every importer reads through the same file functions: an undecodable byte is named by its
# file and line whatever the format (pure calls of the importers; the workflow cases above show
# the same line reaches the user while the workflow is read).
CODEBENCH = {"id": "doc_id", "chunk_id": "chunk_id", "text": "content"}
UNDECODABLE = [  # format, source (file or directory), the file broken, its line, set (format, spec) or None
    ("manifests", MINI / "articles", "kafka-lag.mdx", 3, None),
    ("squad", FORMATS / "squad" / "mini.json", "", 5, None),
    ("beir", FORMATS / "beir", "corpus.jsonl", 3, None),
    ("beir", FORMATS / "beir", "queries.jsonl", 2, {"format": "beir", "split": "test"}),
    ("chunked", FORMATS / "codebench" / "corpus.jsonl", "", 2, None),
    ("table", FORMATS / "table" / "corpus.csv", "", 3, None),
]


@pytest.mark.parametrize("fmt, source, broken, lineno, question_set", UNDECODABLE,
                         ids=[f"{u[0]}-{u[2] or Path(u[1]).name}" for u in UNDECODABLE])
def test_every_importer_names_the_line_of_an_undecodable_byte(tmp_path, fmt, source, broken, lineno, question_set):
    from ctxret.errors import InputError
    from ctxret.importers import read_corpus, read_set
    copy = tmp_path / source.name
    (shutil.copytree if source.is_dir() else shutil.copy)(source, copy)
    path = _undecodable(copy / broken if broken else copy, lineno)
    corpus = {"format": fmt, "path": str(copy), "columns": CODEBENCH if fmt == "chunked" else
              {"id": "page_id", "text": "content"} if fmt == "table" else {},
              "exclude_tags": [], "min_chars": 0, "sample": 0, "seed": 42}
    with pytest.raises(InputError) as e:
        read_set("Q", {**question_set, "sample": 0, "seed": 42}, corpus) if question_set else read_corpus(corpus)
    assert str(e.value) == f"{path}:{lineno}: not UTF-8 text (byte 0xe9); save the file as UTF-8"


# ---- legal but surprising: a warning line in the stage's log (the report carries it too:
# tests/evaluation/test_pairs.py, tests/presentation/test_report.py), the run goes on
def test_a_language_unlike_the_texts_script_is_a_warning_in_preps_log(tmp_path, capsys):
    from conftest import corpus_settings

    from ctxret.stages import prep
    cases = [(corpus_settings(MINI / "articles", language="en", exclude_tags=["RAG"]), "en"),
             (corpus_settings(FORMATS / "beir", format="beir", language="ko"), "ko"),
             (corpus_settings(MINI / "articles", exclude_tags=["RAG"]), None),   # auto: the text decides
             (corpus_settings(FORMATS / "beir", format="beir"), None)]
    for i, (corpus, language) in enumerate(cases):
        out = tmp_path / str(i)
        prep.prep(input=SimpleNamespace(), params=SimpleNamespace(corpus=corpus, store=str(out / "store")),
                 output=SimpleNamespace(docs_all=str(out / "docs-all.jsonl"), docs=str(out / "docs.jsonl")))
        letters = [c for line in (out / "docs.jsonl").read_text(encoding="utf-8").splitlines()
                   for c in json.loads(line)["body"] if c.isalpha()]
        share = f"{sum('HANGUL' in unicodedata.name(c, '') for c in letters) / len(letters):.0%}"
        warnings = [l for l in capsys.readouterr().out.splitlines() if l.startswith("warning:")]
        assert warnings == ([f"warning: corpus.language is {language}, but {share} of the kept documents' letters "
                             f"are Hangul: the prompt's language, the Hangul check of contexts, the BM25 analyser "
                             f"and the report's language follow corpus.language; set it to the text's language"]
                            if language else [])
        assert (out / "docs.jsonl").exists()


def test_an_empty_table_title_is_no_title_not_the_text_nan(tmp_path):
    """A parquet title column with null or NaN cells (pandas writes a missing string as NaN): those
    documents have no title (T1 without a title line), not the title "nan"."""
    import pyarrow as pa
    import pyarrow.parquet

    from ctxret.importers import table
    path = tmp_path / "corpus.parquet"
    pa.parquet.write_table(pa.table({"id": ["a", "b", "c"], "text": ["one", "two", "three"],
                                     "title": pa.array([float("nan"), None, 7.0])}), path)
    docs = table.read_corpus(str(path), {"id": "id", "text": "text", "title": "title", "metadata": []})
    assert [d["title"] for d in docs] == ["", "", "7.0"]
