package experiments

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
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
// errors invmmd estimate prints (method.Info.TestCaveat; owndata's Provenance.SEWithheld).

// ToolFitting is a way of fitting G and m in the study.
type ToolFitting struct {
	Name  string // crossfit5, crossfit2, split, fit
	Folds int    `json:",omitempty"` // owndata's Folds (1: sample splitting); 0 with HeldOut
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
				out = append(out, toolCell{kind, n, f, 0, cmp.Or(f.Replicates, c.Replicates)})
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

// name names the cell: its key in the store.
func (t toolCell) name() string {
	return fmt.Sprintf("%v_n%d_%s_d%g", t.Kind, t.N, t.Fitting.Name, t.Delta)
}

// ToolCalibration is the outcome of RunToolCalibration.
type ToolCalibration struct {
	Config ToolCalibrationConfig
	Rows   []results.ToolCalibrationRow
	SE     []results.SECalibrationRow
}

// RunToolCalibration runs the study, keeping every finished table's results in its store
// under out (store.Dir(out, "calibration_tool"): one file per table, keyed by its cell and
// index), so that an interrupted run continues where it stopped and a finished one
// rebuilds its tables without refitting. Table r of a cell draws its data from a generator
// seeded by (Seed, the cell, r), so the results do not depend on Workers or on
// interruptions.
func RunToolCalibration(ctx context.Context, cfg ToolCalibrationConfig, out string) (*ToolCalibration, error) {
	// A finished table's results depend on its cell (its key's method), its index (its
	// key's seed), the seed and the methods: the store refuses a folder of another seed or
	// other methods (store.Open), which would mix them.
	conf, err := json.Marshal(struct {
		Seed    uint64
		Methods []string
	}{cfg.Seed, methodNames(cfg.Methods)})
	if err != nil {
		return nil, err
	}
	cells := cfg.cells()
	sw := store.Sweep{Experiment: "calibration_tool", Config: conf, Lambdas: []float64{0}}
	for _, t := range cells {
		sw.Methods = append(sw.Methods, t.name())
		for len(sw.Seeds) < t.Reps {
			sw.Seeds = append(sw.Seeds, uint64(len(sw.Seeds)))
		}
	}
	st, err := store.Open(out, sw)
	if err != nil {
		return nil, err
	}
	res := &ToolCalibration{Config: cfg}
	for _, t := range cells {
		done := make([]toolReplicate, t.Reps) // each table's results, read or run
		err := parallel(ctx, cfg.Workers, t.Reps, func(r int) error {
			rec, ok, err := st.Get(t.key(r))
			if ok {
				err = json.Unmarshal(rec.Result, &done[r])
			} else if err == nil {
				t0 := time.Now()
				if done[r], err = cfg.replicate(ctx, t, r); err == nil {
					err = st.Put(t.key(r), done[r], time.Since(t0).Seconds())
				}
			}
			if err != nil {
				return fmt.Errorf("%s, table %d: %w", t.name(), r, err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		res.add(t, done)
		fmt.Fprintf(cmp.Or(cfg.Progress, io.Discard), "calibration of the commands: %s: %d tables\n", t.name(), t.Reps)
	}
	return res, nil
}

// key is the store key of table r of the cell.
func (t toolCell) key(r int) store.Key { return store.Key{Method: t.name(), Seed: uint64(r)} }

// add summarises a cell's tables into rows.
func (o *ToolCalibration) add(t toolCell, done []toolReplicate) {
	methods := append([]string{method.Full.String()}, methodNames(o.Config.Methods)...)
	for _, m := range methods {
		row := results.ToolCalibrationRow{Kind: t.Kind.String(), N: t.N, Fitting: t.Fitting.Name, Delta: t.Delta, Method: m, Replicates: t.Reps}
		var vals, ses []float64
		for _, rep := range done {
			p := float64(rep.P[m])
			switch {
			case math.IsNaN(p):
				row.Failed++
			case p <= o.Config.Alpha:
				row.Rejections++
			}
			if rep.Marked[m] {
				row.Marked++
			}
			if e, ok := rep.Est[m]; ok && !math.IsNaN(float64(e[1])) {
				vals, ses = append(vals, float64(e[0])), append(ses, float64(e[1]))
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

// The tables and the record of the calibration of the commands.

// Markdown renders the study's tables: per nuisance kind, each method's size by size and
// fitting (± its binomial SE; the count marked unreliable by the command), dr's power, and
// the standard errors' calibration.
func (o *ToolCalibration) Markdown() string {
	var b strings.Builder
	c := o.Config
	var nulls []string // each fitting's null tables per cell, e.g. "400 for crossfit5"
	for _, f := range c.Fittings {
		nulls = append(nulls, fmt.Sprintf("%d for %s", cmp.Or(f.Replicates, c.Replicates), f.Name))
	}
	fmt.Fprintf(&b, "# Calibration of invmmd test and invmmd estimate as the commands run them\n\n")
	fmt.Fprintf(&b, "G and m fitted by the commands' MLPs on the features (x1, x2); simulation calibsim.DrawKind (Z missing at random given X, the observed rows a biased sample). "+
		"Rejection rate at α = %v over the null tables of each cell (%s), ± its binomial SE; in brackets, tables whose p-value the command marked unreliable for a reason of the data. "+
		"full: the same test on the complete table (every Z). Fittings: crossfit5 = cross-fitted on 5 folds (the default of invmmd test and invmmd estimate), crossfit2 = 2 folds, split = fitted on half B, half A tested (-folds 1); "+
		"fit = invmmd fit's held-out test (its p dr; ip's test, which fit does not run, beside it): G and m fitted on a training split of 3n rows (n more to stop their training), the n rows of the test split tested.\n\n",
		c.Alpha, strings.Join(nulls, ", "))
	methods := append([]string{method.Full.String()}, methodNames(c.Methods)...)
	for _, kind := range c.Kinds {
		fmt.Fprintf(&b, "## %v Z: size under H₀ (δ = 0)\n\n", kind)
		tableHead(&b, []string{"n", "fitting"}, methods)
		for _, r0 := range o.Rows {
			if r0.Kind != kind.String() || r0.Delta != 0 || r0.Method != method.Full.String() {
				continue
			}
			fmt.Fprintf(&b, "| %d | %s |", r0.N, r0.Fitting)
			for _, m := range methods {
				r, ok := o.row(r0.Kind, r0.N, r0.Fitting, 0, m)
				if !ok {
					b.WriteString(" — |") // not tested with this fitting
					continue
				}
				fmt.Fprintf(&b, " %.3f ± %.3f", r.Rate(), r.SE())
				if r.Marked > 0 {
					fmt.Fprintf(&b, " [%d]", r.Marked)
				}
				if r.Failed > 0 {
					fmt.Fprintf(&b, " (%d no p)", r.Failed)
				}
				b.WriteString(" |")
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "\nPower (rejection rate at α = %v, %s, %d tables per δ):\n\n| n | δ | full | dr |\n|---|---|---|---|\n", c.Alpha, c.Fittings[0].Name, c.PowerReplicates)
		for _, r := range o.Rows {
			if r.Kind != kind.String() || r.Delta == 0 || r.Method != method.DR.String() {
				continue
			}
			full, _ := o.row(r.Kind, r.N, r.Fitting, r.Delta, method.Full.String()) // a zero row's rate is 0
			fmt.Fprintf(&b, "| %d | %g | %.2f | %.2f |\n", r.N, r.Delta, full.Rate(), r.Rate())
		}
		fmt.Fprintf(&b, "\nStandard errors of invmmd estimate (%s): RMS SE / sd of the estimates over the tables (1: calibrated), ± its Monte Carlo SE\n\n", c.Fittings[0].Name)
		tableHead(&b, []string{"n", "δ"}, methods)
		for _, s0 := range o.SE {
			if s0.Kind != kind.String() || s0.Method != method.Full.String() {
				continue
			}
			fmt.Fprintf(&b, "| %d | %g |", s0.N, s0.Delta)
			for _, m := range methods {
				i := slices.IndexFunc(o.SE, func(s results.SECalibrationRow) bool {
					return s.Kind == s0.Kind && s.N == s0.N && s.Delta == s0.Delta && s.Method == m
				})
				if i < 0 {
					b.WriteString(" (no SE) |")
					continue
				}
				note := ""
				switch mt, _ := method.Parse(m); {
				case mt == method.Reg:
					note = " (not printed)"
				case s0.Delta == 0 && (mt.NeedsG() || mt.NeedsM()):
					note = " (an upper bound near 0)" // owndata.ConservativeSENote
				}
				fmt.Fprintf(&b, " %.2f ± %.2f%s |", o.SE[i].Ratio(), o.SE[i].RatioSE(), note)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// row returns the rejection row of a nuisance kind, size, fitting, δ and method; ok is
// false when that cell did not test the method.
func (o *ToolCalibration) row(kind string, n int, fitting string, delta float64, m string) (results.ToolCalibrationRow, bool) {
	i := slices.IndexFunc(o.Rows, func(r results.ToolCalibrationRow) bool {
		return r.Kind == kind && r.N == n && r.Fitting == fitting && r.Delta == delta && r.Method == m
	})
	if i < 0 {
		return results.ToolCalibrationRow{}, false
	}
	return o.Rows[i], true
}

// tableHead writes a Markdown table's header and separator: the leading columns, then one
// per method.
func tableHead(b *strings.Builder, lead, methods []string) {
	cols := append(append([]string(nil), lead...), methods...)
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n|" + strings.Repeat("---|", len(cols)) + "\n")
}

// Write writes the study's files into dir/tables: calibration_tool.csv (rejection rates),
// calibration_tool_se.csv (standard errors), calibration_tool.md and
// calibration_tool_config.json.
func (o *ToolCalibration) Write(dir string) error {
	return writeTables(filepath.Join(dir, "tables"), []tableFile{
		{"calibration_tool.csv", func(w io.Writer) error { return results.WriteToolCalibrationCSV(w, o.Rows) }},
		{"calibration_tool_se.csv", func(w io.Writer) error { return results.WriteSECalibrationCSV(w, o.SE) }},
		{"calibration_tool.md", func(w io.Writer) error { _, err := io.WriteString(w, o.Markdown()); return err }},
	}, map[string]any{"calibration_tool_config.json": o.Config.Record()})
}

// Record returns the configuration as calibration_tool_config.json stores it.
func (c ToolCalibrationConfig) Record() any {
	return struct {
		Kinds           []dataset.ZKind
		Sizes           []int
		Fittings        []ToolFitting
		Replicates      int
		Deltas          []float64
		PowerReplicates int
		PowerSizes      []int
		Methods         []string
		Alpha           float64
		Seed            uint64
		Commands        string
	}{c.Kinds, c.Sizes, c.Fittings, c.Replicates, c.Deltas, c.PowerReplicates, c.PowerSizes, methodNames(c.Methods), c.Alpha, c.Seed,
		"owndata.TestTable and owndata.EstimateTable with the commands' defaults (MLP [32 32] for G and m, the cross route, σ by the median heuristic), -x x1,x2; fit: owndata.PrepareTable, Plan.FitNuisances and Plan.TestHeldOut"}
}
