package fairstudy

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/results"
)

// CSVHeader is the header of the study's CSV file, one row per cell, metric, group,
// method and estimator.
const CSVHeader = "table,missingness,n,replicates,metric,group,method,estimator,truth,coverage,bias,rmse,width,hidden_share,refused"

// WriteCSV writes the rows.
func WriteCSV(w io.Writer, rows []Row) error {
	return results.WriteRecords(w, strings.Split(CSVHeader, ","), rows, func(r Row) []string {
		return []string{r.Table, r.Missingness, strconv.Itoa(r.N), strconv.Itoa(r.Replicates), r.Metric, r.Group, r.Method, r.Estimator,
			fmtF(r.Truth), fmtF(r.Coverage), fmtF(r.Bias), fmtF(r.RMSE), fmtF(r.Width), fmtF(r.HiddenShare), strconv.Itoa(r.Refused)}
	})
}

// Kind sorts a row into the summary's families: "rates" (a group's rate), "pairs" (a
// difference between two groups), "gaps" (between_groups differences and the scalar gaps).
func (r Row) Kind() string {
	switch {
	case r.Method == "pair":
		return "pairs"
	case r.Method == "":
		if r.Group == "all" {
			return "gaps"
		}
		return "rates"
	}
	return "gaps"
}

// Summary is one cell's and estimator's family of rows: the range of coverage and the mean
// absolute bias over them.
type Summary struct {
	Table, Missingness, Estimator, Kind string
	N, Rows                             int
	MinCoverage, MaxCoverage, MeanBias  float64
	MaxAbsBias                          float64
}

// Summarise groups rows by cell, estimator and kind.
func Summarise(rows []Row) []Summary {
	var out []Summary
	idx := map[string]int{}
	for _, r := range rows {
		id := fmt.Sprint(r.Table, r.Missingness, r.N, r.Estimator, r.Kind())
		k, ok := idx[id]
		if !ok {
			k = len(out)
			idx[id] = k
			out = append(out, Summary{Table: r.Table, Missingness: r.Missingness, Estimator: r.Estimator, Kind: r.Kind(), N: r.N, MinCoverage: 1})
		}
		s := &out[k]
		s.Rows++
		s.MinCoverage = math.Min(s.MinCoverage, r.Coverage)
		s.MaxCoverage = math.Max(s.MaxCoverage, r.Coverage)
		s.MeanBias += math.Abs(r.Bias)
		if !math.IsNaN(r.Bias) {
			s.MaxAbsBias = math.Max(s.MaxAbsBias, math.Abs(r.Bias))
		}
	}
	for k := range out {
		out[k].MeanBias /= float64(out[k].Rows)
	}
	return out
}

// Markdown returns the summary table: for each cell, estimator and family, the range of
// coverage and the mean and largest absolute bias.
func Markdown(rows []Row, level float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Coverage of the complete data's value by each estimator's %.0f%% interval (share of replicates) and |bias| (mean estimate − complete data's value), by table, size and missingness; rates: every group's selection, true/false positive and negative rates and accuracy; pairs: every difference between two groups' rates; gaps: the between-groups differences and equalized_odds_difference, demographic_parity_difference (simultaneous intervals). Binomial SE of a coverage near %.2f over 400 replicates: %.3f.\n\n", 100*level, level, math.Sqrt(level*(1-level)/400))
	b.WriteString("| table | n | missingness | estimator | family | cells | coverage | mean abs bias | max abs bias |\n|---|---|---|---|---|---|---|---|---|\n")
	sums := Summarise(rows)
	slices.SortStableFunc(sums, func(a, c Summary) int {
		if x := strings.Compare(a.Table, c.Table); x != 0 {
			return x
		}
		if a.N != c.N {
			return a.N - c.N
		}
		return strings.Compare(a.Missingness, c.Missingness)
	})
	for _, s := range sums {
		bias := "– | –"
		if !math.IsNaN(s.MeanBias) {
			bias = fmt.Sprintf("%.4f | %.4f", s.MeanBias, s.MaxAbsBias)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %d | %.3f–%.3f | %s |\n", s.Table, s.N, s.Missingness, s.Estimator, s.Kind, s.Rows, s.MinCoverage, s.MaxCoverage, bias)
	}
	return b.String()
}
