package owndata

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/settings"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// The files Fit writes under Config.Out.
const (
	ConfigFile   = "config.json" // the run's settings, methods, seeds, command line and data hash
	RunsDir      = "runs"        // one RunFile per finished method and seed: runs/METHOD-seedS.json
	ModelsDir    = "models"      // one saved model per finished method and seed: models/METHOD-seedS/
	ResultsCSV   = "results.csv" // the results table, rewritten as each method finishes
	ResultsMD    = "results.md"  // the same, with what it was fitted on
	HeldOutFile  = "heldout.txt" // the held-out estimates with their terms and diagnostics
	outputFormat = 2             // config.json's "format" (2: the data's content hash, the held-out bandwidth rule)
)

// Settings is everything that decides a fit's numbers apart from which methods and seeds
// are trained: two runs whose Settings are equal give the same result for the same method
// and seed. Fit records them in config.json and in each method's run file, refuses an
// output folder holding results of other Settings, and Resume keeps a method only when
// its run file holds the same Settings.
type Settings struct {
	Data string `json:"data"`
	// DataHash is the SHA-256 of the table's content as read (tabular.Table.Digest): the
	// same file name with any value changed (every label flipped) is other data.
	DataHash       string    `json:"data_sha256"`
	Columns        Columns   `json:"columns"`
	Split          string    `json:"split,omitempty"`
	ValFrac        float64   `json:"val_frac,omitempty"`
	TestFrac       float64   `json:"test_frac,omitempty"`
	SplitSeed      uint64    `json:"split_seed,omitempty"` // the first seed, which seeds the random split
	Lambda         float64   `json:"lambda"`
	Lambdas        []float64 `json:"lambdas,omitempty"` // a fit over several λ (Config.Lambdas)
	Nets           Nets      `json:"nets"`
	DropUnreliable bool      `json:"drop_unreliable"`
	Objective      Objective `json:"objective"` // the training objective (train.Objectives)
	// Represent is the layer the penalty acted on when it is not the logit ("features").
	Represent Represent `json:"represent,omitempty"`
	// HeldOutBandwidth is the held-out estimates' and tests' kernel rule: "median", or σ.
	HeldOutBandwidth string `json:"heldout_bandwidth"`
	Backend          string `json:"backend"` // backend.Config() for the shared backend, else the backend's name
}

// settingsOf returns cfg's Settings for the data of content hash hash ("" before the data
// is read: compared without it).
func settingsOf(cfg Config, hash string) Settings {
	s := Settings{Data: cfg.Data, DataHash: hash, Columns: cfg.Columns, Split: cfg.Split, Lambda: cfg.Lambda, Lambdas: lambdasOf(cfg), Nets: cfg.Nets, DropUnreliable: cfg.DropUnreliable, Objective: cmp.Or(cfg.Objective, ObjectivePaper)}
	if r, err := cfg.Represent.representation(); err == nil && r == train.RepresentFeatures {
		s.Represent = RepresentFeatures
	}
	s.HeldOutBandwidth = "median"
	if !cfg.Median {
		s.HeldOutBandwidth = valueText(cfg.Bandwidth)
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

// namedAs sets the path s names its data by to want's: the data is compared by its
// content (DataHash), so that a relative path, an absolute one or an identical copy is
// the same data.
func (s *Settings) namedAs(want Settings) {
	s.Data, s.Columns.Data = want.Data, want.Columns.Data
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

// outFolder is a fit's output folder, locked, and the observer that writes it: config.json
// once the nuisances are fitted, each run's model and file as it finishes, and the tables
// with every run so far.
type outFolder struct {
	cfg  Config
	dir  string
	lock *dirLock
	// problems are what makes the folder's contents another run's (other settings or
	// data, runs this one does not list); Force removes them, otherwise they refuse it.
	problems []string
	rec      *configRecord // config.json as found; nil when there is none
	created  bool          // openOut created the folder
}

// outError is a refusal of the output folder dir: a *FieldError of Out.
func outError(dir, format string, args ...any) error {
	return &FieldError{Field: "Out", Value: dir, Err: fmt.Errorf(format, args...)}
}

// openOut opens, before the data is read, the output folder of cfg: it creates it, checks
// that it can be written, locks it (a second writer is refused with the holder's process
// and command line), and reads what it holds: a folder of other settings, or holding runs
// or models of methods and seeds cfg does not list, is refused unless cfg.Force. note says
// when it took over the lock of a process that died.
func openOut(cfg Config) (o *outFolder, note string, err error) {
	dir := cfg.Out
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return nil, "", outError(dir, "a file, want a folder")
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, "", outError(dir, "%w", err)
	}
	created := err != nil
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", outError(dir, "cannot create it: %w", err)
	}
	f, err := os.CreateTemp(dir, ".invmmd-write-test*")
	if err != nil {
		return nil, "", outError(dir, "not writable: %w", err)
	}
	f.Close()
	os.Remove(f.Name())
	folder := &outFolder{cfg: cfg, dir: dir, created: created}
	if folder.lock, note, err = lockDir(dir, cfg.Args); err != nil {
		return nil, "", &FieldError{Field: "Out", Value: dir, Err: err}
	}
	defer func() {
		if err != nil {
			folder.abandon() // the lock of a folder refused
		}
	}()
	o = folder
	want := settingsOf(cfg, "")
	b, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	switch {
	case err == nil:
		var rec configRecord
		if err := json.Unmarshal(b, &rec); err != nil || rec.Format != outputFormat {
			o.problems = append(o.problems, fmt.Sprintf("its %s was not written by this version of invmmd fit", ConfigFile))
		} else {
			o.rec = &rec
			stored := rec.Settings
			// The data is compared by content once it is read (prepare), not by the
			// path it was named by: a relative path, an absolute one or a copy of the
			// same bytes is the same data.
			stored.DataHash = ""
			stored.namedAs(want)
			if d := settings.DiffValues(stored, want); len(d) > 0 { // "path: stored → requested"
				o.problems = append(o.problems, "its results were made with other settings ("+strings.Join(d, "; ")+")")
			}
		}
	case errors.Is(err, fs.ErrNotExist):
		for _, name := range []string{ResultsCSV, ModelsDir, RunsDir} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				o.problems = append(o.problems, fmt.Sprintf("it holds %s of an earlier fit without its %s", name, ConfigFile))
				break
			}
		}
	default:
		return nil, "", outError(dir, "%w", err)
	}
	listed := o.listed()
	var stale []string
	for _, sub := range []string{RunsDir, ModelsDir} {
		ents, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range ents {
			if name := strings.TrimSuffix(e.Name(), ".json"); !listed[name] && !strings.HasPrefix(e.Name(), ".") {
				stale = append(stale, filepath.Join(sub, e.Name()))
			}
		}
	}
	if len(stale) > 0 {
		o.problems = append(o.problems, fmt.Sprintf("it holds results of methods or seeds this run does not list (%s), which would stay beside the new results", strings.Join(stale, ", ")))
	}
	if err := o.refuse(); err != nil {
		return nil, "", err
	}
	return o, note, nil
}

// listed returns the run names of cfg's methods and seeds.
func (o *outFolder) listed() map[string]bool {
	m := map[string]bool{}
	for _, r := range runsOf(o.cfg) {
		m[r.Name()] = true
	}
	return m
}

// refuse returns the refusal of the folder's problems, unless Force.
func (o *outFolder) refuse() error {
	if len(o.problems) == 0 || o.cfg.Force {
		return nil
	}
	n := o.cfg.Names
	return outError(o.dir, "%s: write elsewhere, or %s to remove the earlier results (%s, %s, %s/, %s/) first",
		strings.Join(o.problems, "; "), n.Of("Force"), ConfigFile, ResultsCSV, RunsDir, ModelsDir)
}

// prepare checks, once the data is read (its content hash hash), that the folder's
// results are of the same data (refused otherwise unless Force), removes the earlier
// results with Force when the folder has problems, and with Resume returns the runs to
// keep, by run name: those whose run file holds the same settings and data, and whose
// model is there.
func (o *outFolder) prepare(hash string) (map[string]RunFile, error) {
	if o.rec != nil && o.rec.Settings.DataHash != hash {
		o.problems = append(o.problems, fmt.Sprintf("its results were made from other data: %s's content differs from what they were fitted on (SHA-256 %.12s… then, %.12s… now)",
			o.cfg.Data, o.rec.Settings.DataHash, hash))
	}
	if err := o.refuse(); err != nil {
		return nil, err
	}
	if len(o.problems) > 0 { // Force
		for _, name := range []string{ConfigFile, ResultsCSV, ResultsMD, HeldOutFile, RunsDir, ModelsDir} {
			if err := os.RemoveAll(filepath.Join(o.dir, name)); err != nil {
				return nil, outError(o.dir, "%s: %w", o.cfg.Names.Of("Force"), err)
			}
		}
	}
	kept := map[string]RunFile{}
	if !o.cfg.Resume {
		return kept, nil
	}
	want := settingsOf(o.cfg, hash)
	for name := range o.listed() {
		b, err := os.ReadFile(filepath.Join(o.dir, RunsDir, name+".json"))
		if err != nil {
			continue
		}
		var rf RunFile
		if json.Unmarshal(b, &rf) != nil {
			continue
		}
		stored := rf.Settings
		stored.namedAs(want) // the same content (DataHash) by any path
		if len(settings.DiffValues(stored, want)) > 0 {
			continue
		}
		if _, err := os.Stat(filepath.Join(o.dir, ModelsDir, name, ModelFile)); err != nil {
			continue
		}
		kept[name] = rf
	}
	return kept, nil
}

// close releases the folder's lock.
func (o *outFolder) close() error {
	if o == nil {
		return nil
	}
	return o.lock.release()
}

// abandon releases the lock of a folder whose fit was refused, and removes the folder when
// openOut created it and nothing was written there.
func (o *outFolder) abandon() {
	if o == nil {
		return
	}
	o.close()
	if o.created {
		os.Remove(o.dir) // only an empty folder goes
	}
}

// Started writes config.json and creates runs/ and models/ (Observer).
func (o *outFolder) Started(p *Plan, r *Result) error {
	if err := r.writeConfig(p); err != nil {
		return err
	}
	for _, sub := range []string{ModelsDir, RunsDir} {
		if err := os.MkdirAll(filepath.Join(o.dir, sub), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// Finished saves a trained run's model and run file, then rewrites results.md,
// heldout.txt and results.csv with every run so far (Observer).
func (o *outFolder) Finished(p *Plan, r *Result, rf RunFile, t *Trained) error {
	if t != nil {
		d := p.Data
		name, lambda := rowRunName(rf.Row), p.Config.Lambda
		if rf.Row.Lambda != nil {
			lambda = *rf.Row.Lambda
		}
		info := ModelInfo{Data: p.Config.Data, Y: p.Config.Y, YPositive: p.Config.YPositive, Z: p.Config.Z, ZPositive: p.Config.ZPositive,
			Method: rf.Row.Method, Lambda: lambda, Seed: rf.Row.Seed, Encoder: d.Encoder, Classes: d.Classes}
		if len(d.Classes) == 0 && p.Config.YPositive != "" {
			info.YNegative = otherValue(d.Table, p.Config.Y, p.Config.YPositive)
		}
		if err := saveModel(filepath.Join(o.dir, ModelsDir, name), t.Model, info); err != nil {
			return err
		}
		if err := results.WriteJSON(filepath.Join(o.dir, RunsDir, name+".json"), rf); err != nil {
			return err
		}
	}
	return r.write(p)
}

// otherValue returns the first present value of column col of t other than positive: a
// binary label's value read as 0 ("" when there is none).
func otherValue(t *tabular.Table, col, positive string) string {
	c := t.Column(col)
	if c == nil {
		return ""
	}
	for i := 0; i < t.Len(); i++ {
		if !c.IsMissing(i) && c.Value(i) != positive {
			return c.Value(i)
		}
	}
	return ""
}

// runsOf returns the runs of cfg in the order the tables list them: by seed, then method.
func runsOf(cfg Config) []Run {
	var runs []Run
	for _, s := range cfg.Seeds {
		for _, m := range cfg.Methods {
			runs = append(runs, expandLambdas(cfg, m, s)...)
		}
	}
	return slices.Clip(runs)
}
