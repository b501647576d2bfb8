# ctxret: does Contextual Retrieval find more right answers on Korean documents?
from snakemake.utils import min_version

min_version("9.0")


include: "rules/common.smk"
include: "rules/prep.smk"
include: "rules/chunks.smk"
include: "rules/chunking.smk"
include: "rules/qcheck.smk"
include: "rules/contexts.smk"
include: "rules/embed.smk"
include: "rules/tokens.smk"
include: "rules/index.smk"
include: "rules/search.smk"
include: "rules/score.smk"
include: "rules/pairs.smk"
include: "rules/preregister.smk"
include: "rules/report.smk"
include: "rules/manifest.smk"


onstart:
    hold_results()


onsuccess:
    check_built()


rule all:
    input:
        P.final_outputs(),
        P.manifest,
        DAMAGED,
