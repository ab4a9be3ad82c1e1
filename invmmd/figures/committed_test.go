package figures

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// The figures of figures/ drawn from the committed tables with the inputs `invmmd figures`
// gives them (cmd/invmmd/figures.go): the experiments' titles, hints, majority baselines,
// diagnosis records and representation fits. The tests below check every one of them for
// legibility, so that a figure the documents show cannot have a cut or overlapping text, or a
// legend over its data.

// committedTables is the repository's figures/tables.
const committedTables = "../../figures/tables"

// figureCase is a figure as drawn from the committed tables, at its file size.
type figureCase struct {
	name string
	grid [][]*plot.Plot
	w, h vg.Length
}

// committedFigures draws the figures of the committed tables (all but the test's
// calibration figure, whose layout this package's legends below leave as it was, and the
// textured-MNIST examples, drawn from the data).
func committedFigures(t *testing.T) []figureCase {
	t.Helper()
	var out []figureCase
	paths, err := filepath.Glob(filepath.Join(committedTables, "*_lambda*.csv"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no result tables under %s (%v)", committedTables, err)
	}
	compared := map[string]bool{}
	for _, p := range paths {
		stored := strings.TrimSuffix(filepath.Base(p), ".csv")
		if strings.HasPrefix(stored, "diagnosis_") {
			continue
		}
		name, lam, _ := strings.Cut(stored, "_lambda")
		l, err := strconv.ParseFloat(lam, 64)
		if err != nil {
			t.Fatal(err)
		}
		if sw, v, ok := experiments.Studies().VariantOf(name); ok && v.Objective.Suffix != "" {
			base, err := sw.VariantName(experiments.Variant{Options: v.Options, Represent: v.Represent})
			if err != nil {
				t.Fatal(err)
			}
			if !compared[base+lam] {
				compared[base+lam] = true
				out = append(out, objectivesFigure(t, base, l))
			}
			continue
		}
		exp, ok := experiments.Studies().Describe(name)
		if !ok {
			t.Fatalf("%s: unknown experiment", p)
		}
		rows, err := results.ReadCSVFile(p)
		if err != nil {
			t.Fatal(err)
		}
		extras, err := exp.TableExtras(filepath.Join(committedTables, exp.Name+"_config.json"))
		if err != nil {
			t.Fatal(err)
		}
		opts := []ResultOption{Hints(exp.Figure)}
		if extras.Majority != nil {
			opts = append(opts, Majority(*extras.Majority))
		}
		g, err := Results(fmt.Sprintf("%s, λ = %s", exp.Title, results.LambdaName(l)), results.Summarize(results.AsWritten(rows)), exp.Paper[l], opts...)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, figureCase{stored, g, ResultsWidth, ResultsHeight})
	}
	pts, err := results.ReadVarianceCSV(filepath.Join(committedTables, "variance.csv"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := Variance(results.VarianceAsWritten(pts))
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, figureCase{"variance", v, VarianceWidth, VarianceHeight})
	fits, err := experiments.RepresentationFits(committedTables, "sim")
	if err != nil {
		t.Fatal(err)
	}
	rp, err := Representations("Simulation: the penalty on the logit or on the penultimate features", fits)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, figureCase{"representations_sim", [][]*plot.Plot{{rp}}, RepresentationsWidth, RepresentationsHeight})
	diags, err := filepath.Glob(filepath.Join(committedTables, "diagnosis_*_config.json"))
	if err != nil || len(diags) == 0 {
		t.Fatalf("no diagnosis records (%v)", err)
	}
	for _, c := range diags {
		name := strings.TrimSuffix(filepath.Base(c), "_config.json")
		steps, err := results.ReadDiagnosisCSV(filepath.Join(committedTables, name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		var rec experiments.DiagnosisRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
		g, err := Diagnosis(steps, rec.Fit(), rec.Labels(), rec.Kept())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, figureCase{name, g, DiagnosisWidth, DiagnosisHeight})
	}
	rows, err := results.ReadToolCalibrationCSV(filepath.Join(committedTables, "calibration_tool.csv"))
	if err != nil {
		t.Fatal(err)
	}
	se, err := results.ReadSECalibrationCSV(filepath.Join(committedTables, "calibration_tool_se.csv"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := ToolCalibration(rows, se, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, figureCase{"calibration_tool", g, ToolCalibrationWidth, ToolCalibrationHeight})
}

// objectivesFigure draws the objectives figure of the experiment stored under name at λ.
func objectivesFigure(t *testing.T, name string, l float64) figureCase {
	t.Helper()
	var runs []ObjectiveRun
	for _, o := range train.Objectives() {
		p := results.TablePath(committedTables, name+o.Suffix, l)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		rows, err := results.ReadCSVFile(p)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, ObjectiveRun{Objective: o.Name, Rows: results.AsWritten(rows)})
	}
	exp, ok := experiments.Studies().Describe(name)
	if !ok {
		t.Fatalf("%s: unknown experiment", name)
	}
	g, err := Objectives(fmt.Sprintf("%s, λ = %s", exp.Title, results.LambdaName(l)), runs, Hints(exp.Figure))
	if err != nil {
		t.Fatal(err)
	}
	w, h := ObjectivesSize(len(runs))
	return figureCase{"objectives_" + name + "_lambda" + results.LambdaName(l), g, w, h}
}

// TestCommittedFiguresLegible draws every figure of the committed tables as `invmmd
// figures` does and checks it: no text past an edge or on another text (titles, tick
// labels, legends), no legend over a data area, legends taking at most a fifth of the
// figure, and the data areas of a grid aligned (a column's as wide as each other, a row's
// as high).
func TestCommittedFiguresLegible(t *testing.T) {
	figs := committedFigures(t)
	if len(figs) < 15 {
		t.Fatalf("%d figures drawn from the committed tables, want every one", len(figs))
	}
	for _, f := range figs {
		t.Run(f.name, func(t *testing.T) {
			share := checkLegible(t, f.name, f.grid, f.w, f.h)
			t.Logf("legends: %.1f%% of the figure", 100*share)
			if share > 0.2 {
				t.Errorf("the legends take %.0f%% of the figure, want at most 20%%", 100*share)
			}
			checkAligned(t, f.grid, f.w, f.h)
		})
	}
}

// checkAligned fails t when the data areas of a column of g differ in x or those of a row
// in y.
func checkAligned(t *testing.T, g [][]*plot.Plot, w, h vg.Length) {
	t.Helper()
	plotCs, _, _ := layoutGrid(g, draw.New(&recCanvas{w: w, h: h, m: identity}))
	data := func(i, j int) vg.Rectangle { return g[i][j].DataCanvas(plotCs[i][j]).Rectangle }
	near := func(a, b vg.Length) bool { return math.Abs(float64(a-b)) < 0.5 }
	for i, r := range g {
		for j, p := range r {
			if p == nil {
				continue
			}
			d := data(i, j)
			if j > 0 && r[0] != nil && (!near(d.Min.Y, data(i, 0).Min.Y) || !near(d.Max.Y, data(i, 0).Max.Y)) {
				t.Errorf("row %d: panel %d's data area spans y %.1f–%.1f, panel 0's %.1f–%.1f", i, j, d.Min.Y, d.Max.Y, data(i, 0).Min.Y, data(i, 0).Max.Y)
			}
			if i > 0 && g[0][j] != nil && (!near(d.Min.X, data(0, j).Min.X) || !near(d.Max.X, data(0, j).Max.X)) {
				t.Errorf("column %d: row %d's data area spans x %.1f–%.1f, row 0's %.1f–%.1f", j, i, d.Min.X, d.Max.X, data(0, j).Min.X, data(0, j).Max.X)
			}
		}
	}
}
