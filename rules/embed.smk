# A variant's chunks, embedded in shards (EMBED_SHARDS: fixed groups of documents, about
# embed.shard_texts texts each): every shard is a job with the model's threads, so `--cores 8`
# runs four 2-thread shards at once and profiles/slurm submits each as its own sbatch job.
# Shards write to the content-addressed store; embed_chunks assembles the matrix from it.
# Every embedding job reads the precision rule precision settled once for the run (ancient: a
# rewrite with the same choice reruns nothing; a slot's changed settings rerun its jobs by param).


# Each model slot's precision, settled once (auto: the timed probe, cached per machine in the
# store) before any vector: results/precision.json, named in the logs and on the summary page.
rule embed_precision:
    input:
        docs=ancient(P.docs),
    output:
        json=P.precision_file,
    log:
        P.log("precision"),
    localrule: True
    conda:
        "../envs/embed.yaml"
    params:
        models={m: P.model_settings(m) for m in P.models},
        threads={m: P.models[m]["threads"] for m in P.models},  # the probe's, as the slot's jobs run
        offline=P.setting("offline"),
    script:
        "../scripts/ctxret/stages/embed.py"


# The free stages' expected embedding time on this machine (the estimate, the preregistration):
# texts to embed x the speed the store measured for each slot at its threads, and with --cores.
# Its inputs ancient and --cores a resource: written when missing, or forced (make preregister,
# -R embed_time), never a rerun of its own after a question edit.
rule embed_time:
    input:
        chunks=ancient(P.chunks()),
        questions=ancient(P.questions),
    output:
        json=P.embed_time,
    log:
        P.log("embed_time"),
    localrule: True
    conda:
        "../envs/embed.yaml"
    resources:
        cores_planned=workflow.cores,  # recorded without being a rerun trigger (a param would be)
    params:
        models={m: P.model_settings(m) for m in P.models},
        threads={m: P.models[m]["threads"] for m in P.models},
        variants={m: [v for v in P.variant_names if m in P.models_for(v)] for m in P.models},
        language=P.setting("report.language"),
    script:
        "../scripts/ctxret/stages/embed.py"


rule embed_shard:
    input:
        variant=P.variant_file("{variant}"),
        precision=ancient(P.precision_file),
    output:
        meta=P.vectors_shard("{variant}", "{model}", "{shard}"),
    log:
        P.log("embed", "{variant}", "{model}", "{shard}"),
    wildcard_constraints:
        shard=r"\d+",
    conda:
        "../envs/embed.yaml"
    threads: slot_threads
    params:
        **embedding_params(),
        variant="{variant}",
        shard=shard_number,
        slugs=shard_documents,
    script:
        "../scripts/ctxret/stages/embed.py"


rule embed_chunks:
    input:
        variant=P.variant_file("{variant}"),
        shards=vector_shards,
        precision=ancient(P.precision_file),
    output:
        npy=P.vectors("{variant}", "{model}"),
        meta=P.vectors("{variant}", "{model}", ".json"),
    log:
        P.log("embed", "{variant}", "{model}"),
    conda:
        "../envs/embed.yaml"
    params:
        **embedding_params(),
        variant="{variant}",
    script:
        "../scripts/ctxret/stages/embed.py"


# Many questions likewise: QUESTION_SHARDS slices of the questions file's distinct texts, each a
# job (one slice, and then no shard job, up to embed.shard_texts questions).
rule embed_question_shard:
    input:
        questions=P.questions,
        precision=ancient(P.precision_file),
    output:
        meta=P.question_vectors_shard("{model}", "{shard}"),
    log:
        P.log("embed-q", "{model}", "{shard}"),
    wildcard_constraints:
        shard=r"\d+",
    conda:
        "../envs/embed.yaml"
    threads: slot_threads
    params:
        **embedding_params(),
        shard=shard_number,
        shards=QUESTION_SHARDS,
    script:
        "../scripts/ctxret/stages/embed.py"


rule embed_questions:
    input:
        questions=P.questions,
        shards=[P.question_vectors_shard("{model}", s) for s in range(QUESTION_SHARDS)] if QUESTION_SHARDS > 1 else [],
        precision=ancient(P.precision_file),
    output:
        npy=P.question_vectors("{model}"),
        meta=P.question_vectors("{model}", ".json"),
    log:
        P.log("embed-q", "{model}"),
    conda:
        "../envs/embed.yaml"
    threads: slot_threads
    params:
        **embedding_params(),
    script:
        "../scripts/ctxret/stages/embed.py"
