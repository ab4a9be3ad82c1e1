package experiments

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// representationRun is one table of RepresentationComparison: an experiment's fits at one
// λ with the penalty on the logit or on the features, and what their records say.
type representationRun struct {
	represent string  // "logit" or "features"
	lambda    float64 // the penalty's weight
	rows      []results.Row
	logitMMD  map[string][]float64 // per method, the training MMD² of the logit of each fit
	capped    int                  // fits of h that stopped at the epoch cap
}

// RepresentationComparison returns, as Markdown, what penalising h's penultimate features
// (the tables NAME_feat_lambdaΛ, train.RepresentFeatures) gave next to penalising its
// logit (NAME_lambdaΛ, the paper's penalty), read from the tables and configuration
// records under dir, for every λ that either has: per method of the features tables, the
// test accuracy (mean ± sd over the seeds), the training MMD² of the logit with σ = 1 (the
// logit fits' tr mmd; the features fits' Metrics.TrainMMDLogit) — how far what the
// classifier outputs depends on Z — and, for the features fits, the training MMD² of the
// features that their penalty acted on. A last line counts the fits of h that reached the
// epoch cap instead of stopping by patience. The README quotes it; `invmmd figures` writes
// it next to the tables as representations_NAME.md.
func RepresentationComparison(dir, name string) (string, error) {
	var runs []representationRun
	var methods []string
	for _, rep := range []struct{ label, stored string }{{"logit", name}, {"features", name + FeaturesSuffix}} {
		paths, err := filepath.Glob(filepath.Join(dir, rep.stored+"_lambda*.csv"))
		if err != nil {
			return "", err
		}
		fits, err := fitsOf(filepath.Join(dir, rep.stored+"_config.json"))
		if err != nil && len(paths) > 0 {
			return "", err
		}
		var reps []representationRun
		for _, p := range paths {
			l, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), rep.stored+"_lambda"), ".csv"), 64)
			if err != nil {
				continue // another experiment's table whose name starts like this one's
			}
			rows, err := results.ReadCSVFile(p)
			if err != nil {
				return "", err
			}
			r := representationRun{represent: rep.label, lambda: l, rows: rows, logitMMD: map[string][]float64{}}
			for _, row := range rows {
				fl := l
				if row.Method == invmmd.None.String() {
					fl = 0 // one fit of none per seed, at λ = 0, reported under every λ (Grid)
				}
				f, ok := fits[fitKey{row.Method, fl, row.Seed}]
				if !ok {
					return "", fmt.Errorf("experiments: %s: no record of %s, λ = %s, seed %d in %s_config.json", p, row.Method, results.LambdaName(l), row.Seed, rep.stored)
				}
				v := row.TrMMD
				if rep.label == "features" {
					v = f.Metrics.TrainMMDLogit
				}
				r.logitMMD[row.Method] = append(r.logitMMD[row.Method], v)
				if f.History.StopReason == train.StopMaxEpochs {
					r.capped++
				}
				if rep.label == "features" && !slices.Contains(methods, row.Method) {
					methods = append(methods, row.Method)
				}
			}
			reps = append(reps, r)
		}
		slices.SortFunc(reps, func(a, b representationRun) int { return cmp.Compare(a.lambda, b.lambda) })
		runs = append(runs, reps...)
	}
	if len(methods) == 0 {
		return "", fmt.Errorf("experiments: no table of %s under %s (run invmmd %s -represent features)", name+FeaturesSuffix, dir, name)
	}
	slices.SortStableFunc(methods, func(a, b string) int { return slices.Index(results.Methods, a) - slices.Index(results.Methods, b) })
	var b strings.Builder
	table := func(title string, only string, cell func(r representationRun, s results.Summary) string) {
		fmt.Fprintf(&b, "%s\n\n| penalty on (%s) | λ |", title, name)
		for _, m := range methods {
			fmt.Fprintf(&b, " %s |", m)
		}
		b.WriteString("\n|---|---|" + strings.Repeat("---|", len(methods)) + "\n")
		for _, r := range runs {
			if only != "" && r.represent != only {
				continue
			}
			sums := map[string]results.Summary{}
			for _, s := range results.Summarize(r.rows) {
				sums[s.Method] = s
			}
			fmt.Fprintf(&b, "| %s | %s |", r.represent, results.LambdaName(r.lambda))
			for _, m := range methods {
				if s, ok := sums[m]; ok {
					b.WriteString(" " + cell(r, s) + " |")
				} else {
					b.WriteString(" – |")
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	pm := func(c results.Cell) string { return fmt.Sprintf("%.3f ± %.3f", c.Mean, c.Std) }
	table("Test accuracy, mean ± sd over the seeds:", "", func(_ representationRun, s results.Summary) string { return pm(s.TeAcc) })
	table("Training MMD² of the logit (σ = 1, full estimator): how much the classifier's output depends on Z given Y:", "",
		func(r representationRun, s results.Summary) string { return pm(results.CellOf(r.logitMMD[s.Method])) })
	table("Training MMD² of the features the penalty acted on (σ by the median heuristic on the initial network's features, per fit):", "features",
		func(_ representationRun, s results.Summary) string { return pm(s.TrMMD) })
	var capped []string
	for _, r := range runs {
		capped = append(capped, fmt.Sprintf("%s λ = %s: %d of %d", r.represent, results.LambdaName(r.lambda), r.capped, len(r.rows)))
	}
	fmt.Fprintf(&b, "Fits of h that reached the epoch cap instead of stopping by patience: %s.\n", strings.Join(capped, "; "))
	return b.String(), nil
}

// fitKey identifies a fit of h in an experiment's configuration record.
type fitKey struct {
	method string
	lambda float64
	seed   uint64
}

// fitEntry is what RepresentationComparison reads of a fit's record.
type fitEntry struct {
	Method  string
	Lambda  float64
	Seed    uint64
	Metrics train.Metrics
	History struct{ StopReason train.StopReason }
}

// fitsOf reads the per-fit records of an experiment's configuration record (Merge's
// NAME_config.json), by method, λ and seed.
func fitsOf(path string) (map[fitKey]fitEntry, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("experiments: %w (its tables need their configuration record)", err)
	}
	if err != nil {
		return nil, err
	}
	var rec struct{ Fits []fitEntry }
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("experiments: %s: %w", path, err)
	}
	out := map[fitKey]fitEntry{}
	for _, f := range rec.Fits {
		out[fitKey{f.Method, f.Lambda, f.Seed}] = f
	}
	return out, nil
}
