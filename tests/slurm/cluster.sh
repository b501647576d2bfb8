#!/usr/bin/env bash
# A throw-away single-node SLURM cluster on this machine (Debian 12 packages, run as root,
# no systemd needed): for tests/test_slurm.py and for trying profiles/slurm by hand.
#
#   tests/slurm/cluster.sh up      install what is missing, configure, start, wait for an idle
#                                  node and run one smoke job (a healthy cluster is kept as is)
#   tests/slurm/cluster.sh down    stop every daemon `up` starts, by the pid in its pid file
#   tests/slurm/cluster.sh status  daemons, sinfo, squeue (exit 1 unless all daemons run)
#   tests/slurm/cluster.sh logs    the tail of every daemon log
#
# Accounting (slurmdbd + MariaDB) is on, so `sacct` works. Every wait is bounded by
# CLUSTER_TIMEOUT seconds (default 90). A /etc/slurm/slurm.conf this script did not write is
# never touched.
set -euo pipefail

TIMEOUT=${CLUSTER_TIMEOUT:-90}
MARK="# written by ctxret tests/slurm/cluster.sh"
CONF=/etc/slurm/slurm.conf
DBDCONF=/etc/slurm/slurmdbd.conf
LOGS=/var/log/slurm
SPOOL=/var/lib/slurm
DBPASS=ctxret-ci      # a loopback-only database for this test cluster
PACKAGES=(munge slurm-client slurmctld slurmd slurmdbd mariadb-server)
# the daemons in the order `up` starts them (`down` stops them in reverse) and their pid files
DAEMONS=(munged mariadbd slurmdbd slurmctld slurmd)
declare -A PIDFILE=([munged]=/run/munge/munged.pid [mariadbd]=/run/mysqld/mysqld.pid
                    [slurmdbd]=/run/slurmdbd.pid [slurmctld]=/run/slurmctld.pid [slurmd]=/run/slurmd.pid)

say() { echo "[cluster $(date +%T)] $*" >&2; }
die() { say "error: $*"; cmd_logs >&2; exit 1; }

alive() { [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && ! grep -qs '^State:[[:space:]]*Z' "/proc/$1/status"; }
running() {   # running NAME: print the pid from its pid file if that daemon is alive (not a zombie)
    local file=${PIDFILE[$1]} pid
    [ -s "$file" ] || return 1
    pid=$(tr -dc 0-9 2>/dev/null <"$file")
    [ -n "$pid" ] && alive "$pid" "$1" && echo "$pid"
}
wait_until() {   # wait_until WHAT COMMAND...: retry for at most $TIMEOUT seconds
    local what=$1 end=$((SECONDS + TIMEOUT)); shift
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $end ] || die "gave up after ${TIMEOUT}s waiting for $what"
        sleep 0.5
    done
}
stop() {   # stop NAME: SIGTERM the pid from its pid file, SIGKILL after 30 s
    local name=$1 pid end
    pid=$(running "$name") || { say "$name is not running"; return 0; }
    say "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    end=$((SECONDS + 30))
    while alive "$pid" "$name"; do
        [ $SECONDS -lt $end ] || { say "$name ignores SIGTERM: SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; break; }
        sleep 0.2
    done
    rm -f "${PIDFILE[$name]}"
}

install_packages() {
    local missing=() p
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    say "installing ${missing[*]}"
    # no init system here: keep the packages' maintainer scripts from starting services
    local policy=0
    [ -e /usr/sbin/policy-rc.d ] || { printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; policy=1; }
    local rc=0
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } || rc=$?
    [ $policy = 0 ] || rm -f /usr/sbin/policy-rc.d
    [ $rc = 0 ] || die "apt-get install ${missing[*]} failed (exit $rc)"
}

slurm_conf() {
    local node
    node=$(slurmd -C | head -n1)     # NodeName=<host> CPUs=... RealMemory=... of this machine
    [[ $node == NodeName=* ]] || die "slurmd -C printed: $node"
    cat <<EOF
$MARK
ClusterName=ctxret
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
MailProg=/bin/true
# no cgroups (containers, VMs without systemd): track processes by parent pid, no binding
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
ReturnToService=2
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=5
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=$SPOOL/slurmd
StateSaveLocation=$SPOOL/slurmctld
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.log
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
    [ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
    chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
    install -d -o munge -g munge -m 0755 /run/munge
    running munged >/dev/null || { say "starting munged"; runuser -u munge -- /usr/sbin/munged; }
    wait_until munge bash -c 'munge -n | unmunge'
}

start_mariadb() {
    install -d -o mysql -g root -m 0755 /run/mysqld
    install -d -o mysql -g adm -m 2750 /var/log/mysql
    running mariadbd >/dev/null || {
        say "starting mariadbd"
        setsid /usr/sbin/mariadbd --user=mysql --bind-address=127.0.0.1 </dev/null >>/var/log/mysql/cluster-sh.log 2>&1 &
    }
    wait_until mariadb mariadb-admin ping
    mariadb -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
                CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '$DBPASS';
                GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';"
}

start_slurmdbd() {
    cat >"$DBDCONF" <<EOF
$MARK
AuthType=auth/munge
DbdHost=localhost
SlurmUser=slurm
PidFile=/run/slurmdbd.pid
LogFile=$LOGS/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=$DBPASS
StorageLoc=slurm_acct_db
EOF
    chown slurm:slurm "$DBDCONF" && chmod 0600 "$DBDCONF"    # slurmdbd refuses a readable one
    running slurmdbd >/dev/null || { say "starting slurmdbd"; /usr/sbin/slurmdbd; }
    wait_until slurmdbd sacctmgr -n list cluster
}

job_state() { scontrol show job -o "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
job_done() { case $(job_state "$1") in ""|PENDING|CONFIGURING|RUNNING|COMPLETING) return 1 ;; esac; }
node_up() { sinfo -h -N -o %t | grep -qE '^(idle|mix|alloc)$'; }

cmd_up() {
    local t0=$SECONDS conf
    if [ -f "$CONF" ] && ! grep -qxF "$MARK" "$CONF"; then
        die "$CONF was not written by this script; not touching a real cluster's configuration"
    fi
    install_packages
    install -d -o slurm -g slurm "$LOGS" "$SPOOL/slurmctld"
    install -d "$SPOOL/slurmd"
    conf=$(slurm_conf)
    if [ ! -f "$CONF" ] || [ "$conf" != "$(cat "$CONF")" ]; then
        say "writing $CONF"
        stop slurmd; stop slurmctld     # they read the configuration only when they start
        printf '%s\n' "$conf" >"$CONF"
    fi
    start_munge
    start_mariadb
    start_slurmdbd
    running slurmctld >/dev/null || { say "starting slurmctld"; /usr/sbin/slurmctld; }
    wait_until slurmctld scontrol ping
    running slurmd >/dev/null || { say "starting slurmd"; /usr/sbin/slurmd; }
    local end=$((SECONDS + TIMEOUT)) node
    node=$(hostname -s)
    until node_up; do   # a node left down/drained by an unclean stop comes back with RESUME
        sinfo -h -N -o %t 2>/dev/null | grep -qE '^(down|drain|drng|fail)' &&
            scontrol update NodeName="$node" State=RESUME 2>/dev/null || true
        [ $SECONDS -lt $end ] || die "node $node is not up: $(sinfo -h -N -o '%t %E' 2>&1)"
        sleep 0.5
    done
    local out job
    out=$(mktemp /tmp/cluster-smoke.XXXXXX)
    job=$(sbatch --parsable -J cluster-smoke -o "$out" --wrap 'echo ok') || die "sbatch failed"
    job=${job%%;*}
    wait_until "smoke job $job" job_done "$job"
    [ "$(job_state "$job")" = COMPLETED ] && [ "$(cat "$out")" = ok ] ||
        die "smoke job $job ended $(job_state "$job"): $(cat "$out")"
    rm -f "$out"
    say "cluster up in $((SECONDS - t0)) s: $(sinfo -h -N -o '%N %t, %c CPUs, %m MB')"
}

cmd_down() {
    local i
    for ((i = ${#DAEMONS[@]} - 1; i >= 0; i--)); do stop "${DAEMONS[$i]}"; done
}

cmd_status() {
    local d pid ok=0
    for d in "${DAEMONS[@]}"; do
        if pid=$(running "$d"); then echo "$d: running (pid $pid)"; else echo "$d: not running"; ok=1; fi
    done
    sinfo 2>&1 || true
    squeue 2>&1 || true
    return $ok
}

cmd_logs() {
    local f
    for f in "$LOGS"/slurmctld.log "$LOGS"/slurmd.log "$LOGS"/slurmdbd.log /var/log/munge/munged.log /var/log/mysql/cluster-sh.log; do
        [ -f "$f" ] && { echo "==== $f"; tail -n 30 "$f"; }
    done
    return 0
}

case ${1:-} in
    up) cmd_up ;;
    down) cmd_down ;;
    status) cmd_status ;;
    logs) cmd_logs ;;
    *) echo "usage: $0 up|down|status|logs" >&2; exit 2 ;;
esac
