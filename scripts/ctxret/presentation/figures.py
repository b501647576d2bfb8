"""Figures: the drawing of the report's plots (matplotlib, no screen), from computed points."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402

from ctxret.fileio import atomic_path  # noqa: E402

# Fonts with Hangul, as matplotlib names them (a .ttc collection by its first face); the first found wins
HANGUL_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK KR", "NanumGothic", "Noto Sans KR", "UnDotum")
COLORS = {"bm25": "#8c6d31", "dense": "#1f77b4", "hybrid": "#2ca02c", "reranked": "#9467bd"}


def hangul_font() -> str | None:
    """A font with Hangul that matplotlib can use, set as the fallback after DejaVu Sans; None if the
    system has none (Debian: fonts-noto-cjk). Font files installed after matplotlib's cache was
    built are found by scanning the system's font folders."""
    names = {f.name for f in font_manager.fontManager.ttflist}
    if not names & set(HANGUL_FONTS):
        for path in font_manager.findSystemFonts():
            if any(part in Path(path).name for part in ("CJK", "Nanum", "UnDotum")):
                font_manager.fontManager.addfont(path)
        names = {f.name for f in font_manager.fontManager.ttflist}
    found = next((name for name in HANGUL_FONTS if name in names), None)
    if found:
        plt.rcParams["font.family"] = ["DejaVu Sans", found]
    return found


def _save(fig, path: str) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)


def plot_failures(panels: dict[str, list[dict]], path: str) -> None:
    """One panel per title: a dot per condition with its interval (coloured by its retriever's kind)."""
    rows = max(len(p) for p in panels.values())
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 0.8 + 0.32 * rows), sharey=True,
                             squeeze=False)
    for ax, (title, points) in zip(axes[0], panels.items()):
        ys = list(range(len(points)))[::-1]
        for y, p in zip(ys, points):
            c = COLORS[p["kind"]]
            ax.errorbar(p["rate"], y, xerr=[[p["rate"] - p["lo"]], [p["hi"] - p["rate"]]], fmt="o", color=c,
                        capsize=3)
            ax.annotate(f"{p['n']}/{p['N']}", (p["hi"], y), xytext=(4, -3), textcoords="offset points", fontsize=7)
        ax.set_yticks(ys, [p["condition"] for p in points])
        ax.set_xlim(0, min(1.0, max(p["hi"] for p in points) + 0.1))
        ax.set_title(title, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    _save(fig, path)


def plot_diffs(points: list[dict], path: str, xlabel: str, title: str) -> None:
    fig, ax = plt.subplots(figsize=(7, 0.8 + 0.3 * max(1, len(points))))
    ys = list(range(len(points)))[::-1]
    for y, p in zip(ys, points):
        c = "#d62728" if p["primary"] else "#7f7f7f"
        ax.errorbar(p["diff"], y, xerr=[[p["diff"] - p["lo"]], [p["hi"] - p["diff"]]], fmt="o", color=c, capsize=3)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(ys, [p["label"] for p in points], fontsize=8)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    _save(fig, path)


def plot_chunking(strategies: list[dict], k: int, path: str) -> None:
    """Strict R@k per strategy (bars) and loose R@k (open circles), one group of bars per retriever."""
    retrievers = list(dict.fromkeys(r for s in strategies for r in s["retrievers"]))
    width = 0.8 / len(strategies)
    fig, ax = plt.subplots(figsize=(max(5.0, 1.6 * len(retrievers) * len(strategies) / 2), 3.6))
    for i, s in enumerate(strategies):
        xs = [j + i * width for j, r in enumerate(retrievers) if r in s["retrievers"]]
        rs = [s["retrievers"][r] for r in retrievers if r in s["retrievers"]]
        ax.bar(xs, [r["strict_hits"] / r["N"] for r in rs], width, label=s["name"])
        ax.plot(xs, [r["loose_hits"] / r["N"] for r in rs], "o", mfc="none", color="black", markersize=5)
    ax.set_xticks([j + width * (len(strategies) - 1) / 2 for j in range(len(retrievers))], retrievers)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(f"R@{k} (bars: strict, circles: loose)", fontsize=8)
    ax.set_title("Chunking strategies on T1", fontsize=9)
    ax.legend(fontsize=7, ncol=min(len(strategies), 6), loc="lower center")
    ax.grid(axis="y", alpha=0.3)
    _save(fig, path)
