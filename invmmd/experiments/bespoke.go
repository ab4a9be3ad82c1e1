package experiments

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/invmmd/invmmd/invmmd/results"
)

// The bespoke studies: Study values of the kinds that are not a Sweep. Each kind runs with
// its own typed settings (Variance, RunCalibration, prop1.Run, Diagnose), which its command
// fills from its flags; here is what the registry, the main job, merge and figures need
// of them.

// VarianceStudy is the variance study of appendix B.3 (Variance): a step of the main job,
// its batch sizes' results stored under OUT/fits/variance, its table variance.csv and its
// figure variance.png.
type VarianceStudy struct{}

// Variance is the registry's variance study.
func (builtin) Variance() Study { return VarianceStudy{} }

// Name is "variance".
func (VarianceStudy) Name() string { return "variance" }

// Summary says what the study is.
func (VarianceStudy) Summary() string {
	return "the variance study of appendix B.3 (mean, sd, median and quartiles of each estimator against batch size)"
}

// Order places the study after the paper's three experiments.
func (VarianceStudy) Order() int { return 40 }

// Main is the study's one step, at both sizes.
func (VarianceStudy) Main(bool) []Step { return []Step{{Name: "variance", Args: []string{"variance"}}} }

// Stores reports whether name is "variance".
func (VarianceStudy) Stores(name string) bool { return name == "variance" }

// Merge assembles variance.csv and its records from the batch sizes' files under a.Out
// (MergeVariance) and draws the figure.
func (VarianceStudy) Merge(_ context.Context, a MergeArgs, name string) ([]string, error) {
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

// Figures redraws the figure from out/tables/variance.csv, when there is one.
func (VarianceStudy) Figures(out string, d Drawer, _ io.Writer) ([]string, error) {
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

// CalibrationStudy is the invariance test's calibration study (RunCalibration): its
// tables calibration.csv and calibration_null.csv, written at the end of a run (it stores
// no per-fit results), and its figure. It is not part of the main job.
type CalibrationStudy struct{ standalone }

// Calibration is the registry's calibration study.
func (builtin) Calibration() Study { return CalibrationStudy{} }

// Name is "calibration".
func (CalibrationStudy) Name() string { return "calibration" }

// Summary says what the study is.
func (CalibrationStudy) Summary() string {
	return "the invariance test's calibration study: size under a null where obs is biased, and power"
}

// Order places the study after the experiments.
func (CalibrationStudy) Order() int { return 60 }

// Figures redraws the study's figures from their tables under out/tables: the test's
// calibration (calibration.png) when there is a calibration.csv, and the commands'
// (calibration_tool.png, toolCalibrationFigure) when there is a calibration_tool.csv.
func (CalibrationStudy) Figures(out string, d Drawer, _ io.Writer) ([]string, error) {
	drawn, err := calibrationFigure(out, d)
	if err != nil {
		return nil, err
	}
	tool, err := toolCalibrationFigure(out, d)
	return append(drawn, tool...), err
}

// calibrationFigure redraws the figure from out/tables/calibration.csv,
// calibration_null.csv and the level α of calibration_config.json, when there is a
// calibration.csv.
func calibrationFigure(out string, d Drawer) ([]string, error) {
	t := filepath.Join(out, "tables")
	if _, err := os.Stat(filepath.Join(t, "calibration.csv")); err != nil {
		return nil, nil
	}
	rows, err := results.ReadCalibrationCSV(filepath.Join(t, "calibration.csv"))
	if err != nil {
		return nil, err
	}
	null, err := results.ReadCalibrationNullCSV(filepath.Join(t, "calibration_null.csv"))
	if err != nil {
		return nil, err
	}
	alpha, err := studyAlpha(filepath.Join(t, "calibration_config.json"))
	if err != nil {
		return nil, err
	}
	base := filepath.Join(out, "calibration")
	if err := d.Calibration(base, rows, null, alpha); err != nil {
		return nil, err
	}
	return []string{base + ".png", base + ".svg"}, nil
}

// toolCalibrationFigure redraws the figure of calibration -commands from
// out/tables/calibration_tool.csv, calibration_tool_se.csv and the level α of
// calibration_tool_config.json, when there is a calibration_tool.csv.
func toolCalibrationFigure(out string, d Drawer) ([]string, error) {
	t := filepath.Join(out, "tables")
	if _, err := os.Stat(filepath.Join(t, "calibration_tool.csv")); err != nil {
		return nil, nil
	}
	rows, err := results.ReadToolCalibrationCSV(filepath.Join(t, "calibration_tool.csv"))
	if err != nil {
		return nil, err
	}
	se, err := results.ReadSECalibrationCSV(filepath.Join(t, "calibration_tool_se.csv"))
	if err != nil {
		return nil, err
	}
	alpha, err := studyAlpha(filepath.Join(t, "calibration_tool_config.json"))
	if err != nil {
		return nil, err
	}
	base := filepath.Join(out, "calibration_tool")
	if err := d.ToolCalibration(base, rows, se, alpha); err != nil {
		return nil, err
	}
	return []string{base + ".png", base + ".svg"}, nil
}

// studyAlpha reads the level α a calibration study recorded in its config file.
func studyAlpha(path string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var rec struct{ Alpha float64 }
	if err := json.Unmarshal(b, &rec); err != nil || !(rec.Alpha > 0 && rec.Alpha < 1) {
		return 0, fmt.Errorf("%s: want a level Alpha in (0, 1) (%v)", path, err)
	}
	return rec.Alpha, nil
}

// Prop1Study is Proposition 2's numerical check (package prop1, appendix D), which prints
// its numbers and writes no files.
type Prop1Study struct{ standalone }

// Prop1 is the registry's Proposition 2 study.
func (builtin) Prop1() Study { return Prop1Study{} }

// Name is "prop1" (the package's historical name).
func (Prop1Study) Name() string { return "prop1" }

// Summary says what the study is.
func (Prop1Study) Summary() string {
	return "Proposition 2 (appendix D): full-data vs observed-only MMD of h* in both constructions"
}

// Order places the study after the calibration.
func (Prop1Study) Order() int { return 70 }

// Figures draws nothing: the study prints its numbers.
func (Prop1Study) Figures(string, Drawer, io.Writer) ([]string, error) { return nil, nil }

// DiagnosisStudy is the step-by-step record of one fit of an experiment, per objective
// (Diagnose): its tables diagnosis_NAME.csv and their records (WriteDiagnoses), and their
// figures. It is not part of the main job.
type DiagnosisStudy struct{ standalone }

// Diagnose is the registry's diagnosis study.
func (builtin) Diagnose() Study { return DiagnosisStudy{} }

// Name is "diagnose", its command's.
func (DiagnosisStudy) Name() string { return "diagnose" }

// Summary says what the study is.
func (DiagnosisStudy) Summary() string {
	return "one fit of an experiment step by step, per objective: what the penalty's estimates did"
}

// Order places the study last.
func (DiagnosisStudy) Order() int { return 80 }

// Figures redraws the figure of every diagnosis under out/tables (diagnosis_*_config.json).
func (DiagnosisStudy) Figures(out string, d Drawer, _ io.Writer) ([]string, error) {
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

// RedrawDiagnosis draws the diagnosis figure of out/tables/NAME.csv and its record (the
// title, the objectives' labels, their kept epochs) into out/NAME.png and .svg, and returns the figure's base
// path.
func RedrawDiagnosis(out, name string, d Drawer) (string, error) {
	t := filepath.Join(out, "tables")
	steps, err := results.ReadDiagnosisCSV(filepath.Join(t, name+".csv"))
	if err != nil {
		return "", err
	}
	cp := filepath.Join(t, name+"_config.json")
	b, err := os.ReadFile(cp)
	if err != nil {
		return "", err
	}
	var rec DiagnosisRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return "", fmt.Errorf("%s: %w", cp, err)
	}
	base := filepath.Join(out, name)
	if err := d.Diagnosis(base, steps, rec.Fit(), rec.Labels(), rec.Kept()); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return base, nil
}

// standalone gives a study outside the main job that keeps no per-fit results (the
// calibration, Proposition 2's check, the diagnoses) its Main, Stores and Merge: it writes
// its tables at the end of its own run, or prints its numbers.
type standalone struct{}

// Main is empty: the study is not part of the main job.
func (standalone) Main(bool) []Step { return nil }

// Stores is false: the study stores no per-fit results.
func (standalone) Stores(string) bool { return false }

// Merge is an error: there are no per-fit results to merge.
func (standalone) Merge(_ context.Context, _ MergeArgs, name string) ([]string, error) {
	return nil, fmt.Errorf("experiments: %s stores no per-fit results to merge", name)
}
