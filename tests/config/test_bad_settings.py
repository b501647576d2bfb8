"""Bad settings: each stops the workflow with one line naming the config file, line and key,
before anything is paid, and writes nothing (tests/bad_inputs.py)."""
import subprocess
import sys

import pytest
from bad_inputs import SETTINGS, Experiment, _unreadable, check


@pytest.mark.parametrize("case", SETTINGS, ids=[c.name for c in SETTINGS])
def test_a_bad_input_stops_with_one_line_and_writes_nothing(tmp_path, case):
    check(tmp_path, case)


def test_t0_alone_with_the_default_primaries_is_read_and_planned(tmp_path):
    """variants: [T0] leaves no T1 for the chunking comparison nor for the default primaries: the
    workflow is read (it stopped on a StopIteration) and says there is no verdict."""
    x = Experiment(tmp_path)
    x.set("variants", ["T0"])
    x.set("models.e5.variants", ["T0"])
    proc = x.run("-n")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "no primary comparison, so no verdict (declare pairs.primary for one)" in proc.stdout   # with the answer


def test_the_settings_check_names_the_line_of_a_yaml_syntax_error(tmp_path):
    """Snakemake reads a --configfile before the workflow and says only that it is not YAML;
    `python -m ctxret.settings FILE` names the line (docs/experiments.md)."""
    path = tmp_path / "my-experiment.yaml"
    path.write_text("corpus:\n  path: data\nquestions:\n  sets: {Q: [q.jsonl}\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "ctxret.settings", str(path)], capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {path}:4: not valid YAML")


@pytest.mark.parametrize("args, named", [
    (["--configfile=missing.yaml"], "missing.yaml"),
    (["--configfile", "{ok}", "estimate"], "estimate"),       # the space form reads the target as a file
    (["--configfile={ok}", "estimate"], None),
    (["estimate", "--configfile", "{ok}"], None),
    (["--configfile", "{ok}", "--cores", "1"], None),
])
def test_resume_names_a_configfile_that_snakemake_would_stop_on_with_a_traceback(tmp_path, args, named):
    """Snakemake 9 reads --configfile in its own CLI, before the workflow: a missing file is its
    traceback (docs/experiments.md). `python -m ctxret.resume` and `python -m ctxret.settings` are ours and
    say it in one line."""

    from ctxret.resume import configfile_problem
    ok = tmp_path / "ok.yaml"
    ok.write_text("corpus: {path: x}\nquestions: {sets: {Q: q.jsonl}}\n", encoding="utf-8")
    problem = configfile_problem([a.format(ok=ok) for a in args])
    assert problem == (named and f"error: --configfile {named}: no such file (Snakemake reads every word after "
                                 f"--configfile as a config file: write --configfile=FILE, or put targets "
                                 f"before --configfile)")
    if named == "missing.yaml":
        proc = subprocess.run([sys.executable, "-m", "ctxret.settings", named], capture_output=True, text=True,
                              cwd=tmp_path)
        assert (proc.returncode, proc.stderr) == (1, "error: missing.yaml: file not found\n")


@pytest.mark.parametrize("args, line", [
    (["--configfile=missing.yaml"], "error: --configfile missing.yaml: no such file"),
    (["--configfile", "{ok}", "estimate"], "error: --configfile estimate: no such file"),
    (["--configfile={bad}"], "error: {bad}:3: not valid YAML"),
    (["--configfile={empty}"], "error: {empty}: a config file is a mapping of keys at the top level"),
    (["--configfile={listed}", "-n"], "error: {listed}: a config file is a mapping of keys at the top level"),
])
def test_python_m_ctxret_says_in_one_line_what_snakemakes_own_command_line_would_trace_back(tmp_path, args, line):
    """`python -m ctxret` (make run, make preregister) checks every --configfile before Snakemake reads it."""
    files = {"ok": "corpus: {path: x}\n", "bad": "corpus:\n  path: [x\n", "empty": "", "listed": "- corpus\n"}
    for name, text in files.items():
        (tmp_path / f"{name}.yaml").write_text(text, encoding="utf-8")
    paths = {name: tmp_path / f"{name}.yaml" for name in files}
    proc = subprocess.run([sys.executable, "-m", "ctxret", *(a.format(**paths) for a in args)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(line.format(**paths)) and "Traceback" not in proc.stderr


def test_an_unreadable_or_undecodable_prompt_is_one_line(tmp_path):
    """The prompt is read while the workflow is read: through the same file functions as the inputs."""
    from ctxret.contexts.prompt import read_prompt
    from ctxret.errors import InputError
    bad = tmp_path / "prompt.txt"
    bad.write_bytes("[system]\n{{WHOLE_DOCUMENT}}\n[user]\ncaf\u00e9 {{CHUNK_CONTENT}}\n".encode("latin-1"))
    link = tmp_path / "unreadable.txt"
    link.write_text("")
    _unreadable(link)
    for path, message in ((bad, f"{bad}:4: not UTF-8 text (byte 0xe9); save the file as UTF-8"),
                          (link, f"{link}: cannot read it (Permission denied); make it readable or name another file")):
        with pytest.raises(InputError) as e:
            read_prompt(path)
        assert str(e.value) == message


def test_braces_in_the_extra_sentence_are_text_not_wildcards(tmp_path):
    """contexts.extra_sentence reaches the context jobs as written (it stopped the workflow with
    Snakemake's WildcardError): the workflow is read and the estimate counts it."""
    from conftest import FAKE_CLAUDE
    x = Experiment(tmp_path)
    x.set("contexts.llm", {"backend": "claude-cli", "executable": str(FAKE_CLAUDE)})
    x.set("contexts.extra_sentence", "Answer in {language}.")
    proc = x.run("estimate")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "WildcardError" not in proc.stderr and (tmp_path / "results" / "ctx" / "A1" / "estimate.json").exists()
