"""plots: failure rate per condition (Wilson 95 % intervals) and paired differences (bootstrap 95 %)."""
from ctxret.evaluation.stats import wilson_interval
from ctxret.fileio import read_json
from ctxret.presentation.figures import hangul_font, plot_diffs, plot_failures
from ctxret.presentation.wording import wording
from ctxret.runtime.stage_runner import run_rule


def failure_points(score: dict, group: str, k: int, kinds: dict[str, str]) -> list[dict]:
    """Per condition of `group`: failure rate@k and its Wilson 95 % interval; `kinds` names each
    retriever's kind (dense, bm25, hybrid, reranked)."""
    out = []
    for r in score["results"]:
        if r["group"] == group:
            f = r["summary"][f"fail@{k}"]
            lo, hi = wilson_interval(f["n"], f["N"])
            out.append({"condition": r["condition"], "kind": kinds[r["retriever"]], "n": f["n"],
                        "N": f["N"], "rate": f["rate"], "lo": lo, "hi": hi})
    return out


def diff_points(pairs: dict) -> list[dict]:
    """The primaries, then the secondaries on the primaries' group and k: B - A with its interval."""
    primary = [c for c in pairs["comparisons"] if c["role"] == "primary"]
    focus = {(c["group"], c["k"]) for c in primary}
    secondary = [c for c in pairs["comparisons"] if c["role"] == "secondary" and (c["group"], c["k"]) in focus]
    return [{"label": f"{c['a']} -> {c['b']} ({c['group']} @{c['k']})", "diff": c["diff"],
             "lo": c["ci"][0], "hi": c["ci"][1], "primary": c["role"] == "primary"}
            for c in primary + secondary]


def labels_language(language: str) -> str:
    """The report's language, or English when it is Korean and no font with Hangul is installed."""
    if language == "ko" and not hangul_font():
        print("warning: no font with Hangul found (Debian: apt-get install fonts-noto-cjk): the plots' labels "
              "stay in English")
        return "en"
    return language


def plots(input, output, params, **_) -> None:
    score, pairs = read_json(input.score), read_json(input.pairs)
    t = wording(labels_language(params.language))
    group = score["main_group"]
    panels = {t["plot_failure_panel"].format(k=k, group=group): failure_points(score, group, k, params.kinds)
              for k in score["ks"]}
    plot_failures(panels, output.failure)
    points = diff_points(pairs)
    plot_diffs(points, output.pairs, t["plot_diff_axis"], t["plot_diff_title"])
    print(f"{output.failure}: {len(panels)} panels x {len(next(iter(panels.values())))} conditions")
    print(f"{output.pairs}: {len(points)} comparisons")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
