// Package store keeps an experiment's results as one small JSON file per fit, each with
// the configuration that produced it, under OUT/fits/EXPERIMENT/. The same files make a
// local run resumable (a fit whose file exists with the same configuration is not redone),
// let a sweep be split into shards that run on different machines, and are what the
// tables are assembled from (invmmd merge).
//
// Every file is written atomically (a temporary file in the same folder, then a rename),
// so a run killed at any point leaves only whole files behind.
package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/settings"
)

// Key names one fit of a sweep: a method at a penalty weight λ and a seed. Methods that
// do not depend on λ (none) use λ = 0.
type Key struct {
	Method string
	Lambda float64
	Seed   uint64
}

// String renders the key as "method λ=… seed …" for messages.
func (k Key) String() string {
	return fmt.Sprintf("%s λ=%s seed %d", k.Method, results.LambdaName(k.Lambda), k.Seed)
}

// FileName is the key's file name: METHOD_lambdaΛ_seedS.json.
func (k Key) FileName() string {
	return k.Method + "_lambda" + results.LambdaName(k.Lambda) + "_seed" + strconv.FormatUint(k.Seed, 10) + ".json"
}

// Sweep is what a run was asked for: the experiment's configuration (everything that
// decides its numbers, as JSON) and the grid of methods, λ and seeds. It is stored as
// sweep.json in the experiment's folder.
type Sweep struct {
	Experiment string
	Config     json.RawMessage
	Methods    []string
	Lambdas    []float64
	Seeds      []uint64
}

// Record is one fit's file: its key, the configuration that produced it, its result (the
// experiment's own JSON, decoded by the caller) and how long it took. Seconds is the only
// field that differs between two runs of the same fit.
type Record struct {
	Experiment string
	Key        Key
	Config     json.RawMessage
	Result     json.RawMessage
	Seconds    float64
}

// Store is the folder of one experiment's per-fit files.
type Store struct {
	dir   string
	sweep Sweep
}

// Dir returns the folder of experiment's fits under out: OUT/fits/EXPERIMENT.
func Dir(out, experiment string) string { return filepath.Join(out, "fits", experiment) }

// Open opens (creating it if needed) the store of sw.Experiment under out and records sw
// in its sweep.json. A folder of another configuration is refused (Check); the grid may
// differ (a later run may add λ values or seeds).
func Open(out string, sw Sweep) (*Store, error) {
	if err := Check(out, sw); err != nil {
		return nil, err
	}
	s := &Store{dir: Dir(out, sw.Experiment), sweep: sw}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if err := results.WriteJSON(filepath.Join(s.dir, "sweep.json"), sw); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return s, nil
}

// Check checks the grid and that the folder of sw.Experiment under out holds no results
// of another configuration (a MismatchError lists every field that differs), without
// writing anything.
func Check(out string, sw Sweep) error {
	if err := checkGrid(sw); err != nil {
		return err
	}
	dir := Dir(out, sw.Experiment)
	var old Sweep
	if ok, err := ReadJSON(filepath.Join(dir, "sweep.json"), &old); !ok {
		return err
	}
	if diffs := settings.Diff(old.Config, sw.Config); len(diffs) > 0 {
		return &MismatchError{Dir: dir, Diffs: diffs}
	}
	return nil
}

// Load opens the existing store of experiment under out without changing it, for
// assembling tables.
func Load(out, experiment string) (*Store, error) {
	dir := Dir(out, experiment)
	var sw Sweep
	if ok, err := ReadJSON(filepath.Join(dir, "sweep.json"), &sw); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("store: no results of %s under %s (no sweep.json): run the experiment (or its shards) with -out %s first", experiment, dir, out)
	}
	if sw.Experiment != experiment {
		return nil, fmt.Errorf("store: %s: experiment %q, want %q", filepath.Join(dir, "sweep.json"), sw.Experiment, experiment)
	}
	return &Store{dir: dir, sweep: sw}, nil
}

// Experiments lists the experiments that have a store under out, sorted.
func Experiments(out string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(out, "fits", "*", "sweep.json"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(filepath.Dir(p))) // sorted, as Glob's matches are
	}
	return names, nil
}

// Count returns how many result files the store of experiment under out holds so far
// (not sweep.json nor the per-seed records), for progress reports.
func Count(out, experiment string) int {
	paths, _ := filepath.Glob(filepath.Join(Dir(out, experiment), "*.json"))
	n := 0
	for _, p := range paths {
		if name := filepath.Base(p); name != "sweep.json" && !isSeedRecord(name) {
			n++
		}
	}
	return n
}

// isSeedRecord reports whether a file name is a per-seed record, KIND_seedS.json.
func isSeedRecord(name string) bool {
	kind, seed, ok := strings.Cut(strings.TrimSuffix(name, ".json"), "_seed")
	if !ok || kind == "" || strings.Contains(kind, "_") {
		return false
	}
	_, err := strconv.ParseUint(seed, 10, 64)
	return err == nil
}

// Sweep returns the sweep the store records.
func (s *Store) Sweep() Sweep { return s.sweep }

// Dir returns the store's folder.
func (s *Store) Dir() string { return s.dir }

// Put writes the record of the fit k atomically.
func (s *Store) Put(k Key, result any, seconds float64) error {
	res, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("store: %v: %w", k, err)
	}
	rec := Record{Experiment: s.sweep.Experiment, Key: k, Config: s.sweep.Config, Result: res, Seconds: seconds}
	if err := results.WriteJSON(filepath.Join(s.dir, k.FileName()), rec); err != nil {
		return fmt.Errorf("store: %v: %w", k, err)
	}
	return nil
}

// Get reads the record of fit k. It reports ok = false when there is no file for k, and
// an error when the file is unreadable or was made with another configuration.
func (s *Store) Get(k Key) (rec Record, ok bool, err error) {
	p := filepath.Join(s.dir, k.FileName())
	if ok, err := ReadJSON(p, &rec); !ok {
		return rec, false, err
	}
	if rec.Key != k || rec.Experiment != s.sweep.Experiment {
		return rec, false, fmt.Errorf("store: %s holds %s %v, want %s %v", p, rec.Experiment, rec.Key, s.sweep.Experiment, k)
	}
	if d := settings.Diff(s.sweep.Config, rec.Config); len(d) > 0 {
		return rec, false, fmt.Errorf("store: %s was made with another configuration: %s", p, strings.Join(d, "; "))
	}
	return rec, true, nil
}

// Collect reads the records of keys, in order. It fails when any is missing or was made
// with another configuration, naming every such fit.
func (s *Store) Collect(keys []Key) ([]Record, error) {
	var recs []Record
	var missing, bad []string
	for _, k := range keys {
		rec, ok, err := s.Get(k)
		switch {
		case err != nil:
			bad = append(bad, err.Error())
		case !ok:
			missing = append(missing, k.String())
		default:
			recs = append(recs, rec)
		}
	}
	if err := Unusable(s.dir, len(keys), "fits", missing, bad); err != nil {
		return nil, err
	}
	return recs, nil
}

// Unusable is the error of n results (of the kind what, e.g. "fits") under dir of which
// missing are absent and bad unreadable or made with another configuration, naming each;
// nil when every one is usable.
func Unusable(dir string, n int, what string, missing, bad []string) error {
	if len(missing) == 0 && len(bad) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "store: %s: %d of %d %s are not usable", dir, len(missing)+len(bad), n, what)
	if len(missing) > 0 {
		fmt.Fprintf(&b, "\nmissing (%d; rerun the shards that hold them, with -resume):\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
	if len(bad) > 0 {
		fmt.Fprintf(&b, "\nmade with another configuration or unreadable (%d):\n  %s", len(bad), strings.Join(bad, "\n  "))
	}
	return errors.New(b.String())
}

// PutSeed writes a per-seed record of the given kind (e.g. "data", "aux") atomically as
// KIND_seedS.json; only a run that computed it writes it, so that shards never overwrite
// each other's with less.
func (s *Store) PutSeed(kind string, seed uint64, v any) error {
	if err := results.WriteJSON(s.seedPath(kind, seed), v); err != nil {
		return fmt.Errorf("store: seed %d: %w", seed, err)
	}
	return nil
}

// GetSeed reads the per-seed record of the given kind into v; ok is false when there is
// none.
func (s *Store) GetSeed(kind string, seed uint64, v any) (ok bool, err error) {
	return ReadJSON(s.seedPath(kind, seed), v)
}

// ReadJSON reads the JSON file at path into v; ok is false when there is no file (and
// when it cannot be read or decoded, with the error).
func ReadJSON(path string, v any) (ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("store: %s: %w", path, err)
	}
	return true, nil
}

func (s *Store) seedPath(kind string, seed uint64) string {
	return filepath.Join(s.dir, kind+"_seed"+strconv.FormatUint(seed, 10)+".json")
}

// checkGrid rejects an empty grid, duplicates and λ that are not finite or negative.
func checkGrid(sw Sweep) error {
	if sw.Experiment == "" || strings.ContainsAny(sw.Experiment, `/\`) {
		return fmt.Errorf("store: experiment name %q", sw.Experiment)
	}
	if len(sw.Methods) == 0 || len(sw.Lambdas) == 0 || len(sw.Seeds) == 0 {
		return fmt.Errorf("store: %s: nothing to run (methods %v, λ %v, seeds %v)", sw.Experiment, sw.Methods, sw.Lambdas, sw.Seeds)
	}
	if d, ok := firstDuplicate(sw.Methods); ok {
		return fmt.Errorf("store: %s: method %s listed twice", sw.Experiment, d)
	}
	var ls []string
	for _, l := range sw.Lambdas {
		if l < 0 || math.IsNaN(l) || math.IsInf(l, 0) {
			return fmt.Errorf("store: %s: λ = %v, want a finite value ≥ 0", sw.Experiment, l)
		}
		ls = append(ls, results.LambdaName(l))
	}
	if d, ok := firstDuplicate(ls); ok {
		return fmt.Errorf("store: %s: λ %s listed twice", sw.Experiment, d)
	}
	if d, ok := firstDuplicate(sw.Seeds); ok {
		return fmt.Errorf("store: %s: seed %d listed twice", sw.Experiment, d)
	}
	return nil
}

// firstDuplicate returns the first element of xs that an earlier one equals.
func firstDuplicate[T comparable](xs []T) (T, bool) {
	for i, x := range xs {
		if slices.Contains(xs[:i], x) {
			return x, true
		}
	}
	var zero T
	return zero, false
}

// MismatchError is Open's error when a folder holds results of another configuration.
type MismatchError struct {
	Dir   string
	Diffs []string // "path: stored → requested"
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s holds results made with another configuration (%s); use another -out, or delete %s to start over", e.Dir, strings.Join(e.Diffs, "; "), e.Dir)
}

// Shard is the i-th (1-based) of N deterministic slices of a fit grid.
type Shard struct{ I, N int }

// All is the whole grid as one shard.
var All = Shard{1, 1}

// ParseShard parses "i/n" with 1 ≤ i ≤ n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/n, e.g. 1/4", s)
	}
	if n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want 1 ≤ i ≤ n", s)
	}
	return Shard{i, n}, nil
}

// String renders the shard as "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// Range returns the half-open range [lo, hi) of the shard's fits in a grid of total fits:
// contiguous blocks whose sizes differ by at most one, so that the fits of one seed stay
// together (and its auxiliary models are fit by as few shards as possible).
func (s Shard) Range(total int) (lo, hi int) {
	return (s.I - 1) * total / s.N, s.I * total / s.N
}
