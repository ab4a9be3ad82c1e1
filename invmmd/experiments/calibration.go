package experiments

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/calibsim"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
)

// CalibrationTest is one test of the calibration study: an estimator family's
// pseudo-outcome and a route to its null distribution (invmmd.InvarianceTest).
type CalibrationTest struct {
	Method method.Method
	Route  invmmd.TestRoute
}

// String names the test "method/route".
func (t CalibrationTest) String() string { return t.Method.String() + "/" + t.Route.String() }

// MarshalText names the test in JSON records as String does.
func (t CalibrationTest) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// CalibrationConfig is the calibration study of the invariance test: for each sample size,
// Replicates draws of the calibsim simulation under the null (δ = 0) and PowerReplicates
// under each alternative δ, each with G and m fitted by logistic regression on a separate
// sample of the same size (correctly specified), and every test's rejection at level Alpha.
type CalibrationConfig struct {
	Sizes           []int
	Replicates      int       // null replicates per size
	Deltas          []float64 // dependence strengths of the power curves
	PowerReplicates int       // replicates per size and δ > 0
	Tests           []CalibrationTest
	Resamples       int // draws of the wild bootstrap and the permutation test
	Alpha           float64
	Seed            uint64
	Workers         int       `json:"-"` // replicates run at once; 0 means one per CPU
	Progress        io.Writer `json:"-"`
}

// CalibrationTests returns the study's tests: the doubly robust pseudo-outcome through both
// routes (cross, the default of invmmd test, and the wild bootstrap), reg and ip (valid when
// m, resp. G, is right), full (the oracle that sees every Z) by the cross route and by
// permutation, and the naive tests on the observed rows alone, by the cross route and by
// the textbook permutation of Z.
func CalibrationTests() []CalibrationTest {
	return []CalibrationTest{
		{method.DR, invmmd.CrossRoute}, {method.DR, invmmd.WildRoute},
		{method.Reg, invmmd.CrossRoute}, {method.IP, invmmd.CrossRoute},
		{method.Full, invmmd.CrossRoute}, {method.Full, invmmd.PermutationRoute},
		{method.Obs, invmmd.CrossRoute}, {method.Obs, invmmd.PermutationRoute},
	}
}

// CalibrationPaper is the study as committed: n ∈ {500, 2000}, 1000 null replicates each,
// power at δ ∈ {0.05, 0.1, 0.2, 0.3, 0.4} over 200 replicates, 1000 resamples, α = 0.05.
func CalibrationPaper() CalibrationConfig {
	return CalibrationConfig{Sizes: []int{500, 2000}, Replicates: 1000, Deltas: []float64{0.05, 0.1, 0.2, 0.3, 0.4},
		PowerReplicates: 200, Tests: CalibrationTests(), Resamples: invmmd.DefaultResamples, Alpha: 0.05, Seed: 1}
}

// CalibrationQuick is a small version for tests and the notebook's quick mode (seconds).
func CalibrationQuick() CalibrationConfig {
	return CalibrationConfig{Sizes: []int{400}, Replicates: 60, Deltas: []float64{0.4}, PowerReplicates: 20,
		Tests: CalibrationTests(), Resamples: invmmd.MinResamples, Alpha: 0.05, Seed: 1}
}

// Validate checks the configuration before any work.
func (c CalibrationConfig) Validate() error {
	switch {
	case len(c.Sizes) == 0 || len(c.Tests) == 0:
		return fmt.Errorf("calibration: no sample size or no test")
	case c.Replicates < 1 || (len(c.Deltas) > 0 && c.PowerReplicates < 1):
		return fmt.Errorf("calibration: %d null and %d power replicates, want at least 1", c.Replicates, c.PowerReplicates)
	case !(c.Alpha > 0 && c.Alpha < 1):
		return fmt.Errorf("calibration: α = %v, want a level in (0, 1)", c.Alpha)
	case c.Resamples < invmmd.MinResamples:
		return fmt.Errorf("calibration: %d resamples, want at least %d", c.Resamples, invmmd.MinResamples)
	}
	for _, n := range c.Sizes {
		if n < 100 {
			return fmt.Errorf("calibration: sample size %d, want at least 100", n)
		}
	}
	for _, d := range c.Deltas {
		if !(d > 0) {
			return fmt.Errorf("calibration: δ = %v, want the alternatives > 0 (δ = 0 is the null, always run)", d)
		}
	}
	return nil
}

// Calibration is the outcome of RunCalibration.
type Calibration struct {
	Config CalibrationConfig
	Rows   []results.CalibrationRow // per size, δ (0 first) and test
	NullP  []results.CalibrationP   // every null replicate's p-value
	// Millis is each test's mean time per test in milliseconds, per size (key "n/test"):
	// machine-dependent, so written to an ignored file, never to the tables.
	Millis map[string]float64
}

// RunCalibration runs the study. Replicate r of size n and strength δ draws its data from a
// generator seeded by (Seed, n, δ's index, r), so the results do not depend on Workers.
func RunCalibration(ctx context.Context, cfg CalibrationConfig) (*Calibration, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	out := &Calibration{Config: cfg, Millis: map[string]float64{}}
	deltas := append([]float64{0}, cfg.Deltas...)
	for _, n := range cfg.Sizes {
		for di, delta := range deltas {
			reps := cfg.Replicates
			if di > 0 {
				reps = cfg.PowerReplicates
			}
			p := make([][]float64, reps) // [replicate][test]
			ms := make([][]float64, reps)
			err := parallel(ctx, cfg.Workers, reps, func(r int) (err error) {
				if p[r], ms[r], err = calibrationReplicate(cfg, n, di, delta, r); err != nil {
					return fmt.Errorf("calibration: n = %d, δ = %v, replicate %d: %w", n, delta, r, err)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			for k, t := range cfg.Tests {
				row := results.CalibrationRow{N: n, Delta: delta, Method: t.Method.String(), Route: t.Route.String(), Replicates: reps}
				for r := range p {
					if p[r][k] <= cfg.Alpha {
						row.Rejections++
					}
					if di == 0 {
						out.NullP = append(out.NullP, results.CalibrationP{N: n, Method: row.Method, Route: row.Route, Replicate: r, P: p[r][k]})
					}
					out.Millis[fmt.Sprintf("%d/%v", n, t)] += ms[r][k] / float64(reps*len(deltas))
				}
				out.Rows = append(out.Rows, row)
			}
			fmt.Fprintf(cmp.Or(cfg.Progress, io.Discard), "calibration: n = %d, δ = %v: %d replicates done\n", n, delta, reps)
		}
	}
	return out, nil
}

// parallel calls fn for every index in [0, n) on workers goroutines (0: one per CPU), and
// stops handing out indices at the first error or once ctx is done; it returns ctx's
// error, or else the first error of fn.
func parallel(ctx context.Context, workers, n int, fn func(i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	var first error
	next := 0
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				stop := i >= n || first != nil || ctx.Err() != nil
				mu.Unlock()
				if stop {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return cmp.Or(ctx.Err(), first)
}

// calibrationReplicate draws one replicate (a sample to fit G and m on and one to test) and
// returns each test's p-value and time in milliseconds.
func calibrationReplicate(cfg CalibrationConfig, n, di int, delta float64, r int) ([]float64, []float64, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(n)<<40|uint64(di)<<32|uint64(r)))
	fit := calibsim.Draw(n, delta, rng)
	s := calibsim.Draw(n, delta, rng)
	nu, err := calibsim.FitNuisances(fit)
	if err != nil {
		return nil, nil, err
	}
	g, m := nu.Predict(s)
	rows := invmmd.Rows{Y: s.Y, Z: s.ZFull, Delta: s.Delta, G: g, M: m}
	p := make([]float64, len(cfg.Tests))
	ms := make([]float64, len(cfg.Tests))
	for k, t := range cfg.Tests {
		t0 := time.Now()
		res, err := invmmd.InvarianceTest(context.Background(), invmmd.ScalarRep(s.H), rows, invmmd.TestOptions{Options: invmmd.Options{Median: true}, Route: t.Route, Resamples: cfg.Resamples, Seed: uint64(r)}, t.Method)
		if err != nil {
			return nil, nil, fmt.Errorf("%v: %w", t, err)
		}
		ms[k] = float64(time.Since(t0).Microseconds()) / 1000
		p[k] = res[0].PValue
	}
	return p, ms, nil
}

// Markdown renders the study as its table: per size, each test's rejection rate at level α
// under the null (its size) and under each alternative δ (its power), with the binomial
// standard error of the size, and a closing note on what the tests assume.
func (c *Calibration) Markdown() string {
	var b strings.Builder
	cfg := c.Config
	fmt.Fprintf(&b, "# Calibration of the invariance test (invmmd calibration)\n\n")
	fmt.Fprintf(&b, "Rejection rate at α = %v: size under H₀ (δ = 0, %d replicates, ± its binomial SE) and power at δ > 0 (%d replicates). G and m: logistic regressions fitted on a separate sample of n rows; %d resamples for wild and permutation.\n\n",
		cfg.Alpha, cfg.Replicates, cfg.PowerReplicates, cfg.Resamples)
	for _, n := range cfg.Sizes {
		fmt.Fprintf(&b, "n = %d\n\n| test | size | ", n)
		for _, d := range cfg.Deltas {
			fmt.Fprintf(&b, "δ = %g | ", d)
		}
		b.WriteString("\n|---|---|" + strings.Repeat("---|", len(cfg.Deltas)) + "\n")
		for _, t := range cfg.Tests {
			fmt.Fprintf(&b, "| %v |", t)
			for _, r := range c.Rows {
				if r.N != n || r.Test() != t.String() {
					continue
				}
				if r.Delta == 0 {
					fmt.Fprintf(&b, " %.3f ± %.3f |", r.Rate(), r.SE())
				} else {
					fmt.Fprintf(&b, " %.2f |", r.Rate())
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Write writes the study's files into dir/tables: calibration.csv (rates), calibration_null.csv
// (every null p-value), calibration.md (the table), calibration_config.json (the
// configuration) and calibration_timing.json (machine-dependent times, ignored by git).
func (c *Calibration) Write(dir string) error {
	return writeTables(filepath.Join(dir, "tables"), []tableFile{
		{"calibration.csv", func(w io.Writer) error { return results.WriteCalibrationCSV(w, c.Rows) }},
		{"calibration_null.csv", func(w io.Writer) error { return results.WriteCalibrationNullCSV(w, c.NullP) }},
		{"calibration.md", func(w io.Writer) error { _, err := io.WriteString(w, c.Markdown()); return err }},
	}, map[string]any{"calibration_config.json": c.Config.Record(), "calibration_timing.json": c.Millis})
}

// tableFile is one file of a study's tables: its name and what writes it.
type tableFile struct {
	name  string
	write func(io.Writer) error
}

// writeTables writes each of files (results.WriteFile), in order, then each record (by file
// name) as indented JSON (results.WriteJSON) into the folder t, created if need be, each
// atomically.
func writeTables(t string, files []tableFile, records map[string]any) error {
	if err := os.MkdirAll(t, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := results.WriteFile(filepath.Join(t, f.name), f.write); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(records)) { // in one order, run after run
		v := records[name]
		if err := results.WriteJSON(filepath.Join(t, name), v); err != nil {
			return err
		}
	}
	return nil
}

// Record returns the configuration as calibration_config.json stores it: the settings
// (the tests by name) and the simulation's formula.
func (c CalibrationConfig) Record() any {
	return struct {
		CalibrationConfig
		Simulation string
	}{c, fmt.Sprintf("calibsim: X1 ~ N(%v·s, 1), X2 ~ N(0, 1), Z ~ B(σ(%v·X2 + %v·s)), Δ ~ B(σ(%v + %v·(X1 + X2))), h = X1 + δ·X2", calibsim.MeanX1, calibsim.ZX2, calibsim.ZY, calibsim.GConst, calibsim.GX)}
}
