package experiments

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

// ObjectiveComparison returns, as a Markdown table, what each objective gave the
// experiment stored under name at λ (its tables NAME[SUFFIX]_lambdaΛ.csv under dir): per
// method run with an objective other than the paper's, the test accuracy's mean ± sd over
// the seeds and how many fits learned the inverted label (train accuracy below 0.5). The
// README quotes it; `invmmd figures` writes it as objectives_NAME_lambdaΛ.md.
func ObjectiveComparison(dir, name string, lambda float64) (string, error) {
	type table struct {
		objective string
		rows      []results.Row
	}
	var tables []table
	var methods []string
	for _, o := range train.Objectives() {
		p := filepath.Join(dir, name+o.Suffix+"_lambda"+results.LambdaName(lambda)+".csv")
		rows, err := results.ReadCSVFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		tables = append(tables, table{o.Name, rows})
	}
	// The columns: the methods that a remedy was run with (every method of the tables when
	// there is only the paper's).
	for k, t := range tables {
		if k == 0 && len(tables) > 1 && t.objective == train.Objectives()[0].Name {
			continue
		}
		for _, r := range t.rows {
			if r.Method != method.None.String() && !slices.Contains(methods, r.Method) {
				methods = append(methods, r.Method)
			}
		}
	}
	if len(tables) == 0 {
		return "", fmt.Errorf("experiments: no table of %s at λ = %s under %s", name, results.LambdaName(lambda), dir)
	}
	slices.SortStableFunc(methods, func(a, b string) int { return slices.Index(method.Names(), a) - slices.Index(method.Names(), b) })
	var b strings.Builder
	tableHead(&b, []string{fmt.Sprintf("objective (%s, λ = %s)", name, results.LambdaName(lambda))}, methods)
	for _, t := range tables {
		fmt.Fprintf(&b, "| %s |", t.objective)
		sums := map[string]results.Summary{}
		for _, s := range results.Summarize(t.rows) {
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
