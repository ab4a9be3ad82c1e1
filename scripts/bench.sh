#!/usr/bin/env bash
# Runs the penalty and kernel-sum benchmarks in one go test run and writes BENCHMARKS.md:
# times per call and their ratios against the plain Go loop measured in the same run.
# Usage: scripts/bench.sh [benchtime]   (default 2s: slow variants run once; the machines are noisy, so compare
# ratios, not absolute times)
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${1:-2s}
out=$(mktemp)
echo "== go test -bench (benchtime $benchtime); this takes a few minutes"
go test -run XXX -bench 'Benchmark(Penalty|KernelSum)$' -benchtime "$benchtime" -timeout 60m ./invmmd/ | tee "$out"
{
  echo "# Benchmarks"
  echo
  echo "Measured by \`scripts/bench.sh\` on $(date -u +%Y-%m-%d), $(go version | cut -d' ' -f3), $(nproc) CPUs,"
  echo "backend \`${GOMLX_BACKEND:-go:parallelism=-1}\`, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')."
  echo "Each table comes from one \`go test -bench\` run; ratios are against the plain Go loop of the same run."
  echo
  awk -f scripts/bench.awk "$out"
} > BENCHMARKS.md.new
# Keep the hand-written analysis that follows the generated tables.
if [ -f BENCHMARKS.md ] && grep -q '^<!-- analysis -->' BENCHMARKS.md; then
  sed -n '/^<!-- analysis -->/,$p' BENCHMARKS.md >> BENCHMARKS.md.new
fi
mv BENCHMARKS.md.new BENCHMARKS.md
rm -f "$out"
echo "== wrote BENCHMARKS.md"
