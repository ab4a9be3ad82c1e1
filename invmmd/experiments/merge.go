package experiments

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
)

// Merged is what Merge assembled.
type Merged struct {
	Sweep   store.Sweep
	Rows    map[float64][]results.Row // by λ
	Files   []string                  // the tables written
	Removed []string                  // stale tables of λ the sweep no longer lists, removed
}

// Merge assembles exp's tables under tableDir from the per-fit files under
// storeDir/fits/NAME: a CSV and a Markdown table per λ, NAME_config.json (configuration,
// data summaries, per-fit records) and NAME_timing.json (kept apart, so that a rerun
// leaves the others byte-identical). It writes nothing, naming them, when fits are
// missing or of another configuration; tables of λ the sweep no longer lists are removed.
func Merge(exp Experiment, storeDir, tableDir string) (*Merged, error) {
	st, err := store.Load(storeDir, exp.Name)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	sw := st.Sweep()
	keys := Grid(sw.Methods, sw.Lambdas, sw.Seeds)
	recs, err := st.Collect(keys)
	if err != nil {
		return nil, fmt.Errorf("experiments: %s: %w", exp.Name, err)
	}
	rows, err := rowsOf(sw, recs)
	if err != nil {
		return nil, err
	}
	res := &Merged{Sweep: sw, Rows: rows}

	// The configuration record: the stored configuration, the grid, per-seed data and
	// auxiliary reports, per-fit records; every "Seconds" goes to the timing file instead.
	rec := map[string]any{}
	if err := json.Unmarshal(sw.Config, &rec); err != nil {
		return nil, fmt.Errorf("experiments: %s: stored configuration: %w", exp.Name, err)
	}
	data, auxReports := map[string]any{}, map[string]any{}
	timing := map[string]any{"Experiment": exp.Name, "GoVersion": runtime.Version(), "CPUs": runtime.NumCPU()}
	var fits, fitTimes []any
	total := 0.0
	needAux := slices.ContainsFunc(sw.Methods, func(m string) bool {
		meth, err := method.Parse(m)
		return err == nil && (meth.NeedsG() || meth.NeedsM())
	})
	// seedRecord reads seed s's record of kind (what it holds) into into.
	seedRecord := func(kind, what string, s uint64, into map[string]any) error {
		var v any
		ok, err := st.GetSeed(kind, s, &v)
		if err == nil && !ok {
			err = fmt.Errorf("no record of seed %d's %s under %s: rerun its fits", s, what, st.Dir())
		}
		into[fmt.Sprint(s)] = v
		return err
	}
	for _, s := range sw.Seeds {
		err := seedRecord("data", "data", s, data)
		if err == nil && needAux { // G and m of an earlier sweep in this folder are no part of this one
			err = seedRecord("aux", "G and m", s, auxReports)
		}
		if err != nil {
			return nil, fmt.Errorf("experiments: %s: %w", exp.Name, err)
		}
	}
	for _, r := range recs {
		var result map[string]any
		if err := json.Unmarshal(r.Result, &result); err != nil {
			return nil, fmt.Errorf("experiments: %s: result of %v: %w", exp.Name, r.Key, err)
		}
		if h, ok := result["History"].(map[string]any); ok {
			if eps, ok := h["Epochs"].([]any); ok {
				h["Epochs"] = len(eps) // the per-epoch record stays in the fit's file
			}
		}
		result["Method"], result["Lambda"], result["Seed"] = r.Key.Method, r.Key.Lambda, r.Key.Seed
		fits = append(fits, result)
		fitTimes = append(fitTimes, map[string]any{"Method": r.Key.Method, "Lambda": r.Key.Lambda, "Seed": r.Key.Seed, "Seconds": r.Seconds})
		total += r.Seconds
	}
	rec["Title"], rec["Methods"], rec["Lambdas"], rec["Seeds"] = exp.Title, sw.Methods, sw.Lambdas, sw.Seeds
	rec["Data"], rec["AuxReports"], rec["Fits"], rec["Notes"] = data, auxReports, fits, exp.Notes
	timing["Fits"], timing["FitSeconds"] = fitTimes, total
	rec = StripSeconds(rec).(map[string]any)
	seconds := map[string]any{}
	splitSeconds(auxReports, "AuxReports", seconds)
	timing["AuxSeconds"] = seconds

	cfgName, timeName := exp.Name+"_config.json", exp.Name+"_timing.json"
	if err := writeTables(tableDir, nil, map[string]any{cfgName: rec, timeName: timing}); err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	res.Files = append(res.Files, filepath.Join(tableDir, cfgName), filepath.Join(tableDir, timeName))
	backendName, _ := rec["Backend"].(string)
	extras, err := exp.tableExtras(data)
	if err != nil {
		return nil, fmt.Errorf("experiments: %s: %w", exp.Name, err)
	}
	for _, l := range slices.Sorted(maps.Keys(rows)) {
		p := results.TablePath(tableDir, exp.Name, l)
		if err := results.WriteFile(p, func(w io.Writer) error { return results.WriteCSV(w, rows[l]) }); err != nil {
			return nil, err
		}
		md := strings.TrimSuffix(p, ".csv") + ".md"
		err := results.WriteFile(md, func(w io.Writer) error {
			title := fmt.Sprintf("%s, λ = %s", exp.Title, results.LambdaName(l))
			if err := results.WriteMarkdownWith(w, title, results.Summarize(rows[l]), exp.Paper[l], exp.TrMMDNote(), extras); err != nil {
				return err
			}
			fmt.Fprintf(w, "\nConfiguration: %s (backend %s; timings in %s). Seeds %v.\n", cfgName, backendName, timeName, sw.Seeds)
			for _, n := range exp.Notes {
				fmt.Fprintf(w, "\n- %s", n)
			}
			_, err := fmt.Fprintln(w)
			return err
		})
		if err != nil {
			return nil, err
		}
		res.Files = append(res.Files, p, md)
	}
	res.Removed, err = removeStale(tableDir, exp.Name, sw.Lambdas)
	return res, err
}

// tableExtras returns what exp's tables and figures show beyond the paper's layout: the
// paper's dataset when it is not ours, and the majority baseline of the data records
// (seed → the split summaries, as NAME_config.json's Data holds them) when exp.Majority.
func (exp Experiment) tableExtras(data map[string]any) (results.TableExtras, error) {
	ex := results.TableExtras{PaperDataset: exp.Figure.PaperDataset}
	if !exp.Majority {
		return ex, nil
	}
	m, err := MajorityOf(data)
	if err != nil {
		return ex, err
	}
	ex.Majority = &m
	return ex, nil
}

// TableExtras is tableExtras of the data records in cfgPath (NAME_config.json).
func (exp Experiment) TableExtras(cfgPath string) (results.TableExtras, error) {
	if !exp.Majority {
		return exp.tableExtras(nil)
	}
	var rec struct{ Data map[string]any }
	if ok, err := store.ReadJSON(cfgPath, &rec); !ok {
		return results.TableExtras{}, fmt.Errorf("experiments: %s: the majority baseline needs the data records: %w", exp.Name, cmp.Or(err, os.ErrNotExist))
	}
	ex, err := exp.tableExtras(rec.Data)
	if err != nil {
		return ex, fmt.Errorf("experiments: %s: %w", cfgPath, err)
	}
	return ex, nil
}

// MajorityOf returns the majority baseline (results.MajorityOf) of a sweep's data records
// (seed → the splits' summaries, as NAME_config.json's Data holds them).
func MajorityOf(data map[string]any) (results.Majority, error) {
	var tr, te []float64
	for _, k := range slices.SortedFunc(maps.Keys(data), func(a, b string) int { // in numeric order
		return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b))
	}) {
		var py1 [2]float64
		found := [2]bool{}
		list, _ := data[k].([]any)
		for _, x := range list {
			m, _ := x.(map[string]any)
			p, ok := m["PY1"].(float64)
			if !ok {
				continue
			}
			switch m["Name"] {
			case "train":
				py1[0], found[0] = p, true
			case "test":
				py1[1], found[1] = p, true
			}
		}
		if !found[0] || !found[1] {
			return results.Majority{}, fmt.Errorf("majority baseline: seed %s's data record has no train or test summary with P(Y=1)", k)
		}
		tr, te = append(tr, py1[0]), append(te, py1[1])
	}
	return results.MajorityOf(tr, te)
}

// StripSeconds returns v (decoded JSON) without any "Seconds" field, at any depth: the
// configuration record as Merge writes it, which timings would otherwise make differ.
func StripSeconds(v any) any { return splitSeconds(v, "", map[string]any{}) }

// splitSeconds returns v without any "Seconds" field, copying each into into, keyed by its
// path under path.
func splitSeconds(v any, path string, into map[string]any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range t {
			if k == "Seconds" {
				into[path] = x
			} else {
				out[k] = splitSeconds(x, path+"."+k, into)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = splitSeconds(x, fmt.Sprintf("%s[%d]", path, i), into)
		}
		return out
	}
	return v
}

// removeStale removes name's tables under dir whose λ is not in lambdas, and returns
// their λ names.
func removeStale(dir, name string, lambdas []float64) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, name+"_lambda*.csv"))
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, p := range paths {
		lam := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), name+"_lambda"), ".csv")
		if slices.ContainsFunc(lambdas, func(l float64) bool { return results.LambdaName(l) == lam }) {
			continue
		}
		for _, f := range []string{p, strings.TrimSuffix(p, ".csv") + ".md"} {
			if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
				return removed, fmt.Errorf("experiments: removing stale table: %w", err)
			}
		}
		removed = append(removed, lam)
	}
	return removed, nil
}
