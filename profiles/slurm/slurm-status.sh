#!/usr/bin/env bash
# cluster-generic status command: slurm-status.sh JOBID prints running, success or failed and
# always exits 0 (any other exit status aborts the driver). The controller knows a job until
# MinJobAge (default 300 s) after it ended, accounting (sacct) afterwards.
job=${1%%;*}                          # sbatch --parsable may print JOBID;CLUSTER
state="" info=""
for try in 1 2 3 4 5; do
    if info=$(scontrol show job -o "$job" 2>&1); then
        state=$(sed -n 's/.* JobState=\([A-Z_]*\).*/\1/p' <<<"$info")
    elif ! grep -q 'Invalid job id' <<<"$info"; then
        # controller unreachable: ask accounting, else keep waiting (asked again next round)
        state=$(sacct -n -X -P -j "$job" -o State 2>/dev/null | head -n1 | cut -d' ' -f1)
        [ -n "$state" ] || { echo "slurm-status.sh: job $job: $info" >&2; echo running; exit 0; }
    else
        state=$(sacct -n -X -P -j "$job" -o State 2>/dev/null | head -n1 | cut -d' ' -f1)
    fi
    [ -n "$state" ] && break
    sleep 2                           # a job just ended may take a moment to reach accounting
done
case $state in
    COMPLETED) echo success ;;
    PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|REQUEUED|REQUEUE_FED|REQUEUE_HOLD|RESIZING|SIGNALING|STAGE_OUT|STOPPED|RESV_DEL_HOLD|POWER_UP_NODE)
        echo running ;;
    *)  # FAILED CANCELLED TIMEOUT OUT_OF_MEMORY NODE_FAIL PREEMPTED BOOT_FAIL DEADLINE, or unknown
        name=$(sed -n 's/.* JobName=\([^ ]*\).*/\1/p' <<<"$info")
        out=$(sed -n 's/.* StdOut=\([^ ]*\).*/\1/p' <<<"$info")
        [ -n "$out" ] || out=$(ls "${CTXRET_SLURM_LOGS:-logs/slurm}"/*-"$job".out 2>/dev/null | head -n1)
        echo "slurm-status.sh: SLURM job $job ${name:+($name) }ended ${state:-unknown to scontrol and sacct}; log: ${out:-?}" >&2
        echo failed ;;
esac
exit 0
