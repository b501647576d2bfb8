"""Expected scores (tests/regression/*.yaml marked `ci: true`): real runs, every metric to 3 decimals;
the BM25 cells also recomputed by an implementation written from the README alone."""
import pytest
import yaml

from independent_bm25 import analyse_japanese, figures
from regression.regress import CASES, compare, load_case, missing_source, run

CI_CASES = [p for p in sorted(CASES.glob("*.yaml")) if yaml.safe_load(p.read_text(encoding="utf-8")).get("ci")]


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """Each CI case run once: name -> (case, score.json, its work folder)."""
    done = {}

    def case_run(path):
        if path.stem not in done:
            case = load_case(path)
            why = missing_source(case)
            if why:
                pytest.skip(why)
            work = tmp_path_factory.mktemp(path.stem)
            score, seconds = run(case, work)
            done[path.stem] = case, score, work, seconds
        return done[path.stem]

    return case_run


@pytest.mark.parametrize("path", CI_CASES, ids=[p.stem for p in CI_CASES])
def test_expected_scores_hold(path, ran):
    case, score, _, seconds = ran(path)
    lines = compare(score, case["expected"])
    print(f"{case['name']} ({seconds:.0f} s)\n" + "\n".join(line for _, line in lines))
    assert lines and all(ok for ok, _ in lines), "\n".join(line for ok, line in lines if not ok)


def test_the_readmes_bm25_gives_the_pinned_korquad_cells(ran):
    """Kiwi and bm25s used directly, as the README states the analysis, on the run's own variant
    and question files: every pinned bm25 cell of the KorQuAD case, to 3 decimals."""
    case, _, work, _ = ran(CASES / "korquad-bm25.yaml")
    for condition, groups in case["expected"].items():
        got = figures(work / "results", condition.split(":")[1])
        for metric, want in groups["K"].items():
            assert round(got[metric], 3) == round(want, 3), (condition, metric, got[metric], want)


def test_sudachi_called_directly_gives_the_pinned_japanese_cells(ran):
    """SudachiPy and bm25s used directly, as docs/analysis.md states the japanese analysis, on the
    run's own variant and question files: every pinned bm25 cell of the Japanese case."""
    case, _, work, _ = ran(CASES / "japanese-bm25.yaml")
    for condition, groups in case["expected"].items():
        got = figures(work / "results", condition.split(":")[1], analyse_japanese)
        for metric, want in groups["J"].items():
            assert round(got[metric], 3) == round(want, 3), (condition, metric, got[metric], want)
