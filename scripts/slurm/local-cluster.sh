#!/usr/bin/env bash
# A one-node Slurm cluster on loopback, for testing sweeps (scripts/slurm/test.sh) and
# measuring them (BENCHMARKS.md): Debian 12's slurm-wlm and munge, no accounting, no
# cgroups. Everything it writes lives under DIR; it stops only the daemons it started, by
# the PIDs in DIR.
#
# usage: scripts/slurm/local-cluster.sh install          (apt-get slurm-wlm and munge; root)
#        scripts/slurm/local-cluster.sh start DIR        (then: export SLURM_CONF=DIR/slurm.conf)
#        scripts/slurm/local-cluster.sh stop DIR
set -euo pipefail

die() { echo "local-cluster.sh: $*" >&2; exit 1; }

install() {
	if command -v slurmctld >/dev/null && command -v munged >/dev/null; then
		return
	fi
	export DEBIAN_FRONTEND=noninteractive
	local log
	log=$(mktemp)
	if ! apt-get install -y --no-install-recommends slurm-wlm munge >"$log" 2>&1; then
		apt-get update >>"$log" 2>&1 || true
		apt-get install -y --no-install-recommends slurm-wlm munge >>"$log" 2>&1 ||
			{ tail -20 "$log" >&2; rm -f "$log"; die "apt-get install slurm-wlm munge failed (output above)"; }
	fi
	rm -f "$log"
}

start() {
	local dir=$1
	mkdir -p "$dir"/{state,spool,log}
	dir=$(cd "$dir" && pwd)
	local conf=$dir/slurm.conf
	cat >"$conf" <<CONF
ClusterName=invmmd
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MailProg=/bin/true
MinJobAge=300
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
	# munge: reuse a running one (not ours to stop), else start one and remember its PID.
	if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
		mkdir -p /run/munge /var/log/munge /var/lib/munge
		chown munge:munge /run/munge /var/log/munge /var/lib/munge
		[ -s /etc/munge/munge.key ] || die "/etc/munge/munge.key is missing (the munge package creates it)"
		runuser -u munge -- /usr/sbin/munged || die "munged did not start (see /var/log/munge/munged.log)"
		cp /run/munge/munged.pid "$dir/munged.pid"
		for _ in $(seq 50); do
			munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
			sleep 0.1
		done
		munge -n | unmunge >/dev/null || die "munge does not answer after starting munged"
	fi
	slurmctld -f "$conf" || die "slurmctld did not start: $(tail -5 "$dir/log/slurmctld.log" 2>/dev/null)"
	slurmd -f "$conf" -N localhost || die "slurmd did not start: $(tail -5 "$dir/log/slurmd.log" 2>/dev/null)"
	local state=""
	for _ in $(seq 100); do
		state=$(SLURM_CONF=$conf sinfo -h -o %t 2>/dev/null || true)
		[ "$state" = idle ] && break
		sleep 0.2
	done
	if [ "$state" != idle ]; then
		echo "node state \"$state\" after 20 s" >&2
		tail -20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
		stop "$dir"
		die "the one-node cluster did not become idle"
	fi
	echo "one-node Slurm up: export SLURM_CONF=$conf"
}

# stop ends the daemons this script started, by the PIDs it recorded, and waits for them.
stop() {
	local dir=$1
	for d in slurmd slurmctld munged; do
		local pf=$dir/$d.pid
		[ -s "$pf" ] || continue
		local pid
		pid=$(cat "$pf")
		if kill "$pid" 2>/dev/null; then
			for _ in $(seq 50); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
		fi
		rm -f "$pf"
	done
}

case "${1:-}" in
install) install ;;
start) [ $# -eq 2 ] || die "usage: $0 start DIR"; start "$2" ;;
stop) [ $# -eq 2 ] || die "usage: $0 stop DIR"; stop "$2" ;;
*) die "usage: $0 install | start DIR | stop DIR" ;;
esac
