#!/usr/bin/env bash
# Measures the scaling of a sweep on the one-node cluster of local-cluster.sh: the wall
# time from submission to the merged tables with 1, 2 and 4 shards, next to an unsharded
# local run, and prints a Markdown table for BENCHMARKS.md. Root; starts and stops its own
# cluster.
#
# usage: scripts/slurm/scale.sh [invmmd flags of the grid]   (default: sim -quick, all of it)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
. scripts/slurm/lib.sh
grid=("$@")
[ ${#grid[@]} -gt 0 ] || grid=(-quick)
work=$(mktemp -d /tmp/invmmd-slurm-scale.XXXXXX)
trap '"$repo/scripts/slurm/local-cluster.sh" stop "$work/cluster"; rm -rf "$work"' EXIT
scripts/slurm/local-cluster.sh install
scripts/slurm/local-cluster.sh start "$work/cluster" >&2
export SLURM_CONF=$work/cluster/slurm.conf
go build -o "$work/invmmd" ./cmd/invmmd
fits=$("$work/invmmd" sim -out "$work/check" -check "${grid[@]}" | sed -n 's/^sim: \([0-9]*\) fits.*/\1/p')

t0=$(date +%s%N)
"$work/invmmd" sim -out "$work/local" "${grid[@]}" >/dev/null 2>&1
local_s=$((($(date +%s%N) - t0) / 1000000000))
echo "| set-up | shards | fits | wall time (s) | tables identical to the local run |"
echo "|---|---|---|---|---|"
printf "| local, no Slurm | – | %s | %d | – |\n" "$fits" "$local_s"
for n in 1 2 4; do
	t0=$(date +%s%N)
	INVMMD_BIN=$work/invmmd scripts/slurm/sweep.sh sim -n "$n" -out "$work/n$n" -- "${grid[@]}" >/dev/null
	read -r array merge <"$work/n$n/slurm/last-jobs"
	state=$(wait_job "$merge" 3600)
	s=$((($(date +%s%N) - t0) / 1000000000))
	same=yes
	for f in "$work/local/tables/"*; do
		case "$f" in *_timing.json) continue ;; esac
		cmp -s "$f" "$work/n$n/tables/$(basename "$f")" || same="no ($(basename "$f"))"
	done
	printf "| Slurm, one node of %d CPUs | %d | %s | %d | %s (merge %s) |\n" "$(nproc)" "$n" "$fits" "$s" "$same" "$state"
done
