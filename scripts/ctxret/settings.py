"""`python -m ctxret.settings FILE...`: config files checked as the workflow checks them when it
is read, without reading the corpus. The configuration itself (schema, completion, defaults) is
ctxret.config.schema; its names are importable from here too, as they always were."""
from __future__ import annotations

from ctxret.config.plan import Problem, check
from ctxret.config.schema import (CHECKOUT, SCHEMA, complete, load_schema, merged, read_config,  # noqa: F401
                                  read_configs, schema_default)
from ctxret.errors import InputError


def check_files(files: list[str]) -> None:
    """Read config files (later ones win, key by key) and check them as the workflow does: against
    the schema, then every setting against the others (ctxret.config.plan.check; the corpus is not read)."""
    try:
        check(complete(read_configs(files), tuple(files)), CHECKOUT)
    except Problem as e:
        raise InputError(e.located(tuple(files))) from None
    print(f"{', '.join(files)}: ok")


def main() -> None:
    """Each config file read and checked, a problem named by file and line (Snakemake itself
    reports a YAML syntax error without it)."""
    import sys

    from ctxret.runtime.stage_runner import run_logged
    run_logged(lambda: check_files(sys.argv[1:]), None)


if __name__ == "__main__":
    main()
