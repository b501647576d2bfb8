"""A questions.cluster_key that matches no question's id is legal (every question is then a
bootstrap cluster of its own) but rarely meant: the run says so in one line as the questions are
read, naming the config line, before any job runs, so before anything is paid."""
import re

import yaml
from workflow import mini_config, snakemake


def test_a_cluster_key_matching_no_question_is_named_before_any_job(tmp_path):
    config = mini_config(tmp_path, models={})
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    settings["questions"]["cluster_key"] = "zzz"
    text = yaml.safe_dump(settings, allow_unicode=True)
    config.write_text(text, encoding="utf-8")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "cluster_key: zzz" in t)
    proc = snakemake(config, str(tmp_path / "results" / "gold.json"))
    log = proc.stdout + proc.stderr
    warnings = re.findall(r"^warning: .*cluster_key.*$", log, re.MULTILINE)
    assert warnings == [(f"warning: {config}:{line}: questions.cluster_key 'zzz' matches no question id: each of the "
                         f"6 questions is a bootstrap cluster of its own (an H question and its P paraphrase are not "
                         f"paired); fix the pattern or give the questions a `cluster`")]
    assert log.index(warnings[0]) < log.index("rule qcheck:")
