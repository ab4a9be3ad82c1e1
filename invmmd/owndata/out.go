package owndata

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/train"
)

// The files Fit writes under Config.Out.
const (
	ConfigFile   = "config.json" // the run's settings, methods, seeds and command line
	RunsDir      = "runs"        // one RunFile per finished method and seed: runs/METHOD-seedS.json
	ModelsDir    = "models"      // one saved model per finished method and seed: models/METHOD-seedS/
	ResultsCSV   = "results.csv" // the results table, rewritten as each method finishes
	ResultsMD    = "results.md"  // the same, with what it was fitted on
	HeldOutFile  = "heldout.txt" // the held-out estimates with their terms and diagnostics
	outputFormat = 1             // config.json's "format"
)

// Settings is everything that decides a fit's numbers apart from which methods and seeds
// are trained: two runs whose Settings are equal give the same result for the same method
// and seed. Fit records them in config.json and in each method's run file, refuses an
// output folder holding results of other Settings, and -resume skips a method only when
// its run file holds the same Settings.
type Settings struct {
	Data           string  `json:"data"`
	DataBytes      int64   `json:"data_bytes"` // the file's size when read: an edited file is another run
	Columns        Columns `json:"columns"`
	Split          string  `json:"split,omitempty"`
	ValFrac        float64 `json:"val_frac,omitempty"`
	TestFrac       float64 `json:"test_frac,omitempty"`
	SplitSeed      uint64  `json:"split_seed,omitempty"` // the first seed, which seeds the random split
	Lambda         float64 `json:"lambda"`
	Nets           Nets    `json:"nets"`
	DropUnreliable bool    `json:"drop_unreliable"`
	Objective      string  `json:"objective"` // the training objective (train.Objectives)
	// Represent is the layer the penalty acted on when it is not the logit ("features").
	Represent string `json:"represent,omitempty"`
	Backend   string `json:"backend"` // backend.Config() for the shared backend, else the backend's name
}

// settingsOf returns cfg's Settings (the data file's size read from disk).
func settingsOf(cfg Config) Settings {
	s := Settings{Data: cfg.Data, Columns: cfg.Columns, Split: cfg.Split, Lambda: cfg.Lambda, Nets: cfg.Nets, DropUnreliable: !cfg.KeepUnreliable, Objective: cfg.Objective}
	if s.Objective == "" {
		s.Objective = "paper"
	}
	if r, err := train.ParseRepresentation(cfg.Represent); err == nil && r == train.RepresentFeatures {
		s.Represent = r.String()
	}
	if st, err := os.Stat(cfg.Data); err == nil {
		s.DataBytes = st.Size()
	}
	if cfg.Split == "" {
		s.ValFrac, s.TestFrac = cfg.ValFrac, cfg.TestFrac
		if len(cfg.Seeds) > 0 {
			s.SplitSeed = cfg.Seeds[0]
		}
	}
	s.Backend = backend.Config()
	if cfg.Backend != nil {
		s.Backend = cfg.Backend.Name()
	}
	return s
}

// diffSettings lists each setting that differs between a (stored) and b (requested) as
// "path: stored → requested" (store.Diff of their JSON forms).
func diffSettings(a, b Settings) []string {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return []string{fmt.Sprintf("settings not comparable: %v %v", errA, errB)}
	}
	return store.Diff(ja, jb)
}

// configRecord is config.json: the settings, the methods and seeds asked for, and the
// command line; Fit adds what it learns once the data is read.
type configRecord struct {
	Format   int            `json:"format"`
	Settings Settings       `json:"settings"`
	Methods  string         `json:"methods"`
	Seeds    []uint64       `json:"seeds"`
	Args     []string       `json:"args,omitempty"`
	Data     map[string]any `json:"data_read,omitempty"` // split sizes, majority baseline, inputs, G and m reports
}

// RunFile is one finished method's file, runs/METHOD-seedS.json: its row of the results
// table, its held-out estimates as heldout.txt shows them, its warnings, and the settings
// it was trained with.
type RunFile struct {
	Settings Settings `json:"settings"`
	// Classes names the label's K > 2 classes (Data.Classes); absent for a binary label.
	Classes  []string `json:"classes,omitempty"`
	Row      Row      `json:"row"`
	HeldOut  string   `json:"heldout"`
	Warnings []string `json:"warnings,omitempty"`
}

// runName is the name of a method and seed's run file and model folder: METHOD-seedS.
func runName(m method.Method, seed uint64) string { return fmt.Sprintf("%s-seed%d", m, seed) }

// RunPath returns the file where Fit records method m with seed under out:
// out/runs/METHOD-seedS.json.
func RunPath(out string, m method.Method, seed uint64) string {
	return filepath.Join(out, RunsDir, runName(m, seed)+".json")
}

// prepareOut checks, before any work, the output folder of a fit: that -out is a folder
// that can be created and written; that what it holds was made with the same settings
// (or Force, which removes the earlier outputs); that it holds no run or model of a
// method and seed this run does not list (stale beside the new results; Force removes
// them). With Resume it returns the finished runs to keep, by run name.
func prepareOut(cfg Config) (map[string]RunFile, error) {
	out := cfg.Out
	st, err := os.Stat(out)
	switch {
	case err == nil && !st.IsDir():
		return nil, fmt.Errorf("-out %s is a file, want a folder", out)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("-out %s: %w", out, err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("-out %s: cannot create it: %w", out, err)
	}
	f, err := os.CreateTemp(out, ".invmmd-write-test*")
	if err != nil {
		return nil, fmt.Errorf("-out %s: not writable: %w", out, err)
	}
	f.Close()
	os.Remove(f.Name())

	want := settingsOf(cfg)
	var problems []string
	b, err := os.ReadFile(filepath.Join(out, ConfigFile))
	switch {
	case err == nil:
		var rec configRecord
		if err := json.Unmarshal(b, &rec); err != nil || rec.Format != outputFormat {
			problems = append(problems, fmt.Sprintf("its %s was not written by this version of invmmd fit", ConfigFile))
		} else if d := diffSettings(rec.Settings, want); len(d) > 0 {
			problems = append(problems, "its results were made with other settings ("+strings.Join(d, "; ")+")")
		}
	case errors.Is(err, fs.ErrNotExist):
		for _, name := range []string{ResultsCSV, ModelsDir, RunsDir} {
			if _, err := os.Stat(filepath.Join(out, name)); err == nil {
				problems = append(problems, fmt.Sprintf("it holds %s of an earlier fit without its %s", name, ConfigFile))
				break
			}
		}
	default:
		return nil, fmt.Errorf("-out %s: %w", out, err)
	}
	listed := map[string]bool{}
	for _, s := range cfg.Seeds {
		for _, m := range cfg.Methods {
			listed[runName(m, s)] = true
		}
	}
	var stale []string
	for _, dir := range []string{RunsDir, ModelsDir} {
		ents, _ := os.ReadDir(filepath.Join(out, dir))
		for _, e := range ents {
			if name := strings.TrimSuffix(e.Name(), ".json"); !listed[name] && !strings.HasPrefix(e.Name(), ".") {
				stale = append(stale, filepath.Join(dir, e.Name()))
			}
		}
	}
	if len(stale) > 0 {
		problems = append(problems, fmt.Sprintf("it holds results of methods or seeds this run does not list (%s), which would stay beside the new results", strings.Join(stale, ", ")))
	}
	if len(problems) > 0 && !cfg.Force {
		return nil, fmt.Errorf("-out %s: %s: use another -out, or -force to remove the earlier results (%s, %s, %s/, %s/) first",
			out, strings.Join(problems, "; "), ConfigFile, ResultsCSV, RunsDir, ModelsDir)
	}
	if len(problems) > 0 {
		for _, name := range []string{ConfigFile, ResultsCSV, ResultsMD, HeldOutFile, RunsDir, ModelsDir} {
			if err := os.RemoveAll(filepath.Join(out, name)); err != nil {
				return nil, fmt.Errorf("-out %s: -force: %w", out, err)
			}
		}
	}
	done := map[string]RunFile{}
	if !cfg.Resume {
		return done, nil
	}
	for name := range listed {
		b, err := os.ReadFile(filepath.Join(out, RunsDir, name+".json"))
		if err != nil {
			continue
		}
		var rf RunFile
		if json.Unmarshal(b, &rf) != nil || len(diffSettings(rf.Settings, want)) > 0 {
			continue
		}
		if _, err := os.Stat(filepath.Join(out, ModelsDir, name, ModelFile)); err != nil {
			continue
		}
		done[name] = rf
	}
	return done, nil
}

// writeAtomic writes path through a temporary file in the same folder renamed over it, so
// that an interrupted run leaves the earlier file or the new one, never half of one.
func writeAtomic(path string, fn func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	err = fn(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// writeJSON writes v as indented JSON with a final newline to path, atomically.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// orderedRuns returns the run names of cfg in the order the tables list them: by seed,
// then method.
func orderedRuns(cfg Config) []string {
	var names []string
	for _, s := range cfg.Seeds {
		for _, m := range cfg.Methods {
			names = append(names, runName(m, s))
		}
	}
	return slices.Clip(names)
}
