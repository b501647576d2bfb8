"""Expected scores (tests/regression/*.yaml marked `ci: true`): real runs, every metric to 3 decimals."""
import pytest
import yaml

from regression.regress import CASES, compare, load_case, missing_source, run

CI_CASES = [p for p in sorted(CASES.glob("*.yaml")) if yaml.safe_load(p.read_text(encoding="utf-8")).get("ci")]


@pytest.mark.parametrize("path", CI_CASES, ids=[p.stem for p in CI_CASES])
def test_expected_scores_hold(path, tmp_path):
    case = load_case(path)
    why = missing_source(case)
    if why:
        pytest.skip(why)
    score, seconds = run(case, tmp_path)
    lines = compare(score, case["expected"])
    print(f"{case['name']} ({seconds:.0f} s)\n" + "\n".join(line for _, line in lines))
    assert lines and all(ok for ok, _ in lines), "\n".join(line for ok, line in lines if not ok)
