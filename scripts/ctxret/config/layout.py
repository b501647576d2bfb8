"""Where every file of a run's results lives, each name built here once (the Plan's names: rules
and stages read them, never spell them). A part given as a wildcard, such as "{variant}", gives
the pattern of the rule that writes the file."""
from __future__ import annotations


def _fixed(name: str) -> property:
    """A file whose name nothing of the run changes."""
    return property(lambda self: f"{self.results}/{name}")


def generated_files(results: str, name: str) -> dict[str, str]:
    """A generated question set's files: the set, the record of its generation, its review marks."""
    return {"set": f"{results}/questions/generated-{name}.jsonl",
            "record": f"{results}/questions/generated-{name}.json",
            "review": f"{results}/questions/review-{name}.jsonl",
            "review_page": f"{results}/questions/review-{name}.html"}


class Layout:
    """Mixed into the Plan, whose `results` is the results folder."""
    results: str

    # the corpus, the questions and the chunks
    docs_all = _fixed("docs-all.jsonl")
    docs = _fixed("docs.jsonl")
    questions = _fixed("questions.jsonl")
    question_sets = _fixed("question-sets.json")

    def generated_set(self, name: str) -> str:
        return generated_files(self.results, name)["set"]

    def generated_record(self, name: str) -> str:
        return generated_files(self.results, name)["record"]

    def review_page(self, name: str) -> str:
        return generated_files(self.results, name)["review_page"]

    def judgments(self, name: str) -> str:
        """A judged set's record: the pool, every grade, what was paid, the agreement with its gold."""
        return f"{self.results}/questions/judged-{name}.json"

    def chunks(self, tag: str = "") -> str:
        """The chunks file of the chunker tagged `tag` ("" the experiment's chunker)."""
        return f"{self.results}/chunks{tag}.jsonl"

    def gold(self, tag: str = "") -> str:
        """The gold chunks of the questions on the chunker tagged `tag`."""
        return f"{self.results}/gold{tag}.json"

    # the decision rule
    plan_file = _fixed("plan.json")
    precision_file = _fixed("precision.json")  # each model slot's precision, settled once
    embed_time = _fixed("embed-time.json")       # the free stages' expected embedding time
    preregistration = _fixed("preregistration.json")
    preregistration_md = _fixed("preregistration.md")
    smallest_effect = _fixed("smallest-effect.json")  # the free pilot's questions needed (preregistration, n: auto)

    # contexts: one file per document, the ledger, lengths and the estimate made before paying
    def context_shard(self, slug: str) -> str:
        return f"{self.results}/ctx/shards/{slug}.json"

    def context_file(self, variant: str, slug: str) -> str:
        return f"{self.results}/ctx/{variant}/docs/{slug}.jsonl"

    def context_files(self, variant: str, slugs: list[str]) -> list[str]:
        return [self.context_file(variant, slug) for slug in slugs]

    def context_stats(self, variant: str) -> str:
        return f"{self.results}/ctx/{variant}/stats.json"

    def context_lengths(self, variant: str) -> str:
        return f"{self.results}/ctx/{variant}/ctxlen.json"

    def context_estimate(self, variant: str) -> str:
        return f"{self.results}/ctx/{variant}/estimate.json"

    # a variant's texts, their vectors (".npy"; ".json" for their record) and its index
    def variant_file(self, variant: str) -> str:
        return f"{self.results}/var-{variant}.jsonl"

    def vectors(self, variant: str, model: str, suffix: str = ".npy") -> str:
        return f"{self.results}/emb/{variant}-{model}{suffix}"

    def vectors_shard(self, variant: str, model: str, shard: str | int) -> str:
        return f"{self.results}/emb/shards/{variant}-{model}-{shard}.json"

    def question_vectors(self, model: str, suffix: str = ".npy") -> str:
        return f"{self.results}/emb/q-{model}{suffix}"

    def question_vectors_shard(self, model: str, shard: str | int) -> str:
        return f"{self.results}/emb/shards/q-{model}-{shard}.json"

    tokens = _fixed("tokens.json")

    def index_manifest(self, variant: str) -> str:
        return f"{self.results}/index/v_{variant}.json"

    def bm25_index(self, variant: str, suffix: str) -> str:
        """Its vocabulary (".json") or its matrix (".npz")."""
        return f"{self.results}/index/bm25-{variant}{suffix}"

    def qdrant_path(self, variant: str) -> str:
        """An embedded collection's directory (unused with a server, `qdrant.url`)."""
        return f"{self.results}/qdrant/v_{variant}"

    # runs: deep (search.depth entries), scored (search.top_k), by document; ".jsonl" or ".trec"
    def deep_run(self, retriever: str, variant: str, suffix: str = ".jsonl") -> str:
        return f"{self.results}/runs/deep/{retriever}-{variant}{suffix}"

    def run_file(self, retriever: str, variant: str, suffix: str = ".jsonl") -> str:
        return f"{self.results}/runs/{retriever}-{variant}{suffix}"

    def doc_run(self, retriever: str, variant: str) -> str:
        return f"{self.results}/runs/doc/{retriever}-{variant}.trec"

    qrels = _fixed("runs/qrels.txt")
    doc_qrels = _fixed("runs/doc/qrels.txt")
    run_ids = _fixed("runs/ids.json")

    # what the reader sees
    score_md = _fixed("score.md")
    score_json = _fixed("score.json")
    score_table = _fixed("score.parquet")
    pairs_md = _fixed("pairs.md")
    pairs_json = _fixed("pairs.json")
    chunking_md = _fixed("chunking.md")
    chunking_json = _fixed("chunking.json")
    chunking_audit = _fixed("chunking-audit.tsv")
    summary_page = _fixed("report/summary.html")
    explorer_page = _fixed("report/explorer.html")
    manifest = _fixed("manifest.tsv")

    def plot(self, name: str) -> str:
        """A figure of the report: failure, pairs or chunking."""
        return f"{self.results}/report/{name}.png"

    # logs: one per job, its name's parts joined by "-"; the contexts' in their own folder
    def log(self, *parts: str) -> str:
        return f"{self.results}/logs/{'-'.join(parts)}.log"

    def context_log(self, *parts: str) -> str:
        return f"{self.results}/logs/ctx/{'-'.join(parts)}.log"
