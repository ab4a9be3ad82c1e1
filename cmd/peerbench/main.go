// Command peerbench times, in one run, the training step of every network the project
// trains (the textured-MNIST CNNs, the simulation's MLP fit) on the GoMLX backend in force
// and the same network in PyTorch CPU with the same number of threads, their repetitions
// alternating, and prints a Markdown table of medians and ratios. scripts/bench.sh runs it and writes the
// table into BENCHMARKS.md (make bench).
//
// Usage:
//
//	peerbench [-reps 5] [-threads 2] [-only default,pooled,...] [-md FILE]
//
// The PyTorch side is scripts/bench/peer.py run with python3; when python3 or its torch
// module is missing the peer cells say so and the Go rows still run. Timings on a shared
// machine are noisy, and the machine's speed drifts: each row alternates Go's and PyTorch's
// repetitions, reports medians of wall and CPU time and, as the ratio, the median of the
// adjacent pairs' ratios; the load average is recorded with the table.
package main

import (
	"bytes"
	stdcontext "context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/sim"
	"github.com/invmmd/invmmd/invmmd/train"
)

// warmUp is the number of untimed CNN steps before the timed ones, on both sides (the
// peer script's WARMUP): Go's first step compiles the graph, PyTorch's first steps pick
// and cache oneDNN's kernels; each repetition runs in a fresh graph or process.
const warmUp = 3

// cnnBatch is the batch of h in the textured-MNIST experiment (and of the timings in
// BENCHMARKS.md).
const cnnBatch = 1500

// row is one benchmarked network.
type row struct {
	key, what string
	unit      string // "ms" per step or "s" per fit
	goRun     func(reps int) (timings, string, error)
	peerArgs  []string // arguments of scripts/bench/peer.py
}

func rows(towers int) []row {
	cnn := func(key, what string, net models.CNN, peer string) row {
		net.Towers = towers
		return row{key: key, what: what, unit: "ms",
			goRun:    func(reps int) (timings, string, error) { return cnnSteps(net, reps) },
			peerArgs: []string{"cnn", peer}}
	}
	return []row{
		cnn("default", "DefaultCNN step (conv3×3 16, max-pool, ReLU, conv3×3 32, max-pool, ReLU, linear), batch 1500 of 28×28", models.DefaultCNN(1), "default"),
		cnn("pooled", "PooledCNN step (2×2 avg-pool, conv 8, max-pool, conv 16, linear), batch 1500", models.PooledCNN(1), "pooled"),
		cnn("strided", "StridedCNN step (conv 8 at stride 2 on 28×28, conv 16 at stride 2, linear), batch 1500", models.StridedCNN(1), "strided"),
		{key: "mlp", what: "simulation fit of h, MLP [64, 64], 300 steps of 2000 rows + 60 validations of 5000, no penalty", unit: "s",
			goRun: func(reps int) (timings, string, error) { return mlpFits(method.None, reps) }, peerArgs: []string{"mlp", "none"}},
		{key: "mlp-dr", what: "the same fit with the DR penalty, λ = 1 (ours: Fourier expansion; PyTorch: exact n×n kernel)", unit: "s",
			goRun: func(reps int) (timings, string, error) { return mlpFits(method.DR, reps) }, peerArgs: []string{"mlp", "dr"}},
	}
}

func main() {
	// The pure-Go backend's tuning that the project's results were made with (a
	// process-wide setting of simplego, which the library leaves to the programs).
	simplego.DotGeneralTargetBlockLog2Dim[dtypes.Float32] = backend.GoDotBlockLog2Dim
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "peerbench:", err)
		}
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("peerbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	reps := fs.Int("reps", 5, "repetitions per row and side (medians are reported)")
	threads := fs.Int("threads", runtime.NumCPU(), "threads of the PyTorch peer (GOMAXPROCS of the Go side is left as is)")
	only := fs.String("only", "", "comma-separated rows to run (default, pooled, strided, mlp, mlp-dr); empty: all")
	peer := fs.String("peer", "scripts/bench/peer.py", "the PyTorch peer script")
	python := fs.String("python", "", "the Python interpreter with torch (default: /usr/bin/python3, Debian's, else python3 on PATH)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the Go side to this file")
	md := fs.String("md", "", "also write the Markdown table to this file")
	towers := fs.Int("towers", 0, "towers of the CNNs (models.CNN.Towers; 0: the default)")
	if err := fs.Parse(args); err != nil {
		return err
	}

	if *reps < 1 || *threads < 1 {
		return fmt.Errorf("-reps %d and -threads %d: want at least 1", *reps, *threads)
	}
	var sel []row
	for _, r := range rows(*towers) {
		if *only == "" || slices.Contains(strings.Split(*only, ","), r.key) {
			sel = append(sel, r)
		}
	}
	if len(sel) == 0 {
		return fmt.Errorf("-only %q names no row", *only)
	}
	if *python == "" {
		*python = "python3"
		if _, err := os.Stat("/usr/bin/python3"); err == nil {
			*python = "/usr/bin/python3"
		}
	}
	version, peerErr := checkPeer(*python, *peer)
	if peerErr != nil {
		fmt.Fprintf(stderr, "PyTorch peer unavailable: %v\n", peerErr)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured by `scripts/bench.sh` (cmd/peerbench) on %s, %s, GOMAXPROCS %d, backend `%s`; PyTorch %s, %d threads; CPU %s.\n",
		time.Now().UTC().Format("2006-01-02"), runtime.Version(), runtime.GOMAXPROCS(0), backend.Config(), version, *threads, cpuModel())
	fmt.Fprintf(&b, "Load average before: %s. Medians (and ranges) of %d repetitions; Go's and PyTorch's repetitions alternate (Go, PyTorch, Go, …), and each ratio is the median of the ratios of the adjacent pairs (so not the quotient of the two medians shown), so that a drift in the machine's speed during a row falls on both sides.\n\n", loadavg(), *reps)
	b.WriteString("| network and step | invmmd (Go), wall | PyTorch CPU, wall | ratio | Go, CPU time | PyTorch, CPU time | ratio |\n|---|---|---|---|---|---|---|\n")
	var notes []string
	for _, r := range sel {
		g, p, note, peerFail, err := interleaved(r, *reps, stderr, *cpuprofile, func() (timings, error) {
			if peerErr != nil {
				return timings{}, peerErr
			}
			return runPeer(*python, *peer, r.peerArgs, 1, *threads)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", r.key, err)
		}
		if note != "" {
			notes = append(notes, fmt.Sprintf("%s: %s", r.key, note))
		}
		pWall, pCPU, ratioWall, ratioCPU := "not measured: "+fmt.Sprint(peerErr), "–", "–", "–"
		switch {
		case peerErr != nil:
		case peerFail != nil:
			pWall = "failed: " + peerFail.Error()
		default:
			pWall, pCPU = cell(p.wall, r.unit), cell(p.cpu, r.unit)
			ratioWall = fmt.Sprintf("%.2f×", pairedRatio(g.wall, p.wall))
			ratioCPU = fmt.Sprintf("%.2f×", pairedRatio(g.cpu, p.cpu))
		}
		line := fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |\n", r.what, cell(g.wall, r.unit), pWall, ratioWall, cell(g.cpu, r.unit), pCPU, ratioCPU)
		b.WriteString(line)
		fmt.Fprint(stderr, line)
	}
	fmt.Fprintf(&b, "\nLoad average after: %s.", loadavg())
	for _, n := range notes {
		fmt.Fprintf(&b, " %s.", n)
	}
	b.WriteString("\n")
	fmt.Fprint(stdout, b.String())
	if *md != "" {
		if err := os.WriteFile(*md, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// interleaved runs a row's repetitions alternately on the Go side (one r.goRun each) and
// the peer's (one peerRun each), so that the two sides of each pair run at the same
// moment of a shared machine's drifting speed. It returns both sides' timings, the Go
// side's note (from its last repetition), and the peer's failure, if any (after which only
// the Go side runs). The CPU profile, when asked for, covers the Go repetitions.
func interleaved(r row, reps int, stderr io.Writer, cpuprofile string, peerRun func() (timings, error)) (g, p timings, note string, peerFail error, err error) {
	stop, err := startProfile(cpuprofile, r.key)
	if err != nil {
		return g, p, "", nil, err
	}
	defer stop()
	for k := 1; k <= reps; k++ {
		fmt.Fprintf(stderr, "== %s: Go, repetition %d of %d\n", r.key, k, reps)
		gk, nk, err := r.goRun(1)
		if err != nil {
			return g, p, "", nil, err
		}
		g.wall, g.cpu, note = append(g.wall, gk.wall...), append(g.cpu, gk.cpu...), nk
		if peerFail != nil {
			continue
		}
		fmt.Fprintf(stderr, "== %s: PyTorch, repetition %d of %d\n", r.key, k, reps)
		pk, err := peerRun()
		if err != nil {
			peerFail = err
			continue
		}
		p.wall, p.cpu = append(p.wall, pk.wall...), append(p.cpu, pk.cpu...)
	}
	return g, p, note, peerFail, nil
}

// pairedRatio returns the median over the repetitions k of a[k]/b[k].
func pairedRatio(a, b []float64) float64 {
	r := make([]float64, min(len(a), len(b)))
	for k := range r {
		r[k] = a[k] / b[k]
	}
	return median(r)
}

// startProfile starts a CPU profile into path with the row's key inserted before the
// extension (cpu.prof → cpu.default.prof); it returns the function that stops it.
func startProfile(path, key string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	ext := filepath.Ext(path)
	f, err := os.Create(strings.TrimSuffix(path, ext) + "." + key + ext)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// cnnSteps times reps training steps (forward, backward, Adam) of net at batch cnnBatch
// on random 28×28 images, after warmUp untimed steps (the first compiles the graph), in
// milliseconds.
func cnnSteps(net models.CNN, reps int) (timings, string, error) {
	be, err := backend.Shared()
	if err != nil {
		return timings{}, "", err
	}
	step, err := trainStep(be, net)
	if err != nil {
		return timings{}, "", err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float32, cnnBatch*28*28)
	for i := range xs {
		xs[i] = rng.Float32()
	}
	ys := make([]float32, cnnBatch)
	for i := range ys {
		ys[i] = float32(rng.IntN(2))
	}
	x, y := tensors.FromFlatDataAndDimensions(xs, cnnBatch, 28, 28, 1), tensors.FromFlatDataAndDimensions(ys, cnnBatch)
	for range warmUp {
		if err := step(x, y); err != nil {
			return timings{}, "", err
		}
	}
	t, err := timeReps(reps, func() error { return step(x, y) })
	return t, "", err
}

// trainStep compiles one training step of net as package train runs it: mean Bernoulli
// NLL, its gradient and an Adam update of the variables.
func trainStep(be backends.Backend, net models.Net) (func(x, y *tensors.Tensor) error, error) {
	ctx := context.New()
	opt := optimizers.Adam().LearningRate(3e-3).Done()
	e, err := context.NewExec(be, ctx, func(ctx *context.Context, x, y *graph.Node) *graph.Node {
		loss := models.BernoulliNLL(net.Logit(ctx, x), y)
		opt.UpdateGraph(ctx, x.Graph(), loss)
		return loss
	})
	if err != nil {
		return nil, err
	}
	return func(x, y *tensors.Tensor) error {
		_, err := e.Exec(x, y)
		return err
	}, nil
}

// mlpFits times reps fits of the simulation's h at paper size (10,000 training rows,
// batch 2000, 60 epochs: 300 steps, each epoch validated on 5,000 rows), in seconds, and
// reports the share of the fit spent in the validation passes.
func mlpFits(method method.Method, reps int) (timings, string, error) {
	sp, err := sim.Generate(sim.Config{Seed: 1})
	if err != nil {
		return timings{}, "", err
	}
	var aux *train.Aux
	if method.NeedsG() || method.NeedsM() {
		// Quick auxiliary models: their quality does not change the cost of a step.
		mlp := func(_ train.Role, seed uint64) models.Net { return models.MLP{Hidden: []int{64, 64}, Seed: seed} }
		if aux, err = train.FitAux(stdcontext.Background(), sp, mlp, train.AuxConfig{BatchSize: 500, Epochs: 2, LearningRate: 1e-3, Seed: 2}, train.Runtime{}); err != nil {
			return timings{}, "", err
		}
	}
	cfg := train.Config{Method: method, Lambda: 1, BatchSize: 2000, Epochs: 60, LearningRate: 1e-3, Seed: 1,
		Estimator: invmmd.Options{MainFraction: 1}}
	var model *train.Model
	var hist *train.History
	t, err := timeReps(reps, func() error {
		var err error
		model, hist, err = train.Fit(stdcontext.Background(), sp, aux, models.MLP{Hidden: []int{64, 64}, Seed: 1}, cfg, train.Runtime{})
		return err
	})
	if err != nil {
		return timings{}, "", err
	}
	for k := range t.wall { // milliseconds to seconds
		t.wall[k], t.cpu[k] = t.wall[k]/1000, t.cpu[k]/1000
	}
	// The validation pass of one epoch, repeated on the trained model.
	val, err := validationSeconds(model, sp, aux, cfg)
	if err != nil {
		return timings{}, "", err
	}
	share := float64(cfg.Epochs) * val / median(t.wall)
	return t, fmt.Sprintf("validation passes %.0f%% of the fit (%.1f ms each), penalty path %s", 100*share, 1000*val, hist.PenaltyPath), nil
}

// validationSeconds is the median time of the validation pass of one epoch of Fit: the
// model's logits on the validation rows and, for a penalised method, its estimate there.
func validationSeconds(m *train.Model, sp dataset.Splits, aux *train.Aux, cfg train.Config) (float64, error) {
	var d *invmmd.Design
	if cfg.Method.Penalised() {
		r := invmmd.Rows{Y: sp.Val.Y, Z: sp.Val.Z, Delta: sp.Val.Delta, GTrue: sp.Val.GTrue}
		if aux != nil {
			r.G, r.M = aux.Val.G, aux.Val.M
		}
		var err error
		if d, err = invmmd.NewDesign(r, cfg.Estimator, cfg.Method); err != nil {
			return 0, err
		}
	}
	t, err := timeReps(5, func() error {
		h, err := m.Logits(sp.Val)
		if err == nil && d != nil {
			_, err = d.Evaluate(invmmd.ScalarRep(h), invmmd.AutoSums{})
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	return median(t.wall) / 1000, nil
}

// timings are the wall times of repeated runs and the CPU time (user and system, all
// threads) that the process spent in each: on a shared machine the CPU time is the steadier
// measure of the work done, the wall time the one that includes parallel speed-up.
type timings struct{ wall, cpu []float64 }

// timeReps runs f n times and returns each run's times, in milliseconds.
func timeReps(n int, f func() error) (timings, error) {
	var t timings
	for k := 0; k < n; k++ {
		t0, c0 := time.Now(), cpuTime()
		if err := f(); err != nil {
			return t, err
		}
		t.wall = append(t.wall, float64(time.Since(t0).Microseconds())/1000)
		t.cpu = append(t.cpu, float64((cpuTime()-c0).Microseconds())/1000)
	}
	return t, nil
}

// cpuTime returns the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// checkPeer returns the PyTorch peer's torch version, or "(absent)" and why it cannot run.
func checkPeer(python, script string) (string, error) {
	if _, err := os.Stat(script); err != nil {
		return "(absent)", fmt.Errorf("peer script: %w", err)
	}
	if _, err := exec.LookPath(python); err != nil {
		return "(absent)", fmt.Errorf("%s not found", python)
	}
	out, err := exec.Command(python, "-c", "import torch, numpy; print(torch.__version__)").Output()
	if err != nil {
		return "(absent)", fmt.Errorf("%s cannot import torch and numpy (install: apt-get install -y --no-install-recommends python3-torch python3-numpy)", python)
	}
	return strings.TrimSpace(string(out)), nil
}

// runPeer runs the peer script and returns its repetitions' times (ms per step or s per
// fit, as the row's unit), read from its JSON output {"wall": [...], "cpu": [...]}.
func runPeer(python, script string, args []string, reps, threads int) (timings, error) {
	cmd := exec.Command(python, append([]string{script}, append(args, "--reps", strconv.Itoa(reps), "--threads", strconv.Itoa(threads))...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return timings{}, fmt.Errorf("%s %v: %w: %s", script, args, err, strings.TrimSpace(stderr.String()))
	}
	var res struct {
		Wall []float64 `json:"wall"`
		CPU  []float64 `json:"cpu"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Wall) == 0 || len(res.CPU) != len(res.Wall) {
		return timings{}, fmt.Errorf("%s %v: unreadable output %q", script, args, out)
	}
	return timings{wall: res.Wall, cpu: res.CPU}, nil
}

// cell formats the median and range of times v.
func cell(v []float64, unit string) string {
	return fmt.Sprintf("%s %s (%s–%s)", num(median(v)), unit, num(slices.Min(v)), num(slices.Max(v)))
}

// median is the median of v (results.Quartiles).
func median(v []float64) float64 {
	_, m, _ := results.Quartiles(v)
	return m
}

// num formats a time with three significant digits (no exponent).
func num(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// cpuModel names the processor and its widest vector instructions (from /proc/cpuinfo):
// the ratios depend on them, since PyTorch's kernels are vectorised and the pure-Go
// backend's are not.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	return cpuModelOf(string(b))
}

// cpuModelOf is cpuModel on the text of /proc/cpuinfo.
func cpuModelOf(cpuinfo string) string {
	model, flags := "unknown", map[string]bool{}
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "model name":
			model = strings.TrimSpace(v)
		case "flags":
			for _, f := range strings.Fields(v) {
				flags[f] = true
			}
		}
	}
	simd := "no AVX2"
	switch {
	case flags["avx512f"]:
		simd = "AVX-512"
	case flags["avx2"]:
		simd = "AVX2, no AVX-512"
	}
	return model + " (" + simd + ")"
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], ", ")
}
