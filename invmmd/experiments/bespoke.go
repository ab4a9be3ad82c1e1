package experiments

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/results"
)

// The bespoke studies: the studies that are not a sweep, each run with its own typed
// settings (Variance, RunCalibration, prop1.Run, Diagnose) that its command fills.

// varianceStudy is the variance study of appendix B.3 (Variance): a step of the main job,
// its batch sizes' results under OUT/fits/variance, its table and figure variance.*.
func varianceStudy() Study {
	return Study{
		Name:    "variance",
		Summary: "the variance study of appendix B.3 (mean, sd, median and quartiles of each estimator against batch size)",
		Steps:   []Step{{Name: "variance", Args: []string{"variance"}, Quick: 39 * time.Second, Full: 98 * time.Second}},
		Merge:   mergeVariance,
		Figures: varianceFigure,
	}
}

// mergeVariance assembles variance.csv from the batch sizes' files (MergeVariance) and
// draws the figure.
func mergeVariance(_ context.Context, a MergeArgs, name string) ([]string, error) {
	if name != "variance" {
		return nil, fmt.Errorf("experiments: the variance study stores no results under %q", name)
	}
	res, err := MergeVariance(a.Out, filepath.Join(a.Out, "tables"))
	if err != nil {
		return nil, err
	}
	base := filepath.Join(a.Out, "variance")
	if err := a.Draw.Variance(base, res.Points); err != nil {
		return nil, err
	}
	fmt.Fprintf(a.Stdout, "variance: wrote %s, %s.png, %s.svg\n", strings.Join(res.Files, ", "), base, base)
	return append(res.Files, base+".png", base+".svg"), nil
}

// varianceFigure redraws the figure from out/tables/variance.csv, when there is one.
func varianceFigure(out string, d Drawer, _ io.Writer) ([]string, error) {
	vp := filepath.Join(out, "tables", "variance.csv")
	if _, err := os.Stat(vp); err != nil {
		return nil, nil
	}
	pts, err := results.ReadVarianceCSV(vp)
	if err != nil {
		return nil, err
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%s: no rows after the header, nothing to draw", vp)
	}
	base := filepath.Join(out, "variance")
	if err := d.Variance(base, pts); err != nil {
		return nil, fmt.Errorf("%s: %w", vp, err)
	}
	return []string{base + ".png", base + ".svg"}, nil
}

// calibrationStudy is the invariance test's calibration study (RunCalibration), and the
// commands' with -commands: tables written at the end of a run, and their figures.
func calibrationStudy() Study {
	return Study{
		Name:    "calibration",
		Summary: "the invariance test's calibration study: size under a null where obs is biased, and power",
		Figures: CalibrationFigures,
	}
}

// CalibrationFigures redraws calibration.png and calibration_tool.png from their tables
// under out/tables, where there are any, each at the level α its _config.json records.
func CalibrationFigures(out string, d Drawer, _ io.Writer) ([]string, error) {
	t := filepath.Join(out, "tables")
	var files []string
	for _, name := range []string{"calibration", "calibration_tool"} {
		if _, err := os.Stat(filepath.Join(t, name+".csv")); err != nil {
			continue
		}
		var rec struct{ Alpha float64 } // the level α the study recorded
		cp := filepath.Join(t, name+"_config.json")
		if ok, err := store.ReadJSON(cp, &rec); !ok || !(rec.Alpha > 0 && rec.Alpha < 1) {
			return nil, fmt.Errorf("%s: want a level Alpha in (0, 1) (%v)", cp, err)
		}
		base := filepath.Join(out, name)
		var err error
		if name == "calibration" { // the test's calibration, then the commands'
			rows, err1 := results.ReadCalibrationCSV(filepath.Join(t, "calibration.csv"))
			null, err2 := results.ReadCalibrationNullCSV(filepath.Join(t, "calibration_null.csv"))
			if err = errors.Join(err1, err2); err == nil {
				err = d.Calibration(base, rows, null, rec.Alpha)
			}
		} else {
			rows, err1 := results.ReadToolCalibrationCSV(filepath.Join(t, "calibration_tool.csv"))
			se, err2 := results.ReadSECalibrationCSV(filepath.Join(t, "calibration_tool_se.csv"))
			if err = errors.Join(err1, err2); err == nil {
				err = d.ToolCalibration(base, rows, se, rec.Alpha)
			}
		}
		if err != nil {
			return nil, err
		}
		files = append(files, base+".png", base+".svg")
	}
	return files, nil
}

// prop1Study is Proposition 2's numerical check (package prop1, appendix D): it prints
// its numbers and writes no files.
func prop1Study() Study {
	return Study{Name: "prop1", Summary: "Proposition 2 (appendix D): full-data vs observed-only MMD of h* in both constructions"}
}

// diagnosisStudy is the step-by-step record of one fit of an experiment, per objective
// (Diagnose, WriteDiagnoses): its tables diagnosis_NAME.* and their figures.
func diagnosisStudy() Study {
	return Study{
		Name:    "diagnose",
		Summary: "one fit of an experiment step by step, per objective: what the penalty's estimates did",
		Figures: diagnosisFigures,
	}
}

// diagnosisFigures redraws the figure of every diagnosis under out/tables.
func diagnosisFigures(out string, d Drawer, _ io.Writer) ([]string, error) {
	cfgs, err := filepath.Glob(filepath.Join(out, "tables", "diagnosis_*_config.json"))
	if err != nil {
		return nil, err
	}
	var files []string
	for _, c := range cfgs {
		base, err := RedrawDiagnosis(out, strings.TrimSuffix(filepath.Base(c), "_config.json"), d)
		if err != nil {
			return nil, err
		}
		files = append(files, base+".png", base+".svg")
	}
	return files, nil
}

// RedrawDiagnosis draws the diagnosis figure of out/tables/NAME.csv and its record into
// out/NAME.png and .svg, and returns the figure's base path.
func RedrawDiagnosis(out, name string, d Drawer) (string, error) {
	t := filepath.Join(out, "tables")
	steps, err := results.ReadDiagnosisCSV(filepath.Join(t, name+".csv"))
	if err != nil {
		return "", err
	}
	cp := filepath.Join(t, name+"_config.json")
	var rec DiagnosisRecord
	if ok, err := store.ReadJSON(cp, &rec); !ok {
		return "", cmp.Or(err, fmt.Errorf("%s: %w", cp, os.ErrNotExist))
	}
	base := filepath.Join(out, name)
	if err := d.Diagnosis(base, steps, rec.Fit(), rec.Labels(), rec.Kept()); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return base, nil
}

// auditStudy is the fairness audit's validation study (invmmd/fairstudy).
func auditStudy() Study {
	return Study{Name: "auditstudy", Summary: "the fairness audit's validation study: coverage and bias of each estimator with the attribute hidden on public tables"}
}

// mitigationStudy is the mitigation comparison (invmmd/fairstudy).
func mitigationStudy() Study {
	return Study{Name: "mitigation", Summary: "the mitigation study: fit with the attribute partly missing against the oracle, at equal selection rate, with the gap's noise"}
}
