#!/usr/bin/env bash
# CI test of cluster sweeps, for real: installs Debian's slurm-wlm and munge, starts a
# one-node Slurm on loopback (scripts/slurm/local-cluster.sh), runs a quick simulation
# sweep as a job array of 4 plus the merge through scripts/slurm/sweep.sh, and checks:
#   1. the merged tables are byte-identical to an unsharded local run of the same grid;
#   2. with one shard's results gone (a killed task), `invmmd merge` refuses and names the
#      missing fits, and rerunning the same sweep.sh command resumes: the other shards
#      train nothing, and the tables come out identical again.
# It stops the daemons it started, by PID, whatever happens, and fails (never skips) with
# the reason when Slurm cannot start. Bounded: every wait has a deadline.
#
# INVMMD_SLURM_GRID overrides the invmmd flags of the grid (default a small quick grid:
# the full `-quick` sweep is 57 fits; set INVMMD_SLURM_GRID=-quick to run it all).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
. scripts/slurm/lib.sh
start=$SECONDS
say() { echo "== slurm test ($((SECONDS - start)) s): $*"; }
fail() { echo "FAIL slurm test: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "needs root (apt-get install, munged and slurmd run as system daemons); running as $(id -un)"
work=$(mktemp -d /tmp/invmmd-slurm-test.XXXXXX)
cleanup() {
	local rc=$?
	if [ -n "${SLURM_CONF:-}" ] && [ -s "$work/slurm/slurm/last-jobs" ]; then
		scancel $(cat "$work/slurm/slurm/last-jobs") 2>/dev/null || true
	fi
	"$repo/scripts/slurm/local-cluster.sh" stop "$work/cluster" || true
	if [ $rc -ne 0 ]; then
		for f in "$work"/cluster/log/*.log "$work"/slurm/slurm/*.out; do
			[ -f "$f" ] && { echo "--- $f"; tail -15 "$f"; }
		done
	fi
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT

say "installing slurm-wlm and munge"
scripts/slurm/local-cluster.sh install
say "starting a one-node cluster"
scripts/slurm/local-cluster.sh start "$work/cluster" || fail "Slurm did not start on this machine (see the logs above)"
export SLURM_CONF=$work/cluster/slurm.conf

go build -o "$work/invmmd" ./cmd/invmmd
read -r -a grid <<<"${INVMMD_SLURM_GRID:--quick -seeds 1,2 -methods none,obs,dr,ip -lambdas 1,5}"

say "unsharded local run: invmmd sim ${grid[*]}"
"$work/invmmd" sim -out "$work/local" "${grid[@]}" >/dev/null 2>"$work/local.err" || { cat "$work/local.err"; fail "local run"; }

# sweep submits the sweep and waits for its merge job.
sweep() {
	local t0=$SECONDS
	INVMMD_BIN=$work/invmmd scripts/slurm/sweep.sh sim -n 4 -out "$work/slurm" --time=20 -- "${grid[@]}"
	read -r array merge <"$work/slurm/slurm/last-jobs"
	local state
	state=$(wait_job "$merge" 900)
	[ "$state" = COMPLETED ] || fail "merge job $merge: $state"
	say "array $array + merge $merge done in $((SECONDS - t0)) s"
}

compare() {
	local a b
	a=$(cd "$work/local/tables" && ls | grep -v _timing.json)
	b=$(cd "$work/slurm/tables" && ls | grep -v _timing.json)
	[ "$a" = "$b" ] || fail "table files differ: local [$a] vs sharded [$b]"
	for f in $a; do
		cmp "$work/local/tables/$f" "$work/slurm/tables/$f" || fail "$f differs between the unsharded run and the merged shards"
	done
	say "merged tables byte-identical to the unsharded run: $(echo $a)"
}

say "sweep.sh sim -n 4"
sweep
compare

say "a killed shard: shard 2's result files removed"
rm -f "$work/slurm/tables/"*
removed=0
for f in $("$work/invmmd" sim -out "$work/slurm" -check -v -shard 2/4 "${grid[@]}" | grep '\.json$'); do
	rm "$work/slurm/$f" && removed=$((removed + 1))
done
[ $removed -gt 0 ] || fail "no result file of shard 2 to remove"
if msg=$("$work/invmmd" merge -out "$work/slurm" 2>&1); then
	fail "merge succeeded with shard 2's fits missing"
fi
echo "$msg" | grep -q "missing" || fail "merge's error does not name the missing fits: $msg"
say "merge refused: $(echo "$msg" | head -3 | tr '\n' ' ')"

say "rerunning the same sweep.sh command"
sweep
for i in 1 3 4; do
	grep -Eq ': ([0-9]+) fits \(\1 resumed\)' "$work/slurm/slurm/invmmd-sim-${array}_$i.out" || fail "shard $i log: $(cat "$work/slurm/slurm/invmmd-sim-${array}_$i.out")"
done
grep -h "shard" "$work"/slurm/slurm/invmmd-sim-"${array}"_*.out
grep -Eq ': [1-9][0-9]* fits \(0 resumed\)' "$work/slurm/slurm/invmmd-sim-${array}_2.out" || fail "shard 2 did not retrain its fits"
compare
say "passed"
