"""Fusion on lists whose scores are computed by hand."""
import pytest

from ctxret.retrieval.fusion import rrf


def test_reference_rrf_k2_ranks_from_zero():
    dense = ["a", "b", "c"]
    bm25 = ["c", "a", "d"]
    fused = dict(rrf([dense, bm25], k=2, rank_base=0, weights=[1, 1], depth=20))
    assert fused["a"] == pytest.approx(1 / 2 + 1 / 3)
    assert fused["c"] == pytest.approx(1 / 4 + 1 / 2)
    assert fused["b"] == pytest.approx(1 / 3)
    assert fused["d"] == pytest.approx(1 / 4)


def test_classic_k60_from_one_equals_k61_from_zero():
    lists = [["a", "b", "c", "d"], ["d", "c", "e"]]
    classic = rrf(lists, k=60, rank_base=1, weights=[1, 1], depth=20)
    shifted = rrf(lists, k=61, rank_base=0, weights=[1, 1], depth=20)
    assert [c for c, _ in classic] == [c for c, _ in shifted]
    assert [s for _, s in classic] == pytest.approx([s for _, s in shifted])


def test_weights_and_depth():
    lists = [["a", "b", "c"], ["c", "b", "a"]]
    fused = dict(rrf(lists, k=60, rank_base=1, weights=[0.6, 0.4], depth=2))
    assert fused["a"] == pytest.approx(0.6 / 61)           # beyond depth in the second list
    assert fused["b"] == pytest.approx(0.6 / 62 + 0.4 / 62)
    assert fused["c"] == pytest.approx(0.4 / 61)


def test_weighted_reciprocal_rank_is_rrf_with_k_0_from_rank_1():
    fused = dict(rrf([["a", "b"], ["b"]], k=0, rank_base=1, weights=[0.8, 0.2], depth=50))
    assert fused == pytest.approx({"a": 0.8, "b": 0.8 / 2 + 0.2})


def test_ties_are_broken_by_chunk_id():
    fused = rrf([["00009", "00003"], ["00003", "00009"]], k=2, rank_base=0, weights=[1, 1], depth=20)
    assert [c for c, _ in fused] == ["00003", "00009"]


def test_the_fuse_stage_reads_its_depth_from_each_list_and_logs_it(tmp_path, capsys):
    from types import SimpleNamespace

    from ctxret.retrieval.fusion import FusionPreset
    from ctxret.retrieval.runs import read_run, write_run
    from ctxret.stages.search import search_fuse
    dense = {"q": [(f"d{i:03d}", 1 - i / 100) for i in range(100)]}
    bm25 = {"q": [(f"b{i:03d}", 50 - i / 10) for i in range(100)]}
    paths = {}
    for name, run in (("dense", dense), ("bm25", bm25)):
        paths[name] = str(tmp_path / f"{name}.jsonl")
        write_run(paths[name], str(tmp_path / f"{name}.trec"), name, run)
    out = SimpleNamespace(run=str(tmp_path / "h.jsonl"), trec=str(tmp_path / "h.trec"))
    preset = {"k": 2, "rank_base": 0, "depth": 20, "weights": {"dense": 1.0, "bm25": 1.0}}
    search_fuse(input=SimpleNamespace(**paths), output=out,
             params=SimpleNamespace(fusion=FusionPreset.of("reference", preset, 100), depth=100, name="he5:T1"))
    assert len(read_run(out.run)["q"]) == 100       # 100 read from each list, not the preset's 20
    assert "the top 100 of each list fused" in capsys.readouterr().out
