#!/usr/bin/env bash
# Runs the project's benchmarks and rewrites their sections of BENCHMARKS.md:
#   peer     one training step of every network the project trains (the CNNs, the MLP fit)
#            against the same network in PyTorch CPU with the same threads, in one run
#            (cmd/peerbench and scripts/bench/peer.py);
#   penalty  the penalty and kernel-sum benchmarks (one go test -bench run), with ratios
#            against the plain Go loop measured in the same run;
#   nuisance one training step of h with the DR penalty for each kind of nuisance (binary,
#            categorical K = 2, 3, 5, continuous with D Fourier features), with ratios to the
#            binary step of the same run (BenchmarkNuisanceStep in invmmd/train);
#   test     one invariance test of dr (invmmd.InvarianceTest) by the cross route and the wild
#            bootstrap, with the plain-loop wild bootstrap on the exact kernel for comparison,
#            at n = 500 and 2000 (BenchmarkInvarianceTest in invmmd);
#   wide     the DR penalty of a representation of d = 8 and 64 columns at batch 1500 and
#            10,000: exact kernel against random Fourier features, float64 sums and the
#            float32 training graph with its gradient (BenchmarkWide in invmmd, BenchmarkWideGraph in invmmd/penalty);
#   audit    invmmd audit (G and m cross-fitted by logistic regressions, every estimator, the
#            sensitivity bounds) as a command at 5,000 to 10⁶ rows (cmd/benchrows -audit).
#   rows     invmmd estimate (obs, ip, reg, dr with standard errors) and invmmd test (dr) as
#            commands on tables of 10⁴ to 10⁷ rows (cmd/benchrows; G and m given as
#            columns), wall time and peak memory, with -exact beside where n ≤ ROWS_EXACT_MAX
#            (default 100000), and the log-log slope of time against rows from 10⁵ up.
# Usage: scripts/bench.sh [peer|penalty|nuisance|test|wide|rows|audit|all] [benchtime]   (default: all, 2s)
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
case "$what" in peer | penalty | nuisance | test | wide | rows | audit | all) ;; *)
  echo "usage: scripts/bench.sh [peer|penalty|nuisance|test|wide|rows|audit|all] [benchtime]" >&2
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

if [ "$what" = all ] || [ "$what" = peer ]; then
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

if [ "$what" = all ] || [ "$what" = nuisance ]; then
  echo "== nuisance benchmark: one training step per kind of Z; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  go test -run XXX -bench 'BenchmarkNuisanceStep' -benchtime 10x -count 3 -timeout 60m ./invmmd/train/ | tee "$tmp/nuisance.out"
  {
    echo "## One training step by kind of nuisance"
    echo
    echo "Measured by \`scripts/bench.sh nuisance\` on $(date -u +%Y-%m-%d), $(go version | cut -d' ' -f3), $(nproc) CPUs,"
    echo "backend \`${GOMLX_BACKEND:-go:parallelism=-1}\`, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')."
    echo "One step of h (MLP [64, 64]) with the DR penalty at batch 2000; the median of 3 runs of 10 steps each; ratios to the"
    echo "binary Z's step (the paper's conditional MMD²) of the same run. Columns: the design's factor columns; M: Fourier terms of the kernel on h."
    echo "Load average before: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "| nuisance | ms per step | ratio to binary | factor columns | M |"
    echo "|---|---|---|---|---|"
    awk '/^BenchmarkNuisanceStep\// {
        name = $1; sub(/^BenchmarkNuisanceStep\//, "", name); sub(/-[0-9]+$/, "", name)
        t[name] = t[name] " " $3; cols[name] = $5; terms[name] = $7
        if (!(name in seen)) { order[++n] = name; seen[name] = 1 }
      }
      function median(s,   a, k, i, j, x) { k = split(s, a, " "); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }; return a[int((k + 1) / 2)] }
      END {
        base = median(t["binary"])
        for (i = 1; i <= n; i++) { m = median(t[order[i]]); printf "| %s | %.0f | %.2f | %d | %d |\n", order[i], m / 1e6, m / base, cols[order[i]], terms[order[i]] }
      }' "$tmp/nuisance.out"
    echo
    echo "A continuous Z's D is 2M Fourier features of its Gaussian kernel, M set by the per-pair error allowed on the"
    echo "observed range (invmmd.DefaultZFourierTol = 10⁻³; D = 14 on the continuous-nuisance simulation, whose observed training Z"
    echo "spans about [−1.4, 2.3] with σ ≈ 0.46): the step grows with the factor columns, about 6D + 4 for DR, and a tolerance of 10⁻³"
    echo "per pair is far below the penalty's sampling noise at batch 2000."
  } > "$tmp/nuisance"
else
  section nuisance > "$tmp/nuisance"
fi

if [ "$what" = all ] || [ "$what" = test ]; then
  echo "== invariance test benchmark: routes and the plain loop; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  go test -run XXX -bench 'BenchmarkInvarianceTest' -benchtime 3x -count 3 -timeout 60m ./invmmd/ | tee "$tmp/test.out"
  {
    echo "## The invariance test by route"
    echo
    echo "Measured by \`scripts/bench.sh test\` on $(date -u +%Y-%m-%d), $(go version | cut -d' ' -f3), $(nproc) CPUs,"
    echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'). Pure Go, float64, no GoMLX."
    echo "One test of dr's pseudo-outcome (invmmd.InvarianceTest) on n rows of the calibration simulation (δ = 0.2, true G and m,"
    echo "σ = 1); the median of 3 runs of 3 tests each. wild: 1000 sign draws through the Fourier features of the kernel on h;"
    echo "plain loop: the same bootstrap written as a user would, the n×n matrix of each stratum built once with the exact kernel,"
    echo "then εᵀMε per draw. Ratios to the cross route of the same n. Load average before: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "| n | route | ms per test | ratio to cross |"
    echo "|---|---|---|---|"
    awk '/^BenchmarkInvarianceTest\// {
        name = $1; sub(/^BenchmarkInvarianceTest\//, "", name); sub(/-[0-9]+$/, "", name)
        t[name] = t[name] " " $3
        if (!(name in seen)) { order[++k] = name; seen[name] = 1 }
      }
      function median(s,   a, c, i, j, x) { c = split(s, a, " "); for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }; return a[int((c + 1) / 2)] }
      END {
        for (i = 1; i <= k; i++) {
          split(order[i], p, "/"); n = p[1]; sub(/^n=/, "", n)
          m = median(t[order[i]]); base = median(t["n=" n "/cross"])
          printf "| %s | %s | %.1f | %.1f |\n", n, p[2], m / 1e6, m / base
        }
      }' "$tmp/test.out"
  } > "$tmp/test"
else
  section test > "$tmp/test"
fi

if [ "$what" = all ] || [ "$what" = wide ]; then
  echo "== wide benchmark: a representation's penalty, exact against random features; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  { go test -run XXX -bench 'BenchmarkWide$' -benchtime 1x -count 3 -timeout 60m ./invmmd/
    go test -run XXX -bench 'BenchmarkWideGraph$' -benchtime 1x -count 3 -timeout 60m ./invmmd/penalty/ | sed 's/^BenchmarkWideGraph/BenchmarkWide/'; } | tee "$tmp/wide.out"
  {
    echo "## The penalty of a representation: exact kernel against random Fourier features"
    echo
    echo "Measured by \`scripts/bench.sh wide\` on $(date -u +%Y-%m-%d), $(go version | cut -d' ' -f3), $(nproc) CPUs,"
    echo "backend \`${GOMLX_BACKEND:-go:parallelism=-1}\`, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')."
    echo "The DR penalty (12 factor columns, two strata) of a batch of N rows whose output h has d columns, σ by the median"
    echo "heuristic; the median of 3 runs of one call each (after one untimed call that compiles the graph), ms per call. sums: the float64 estimate (Design.Evaluate), exact on"
    echo "every CPU (ExactSums) or through invmmd.RFFSums with D = 1024 frequencies (2048 features); graph: the penalty and its"
    echo "gradient in float32 on the GoMLX backend, as a training step computes them, exact (penalty.PenaltyGraph: the n×n kernel from the"
    echo "Gram matrix) or penalty.RFFPenaltyGraph with the same D. Ratio: random features' time over exact's, from the same run (below 1"
    echo "is faster). Their error against the exact kernel is in figures/tables/rff_error.md (1.5–3.3% at D = 1024)."
    echo "Load average before: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "| N | d | sums exact | sums rff | ratio | graph exact | graph rff | ratio |"
    echo "|---|---|---|---|---|---|---|---|"
    awk '/^BenchmarkWide\// {
        split($1, p, "/"); n = p[2]; sub(/^N=/, "", n); d = p[3]; sub(/^d=/, "", d); v = p[4]; sub(/-[0-9]+$/, "", v)
        key = n " " d; t[key, v] = t[key, v] " " $3
        if (!(key in seen)) { order[++k] = key; seen[key] = 1 }
      }
      function median(s,   a, c, i, j, x) { c = split(s, a, " "); for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }; return a[int((c + 1) / 2)] }
      END {
        for (i = 1; i <= k; i++) {
          split(order[i], nd, " ")
          se = median(t[order[i], "sums-exact"]); sr = median(t[order[i], "sums-rff"])
          ge = median(t[order[i], "graph-exact"]); gr = median(t[order[i], "graph-rff"])
          printf "| %s | %s | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f |\n", nd[1], nd[2], se / 1e6, sr / 1e6, sr / se, ge / 1e6, gr / 1e6, gr / ge
        }
      }' "$tmp/wide.out"
  } > "$tmp/wide"
else
  section wide > "$tmp/wide"
fi

if [ "$what" = all ] || [ "$what" = rows ]; then
  echo "== rows benchmark: estimate and test as commands at 10⁴ to ${ROWS_MAX:-10000000} rows; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  go build -o "$tmp/invmmd" ./cmd/invmmd
  go build -o "$tmp/rows" ./cmd/benchrows
  : > "$tmp/rows.out"
  for n in 10000 100000 1000000 10000000; do
    [ "$n" -le "${ROWS_MAX:-10000000}" ] || continue
    "$tmp/rows" -n "$n" > "$tmp/rows.csv"
    for cmd in estimate test; do
      methods=obs,ip,reg,dr
      [ "$cmd" = test ] && methods=dr
      for path in auto exact gogc100; do
        extra=() gogc=()
        case "$path" in
        exact)
          [ "$n" -le "${ROWS_EXACT_MAX:-100000}" ] || continue
          extra=(-exact) ;;
        gogc100) # the default sums with Go's own collector headroom (the commands set 50)
          [ "$n" -eq "${ROWS_MAX:-10000000}" ] || continue
          gogc=(GOGC=100) ;;
        esac
        # GNU time's %e (wall seconds) and %M (peak resident KiB) on the last line of its output.
        env "${gogc[@]}" /usr/bin/time -f "%e %M" -o "$tmp/time" "$tmp/invmmd" "$cmd" -data "$tmp/rows.csv" -y y -z z -outputs h -g g -m m \
          -methods "$methods" "${extra[@]}" > "$tmp/cmd.out" 2>&1
        sums=$(grep -o 'kernel sums [^;]*' "$tmp/cmd.out" | head -1 | sed 's/^kernel sums //; s/|/\\|/g')
        echo "$n $cmd $path $(tail -1 "$tmp/time") $sums" | tee -a "$tmp/rows.out"
      done
    done
  done
  rm -f "$tmp/rows.csv"
  {
    echo "## Estimates, standard errors and tests by the number of rows"
    echo
    echo "Measured by \`scripts/bench.sh rows\` on $(date -u +%Y-%m-%d), $(go version | cut -d' ' -f3), $(nproc) CPUs,"
    echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'). Load average before: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo "The commands as a user runs them on a CSV of n rows (cmd/benchrows: binary Y and Z, about 44% of Z missing at random,"
    echo "a scalar output h, the true G and m as columns, so nothing is fitted): \`invmmd estimate -methods obs,ip,reg,dr\` (estimates"
    echo "and jackknife standard errors) and \`invmmd test -methods dr\` (the cross route), σ by the median heuristic. Wall time includes"
    echo "reading the CSV; peak memory is the process's maximum resident set (GNU time). auto: the default kernel sums (exact up to"
    echo "2^24 pairs per stratum, the Fourier expansion beyond, with its error bound); exact: \`-exact\`, every pair, the O(n²)"
    echo "reference, run up to ${ROWS_EXACT_MAX:-100000} rows; gogc100: auto with \`GOGC=100\`, Go's own collector headroom, where the"
    echo "commands otherwise run with GOGC 50 (at the largest size only). Slope: least squares of log time on log n over n ≥ 10⁵ (1 is linear)."
    echo
    echo "| rows | command | kernel sums | wall s | peak MB | sums path |"
    echo "|---|---|---|---|---|---|"
    awk '{ path = ""; for (i = 6; i <= NF; i++) path = path (i > 6 ? " " : "") $i
           printf "| %d | %s | %s | %.2f | %.0f | %s |\n", $1, $2, $3, $4, $5 / 1024, path }' "$tmp/rows.out"
    echo
    awk '$3 == "auto" && $1 >= 100000 { k = $2; x = log($1); y = log($4); n[k]++; sx[k] += x; sy[k] += y; sxx[k] += x * x; sxy[k] += x * y }
      END { for (k in n) if (n[k] >= 2) printf "Slope of log time on log rows from 10⁵ up, %s: %.2f.\n", k, (n[k] * sxy[k] - sx[k] * sy[k]) / (n[k] * sxx[k] - sx[k] * sx[k]) }' "$tmp/rows.out" | sort
  } > "$tmp/rows"
else
  section rows > "$tmp/rows"
fi

if [ "$what" = all ] || [ "$what" = audit ]; then
  echo "== audit benchmark: invmmd audit at 5,000 to 10⁶ rows; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  go build -o "$tmp/invmmd" ./cmd/invmmd
  go build -o "$tmp/benchrows" ./cmd/benchrows
  : > "$tmp/audit.out"
  for n in 5000 100000 1000000; do
    "$tmp/benchrows" -audit -n "$n" > "$tmp/audit.csv"
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$tmp/invmmd" audit -data "$tmp/audit.csv" -y y -z z -decisions d -x x1,x2,c > "$tmp/cmd.out" 2>&1
    echo "$n $(tail -1 "$tmp/time")" | tee -a "$tmp/audit.out"
  done
  rm -f "$tmp/audit.csv"
  {
    echo "## The fairness audit by the number of rows"
    echo
    echo "Measured by \`scripts/bench.sh audit\` on $(date -u +%Y-%m-%d), $(go version | cut -d' ' -f3), $(nproc) CPUs,"
    echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'). Load average before: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo "\`invmmd audit -decisions d -x x1,x2,c\` as a user runs it on a CSV of n rows (cmd/benchrows -audit: a binary label, a"
    echo "three-level attribute blank on about 40% of the rows at random given the features and the label, three features of which"
    echo "one has five levels): G and m fitted by logistic regressions cross-fitted on 5 folds, every metric by complete_case, ip,"
    echo "reg and dr with their intervals, the sensitivity bounds at five Γ. Wall time includes reading the CSV; peak memory is"
    echo "the process's maximum resident set (GNU time)."
    echo
    echo "| rows | wall s | peak MB |"
    echo "|---|---|---|"
    awk '{ printf "| %d | %.2f | %.0f |\n", $1, $2, $3 / 1024 }' "$tmp/audit.out"
  } > "$tmp/audit"
else
  section audit > "$tmp/audit"
fi

if [ "$what" = all ] || [ "$what" = penalty ]; then
  echo "== go test -bench (benchtime $benchtime); this takes a few minutes"
  { go test -run XXX -bench 'BenchmarkPenalty$' -benchtime "$benchtime" -timeout 60m ./invmmd/penalty/
    go test -run XXX -bench 'BenchmarkKernelSum$' -benchtime "$benchtime" -timeout 60m ./invmmd/; } | tee "$tmp/bench.out"
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
  echo "<!-- nuisance -->"
  cat "$tmp/nuisance"
  echo "<!-- /nuisance -->"
  echo
  echo "<!-- test -->"
  cat "$tmp/test"
  echo "<!-- /test -->"
  echo
  echo "<!-- wide -->"
  cat "$tmp/wide"
  echo "<!-- /wide -->"
  echo
  echo "<!-- rows -->"
  cat "$tmp/rows"
  echo "<!-- /rows -->"
  echo
  echo "<!-- audit -->"
  cat "$tmp/audit"
  echo "<!-- /audit -->"
  echo
  if [ -f BENCHMARKS.md ] && grep -q '^<!-- analysis -->' BENCHMARKS.md; then
    sed -n '/^<!-- analysis -->/,$p' BENCHMARKS.md
  else
    echo "<!-- analysis -->"
  fi
} > BENCHMARKS.md.new
mv BENCHMARKS.md.new BENCHMARKS.md
echo "== wrote BENCHMARKS.md"
