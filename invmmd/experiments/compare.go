package experiments

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// RepresentationFits reads the fits of h of the experiment stored under name with the
// penalty on its logit (the tables NAME_lambdaΛ, the paper's penalty) and on its
// penultimate features (NAME_feat_lambdaΛ, train.RepresentFeatures), every λ that either
// has, from the tables and configuration records under dir: for each fit its test accuracy,
// its table's tr mmd, its logit's training MMD² with σ = 1 (the logit fits' tr mmd; the
// features fits' Metrics.TrainMMDLogit) and whether it reached the epoch cap. Of the logit
// tables it keeps the methods that the features tables have. The fits come by layer, then
// λ, in the tables' order. It returns an error when there is no features table, or a table
// without its record.
func RepresentationFits(dir, name string) ([]results.RepresentationFit, error) {
	var fits []results.RepresentationFit
	featured := map[string]bool{}
	// The features tables first, for the methods they have; the logit tables are put first
	// in the result.
	for _, rep := range []struct{ label, stored string }{{"features", name + FeaturesSuffix}, {"logit", name}} {
		paths, err := filepath.Glob(filepath.Join(dir, rep.stored+"_lambda*.csv"))
		if err != nil {
			return nil, err
		}
		type table struct {
			lambda float64
			path   string
		}
		var tables []table
		for _, p := range paths {
			l, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), rep.stored+"_lambda"), ".csv"), 64)
			if err == nil { // else another experiment's table whose name starts like this one's
				tables = append(tables, table{l, p})
			}
		}
		if len(tables) == 0 {
			if rep.label == "features" {
				return nil, fmt.Errorf("experiments: no table of %s under %s (run %s's experiment with -represent features)", rep.stored, dir, name)
			}
			continue
		}
		slices.SortFunc(tables, func(a, b table) int { return cmp.Compare(a.lambda, b.lambda) })
		records, err := fitsOf(filepath.Join(dir, rep.stored+"_config.json"))
		if err != nil {
			return nil, err
		}
		var these []results.RepresentationFit
		for _, t := range tables {
			rows, err := results.ReadCSVFile(t.path)
			if err != nil {
				return nil, err
			}
			for _, row := range rows {
				if rep.label == "features" {
					featured[row.Method] = true
				} else if !featured[row.Method] {
					continue
				}
				fl := t.lambda
				if row.Method == method.None.String() {
					fl = 0 // one fit of none per seed, at λ = 0, reported under every λ (Grid)
				}
				rec, ok := records[fitKey{row.Method, fl, row.Seed}]
				if !ok {
					return nil, fmt.Errorf("experiments: %s: no record of %s, λ = %s, seed %d in %s_config.json", t.path, row.Method, results.LambdaName(t.lambda), row.Seed, rep.stored)
				}
				f := results.RepresentationFit{Represent: rep.label, Lambda: t.lambda, Method: row.Method, Seed: row.Seed, TeAcc: row.TeAcc, TrMMD: row.TrMMD,
					LogitMMD: row.TrMMD, Capped: rec.History.StopReason == train.StopMaxEpochs}
				if rep.label == "features" {
					if rec.Metrics.TrainMMDLogit == nil {
						return nil, fmt.Errorf("experiments: %s: the record of %s, λ = %s, seed %d in %s_config.json has no TrainMMDLogit (made before it was recorded): rerun the fit", t.path, row.Method, results.LambdaName(t.lambda), row.Seed, rep.stored)
					}
					f.LogitMMD = *rec.Metrics.TrainMMDLogit
				}
				these = append(these, f)
			}
		}
		fits = append(these, fits...)
	}
	return fits, nil
}

// RepresentationMarkdown returns, as Markdown, the fits of the experiment stored under
// name (RepresentationFits) summarised per layer and λ: for each method of the features
// tables, the test accuracy, the training MMD² of the logit (σ = 1) — how far what the
// classifier outputs depends on Z — and, for the features fits, the training MMD² of the
// features their penalty acted on, each mean ± sd over the seeds; a last line counts the
// fits of h that reached the epoch cap. The README quotes it; `invmmd figures` writes it
// next to the tables as representations_NAME.md.
func RepresentationMarkdown(name string, fits []results.RepresentationFit) string {
	var settings, methods []string
	for _, f := range fits {
		if !slices.Contains(settings, f.Setting()) {
			settings = append(settings, f.Setting())
		}
		if !slices.Contains(methods, f.Method) {
			methods = append(methods, f.Method)
		}
	}
	slices.SortStableFunc(methods, func(a, b string) int { return slices.Index(method.Names(), a) - slices.Index(method.Names(), b) })
	var b strings.Builder
	table := func(title string, only string, value func(results.RepresentationFit) float64) {
		fmt.Fprintf(&b, "%s\n\n", title)
		tableHead(&b, []string{"penalty on (" + name + ")", "λ"}, methods)
		for _, s := range settings {
			var first results.RepresentationFit
			by := map[string][]float64{}
			for _, f := range fits {
				if f.Setting() == s {
					first = f
					by[f.Method] = append(by[f.Method], value(f))
				}
			}
			if only != "" && first.Represent != only {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s |", first.Represent, results.LambdaName(first.Lambda))
			for _, m := range methods {
				if v, ok := by[m]; ok {
					c := results.CellOf(v)
					fmt.Fprintf(&b, " %.3f ± %.3f |", c.Mean, c.Std)
				} else {
					b.WriteString(" – |")
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	table("Test accuracy, mean ± sd over the seeds:", "", func(f results.RepresentationFit) float64 { return f.TeAcc })
	table("Training MMD² of the logit (σ = 1, full estimator): how much the classifier's output depends on Z given Y:", "",
		func(f results.RepresentationFit) float64 { return f.LogitMMD })
	table("Training MMD² of the features the penalty acted on (σ by the median heuristic on the initial network's features, per fit):", "features",
		func(f results.RepresentationFit) float64 { return f.TrMMD })
	var capped []string
	for _, s := range settings {
		n, k := 0, 0
		for _, f := range fits {
			if f.Setting() == s {
				n++
				if f.Capped {
					k++
				}
			}
		}
		capped = append(capped, fmt.Sprintf("%s: %d of %d", s, k, n))
	}
	fmt.Fprintf(&b, "Fits of h that reached the epoch cap instead of stopping by patience: %s (none, trained without a penalty, is the same fit under every setting).\n", strings.Join(capped, "; "))
	return b.String()
}

// fitKey identifies a fit of h in an experiment's configuration record.
type fitKey struct {
	method string
	lambda float64
	seed   uint64
}

// fitEntry is what RepresentationFits reads of a fit's record.
type fitEntry struct {
	Method  string
	Lambda  float64
	Seed    uint64
	Metrics struct{ TrainMMDLogit *float64 } // nil: not recorded
	History struct{ StopReason train.StopReason }
}

// fitsOf reads the per-fit records of an experiment's configuration record (Merge's
// NAME_config.json), by method, λ and seed.
func fitsOf(path string) (map[fitKey]fitEntry, error) {
	var rec struct{ Fits []fitEntry }
	if ok, err := store.ReadJSON(path, &rec); !ok {
		return nil, cmp.Or(err, fmt.Errorf("experiments: %s: %w (its tables need their configuration record)", path, fs.ErrNotExist))
	}
	out := map[fitKey]fitEntry{}
	for _, f := range rec.Fits {
		out[fitKey{f.Method, f.Lambda, f.Seed}] = f
	}
	return out, nil
}

// ObjectiveComparison returns, as a Markdown table, what each objective gave the
// experiment stored under name at λ (its tables NAME[SUFFIX]_lambdaΛ.csv under dir): per
// method run with an objective other than the paper's, the test accuracy's mean ± sd over
// the seeds and how many fits learned the inverted label (train accuracy below 0.5). The
// README quotes it; `invmmd figures` writes it as objectives_NAME_lambdaΛ.md.
func ObjectiveComparison(dir, name string, lambda float64) (string, error) {
	objs, tables, err := objectiveTables(dir, name, lambda)
	if err != nil {
		return "", err
	}
	if len(tables) == 0 {
		return "", fmt.Errorf("experiments: no table of %s at λ = %s under %s", name, results.LambdaName(lambda), dir)
	}
	// The columns: the methods that a remedy was run with (every method of the tables when
	// there is only the paper's).
	var methods []string
	for k, rows := range tables {
		if k == 0 && len(tables) > 1 && objs[0] == train.Objectives()[0].Name {
			continue
		}
		for _, r := range rows {
			if r.Method != method.None.String() && !slices.Contains(methods, r.Method) {
				methods = append(methods, r.Method)
			}
		}
	}
	slices.SortStableFunc(methods, func(a, b string) int { return slices.Index(method.Names(), a) - slices.Index(method.Names(), b) })
	var b strings.Builder
	tableHead(&b, []string{fmt.Sprintf("objective (%s, λ = %s)", name, results.LambdaName(lambda))}, methods)
	for k, rows := range tables {
		fmt.Fprintf(&b, "| %s |", objs[k])
		sums := map[string]results.Summary{}
		for _, s := range results.Summarize(rows) {
			sums[s.Method] = s
		}
		for _, m := range methods {
			s, ok := sums[m]
			if !ok {
				b.WriteString(" – |")
				continue
			}
			inverted := 0
			for _, r := range s.Rows {
				if r.TrAcc < 0.5 {
					inverted++
				}
			}
			fmt.Fprintf(&b, " %.3f ± %.3f [%d/%d] |", s.TeAcc.Mean, s.TeAcc.Std, inverted, s.N)
		}
		b.WriteString("\n")
	}
	b.WriteString("\nTest accuracy, mean ± sd over the seeds; [k/n]: k of the n fits ended with train accuracy below 0.5 (the inverted label).\n")
	return b.String(), nil
}

// objectiveTables reads the tables of the experiment stored under name at λ l under dir
// (NAME[SUFFIX]_lambdaΛ.csv): each objective it was trained with, in the order of
// train.Objectives, and its rows as written.
func objectiveTables(dir, name string, l float64) (objs []string, rows [][]results.Row, err error) {
	for _, o := range train.Objectives() {
		rs, err := results.ReadCSVFile(results.TablePath(dir, name+o.Suffix, l))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		objs, rows = append(objs, o.Name), append(rows, results.AsWritten(rs))
	}
	return objs, rows, nil
}
