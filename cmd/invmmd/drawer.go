package main

import (
	"context"
	"fmt"
	"io"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/figures"
	"github.com/invmmd/invmmd/invmmd/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// drawer draws the studies' figures with package figures (experiments.Drawer): each
// figure to base.png and base.svg, at the size its kind is always drawn at, so that a
// figure redrawn from the tables as written equals the one a run drew, to the byte.
type drawer struct{}

// Results draws an experiment's results at one λ, with its figure hints and, when the
// tables have one, the majority baseline in place of the chance line.
func (drawer) Results(base, title string, sums []results.Summary, paper map[string]results.PaperRow, hints results.FigureHints, ex results.TableExtras) error {
	opts := []figures.ResultOption{figures.Hints(hints)}
	if ex.Majority != nil {
		opts = append(opts, figures.Majority(*ex.Majority))
	}
	return saveGrid(base, figures.ResultsWidth, figures.ResultsHeight)(figures.Results(title, sums, paper, opts...))
}

// Examples draws example images, perCell of each (Y, Z) cell.
func (drawer) Examples(base string, ex experiments.ExampleImages, perCell int) error {
	p, w, h, err := figures.TMNISTGrid(ex.Sets, perCell, ex.ZNames, ex.Note)
	if err != nil {
		return err
	}
	return figures.Save(p, base, w, h)
}

// Variance draws the variance study from its points as the table holds them.
func (drawer) Variance(base string, pts []results.VariancePoint) error {
	return saveGrid(base, figures.VarianceWidth, figures.VarianceHeight)(figures.Variance(results.VarianceAsWritten(pts)))
}

// Calibration draws the calibration study's rejection rates and null p-values.
func (drawer) Calibration(base string, rows []results.CalibrationRow, null []results.CalibrationP, alpha float64) error {
	return saveGrid(base, figures.CalibrationWidth, figures.CalibrationHeight)(figures.Calibration(rows, null, alpha))
}

// ToolCalibration draws the calibration of the commands' tests and standard errors.
func (drawer) ToolCalibration(base string, rows []results.ToolCalibrationRow, se []results.SECalibrationRow, alpha float64) error {
	return saveGrid(base, figures.ToolCalibrationWidth, figures.ToolCalibrationHeight)(figures.ToolCalibration(rows, se, alpha))
}

// Diagnosis draws a diagnosed fit's steps, with each objective's kept epoch.
func (drawer) Diagnosis(base string, steps []results.DiagnosisStep, fit string, labels map[string]string, kept []results.DiagnosisKept) error {
	return saveGrid(base, figures.DiagnosisWidth, figures.DiagnosisHeight)(figures.Diagnosis(steps, fit, labels, kept))
}

// saveGrid returns what saves a grid of plots, or passes on the error of drawing them, to
// base.png and base.svg at width × height.
func saveGrid(base string, width, height vg.Length) func([][]*plot.Plot, error) error {
	return func(plots [][]*plot.Plot, err error) error {
		if err != nil {
			return err
		}
		return figures.SaveGrid(plots, base, width, height)
	}
}

// Representations draws the comparison of the layer the penalty acts on.
func (drawer) Representations(base, title string, fits []results.RepresentationFit) error {
	p, err := figures.Representations(title, fits)
	if err != nil {
		return err
	}
	return figures.Save(p, base, figures.RepresentationsWidth, figures.RepresentationsHeight)
}

// Objectives draws the comparison of an experiment's objectives at one λ.
func (drawer) Objectives(base, title string, objectives []string, rows [][]results.Row, hints results.FigureHints) error {
	runs := make([]figures.ObjectiveRun, len(objectives))
	for i, o := range objectives {
		runs[i] = figures.ObjectiveRun{Objective: o, Rows: rows[i]}
	}
	w, h := figures.ObjectivesSize(len(runs))
	return saveGrid(base, w, h)(figures.Objectives(title, runs, figures.Hints(hints)))
}

// commandFor returns the command of study s: runSweep for a sweep, or the command line's
// run of a bespoke study (a study without one gets a command that says so).
func commandFor(s experiments.Study) command {
	bespoke := map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		"variance": runVariance, "calibration": runCalibration, "prop1": runProp1, "diagnose": runDiagnose,
		"auditstudy": runAuditStudy, "mitigation": runMitigation,
	}
	c := command{name: s.Name, summary: s.Summary, run: bespoke[s.Name]}
	switch {
	case s.Sweep != nil:
		c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			return runSweep(ctx, s, args, stdout, stderr)
		}
	case c.run == nil:
		c.run = func(context.Context, []string, io.Writer, io.Writer) error {
			return fmt.Errorf("%s: the command line has no command for this study", s.Name)
		}
	}
	return c
}
