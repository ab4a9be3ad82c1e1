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
	dir, err := outFor(*out, *quick, *force)
	if err != nil {
		return err
	}
	type study interface {
		Write(dir string) error
		Markdown() string
	}
	// The test's calibration (RunCalibration), or with -commands the commands'
	// (RunToolCalibration), whose finished tables are kept under OUT/fits/calibration_tool
	// (one result file per table, package store), so that an interrupted run continues.
	name, what, record := "calibration", "calibration", any(nil)
	var checked, wrote string
	var work func() (study, error)
	if *tool {
		cfg := experiments.ToolCalibrationPaper()
		if *quick {
			cfg = experiments.ToolCalibrationQuick()
		}
		cfg.Workers, cfg.Progress = *workers, stderr
		name, what, record = "calibration_tool", "calibration -commands", cfg.Record()
		kept := store.Dir(dir, name)
		checked = fmt.Sprintf("%v Z, n %v; results under %s, finished tables kept in %s", cfg.Kinds, cfg.Sizes, dir, kept)
		work = func() (study, error) {
			res, err := experiments.RunToolCalibration(ctx, cfg, dir)
			if err != nil {
				return nil, fmt.Errorf("calibration -commands: %w (the finished tables are kept in %s; rerun to continue)", err, kept)
			}
			return res, nil
		}
		wrote = fmt.Sprintf("%s/tables/calibration_tool{.csv,_se.csv,.md,_config.json}, %s/calibration_tool.png and .svg", dir, dir)
	} else {
		cfg := experiments.CalibrationPaper()
		if *quick {
			cfg = experiments.CalibrationQuick()
		}
		cfg.Workers, cfg.Progress = *workers, stderr
		if err := cfg.Validate(); err != nil {
			return err
		}
		record = cfg.Record()
		checked = fmt.Sprintf("sizes %v, %d null replicates; results under %s", cfg.Sizes, cfg.Replicates, dir)
		work = func() (study, error) {
			return runUntilDone(ctx, name, args, "nothing (the study writes its tables at the end)", func() (study, error) {
				return experiments.RunCalibration(ctx, cfg)
			})
		}
		base := filepath.Join(dir, name)
		wrote = fmt.Sprintf("%s/tables/calibration{.csv,_null.csv,.md,_config.json}, %s.png, %s.svg", dir, base, base)
	}
	rec, err := asRecord(record)
	if err != nil {
		return err
	}
	if err := guardStudy(dir, name, rec, *force); err != nil {
		return err
	}
	if *checkOnly {
		fmt.Fprintf(stdout, "%s: %s\n", what, checked)
		return nil
	}
	if err := prepareOut(dir); err != nil {
		return err
	}
	t0 := time.Now()
	res, err := work()
	if err != nil {
		return err
	}
	// The figures are drawn from the tables as written, as invmmd figures draws them.
	if err := res.Write(dir); err != nil {
		return err
	}
	if _, err := experiments.CalibrationFigures(dir, drawer{}, io.Discard); err != nil {
		return err
	}
	fmt.Fprint(stdout, res.Markdown())
	fmt.Fprintf(stdout, "%s: done in %s; wrote %s\n", what, time.Since(t0).Round(time.Second), wrote)
	return nil
}
