#!/usr/bin/env bash
# Runs the project's benchmarks and rewrites their sections of BENCHMARKS.md:
#   peer     one training step of every network the project trains (the CNNs, the MLP fit)
#            against the same network in PyTorch CPU with the same threads, in one run
#            (cmd/peerbench and scripts/bench/peer.py);
#   penalty  the penalty and kernel-sum benchmarks (one go test -bench run), with ratios
#            against the plain Go loop measured in the same run.
# Usage: scripts/bench.sh [peer|penalty|all] [benchtime]   (default: all, 2s)
# Environment: PEER_REPS (default 5) repetitions per row and side; PEER_FLAGS, extra flags
# of cmd/peerbench (e.g. "-only default,mlp").
# The PyTorch peer needs Debian's python3-torch and python3-numpy; this script installs
# nothing: without them the peer cells say so and the Go rows still run. To install:
#   apt-get install -y --no-install-recommends python3-torch python3-numpy
# The machines are shared and noisy: compare the ratios of one run, not absolute times.
# Hand-written text after the "<!-- analysis -->" line of BENCHMARKS.md is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
benchtime=${2:-2s}
case "$what" in peer | penalty | all) ;; *)
  echo "usage: scripts/bench.sh [peer|penalty|all] [benchtime]" >&2
  exit 2
  ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# section NAME prints the lines between "<!-- NAME -->" and "<!-- /NAME -->" of BENCHMARKS.md.
section() {
  [ -f BENCHMARKS.md ] || return 0
  sed -n "/^<!-- $1 -->\$/,/^<!-- \/$1 -->\$/p" BENCHMARKS.md | sed '1d;$d'
}

if [ "$what" != penalty ]; then
  echo "== peer benchmark: Go and PyTorch training steps, repetitions alternating; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  go build -o "$tmp/peerbench" ./cmd/peerbench
  # A higher priority where allowed (root), for steadier timings on a shared machine.
  prio=()
  if nice -n -5 true 2>/dev/null; then prio=(nice -n -5); fi
  # shellcheck disable=SC2086 # PEER_FLAGS holds several flags
  "${prio[@]}" "$tmp/peerbench" -reps "${PEER_REPS:-5}" -md "$tmp/peer.md" ${PEER_FLAGS:-}
  {
    echo "## One training step against PyTorch CPU"
    echo
    cat "$tmp/peer.md"
  } > "$tmp/peer"
else
  section peer > "$tmp/peer"
fi

if [ "$what" != peer ]; then
  echo "== go test -bench (benchtime $benchtime); this takes a few minutes"
  go test -run XXX -bench 'Benchmark(Penalty|KernelSum)$' -benchtime "$benchtime" -timeout 60m ./invmmd/ | tee "$tmp/bench.out"
  {
    echo "Measured by \`scripts/bench.sh\` on $(date -u +%Y-%m-%d), $(go version | cut -d' ' -f3), $(nproc) CPUs,"
    echo "backend \`${GOMLX_BACKEND:-go:parallelism=-1}\`, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')."
    echo "Each table comes from one \`go test -bench\` run; ratios are against the plain Go loop of the same run."
    echo
    awk -f scripts/bench.awk "$tmp/bench.out"
  } > "$tmp/penalty"
else
  section penalty > "$tmp/penalty"
fi

{
  echo "# Benchmarks"
  echo
  echo "<!-- penalty -->"
  cat "$tmp/penalty"
  echo "<!-- /penalty -->"
  echo
  echo "<!-- peer -->"
  cat "$tmp/peer"
  echo "<!-- /peer -->"
  echo
  if [ -f BENCHMARKS.md ] && grep -q '^<!-- analysis -->' BENCHMARKS.md; then
    sed -n '/^<!-- analysis -->/,$p' BENCHMARKS.md
  else
    echo "<!-- analysis -->"
  fi
} > BENCHMARKS.md.new
mv BENCHMARKS.md.new BENCHMARKS.md
echo "== wrote BENCHMARKS.md"
