package owndata

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/method"
)

// tinyConfig is a quick run on testdata/tiny.csv: small networks, few epochs.
func tinyConfig() Config {
	cfg := DefaultConfig()
	cfg.Data, cfg.Y, cfg.Z = tinyCSV, "y", "z"
	cfg.Hidden, cfg.Epochs, cfg.AuxEpochs = []int{4}, 2, 2
	cfg.Methods = []method.Method{method.None, method.DR}
	cfg.Out = ""
	return cfg
}

// TestFitWritesAndReports runs Fit on the tiny table: one row per method, the held-out dr
// and ip estimates, the warnings both in the result and on Warn, the result files, and
// each model folder loadable.
func TestFitWritesAndReports(t *testing.T) {
	cfg := tinyConfig()
	cfg.Out = t.TempDir()
	shared, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Backend = shared // the same as nil
	var log, warn bytes.Buffer
	cfg.Log, cfg.Warn = &log, &warn
	res, err := Fit(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || res.Rows[0].Method != "none" || res.Rows[1].Method != "dr" {
		t.Fatalf("rows %+v, want none and dr", res.Rows)
	}
	if !strings.Contains(res.HeldOut, "h trained with dr (seed 1; best epoch 2, stopped at 2 of 2 by max-epochs), held-out test estimates:\n  dr: MMD² = ") {
		t.Errorf("held-out text:\n%s", res.HeldOut)
	}
	if !strings.Contains(log.String(), "testdata/tiny.csv: 160 rows read;") || !strings.Contains(log.String(), "min Ĝ on training rows") {
		t.Errorf("log:\n%s", log.String())
	}
	if len(res.Warnings) == 0 || strings.Count(warn.String(), "warning: ") != len(res.Warnings) {
		t.Errorf("%d warnings in the result, Warn got:\n%s", len(res.Warnings), warn.String())
	}
	for _, f := range []string{"results.csv", "results.md", "heldout.txt", "config.json"} {
		if _, err := os.Stat(filepath.Join(cfg.Out, f)); err != nil {
			t.Error(err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(cfg.Out, "results.md"))
	for _, want := range []string{"# invmmd fit: " + tinyCSV, "λ = 1", "rows: 96 training, 32 validation, 32 test", "majority baseline on test: ", Markdown(res.Rows),
		"at most 2 epochs with patience 20 (G and m: at most 2, patience 20", "- G: " + res.AuxFit.GStop.String() + "; m: " + res.AuxFit.MStop.String()} {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	for _, m := range cfg.Methods {
		if _, err := LoadModel(modelDir(cfg.Out, m, 1)); err != nil {
			t.Error(err)
		}
	}
}

// TestFitOnAnotherBackend checks that the Backend passed in runs the whole workflow: a
// second pure-Go backend gives the same numbers as the shared one.
func TestFitOnAnotherBackend(t *testing.T) {
	other, err := backend.NewWithConfig(backend.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Finalize()
	a, err := Fit(ctx, tinyConfig())
	if err != nil {
		t.Fatal(err)
	}
	cfg := tinyConfig()
	cfg.Backend = other
	b, err := Fit(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Rows) == 0 || len(a.Rows) != len(b.Rows) {
		t.Fatalf("%d rows on the shared backend, %d on another", len(a.Rows), len(b.Rows))
	}
	for i := range a.Rows {
		if a.Rows[i] != b.Rows[i] {
			t.Errorf("row %d: shared backend %+v, another backend %+v", i, a.Rows[i], b.Rows[i])
		}
	}
}

// TestConfigRefuses checks the settings Fit and Estimate refuse before reading the table.
func TestConfigRefuses(t *testing.T) {
	fit := func(f func(c *Config)) error {
		c := tinyConfig()
		f(&c)
		_, err := Fit(ctx, c)
		return err
	}
	est := func(f func(c *EstimateConfig)) error {
		c := DefaultEstimateConfig()
		c.Data, c.Y, c.Z, c.H = tinyCSV, "y", "z", "x2"
		f(&c)
		_, err := Estimate(ctx, c)
		return err
	}
	for _, tc := range []struct {
		name  string
		err   error
		field string // the FieldError's field; "" for an error about the data
		want  string
	}{
		{"no data", fit(func(c *Config) { c.Data = "" }), "Data", "Data: required"},
		{"a method twice", fit(func(c *Config) { c.Methods = []method.Method{method.DR, method.DR} }), "Methods", "Methods dr,dr: dr listed twice"},
		{"true G", fit(func(c *Config) { c.Methods = []method.Method{method.IPPlus} }), "Methods", "method ip+ needs the true P(Δ = 1 | X, Y)"},
		{"full with missing Z", fit(func(c *Config) { c.Methods = []method.Method{method.Full} }), "Methods", "method full needs Z on every row"},
		{"negative λ", fit(func(c *Config) { c.Lambda = -1 }), "Lambda", "Lambda -1: want a value from 0 to 1e+06"},
		{"λ of 1e308", fit(func(c *Config) { c.Lambda = 1e308 }), "Lambda", "Lambda 1e+308: want a value from 0 to 1e+06"},
		{"no seed", fit(func(c *Config) { c.Seeds = nil }), "Seeds", "Seeds: want at least one seed"},
		{"a seed twice", fit(func(c *Config) { c.Seeds = []uint64{2, 2} }), "Seeds", "Seeds 2,2: seed 2 listed twice"},
		{"zero width", fit(func(c *Config) { c.Hidden = []int{4, 0} }), "Hidden", "Hidden 4,0: want widths from 1 to 65536"},
		{"huge width", fit(func(c *Config) { c.Hidden = []int{100000000} }), "Hidden", "Hidden 100000000: want widths from 1 to 65536"},
		{"no epochs", fit(func(c *Config) { c.Epochs = 0 }), "Epochs", "Epochs 0: want at least 1"},
		{"no aux epochs", fit(func(c *Config) { c.AuxEpochs = -5 }), "AuxEpochs", "AuxEpochs -5: want at least 1"},
		{"negative patience", fit(func(c *Config) { c.Patience = -1 }), "Patience", "Patience -1: want a number of epochs ≥ 0 (0: no early stopping, train to Epochs)"},
		{"negative aux patience", fit(func(c *Config) { c.AuxPatience = -3 }), "AuxPatience", "AuxPatience -3: want a number of epochs ≥ 0 (0: no early stopping, train to AuxEpochs)"},
		{"estimate negative aux patience", est(func(c *EstimateConfig) { c.AuxPatience = -1 }), "AuxPatience", "AuxPatience -1: want a number of epochs ≥ 0"},
		{"batch of one", fit(func(c *Config) { c.Batch = 1 }), "Batch", "Batch 1: want 2 to"},
		{"learning rate 1e6", fit(func(c *Config) { c.LearningRate = 1e6 }), "LearningRate", "LearningRate 1e+06: want a value in (0, 1]"},
		{"random features beyond the bound", fit(func(c *Config) { c.ZMap.Features = 100000000 }), "ZMap.Features", "ZMap.Features 100000000: want 0 (the default) to 1024"},
		{"unknown representation", fit(func(c *Config) { c.Represent = "hidden" }), "Represent", `Represent hidden: train: representation "hidden", want logits or features`},
		{"nuisance listed twice", fit(func(c *Config) { c.Z = "z,z" }), "Z", `Z z,z: column "z" listed twice`},
		{"shares of rows", fit(func(c *Config) { c.ValFrac, c.TestFrac = 0.7, 0.5 }), "TestFrac", "sum < 1"},
		{"a column the file lacks", fit(func(c *Config) { c.X = []string{"x1", "age"} }), "", `no column named "age" (X)`},
		{"estimate none", est(func(c *EstimateConfig) { c.Methods = []method.Method{method.None} }), "Methods", "method none has no estimate"},
		{"estimate without h", est(func(c *EstimateConfig) { c.H = "" }), "H", "H: required"},
		{"estimate σ = 0", est(func(c *EstimateConfig) { c.Median, c.Bandwidth = false, 0 }), "Bandwidth", "Bandwidth 0: want a finite σ > 0, or Median"},
		{"estimate needs G", est(func(c *EstimateConfig) { c.Methods = []method.Method{method.IP} }), "G", "methods ip need G = P(Δ = 1 | X, Y): it is fitted on the features named by X, or read from a column of fitted probabilities named by G"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, tc.err, tc.want)
			continue
		}
		var fe *FieldError
		if got := errors.As(tc.err, &fe); got != (tc.field != "") || got && fe.Field != tc.field {
			t.Errorf("%s: error %v is a FieldError %v (%+v), want field %q", tc.name, tc.err, got, fe, tc.field)
		}
		if flagLike.MatchString(tc.err.Error()) {
			t.Errorf("%s: error %q names a flag", tc.name, tc.err)
		}
	}
}

// flagLike matches a command-line flag in a message: the library names fields, not flags.
var flagLike = regexp.MustCompile(`(^|[ (])-[a-z]`)

// TestEstimateFitsAuxWhenNeeded estimates the MMD² of x2 on the tiny table with G and m
// fitted on x1 and grp: both are fitted, each estimator gives a finite value, and obs
// (which needs neither) gives the same value as with no features at all.
func TestEstimateFitsAuxWhenNeeded(t *testing.T) {
	cfg := DefaultEstimateConfig()
	cfg.Data, cfg.Y, cfg.Z, cfg.H = tinyCSV, "y", "z", "x2"
	cfg.X, cfg.Hidden, cfg.AuxEpochs = []string{"x1", "grp"}, []int{4}, 2
	cfg.Methods = []method.Method{method.Obs, method.DR}
	var log bytes.Buffer
	cfg.Log = &log
	res, err := Estimate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !res.FittedG || !res.FittedM || !strings.Contains(log.String(), "auxiliary models G and m, fitted on (X, Y) of 5 folds") || !strings.Contains(log.String(), "MLP [4]") {
		t.Errorf("G and m not fitted (%v, %v):\n%s", res.FittedG, res.FittedM, log.String())
	}
	if res.Rows != 160 || !(res.Sigma > 0) || !res.Median || len(res.Results) != 2 {
		t.Fatalf("%d rows, σ %v, %d results", res.Rows, res.Sigma, len(res.Results))
	}
	obsOnly := DefaultEstimateConfig()
	obsOnly.Data, obsOnly.Y, obsOnly.Z, obsOnly.H = tinyCSV, "y", "z", "x2"
	obsOnly.Methods = []method.Method{method.Obs}
	plain, err := Estimate(ctx, obsOnly)
	if err != nil {
		t.Fatal(err)
	}
	if plain.FittedG || plain.Results[0].Value != res.Results[0].Value {
		t.Errorf("obs: %v with fitted models, %v without (fitted G: %v)", res.Results[0].Value, plain.Results[0].Value, plain.FittedG)
	}
	if md := res.Markdown(); !strings.Contains(md, "| obs | ") || !strings.Contains(md, "| dr | ") || !strings.Contains(md, "T11") {
		t.Errorf("Markdown:\n%s", md)
	}
}

// TestFitOutputFolder: Fit checks -out before reading anything; refuses a folder holding
// results of other settings, or of methods this run does not list, unless Force (which
// removes them); writes each method's run file as it finishes; and with Resume keeps the
// finished methods instead of training them again.
func TestFitOutputFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, []byte("x"), 0o644)
	bad := tinyConfig()
	bad.Data, bad.Out = filepath.Join(dir, "none.csv"), file
	if _, err := Fit(ctx, bad); err == nil || !strings.Contains(err.Error(), "Out "+file+": a file") {
		t.Errorf("-out a file with a missing -data: %v, want -out named first", err)
	}

	cfg := tinyConfig()
	cfg.Out = filepath.Join(dir, "out")
	first, err := Fit(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range cfg.Methods {
		if _, err := os.Stat(runPath(cfg.Out, m, 1)); err != nil {
			t.Errorf("run file: %v", err)
		}
	}
	other := cfg
	other.Lambda = 5
	if _, err := Fit(ctx, other); err == nil || !strings.Contains(err.Error(), "lambda: 1 → 5") || !strings.Contains(err.Error(), "or Force to remove") {
		t.Errorf("other λ into the same folder: %v", err)
	}
	fewer := cfg
	fewer.Methods = []method.Method{method.None}
	if _, err := Fit(ctx, fewer); err == nil || !strings.Contains(err.Error(), filepath.Join("models", "dr-seed1")) {
		t.Errorf("fewer methods into the same folder: %v, want the stale dr model named", err)
	}
	resumed := cfg
	resumed.Resume = true
	var log bytes.Buffer
	resumed.Log = &log
	again, err := Fit(ctx, resumed)
	if err != nil {
		t.Fatal(err)
	}
	if again.Resumed != 2 || strings.Contains(log.String(), "auxiliary models") || len(again.Rows) != 2 || again.Rows[1] != first.Rows[1] {
		t.Errorf("resume: %d kept, rows %+v, want both kept with the first run's numbers; log:\n%s", again.Resumed, again.Rows, log.String())
	}
	fewer.Force = true
	if _, err := Fit(ctx, fewer); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(modelDir(cfg.Out, method.DR, 1)); err == nil {
		t.Errorf("-force kept the stale dr model")
	}
}

// cancelAfter is an Observer that cancels its context once n runs have finished.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Started(*Plan, *Result) error { return nil }
func (c *cancelAfter) Finished(_ *Plan, r *Result, _ RunFile, _ *Trained) error {
	if len(r.Rows) >= c.n {
		c.cancel()
	}
	return nil
}

// TestFitStopsOnContext: a context done before the table is read stops Fit with its error
// and nothing written; one done after the first run stops the plan before the next, the
// first run's files on disk and the folder's lock released.
func TestFitStopsOnContext(t *testing.T) {
	cfg := tinyConfig()
	cfg.Out = t.TempDir()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := Fit(done, cfg); !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("Fit with a cancelled context: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, ConfigFile)); err == nil {
		t.Errorf("a fit cancelled before reading wrote config.json")
	}
	run, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := Prepare(run, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Execute(run, &cancelAfter{n: 1, cancel: cancel})
	p.Close()
	if !errors.Is(err, context.Canceled) || res == nil || len(res.Rows) != 1 || !strings.Contains(err.Error(), "1 of 2 runs finished") {
		t.Fatalf("a plan cancelled after its first run: %v (%d rows)", err, len(res.Rows))
	}
	for _, f := range []string{ConfigFile, ResultsCSV, "runs/none-seed1.json", "models/none-seed1/model.json"} {
		if _, err := os.Stat(filepath.Join(cfg.Out, f)); err != nil {
			t.Errorf("the finished run's %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, "runs/dr-seed1.json")); err == nil {
		t.Errorf("the run after the cancel was written")
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, LockFile)); err == nil {
		t.Errorf("the lock is still there after Close")
	}
}

// TestFitChecksEachSplitsCells: a training split with no observed (Y = 1, Z = 0) row is an
// error naming the split and its cells, though the file as a whole has such rows.
func TestFitChecksEachSplitsCells(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,y,z,part\n")
	for i := 0; i < 120; i++ {
		y, z := i%2, (i/2)%2
		part := [...]string{"train", "train", "train", "val", "test"}[i%5]
		if y == 1 && z == 0 && part == "train" {
			part = "test"
		}
		fmt.Fprintf(&b, "%d,%d,%d,%s\n", i%7, y, z, part)
	}
	path := filepath.Join(t.TempDir(), "cells.csv")
	os.WriteFile(path, []byte(b.String()), 0o644)
	cfg := tinyConfig()
	cfg.Data, cfg.Split = path, "part"
	_, err := Fit(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "the training split") || !strings.Contains(err.Error(), "no row with y = 1 and z = 0 observed") {
		t.Errorf("error %v, want the training split's missing cell", err)
	}
}

// TestResumeComparesDataByContent: Resume keeps the finished methods when the data is
// named by another path (absolute for relative) or is an identical copy: the data is
// compared by its recorded SHA-256, not by its path; other content is still refused.
func TestResumeComparesDataByContent(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.Out = filepath.Join(dir, "out")
	if _, err := Fit(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(tinyCSV)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(tinyCSV)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "copy.csv")
	os.WriteFile(cp, b, 0o644)
	lines := strings.SplitAfter(string(b), "\n")
	other := filepath.Join(dir, "other.csv")
	os.WriteFile(other, []byte(strings.Join(append(lines[:1], lines[2:]...), "")), 0o644) // a row fewer
	for _, tc := range []struct {
		name, data string
		refused    string // "" when both methods are kept
	}{
		{"absolute path", abs, ""},
		{"identical copy", cp, ""},
		{"other content", other, "other data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := cfg
			r.Data, r.Resume = tc.data, true
			res, err := Fit(ctx, r)
			switch {
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
				t.Errorf("error %v, want %q", err, tc.refused)
			case tc.refused == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.refused == "" && res.Resumed != 2:
				t.Errorf("%d methods kept, want 2", res.Resumed)
			}
		})
	}
}
