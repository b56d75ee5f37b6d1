#!/usr/bin/env bash
# A single-node Slurm cluster on this machine (loopback only), for trying the
# array scripts beside it and for tests/slurm.rs: Debian's slurm-wlm and
# munge, one slurmctld and one slurmd, one partition of this machine's cores.
#
#   scripts/slurm/cluster.sh install   install slurm-wlm and munge with apt (needs root or sudo)
#   scripts/slurm/cluster.sh start     install if needed, start munged, slurmctld and slurmd,
#                                      wait until the node is idle, print the SLURM_CONF path
#   scripts/slurm/cluster.sh stop      cancel the cluster's jobs and stop its daemons
#   scripts/slurm/cluster.sh status    print the SLURM_CONF path if the cluster answers (exit 1 if not)
#
# Use it with `export SLURM_CONF="$(scripts/slurm/cluster.sh start)"`: sbatch,
# squeue and sacct read the cluster's configuration from there. Only the path
# goes to stdout; progress and errors go to stderr. The daemons run as root
# (as slurmd must, to start jobs as their users); jobs run as whoever submits.
#
# Settings (environment):
#   ITC_SLURM_DIR            configuration, state, spool and logs (default: /tmp/itc-slurm)
#   ITC_SLURM_PORT           slurmctld's port; slurmd takes the next (default: 6817)
#   ITC_SLURM_START_TIMEOUT  seconds to wait for the node to be idle (default: 60)
set -euo pipefail

DIR="${ITC_SLURM_DIR:-/tmp/itc-slurm}"
PORT="${ITC_SLURM_PORT:-6817}"
START_TIMEOUT="${ITC_SLURM_START_TIMEOUT:-60}"
CONF="$DIR/slurm.conf"
MUNGE_SOCKET=/run/munge/munge.socket.2

say() { echo "cluster.sh: $*" >&2; }

as_root() {
    if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi
}

install() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; then
        return
    fi
    say "installing slurm-wlm and munge (apt)"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends \
        slurm-wlm munge >/dev/null
}

write_conf() {
    local host cpus
    host="$(hostname -s)"
    cpus="$(nproc)"
    as_root mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log"
    as_root tee "$CONF" >/dev/null <<EOF
# Written by scripts/slurm/cluster.sh: one node, loopback only.
ClusterName=itc
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
# No cgroups: linuxproc tracks a job's processes, so it runs in containers too.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
# Finished jobs stay in squeue's memory for a while, so scontrol can show their exit codes.
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
    if munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
        return
    fi
    say "starting munged"
    as_root mkdir -p /run/munge /var/log/munge /var/lib/munge
    as_root chown munge:munge /run/munge /var/log/munge /var/lib/munge
    as_root chmod 755 /run/munge
    [[ -s /etc/munge/munge.key ]] || as_root mungekey --create --keyfile /etc/munge/munge.key
    as_root runuser -u munge -- munged
    for _ in $(seq 50); do
        [[ -S $MUNGE_SOCKET ]] && return
        sleep 0.1
    done
    say "munged did not start (see /var/log/munge/munged.log)"
    exit 1
}

running() { # pid file
    [[ -s $1 ]] && ps -p "$(cat "$1")" >/dev/null 2>&1
}

start() {
    install
    start_munge
    if running "$DIR/slurmctld.pid" && running "$DIR/slurmd.pid"; then
        echo "$CONF"
        return
    fi
    write_conf
    say "starting slurmctld and slurmd ($CONF)"
    # -c: a cold start, forgetting jobs of an earlier cluster in this folder.
    running "$DIR/slurmctld.pid" || as_root env SLURM_CONF="$CONF" slurmctld -c
    running "$DIR/slurmd.pid" || as_root env SLURM_CONF="$CONF" slurmd
    local waited=0
    until SLURM_CONF="$CONF" sinfo -h -o %T 2>/dev/null | grep -qx idle; do
        if ((waited >= START_TIMEOUT * 10)); then
            say "the node is not idle after ${START_TIMEOUT} s: $(SLURM_CONF="$CONF" sinfo -h -o '%T %E' 2>&1)"
            say "logs: $DIR/log/slurmctld.log, $DIR/log/slurmd.log"
            exit 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    echo "$CONF"
}

stop() {
    if [[ -f $CONF ]]; then
        SLURM_CONF="$CONF" scancel --quiet --full --user="$(id -un)" 2>/dev/null || true
    fi
    local pid_file pid
    for pid_file in "$DIR/slurmd.pid" "$DIR/slurmctld.pid"; do
        if running "$pid_file"; then
            pid="$(cat "$pid_file")"
            as_root kill "$pid"
            for _ in $(seq 100); do
                ps -p "$pid" >/dev/null 2>&1 || break
                sleep 0.1
            done
        fi
    done
}

status() {
    if running "$DIR/slurmctld.pid" && SLURM_CONF="$CONF" sinfo -h >/dev/null 2>&1; then
        echo "$CONF"
    else
        exit 1
    fi
}

case "${1:-}" in
install) install ;;
start) start ;;
stop) stop ;;
status) status ;;
*)
    echo "usage: $0 install|start|stop|status" >&2
    exit 2
    ;;
esac
