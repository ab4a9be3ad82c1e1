package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
)

// runCalibration runs the calibration study of the invariance test (invmmd test): its size
// under a null where the observed rows are a biased sample, and its power, for each
// estimator family and route. Before any work it refuses a quick run into the repository's
// figures/ and a table of other settings it would replace.
func runCalibration(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibration", "[-quick] [-out DIR] [-workers N] [-force] [-check]", stdout, stderr, func() string {
		return "The invariance test's calibration study: under H₀: h ⊥ Z | Y, with Z missing at random in a way that\n" +
			"biases the observed rows, how often each test rejects at α = 0.05 (its size), and its power\n" +
			"against the dependence strength δ. It writes each test's mean time to OUT/tables/calibration_timing.json."
	})
	quick := fs.Bool("quick", false, "one size of 400 rows, 60 null replicates; writes to "+quickOut()+" unless -out is given")
	out := fs.String("out", "", "output folder: tables to OUT/tables, the figure to OUT (default figures/, or "+quickOut()+" with -quick)")
	workers := new(int)
	fs.Var(intValue{workers}, "workers", "`n` replicates run at once (0: one per CPU); the results do not depend on it")
	checkOnly := fs.Bool("check", false, "check the flags and the output folder, then exit without computing or writing anything")
	force := fs.Bool("force", false, "replace OUT/tables/calibration.csv even when it was made with other settings, and let -quick write into the repository's figures/")
	tool := fs.Bool("commands", false, "calibrate invmmd test and invmmd estimate as they run, G and m fitted by their MLPs (hours; resumable)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *tool {
		return runToolCalibration(ctx, *quick, *out, *workers, *checkOnly, *force, stdout, stderr)
	}
	cfg := experiments.CalibrationPaper()
	if *quick {
		cfg = experiments.CalibrationQuick()
	}
	cfg.Workers = *workers
	if err := cfg.Validate(); err != nil {
		return err
	}
	dir, err := calibrationOut(*out, *quick, *force, "calibration", cfg.Record())
	if err != nil {
		return err
	}
	if *checkOnly {
		fmt.Fprintf(stdout, "calibration: sizes %v, %d null replicates; results under %s\n", cfg.Sizes, cfg.Replicates, dir)
		return nil
	}
	if err := prepareOut(dir); err != nil {
		return err
	}
	cfg.Progress = stderr
	t0 := time.Now()
	var res *experiments.Calibration
	err = runUntilDone(ctx, "calibration", args, "nothing (the study writes its tables at the end)", func() error {
		var err error
		res, err = experiments.RunCalibration(ctx, cfg)
		return err
	})
	if err != nil {
		return err
	}
	if err := writeCalibration(dir, res, stdout); err != nil {
		return err
	}
	base := filepath.Join(dir, "calibration")
	fmt.Fprintf(stdout, "calibration: done in %s; wrote %s/tables/calibration{.csv,_null.csv,.md,_config.json}, %s.png, %s.svg\n",
		time.Since(t0).Round(time.Second), dir, base, base)
	return nil
}

// runToolCalibration runs experiments.RunToolCalibration: the calibration of invmmd test and
// invmmd estimate as a user runs them. Finished tables are kept under OUT/fits/calibration_tool
// (one result file per table, package store), so that an interrupted run continues where it
// stopped.
func runToolCalibration(ctx context.Context, quick bool, out string, workers int, checkOnly, force bool, stdout, stderr io.Writer) error {
	cfg := experiments.ToolCalibrationPaper()
	if quick {
		cfg = experiments.ToolCalibrationQuick()
	}
	cfg.Workers = workers
	dir, err := calibrationOut(out, quick, force, "calibration_tool", cfg.Record())
	if err != nil {
		return err
	}
	runs := store.Dir(dir, "calibration_tool")
	if checkOnly {
		fmt.Fprintf(stdout, "calibration -commands: %v Z, n %v; results under %s, finished tables kept in %s\n", cfg.Kinds, cfg.Sizes, dir, runs)
		return nil
	}
	if err := prepareOut(dir); err != nil {
		return err
	}
	cfg.Progress = stderr
	t0 := time.Now()
	res, err := experiments.RunToolCalibration(ctx, cfg, dir)
	if err != nil {
		return fmt.Errorf("calibration -commands: %w (the finished tables are kept in %s; rerun to continue)", err, runs)
	}
	if err := writeCalibration(dir, res, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "calibration -commands: done in %s; wrote %s/tables/calibration_tool{.csv,_se.csv,.md,_config.json}, %s/calibration_tool.png and .svg\n",
		time.Since(t0).Round(time.Second), dir, dir)
	return nil
}

// calibrationOut returns the output folder of a calibration study's -out and -quick
// (outFor), once guardStudy has checked that the tables NAME there, if any, were made
// with the settings record.
func calibrationOut(out string, quick, force bool, name string, record any) (string, error) {
	dir, err := outFor(out, quick, force)
	if err != nil {
		return "", err
	}
	rec, err := asRecord(record)
	if err != nil {
		return "", err
	}
	return dir, guardStudy(dir, name, rec, force)
}

// writeCalibration writes a calibration study's tables under dir, draws its figures from
// the tables as written (as invmmd figures draws them) and shows the tables on stdout.
func writeCalibration(dir string, res interface {
	Write(dir string) error
	Markdown() string
}, stdout io.Writer) error {
	if err := res.Write(dir); err != nil {
		return err
	}
	if _, err := experiments.CalibrationFigures(dir, drawer{}, io.Discard); err != nil {
		return err
	}
	_, err := fmt.Fprint(stdout, res.Markdown())
	return err
}
