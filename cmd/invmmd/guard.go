package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/settings"
)

// The guards below keep results already on disk from being replaced by a run of another
// configuration or a smaller grid: the committed tables under figures/ took hours, and a
// quick run or a run with one method must not rewrite or delete them. -force lets such a
// run replace them.

// modulePath is the module whose figures/ folder holds the committed paper-size results.
const modulePath = "github.com/invmmd/invmmd"

// outFor returns the output folder of a command's -out and -quick (outDir) once it is
// usable (checkOut) and not the repository's figures/ for a quick run (refuseQuickInFigures).
func outFor(out string, quick, force bool) (string, error) {
	dir := outDir(out, quick)
	if err := checkOut(dir); err != nil {
		return "", err
	}
	return dir, refuseQuickInFigures(dir, quick, force)
}

// refuseQuickInFigures refuses a quick run (-quick) whose -out is the repository's
// figures/ folder (a folder named figures beside the go.mod of this module), which holds
// the paper-size results, unless force.
func refuseQuickInFigures(out string, quick, force bool) error {
	abs, err := filepath.Abs(out)
	if !quick || force || err != nil || filepath.Base(abs) != "figures" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(abs), "go.mod"))
	if first, _, _ := strings.Cut(string(b), "\n"); err == nil && strings.TrimSpace(first) == "module "+modulePath {
		return fmt.Errorf("-quick -out %s: that is the repository's figures/ folder, which holds the paper-size results; "+
			"quick runs write to a scratch folder (leave out -out to use %s, or name another folder; -force writes there all the same)", out, quickOut())
	}
	return nil
}

// tableRecord is what a guard reads of OUT/tables/NAME_config.json: the grid it holds
// and the record, whose configuration part is compared.
type tableRecord struct {
	path    string
	methods []string
	lambdas []float64
	seeds   []uint64
	config  map[string]any // the whole record
}

// readTableRecord reads the configuration record of the tables of experiment or study name
// under out; nil when there is none.
func readTableRecord(out, name string) (*tableRecord, error) {
	p := filepath.Join(out, "tables", name+"_config.json")
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	var grid struct {
		Methods []string
		Lambdas []float64
		Seeds   []uint64
	}
	_ = json.Unmarshal(b, &grid)
	return &tableRecord{path: p, methods: grid.Methods, lambdas: grid.Lambdas, seeds: grid.Seeds, config: rec}, nil
}

// guardTables refuses a run of sweep sw whose tables would replace, under out, tables made
// with another configuration or holding fits the run leaves out (methods, λ or seeds),
// naming what differs, unless force. A run whose grid holds every fit of the tables
// there, with the same configuration, may replace them.
func guardTables(out string, sw store.Sweep, force bool) error {
	if force {
		return nil
	}
	old, err := readTableRecord(out, sw.Experiment)
	if err != nil || old == nil {
		return err
	}
	var cfg map[string]any
	if err := json.Unmarshal(sw.Config, &cfg); err != nil {
		return err
	}
	for _, k := range []string{"Methods", "Lambdas", "Seeds", "Title", "Data", "AuxReports", "Fits", "Notes"} {
		delete(old.config, k) // the grid and the fields Merge adds
	}
	// Merge records the configuration without its "Seconds" fields; compare it so.
	if d := settings.DiffValues(old.config, experiments.StripSeconds(cfg)); len(d) > 0 {
		return fmt.Errorf("%s holds the %s tables of another configuration (%s); this run would replace them: use another -out, or -force to replace them",
			old.path, sw.Experiment, strings.Join(d, "; "))
	}
	var lack []string
	if m := missing(old.methods, sw.Methods, func(m string) string { return m }); m != "" {
		lack = append(lack, "methods "+m)
	}
	if m := missing(old.lambdas, sw.Lambdas, results.LambdaName); m != "" {
		lack = append(lack, "λ "+m)
	}
	if m := missing(old.seeds, sw.Seeds, func(s uint64) string { return strconv.FormatUint(s, 10) }); m != "" {
		lack = append(lack, "seeds "+m)
	}
	if len(lack) > 0 {
		return fmt.Errorf("%s: the %s tables there hold %s, which this run leaves out (it runs methods %s, λ %s, seeds %s): "+
			"it would replace them with fewer fits; add them to -methods, -lambdas and -seeds, use another -out, or -force to replace them",
			out, sw.Experiment, strings.Join(lack, "; "), strings.Join(sw.Methods, ","), lambdaNames(sw.Lambdas), seedNames(sw.Seeds))
	}
	return nil
}

// missing returns the elements of old that new lacks, each by name, comma-separated.
func missing[T comparable](old, new []T, name func(T) string) string {
	var out []string
	for _, o := range old {
		if !slices.Contains(new, o) {
			out = append(out, name(o))
		}
	}
	return strings.Join(out, ",")
}

// asRecord returns a study's configuration record (its Record()) as the JSON object that
// guardStudy compares with the one its tables hold.
func asRecord(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var rec map[string]any
	return rec, json.Unmarshal(b, &rec)
}

// guardStudy refuses a study (variance, calibration) whose tables would replace, under out,
// ones made with other settings (the fields of rec that the tables' record
// OUT/tables/STUDY_config.json holds), unless force.
func guardStudy(out, study string, rec map[string]any, force bool) error {
	if force {
		return nil
	}
	old, err := readTableRecord(out, study)
	if err != nil || old == nil {
		return err
	}
	sub := map[string]any{}
	for k := range rec {
		sub[k] = old.config[k]
	}
	if diffs := settings.DiffValues(sub, rec); len(diffs) > 0 {
		return fmt.Errorf("%s holds the %s table of other settings (%s); this run would replace it: use another -out, or -force to replace it",
			old.path, study, strings.Join(diffs, "; "))
	}
	return nil
}
