package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/calibsim"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/owndata"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// The calibration of invmmd test and invmmd estimate as a user runs them: G and m fitted
// by the commands' own MLPs on the features (owndata.TestTable, owndata.EstimateTable,
// exactly the commands' code on a table in memory), for a binary, a categorical
// (3 levels) and a continuous nuisance (calibsim.DrawKind: Z missing at random given X in
// a way that biases the observed rows). For each kind, size and way of fitting G and m,
// the null (δ = 0) is drawn ToolReplicates times and each method's p-value compared with
// α; the dependence δ > 0 gives dr's power; and over the same tables, the standard errors
// of invmmd estimate are compared with the spread of its estimates. The study decides
// which tests invmmd test prints by default (those whose size held) and which standard
// errors invmmd estimate prints (method.Info.TestCaveat; owndata's seWithheld).

// ToolFitting is a way of fitting G and m in the study.
type ToolFitting struct {
	Name  string // crossfit5, crossfit2, split, fit
	Folds int    // owndata's Folds (1: sample splitting); 0 with HeldOut
	// HeldOut is invmmd fit's held-out test instead of invmmd test: the table of N rows is
	// the test split of a table of 5N (3N to fit G and m on, N to stop their training, as
	// fit's default shares 0.6, 0.2, 0.2), and its p-values are fit's p dr and, beside it,
	// ip's, which fit does not run (owndata.Plan.TestHeldOut) for the outputs h.
	HeldOut bool `json:",omitempty"`
	// Kinds and Sizes restrict the fitting to these kinds of nuisance and sizes (nil:
	// every one of the study's); Replicates are its null tables per cell (0: the study's
	// Replicates).
	Kinds      []dataset.ZKind `json:",omitempty"`
	Sizes      []int           `json:",omitempty"`
	Replicates int             `json:",omitempty"`
}

// ToolCalibrationConfig is the study's design.
type ToolCalibrationConfig struct {
	Kinds []dataset.ZKind
	Sizes []int
	// Fittings are the ways of fitting G and m; the first is the commands' default, on
	// which the power and the standard errors are measured.
	Fittings []ToolFitting
	// Replicates are the null tables per cell of a fitting that does not set its own: at
	// least 400, so that a size in [0.02, 0.08] is told from 0.05 ± 0.011.
	Replicates int
	// Deltas are the dependence strengths of dr's power and of the standard errors under
	// dependence, drawn PowerReplicates times at each of PowerSizes (nil: every size).
	Deltas          []float64
	PowerReplicates int
	PowerSizes      []int
	Methods         []method.Method // tested and estimated (full on the complete table too)
	Alpha           float64
	Seed            uint64
	Workers         int       `json:"-"` // replicates at once; 0: one per CPU
	Progress        io.Writer `json:"-"`
}

// ToolCalibrationPaper is the committed study: binary, categorical and continuous Z at n =
// 1000 and 3000 with G and m cross-fitted on 5 folds (the commands' default: 400 null
// tables per cell); fit's held-out test for every kind at n = 1000 (200 tables); 2 folds
// and sample splitting for a binary Z at n = 1000 (200 tables each), enough to show that
// they do not hold; δ = 0.15 and 0.3 at n = 1000 for dr's power and the standard errors
// under dependence (100 tables each); obs, ip, reg and dr.
func ToolCalibrationPaper() ToolCalibrationConfig {
	small, binary := []int{1000}, []dataset.ZKind{dataset.BinaryZ}
	return ToolCalibrationConfig{
		Kinds: []dataset.ZKind{dataset.BinaryZ, dataset.CategoricalZ, dataset.ContinuousZ},
		Sizes: []int{1000, 3000},
		Fittings: []ToolFitting{{Name: "crossfit5", Folds: 5},
			{Name: "split", Folds: 1, Kinds: binary, Sizes: small, Replicates: 200},
			{Name: "crossfit2", Folds: 2, Kinds: binary, Sizes: small, Replicates: 200},
			{Name: "fit", HeldOut: true, Sizes: small, Replicates: 200}},
		Replicates: 400,
		Deltas:     []float64{0.15, 0.3}, PowerReplicates: 100, PowerSizes: small,
		Methods: []method.Method{method.DR, method.IP, method.Reg, method.Obs},
		Alpha:   0.05, Seed: 1,
	}
}

// ToolCalibrationQuick is a small version for tests (a minute on 2 cores).
func ToolCalibrationQuick() ToolCalibrationConfig {
	c := ToolCalibrationPaper()
	c.Kinds, c.Sizes, c.PowerSizes = []dataset.ZKind{dataset.BinaryZ, dataset.ContinuousZ}, []int{400}, nil
	c.Fittings = []ToolFitting{{Name: "crossfit5", Folds: 5}, {Name: "split", Folds: 1, Replicates: 6}, {Name: "fit", HeldOut: true, Replicates: 6}}
	c.Replicates, c.Deltas, c.PowerReplicates = 12, []float64{0.5}, 6
	return c
}

// cell is one kind, size, fitting and δ of the study.
type toolCell struct {
	Kind    dataset.ZKind
	N       int
	Fitting ToolFitting
	Delta   float64
	Reps    int
}

// cells lists the study's cells in order: the smaller sizes first, for every kind, so that
// a run stopped early has every kind at the smaller sizes.
func (c ToolCalibrationConfig) cells() []toolCell {
	var out []toolCell
	for _, n := range c.Sizes {
		for _, kind := range c.Kinds {
			for fi, f := range c.Fittings {
				if f.Kinds != nil && !slices.Contains(f.Kinds, kind) || f.Sizes != nil && !slices.Contains(f.Sizes, n) {
					continue
				}
				reps := c.Replicates
				if f.Replicates > 0 {
					reps = f.Replicates
				}
				out = append(out, toolCell{kind, n, f, 0, reps})
				if fi == 0 && (c.PowerSizes == nil || slices.Contains(c.PowerSizes, n)) {
					for _, d := range c.Deltas {
						out = append(out, toolCell{kind, n, f, d, c.PowerReplicates})
					}
				}
			}
		}
	}
	return out
}

// name names the cell's file of replicates.
func (t toolCell) name() string {
	return fmt.Sprintf("%v_n%d_%s_d%g", t.Kind, t.N, t.Fitting.Name, t.Delta)
}

// toolReplicate is what one table of a cell gave: each method's p-value (NaN: no test),
// whether the command marked it unreliable for a reason of the data, and each method's
// estimate and standard error (the default fitting only; NaN when not given).
type toolReplicate struct {
	R      int
	P      map[string]float64
	Marked map[string]bool
	Est    map[string][2]float64
}

// replicate draws table r of the cell and runs the commands on it.
func (c ToolCalibrationConfig) replicate(ctx context.Context, t toolCell, r int) (toolReplicate, error) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", t.name(), r)
	rng := rand.New(rand.NewPCG(c.Seed, h.Sum64()))
	if t.Fitting.HeldOut {
		return c.heldOutReplicate(ctx, t, r, rng)
	}
	k, err := calibsim.DrawKind(t.N, t.Delta, t.Kind, rng)
	if err != nil {
		return toolReplicate{}, err
	}
	cols := func(z []float64) []tabular.Col {
		return []tabular.Col{tabular.NumberColumn("x1", k.X1), tabular.NumberColumn("x2", k.X2), tabular.NumberColumn("y", k.Y),
			tabular.NumberColumn("z", z), tabular.NumberColumn("h", k.H)}
	}
	tab, err := tabular.NewTable("sim", cols(k.Z)...)
	if err != nil {
		return toolReplicate{}, err
	}
	complete, err := tabular.NewTable("complete", cols(k.ZFull)...)
	if err != nil {
		return toolReplicate{}, err
	}
	out := toolReplicate{R: r, P: map[string]float64{}, Marked: map[string]bool{}, Est: map[string][2]float64{}}
	tc := owndata.DefaultTestConfig()
	tc.Y, tc.Z, tc.H, tc.X, tc.ZKind, tc.Folds = "y", "z", "h", []string{"x1", "x2"}, t.Kind.String(), t.Fitting.Folds
	tc.Methods = c.Methods
	ec := owndata.DefaultEstimateConfig()
	ec.Columns, ec.H, ec.Folds = tc.Columns, "h", t.Fitting.Folds
	ec.Methods = c.Methods
	if t.Fitting.Folds > 1 {
		nu, err := owndata.FitNuisancesTable(ctx, tab, ec)
		if err != nil {
			return out, fmt.Errorf("fitting G and m: %w", err)
		}
		tc.Nuisances, ec.Nuisances = nu, nu
	}
	res, err := owndata.TestTable(ctx, tab, tc)
	if err != nil {
		return out, fmt.Errorf("test: %w", err)
	}
	for _, m := range c.Methods {
		out.P[m.String()] = math.NaN()
	}
	for _, x := range res.Results {
		out.P[x.Method.String()] = x.PValue
		for _, why := range x.Unreliable {
			if why != x.Method.Info().TestCaveat && why != owndata.FewFoldsCaveat {
				out.Marked[x.Method.String()] = true
			}
		}
	}
	fc := tc
	fc.Methods, fc.X, fc.Nuisances = []method.Method{method.Full}, nil, nil
	full, err := owndata.TestTable(ctx, complete, fc)
	if err != nil {
		return out, fmt.Errorf("test on the complete table: %w", err)
	}
	out.P["full"] = full.Results[0].PValue
	if t.Fitting.Name != c.Fittings[0].Name {
		return out, nil
	}
	est, err := owndata.EstimateTable(ctx, tab, ec)
	if err != nil {
		return out, fmt.Errorf("estimate: %w", err)
	}
	for k, x := range est.Results {
		se := x.ValueSE
		if math.IsNaN(se) { // not printed (reg): measured all the same
			se = est.WithheldSE[k]
		}
		out.Est[x.Method.String()] = [2]float64{x.Value, se}
	}
	fe := ec
	fe.Methods, fe.X, fe.Nuisances = []method.Method{method.Full}, nil, nil
	festimate, err := owndata.EstimateTable(ctx, complete, fe)
	if err != nil {
		return out, fmt.Errorf("estimate on the complete table: %w", err)
	}
	out.Est["full"] = [2]float64{festimate.Results[0].Value, festimate.Results[0].ValueSE}
	return out, nil
}

// heldOutReplicate draws table r of a cell of fit's held-out test: 5N rows, the first 3N
// the training split, the next N the validation split and the last N the test split (a
// split column, as fit -split reads), G and m fitted as fit fits them
// (owndata.Plan.FitNuisances), and the test split's outputs h tested as fit tests a
// trained model's (owndata.Plan.TestHeldOut), beside full's test on the test split's
// complete rows.
func (c ToolCalibrationConfig) heldOutReplicate(ctx context.Context, t toolCell, r int, rng *rand.Rand) (toolReplicate, error) {
	out := toolReplicate{R: r, P: map[string]float64{}, Marked: map[string]bool{}, Est: map[string][2]float64{}}
	n := t.N
	k, err := calibsim.DrawKind(5*n, t.Delta, t.Kind, rng)
	if err != nil {
		return out, err
	}
	split := make([]string, 5*n)
	for i := range split {
		split[i] = [...]string{"train", "train", "train", "val", "test"}[i/n]
	}
	tab, err := tabular.NewTable("sim", tabular.NumberColumn("x1", k.X1), tabular.NumberColumn("x2", k.X2), tabular.NumberColumn("y", k.Y),
		tabular.NumberColumn("z", k.Z), tabular.TextColumn("split", split))
	if err != nil {
		return out, err
	}
	fc := owndata.DefaultConfig()
	fc.Y, fc.Z, fc.X, fc.ZKind, fc.Split, fc.Out = "y", "z", []string{"x1", "x2"}, t.Kind.String(), "split", ""
	fc.Methods = []method.Method{method.None}
	plan, err := owndata.PrepareTable(ctx, tab, fc)
	if err != nil {
		return out, err
	}
	defer plan.Close()
	test := plan.Data.Splits.Test
	if test.Len() != n || !slices.Equal(test.Y, k.Y[4*n:]) {
		return out, fmt.Errorf("the test split is not the table's last %d rows in order", n)
	}
	aux, _, err := plan.FitNuisances(ctx)
	if err != nil {
		return out, fmt.Errorf("fitting G and m: %w", err)
	}
	heldOut := []method.Method{method.DR, method.IP}
	for _, m := range c.Methods {
		out.P[m.String()] = math.NaN()
	}
	res, _, err := plan.TestHeldOut(ctx, aux, invmmd.ScalarRep(k.H[4*n:]), uint64(r)+1, heldOut...)
	if err != nil {
		return out, fmt.Errorf("fit's held-out test: %w", err)
	}
	for _, x := range res {
		out.P[x.Method.String()] = x.PValue
		if len(x.Unreliable) > 0 {
			out.Marked[x.Method.String()] = true
		}
	}
	complete, err := tabular.NewTable("complete", tabular.NumberColumn("y", k.Y[4*n:]), tabular.NumberColumn("z", k.ZFull[4*n:]), tabular.NumberColumn("h", k.H[4*n:]))
	if err != nil {
		return out, err
	}
	tc := owndata.DefaultTestConfig()
	tc.Y, tc.Z, tc.H, tc.ZKind, tc.Methods = "y", "z", "h", t.Kind.String(), []method.Method{method.Full}
	full, err := owndata.TestTable(ctx, complete, tc)
	if err != nil {
		return out, fmt.Errorf("test on the complete test split: %w", err)
	}
	out.P["full"] = full.Results[0].PValue
	return out, nil
}

// MarshalJSON writes NaN p-values and standard errors as null.
func (t toolReplicate) MarshalJSON() ([]byte, error) {
	type rec struct {
		R      int
		P      map[string]*float64
		Marked map[string]bool
		Est    map[string][2]*float64
	}
	ptr := func(v float64) *float64 {
		if math.IsNaN(v) {
			return nil
		}
		return &v
	}
	o := rec{R: t.R, P: map[string]*float64{}, Marked: t.Marked, Est: map[string][2]*float64{}}
	for k, v := range t.P {
		o.P[k] = ptr(v)
	}
	for k, v := range t.Est {
		o.Est[k] = [2]*float64{ptr(v[0]), ptr(v[1])}
	}
	return json.Marshal(o)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (t *toolReplicate) UnmarshalJSON(b []byte) error {
	var o struct {
		R      int
		P      map[string]*float64
		Marked map[string]bool
		Est    map[string][2]*float64
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	val := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	t.R, t.Marked, t.P, t.Est = o.R, o.Marked, map[string]float64{}, map[string][2]float64{}
	for k, v := range o.P {
		t.P[k] = val(v)
	}
	for k, v := range o.Est {
		t.Est[k] = [2]float64{val(v[0]), val(v[1])}
	}
	return nil
}

// ToolCalibration is the outcome of RunToolCalibration.
type ToolCalibration struct {
	Config ToolCalibrationConfig
	Rows   []results.ToolCalibrationRow
	SE     []results.SECalibrationRow
}

// RunToolCalibration runs the study, keeping every finished table's results in runs/ (one
// JSON line each, a file per cell), so that an interrupted run continues where it stopped
// and a finished one rebuilds its tables without refitting. Table r of a cell draws its
// data from a generator seeded by (Seed, the cell, r), so the results do not depend on
// Workers or on interruptions.
func RunToolCalibration(ctx context.Context, cfg ToolCalibrationConfig, runs string) (*ToolCalibration, error) {
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return nil, err
	}
	// A finished table's results depend on its cell (in the file's name), its index, the
	// seed and the methods: a runs folder of another seed or methods would mix them.
	rec, err := json.MarshalIndent(struct {
		Seed    uint64
		Methods []string
	}{cfg.Seed, methodNames(cfg.Methods)}, "", "  ")
	if err != nil {
		return nil, err
	}
	cp := filepath.Join(runs, "config.json")
	switch old, err := os.ReadFile(cp); {
	case errors.Is(err, os.ErrNotExist):
		if err := os.WriteFile(cp, append(rec, '\n'), 0o644); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	case strings.TrimSpace(string(old)) != strings.TrimSpace(string(rec)):
		return nil, fmt.Errorf("%s holds the tables of another seed or other methods (%s); remove the folder to start this design", runs, cp)
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := &ToolCalibration{Config: cfg}
	for _, t := range cfg.cells() {
		path := filepath.Join(runs, t.name()+".jsonl")
		done, err := readToolRuns(path)
		if err != nil {
			return nil, err
		}
		var todo []int
		for r := range t.Reps {
			if _, ok := done[r]; !ok {
				todo = append(todo, r)
			}
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		var mu sync.Mutex
		var firstErr error
		next := 0
		var wg sync.WaitGroup
		for range min(workers, len(todo)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					mu.Lock()
					if next >= len(todo) || firstErr != nil || ctx.Err() != nil {
						mu.Unlock()
						return
					}
					r := todo[next]
					next++
					mu.Unlock()
					rep, err := cfg.replicate(ctx, t, r)
					mu.Lock()
					if err != nil {
						if firstErr == nil {
							firstErr = fmt.Errorf("%s, table %d: %w", t.name(), r, err)
						}
					} else {
						b, _ := json.Marshal(rep)
						if _, err := f.Write(append(b, '\n')); err != nil && firstErr == nil {
							firstErr = err
						}
						done[r] = rep
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		f.Close()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if firstErr != nil {
			return nil, firstErr
		}
		out.add(t, done)
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "calibration of the commands: %s: %d tables\n", t.name(), t.Reps)
		}
	}
	return out, nil
}

// readToolRuns reads a cell's finished tables (none when the file does not exist). A last
// line cut short (the run was killed while writing it) is removed from the file, so that
// the tables appended next start on a line of their own.
func readToolRuns(path string) (map[int]toolReplicate, error) {
	done := map[int]toolReplicate{}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	if err != nil {
		return nil, err
	}
	if cut := bytes.LastIndexByte(b, '\n') + 1; cut < len(b) {
		if err := os.Truncate(path, int64(cut)); err != nil {
			return nil, err
		}
		b = b[:cut]
	}
	for line, text := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		if len(text) == 0 {
			continue
		}
		var r toolReplicate
		if err := json.Unmarshal(text, &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w (remove the line, or the file, to rerun those tables)", path, line+1, err)
		}
		done[r.R] = r
	}
	return done, nil
}

// add summarises a cell's tables into rows.
func (o *ToolCalibration) add(t toolCell, done map[int]toolReplicate) {
	methods := append([]string{"full"}, methodNames(o.Config.Methods)...)
	for _, m := range methods {
		row := results.ToolCalibrationRow{Kind: t.Kind.String(), N: t.N, Fitting: t.Fitting.Name, Delta: t.Delta, Method: m, Replicates: t.Reps}
		var vals, ses []float64
		for r := range t.Reps {
			rep := done[r]
			p := rep.P[m]
			switch {
			case math.IsNaN(p):
				row.Failed++
			case p <= o.Config.Alpha:
				row.Rejections++
			}
			if rep.Marked[m] {
				row.Marked++
			}
			if e, ok := rep.Est[m]; ok && !math.IsNaN(e[1]) {
				vals, ses = append(vals, e[0]), append(ses, e[1])
			}
		}
		if row.Failed == row.Replicates { // not tested in this cell (fit tests dr and ip)
			continue
		}
		o.Rows = append(o.Rows, row)
		if len(vals) > 2 {
			mean, sd, rms := 0.0, 0.0, 0.0
			for k, v := range vals {
				mean += v / float64(len(vals))
				rms += ses[k] * ses[k] / float64(len(ses))
			}
			for _, v := range vals {
				sd += (v - mean) * (v - mean) / float64(len(vals)-1)
			}
			o.SE = append(o.SE, results.SECalibrationRow{Kind: t.Kind.String(), N: t.N, Delta: t.Delta, Method: m, Replicates: len(vals),
				Mean: mean, SD: math.Sqrt(sd), RMSSE: math.Sqrt(rms)})
		}
	}
}

func methodNames(ms []method.Method) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

// Markdown renders the study's tables: per nuisance kind, each method's size by size and
// fitting (± its binomial SE; the count marked unreliable by the command), dr's power, and
// the standard errors' calibration.
func (o *ToolCalibration) Markdown() string {
	var b strings.Builder
	c := o.Config
	fmt.Fprintf(&b, "# Calibration of invmmd test and invmmd estimate as the commands run them\n\n")
	fmt.Fprintf(&b, "G and m fitted by the commands' MLPs on the features (x1, x2); simulation calibsim.DrawKind (Z missing at random given X, the observed rows a biased sample). "+
		"Rejection rate at α = %v over the null tables of each cell (%s), ± its binomial SE; in brackets, tables whose p-value the command marked unreliable for a reason of the data. "+
		"full: the same test on the complete table (every Z). Fittings: crossfit5 = cross-fitted on 5 folds (the default of invmmd test and invmmd estimate), crossfit2 = 2 folds, split = fitted on half B, half A tested (-folds 1); "+
		"fit = invmmd fit's held-out test (its p dr; ip's test, which fit does not run, beside it): G and m fitted on a training split of 3n rows (n more to stop their training), the n rows of the test split tested.\n\n",
		c.Alpha, c.replicatesText())
	methods := append([]string{"full"}, methodNames(c.Methods)...)
	for _, kind := range c.Kinds {
		fmt.Fprintf(&b, "## %v Z: size under H₀ (δ = 0)\n\n| n | fitting |", kind)
		for _, m := range methods {
			fmt.Fprintf(&b, " %s |", m)
		}
		b.WriteString("\n|---|---|")
		for range methods {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		for _, r0 := range o.Rows {
			if r0.Kind != kind.String() || r0.Delta != 0 || r0.Method != "full" {
				continue
			}
			fmt.Fprintf(&b, "| %d | %s |", r0.N, r0.Fitting)
			for _, m := range methods {
				cell := " — |" // not tested with this fitting
				for _, r := range o.Rows {
					if r.Kind == r0.Kind && r.N == r0.N && r.Fitting == r0.Fitting && r.Delta == 0 && r.Method == m {
						cell = fmt.Sprintf(" %.3f ± %.3f", r.Rate(), r.SE())
						if r.Marked > 0 {
							cell += fmt.Sprintf(" [%d]", r.Marked)
						}
						if r.Failed > 0 {
							cell += fmt.Sprintf(" (%d no p)", r.Failed)
						}
						cell += " |"
					}
				}
				b.WriteString(cell)
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "\nPower (rejection rate at α = %v, %s, %d tables per δ):\n\n| n | δ | full | dr |\n|---|---|---|---|\n", c.Alpha, c.Fittings[0].Name, c.PowerReplicates)
		for _, r := range o.Rows {
			if r.Kind != kind.String() || r.Delta == 0 || r.Method != "dr" {
				continue
			}
			full := 0.0
			for _, f := range o.Rows {
				if f.Kind == r.Kind && f.N == r.N && f.Delta == r.Delta && f.Method == "full" && f.Fitting == r.Fitting {
					full = f.Rate()
				}
			}
			fmt.Fprintf(&b, "| %d | %g | %.2f | %.2f |\n", r.N, r.Delta, full, r.Rate())
		}
		fmt.Fprintf(&b, "\nStandard errors of invmmd estimate (%s): RMS SE / sd of the estimates over the tables (1: calibrated)\n\n| n | δ |", c.Fittings[0].Name)
		for _, m := range methods {
			fmt.Fprintf(&b, " %s |", m)
		}
		b.WriteString("\n|---|---|")
		for range methods {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		for _, s0 := range o.SE {
			if s0.Kind != kind.String() || s0.Method != "full" {
				continue
			}
			fmt.Fprintf(&b, "| %d | %g |", s0.N, s0.Delta)
			for _, m := range methods {
				cell := " (no SE) |"
				for _, s := range o.SE {
					if s.Kind == s0.Kind && s.N == s0.N && s.Delta == s0.Delta && s.Method == m {
						cell = fmt.Sprintf(" %.2f |", s.Ratio())
						if m == method.Reg.String() {
							cell = fmt.Sprintf(" %.2f (not printed) |", s.Ratio())
						}
					}
				}
				b.WriteString(cell)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Write writes the study's files into dir/tables: calibration_tool.csv (rejection rates),
// calibration_tool_se.csv (standard errors), calibration_tool.md and
// calibration_tool_config.json.
func (o *ToolCalibration) Write(dir string) error {
	t := filepath.Join(dir, "tables")
	if err := os.MkdirAll(t, 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		fn   func(io.Writer) error
	}{
		{"calibration_tool.csv", func(w io.Writer) error { return results.WriteToolCalibrationCSV(w, o.Rows) }},
		{"calibration_tool_se.csv", func(w io.Writer) error { return results.WriteSECalibrationCSV(w, o.SE) }},
		{"calibration_tool.md", func(w io.Writer) error { _, err := io.WriteString(w, o.Markdown()); return err }},
	} {
		if err := store.WriteFile(filepath.Join(t, f.name), f.fn); err != nil {
			return err
		}
	}
	return store.WriteJSON(filepath.Join(t, "calibration_tool_config.json"), o.Config.Record())
}

// replicatesText says each fitting's null tables per cell, e.g. "400 for crossfit5, 200
// for split".
func (c ToolCalibrationConfig) replicatesText() string {
	var parts []string
	for _, f := range c.Fittings {
		r := c.Replicates
		if f.Replicates > 0 {
			r = f.Replicates
		}
		parts = append(parts, fmt.Sprintf("%d for %s", r, f.Name))
	}
	return strings.Join(parts, ", ")
}

// kindNames returns the kinds' names.
func kindNames(ks []dataset.ZKind) []string {
	if ks == nil {
		return nil
	}
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.String()
	}
	return out
}

// Record returns the configuration as calibration_tool_config.json stores it.
func (c ToolCalibrationConfig) Record() any {
	type fitting struct {
		Name       string
		Folds      int      `json:",omitempty"`
		HeldOut    bool     `json:",omitempty"`
		Kinds      []string `json:",omitempty"`
		Sizes      []int    `json:",omitempty"`
		Replicates int      `json:",omitempty"`
	}
	fs := make([]fitting, len(c.Fittings))
	for i, f := range c.Fittings {
		fs[i] = fitting{f.Name, f.Folds, f.HeldOut, kindNames(f.Kinds), f.Sizes, f.Replicates}
	}
	return struct {
		Kinds           []string
		Sizes           []int
		Fittings        []fitting
		Replicates      int
		Deltas          []float64
		PowerReplicates int
		PowerSizes      []int
		Methods         []string
		Alpha           float64
		Seed            uint64
		Commands        string
	}{kindNames(c.Kinds), c.Sizes, fs, c.Replicates, c.Deltas, c.PowerReplicates, c.PowerSizes, methodNames(c.Methods), c.Alpha, c.Seed,
		"owndata.TestTable and owndata.EstimateTable with the commands' defaults (MLP [32 32] for G and m, the cross route, σ by the median heuristic), -x x1,x2; fit: owndata.PrepareTable, Plan.FitNuisances and Plan.TestHeldOut"}
}
