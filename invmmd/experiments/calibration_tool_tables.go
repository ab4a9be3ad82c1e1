package experiments

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
)

// The tables and the record of the calibration of the commands.

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
			if r.Kind != kind.String() || r.Delta == 0 || r.Method != method.DR.String() {
				continue
			}
			full := 0.0
			for _, f := range o.Rows {
				if f.Kind == r.Kind && f.N == r.N && f.Delta == r.Delta && f.Method == method.Full.String() && f.Fitting == r.Fitting {
					full = f.Rate()
				}
			}
			fmt.Fprintf(&b, "| %d | %g | %.2f | %.2f |\n", r.N, r.Delta, full, r.Rate())
		}
		fmt.Fprintf(&b, "\nStandard errors of invmmd estimate (%s): RMS SE / sd of the estimates over the tables (1: calibrated), ± its Monte Carlo SE\n\n", c.Fittings[0].Name)
		tableHead(&b, []string{"n", "δ"}, methods)
		for _, s0 := range o.SE {
			if s0.Kind != kind.String() || s0.Method != method.Full.String() {
				continue
			}
			fmt.Fprintf(&b, "| %d | %g |", s0.N, s0.Delta)
			for _, m := range methods {
				cell := " (no SE) |"
				for _, s := range o.SE {
					if s.Kind == s0.Kind && s.N == s0.N && s.Delta == s0.Delta && s.Method == m {
						cell = fmt.Sprintf(" %.2f ± %.2f |", s.Ratio(), s.RatioSE())
						mt, _ := method.Parse(m)
						switch {
						case mt == method.Reg:
							cell = fmt.Sprintf(" %.2f ± %.2f (not printed) |", s.Ratio(), s.RatioSE())
						case s.Delta == 0 && (mt.NeedsG() || mt.NeedsM()):
							// owndata.ConservativeSENote: an upper bound near 0.
							cell = fmt.Sprintf(" %.2f ± %.2f (an upper bound near 0) |", s.Ratio(), s.RatioSE())
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
	t := filepath.Join(dir, "tables")
	if err := os.MkdirAll(t, 0o755); err != nil {
		return err
	}
	err := writeTables(t, []tableFile{
		{"calibration_tool.csv", func(w io.Writer) error { return results.WriteToolCalibrationCSV(w, o.Rows) }},
		{"calibration_tool_se.csv", func(w io.Writer) error { return results.WriteSECalibrationCSV(w, o.SE) }},
		{"calibration_tool.md", func(w io.Writer) error { _, err := io.WriteString(w, o.Markdown()); return err }},
	})
	if err != nil {
		return err
	}
	return store.WriteJSON(filepath.Join(t, "calibration_tool_config.json"), o.Config.Record())
}

// replicatesText says each fitting's null tables per cell, e.g. "400 for crossfit5, 200
// for split".
func (c ToolCalibrationConfig) replicatesText() string {
	var parts []string
	for _, f := range c.Fittings {
		parts = append(parts, fmt.Sprintf("%d for %s", cmp.Or(f.Replicates, c.Replicates), f.Name))
	}
	return strings.Join(parts, ", ")
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
