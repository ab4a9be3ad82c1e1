package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/figures"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// runFigures redraws the results figures from the tables under OUT/tables, without
// training anything: each table's experiment is the registry's of its name
// (experiments.Describe), which gives its title, the paper's numbers and figure hints. A
// table whose λ its experiment's configuration does not list (left by an earlier sweep) is
// an error, as is a table without rows.
func runFigures(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("figures", "[-out DIR]", stdout, stderr, nil)
	out := fs.String("out", "figures", "folder holding tables/ (read) and the figures (written)")
	if err := parse(fs, args); err != nil {
		return err
	}
	paths, err := filepath.Glob(filepath.Join(*out, "tables", "*_lambda*.csv"))
	if err != nil {
		return err
	}
	var files []string
	for _, p := range paths {
		if strings.HasPrefix(filepath.Base(p), "diagnosis_") {
			continue // a diagnosis (redrawn below), not a results table
		}
		name, lam, _ := strings.Cut(strings.TrimSuffix(filepath.Base(p), ".csv"), "_lambda")
		if _, o := experiments.SplitObjective(name); o.Suffix != "" {
			continue // another objective's table: drawn in its experiment's objectives figure, below
		}
		exp, ok := experiments.Describe(name)
		if !ok {
			fmt.Fprintf(stderr, "invmmd figures: skipping %s (unknown experiment %q)\n", p, name)
			continue
		}
		l, err := strconv.ParseFloat(lam, 64)
		if err != nil {
			return fmt.Errorf("%s: λ %q in the file name is not a number", p, lam)
		}
		if err := listed(filepath.Join(*out, "tables", name+"_config.json"), l); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		rows, err := results.ReadCSVFile(p)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return fmt.Errorf("%s: no rows after the header, nothing to draw", p)
		}
		f, err := drawResults(rows, exp, l, *out, stdout)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		files = append(files, f...)
	}
	vp := filepath.Join(*out, "tables", "variance.csv")
	if _, err := os.Stat(vp); err == nil {
		pts, err := results.ReadVarianceCSV(vp)
		if err != nil {
			return err
		}
		if len(pts) == 0 {
			return fmt.Errorf("%s: no rows after the header, nothing to draw", vp)
		}
		base, err := drawVariance(pts, *out)
		if err != nil {
			return fmt.Errorf("%s: %w", vp, err)
		}
		files = append(files, base+".png", base+".svg")
	}
	cp := filepath.Join(*out, "tables", "calibration.csv")
	if _, err := os.Stat(cp); err == nil {
		base, err := redrawCalibration(*out)
		if err != nil {
			return err
		}
		files = append(files, base+".png", base+".svg")
	}
	compared := map[string]bool{}
	for _, p := range paths {
		name, lam, _ := strings.Cut(strings.TrimSuffix(filepath.Base(p), ".csv"), "_lambda")
		base, o := experiments.SplitObjective(name)
		l, err := strconv.ParseFloat(lam, 64)
		if o.Suffix == "" || err != nil || compared[base+"_lambda"+lam] {
			continue
		}
		compared[base+"_lambda"+lam] = true
		md, err := experiments.ObjectiveComparison(filepath.Join(*out, "tables"), base, l)
		if err != nil {
			return err
		}
		f := filepath.Join(*out, "tables", "objectives_"+base+"_lambda"+lam+".md")
		if err := os.WriteFile(f, []byte(md), 0o644); err != nil {
			return err
		}
		fig, err := drawObjectives(*out, base, l)
		if err != nil {
			return err
		}
		files = append(files, f, fig+".png", fig+".svg")
	}
	for _, p := range paths {
		name, _, _ := strings.Cut(strings.TrimSuffix(filepath.Base(p), ".csv"), "_lambda")
		base, r := experiments.SplitRepresentation(name)
		if r != train.RepresentFeatures || compared["representations_"+base] {
			continue
		}
		compared["representations_"+base] = true
		fits, err := experiments.RepresentationFits(filepath.Join(*out, "tables"), base)
		if err != nil {
			return err
		}
		f := filepath.Join(*out, "tables", "representations_"+base+".md")
		if err := os.WriteFile(f, []byte(experiments.RepresentationMarkdown(base, fits)), 0o644); err != nil {
			return err
		}
		fig, err := drawRepresentations(*out, base, fits)
		if err != nil {
			return err
		}
		files = append(files, f, fig+".png", fig+".svg")
	}
	diags, err := filepath.Glob(filepath.Join(*out, "tables", "diagnosis_*_config.json"))
	if err != nil {
		return err
	}
	for _, c := range diags {
		base, err := redrawDiagnosis(*out, strings.TrimSuffix(filepath.Base(c), "_config.json"))
		if err != nil {
			return err
		}
		files = append(files, base+".png", base+".svg")
	}
	if len(files) == 0 {
		return fmt.Errorf("no result tables under %s: run an experiment first (e.g. invmmd sim)", filepath.Join(*out, "tables"))
	}
	fmt.Fprintf(stdout, "Wrote %s\n", strings.Join(files, ", "))
	return nil
}

// listed checks that the configuration record at cfgPath, when there is one, lists λ l.
func listed(cfgPath string, l float64) error {
	b, err := os.ReadFile(cfgPath)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	var rec struct{ Lambdas []float64 }
	if err := json.Unmarshal(b, &rec); err != nil {
		return fmt.Errorf("%s: %w", cfgPath, err)
	}
	for _, x := range rec.Lambdas {
		if x == l {
			return nil
		}
	}
	return fmt.Errorf("stale table: %s lists λ %v, not %v; delete the table or rerun the experiment with that λ", cfgPath, rec.Lambdas, l)
}

// redrawCalibration redraws the calibration figure from OUT/tables/calibration.csv,
// calibration_null.csv and the level α of calibration_config.json.
func redrawCalibration(out string) (string, error) {
	t := filepath.Join(out, "tables")
	rows, err := results.ReadCalibrationCSV(filepath.Join(t, "calibration.csv"))
	if err != nil {
		return "", err
	}
	null, err := results.ReadCalibrationNullCSV(filepath.Join(t, "calibration_null.csv"))
	if err != nil {
		return "", err
	}
	cp := filepath.Join(t, "calibration_config.json")
	b, err := os.ReadFile(cp)
	if err != nil {
		return "", err
	}
	var rec struct{ Alpha float64 }
	if err := json.Unmarshal(b, &rec); err != nil || !(rec.Alpha > 0 && rec.Alpha < 1) {
		return "", fmt.Errorf("%s: want a level Alpha in (0, 1) (%v)", cp, err)
	}
	return drawCalibration(rows, null, rec.Alpha, out)
}

// drawRepresentations draws the comparison of the layer the penalty acts on for the
// experiment stored under name (figures.Representations of its experiments.RepresentationFits)
// into out as representations_NAME, returning that base path.
func drawRepresentations(out, name string, fits []results.RepresentationFit) (string, error) {
	title := name
	if exp, ok := experiments.Describe(name); ok {
		title = exp.Title
	}
	p, err := figures.Representations(title+": the penalty on the logit or on the penultimate features", fits)
	if err != nil {
		return "", err
	}
	base := filepath.Join(out, "representations_"+name)
	return base, figures.Save(p, base, figures.RepresentationsWidth, figures.RepresentationsHeight)
}

// drawObjectives draws the comparison of the objectives the experiment stored under name
// was trained with at λ (figures.Objectives of its tables NAME[SUFFIX]_lambdaΛ.csv under
// OUT/tables, in the order of train.Objectives; objectives without a table are left out)
// into out as objectives_NAME_lambdaΛ, returning that base path.
func drawObjectives(out, name string, l float64) (string, error) {
	var runs []figures.ObjectiveRun
	for _, o := range train.Objectives {
		p := results.TablePath(filepath.Join(out, "tables"), name+o.Suffix, l)
		if _, err := os.Stat(p); os.IsNotExist(err) {
			continue
		}
		rows, err := results.ReadCSVFile(p)
		if err != nil {
			return "", err
		}
		runs = append(runs, figures.ObjectiveRun{Objective: o.Name, Rows: results.AsWritten(rows)})
	}
	title := name
	var opts []figures.ResultOption
	if exp, ok := experiments.Describe(name); ok {
		title = exp.Title
		opts = append(opts, figures.Hints(exp.Figure))
	}
	plots, err := figures.Objectives(fmt.Sprintf("%s, λ = %s", title, results.LambdaName(l)), runs, opts...)
	if err != nil {
		return "", err
	}
	base := filepath.Join(out, "objectives_"+name+"_lambda"+results.LambdaName(l))
	w, h := figures.ObjectivesSize(len(runs))
	return base, figures.SaveGrid(plots, base, w, h)
}
