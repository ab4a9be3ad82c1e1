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

// isRepoFigures reports whether dir is the repository's figures/ folder: a folder named
// figures beside the go.mod of this module.
func isRepoFigures(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil || filepath.Base(abs) != "figures" {
		return false
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(abs), "go.mod"))
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(first) == "module "+modulePath
}

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
// figures/ folder, which holds the paper-size results, unless force.
func refuseQuickInFigures(out string, quick, force bool) error {
	if quick && !force && isRepoFigures(out) {
		return fmt.Errorf("-quick -out %s: that is the repository's figures/ folder, which holds the paper-size results; "+
			"quick runs write to a scratch folder (leave out -out to use %s, or name another folder; -force writes there all the same)", out, quickOut())
	}
	return nil
}

// tableRecord is what a guard reads of OUT/tables/NAME_config.json: the grid it holds
// and the rest of the record, whose configuration part is compared.
type tableRecord struct {
	path    string
	methods []string
	lambdas []float64
	seeds   []uint64
	config  map[string]any // the record without the grid and the fields Merge adds
}

// readTableRecord reads the configuration record of experiment name's tables under out;
// nil when there is none.
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
	for _, k := range []string{"Methods", "Lambdas", "Seeds", "Title", "Data", "AuxReports", "Fits", "Notes"} {
		delete(rec, k)
	}
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
	// Merge records the configuration without its "Seconds" fields; compare it so.
	if d := settings.DiffValues(old.config, experiments.StripSeconds(cfg)); len(d) > 0 {
		return fmt.Errorf("%s holds the %s tables of another configuration (%s); this run would replace them: use another -out, or -force to replace them",
			old.path, sw.Experiment, strings.Join(d, "; "))
	}
	var lack []string
	if m := missing(old.methods, sw.Methods); len(m) > 0 {
		lack = append(lack, "methods "+strings.Join(m, ","))
	}
	var ls []string
	for _, l := range old.lambdas {
		if !slices.Contains(sw.Lambdas, l) {
			ls = append(ls, results.LambdaName(l))
		}
	}
	if len(ls) > 0 {
		lack = append(lack, "λ "+strings.Join(ls, ","))
	}
	var ss []string
	for _, s := range old.seeds {
		if !slices.Contains(sw.Seeds, s) {
			ss = append(ss, strconv.FormatUint(s, 10))
		}
	}
	if len(ss) > 0 {
		lack = append(lack, "seeds "+strings.Join(ss, ","))
	}
	if len(lack) > 0 {
		return fmt.Errorf("%s: the %s tables there hold %s, which this run leaves out (it runs methods %s, λ %s, seeds %s): "+
			"it would replace them with fewer fits; add them to -methods, -lambdas and -seeds, use another -out, or -force to replace them",
			out, sw.Experiment, strings.Join(lack, "; "), strings.Join(sw.Methods, ","), lambdaNames(sw.Lambdas), seedNames(sw.Seeds))
	}
	return nil
}

// missing returns the elements of old that new lacks.
func missing(old, new []string) []string {
	var out []string
	for _, o := range old {
		if !slices.Contains(new, o) {
			out = append(out, o)
		}
	}
	return out
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
	p := filepath.Join(out, "tables", study+"_config.json")
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var old map[string]any
	if err := json.Unmarshal(b, &old); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	sub := map[string]any{}
	for k := range rec {
		sub[k] = old[k]
	}
	if diffs := settings.DiffValues(sub, rec); len(diffs) > 0 {
		return fmt.Errorf("%s holds the %s table of other settings (%s); this run would replace it: use another -out, or -force to replace it",
			p, study, strings.Join(diffs, "; "))
	}
	return nil
}
