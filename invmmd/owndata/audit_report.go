package owndata

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/fairness"
	"github.com/invmmd/invmmd/invmmd/results"
)

// AuditCSVHeader is the header of an audit's CSV: one row per metric, group (a level, or
// overall, difference, ratio, a pair "a − b", or all for the scalar metrics), method
// (between_groups, to_overall or pair for the aggregates) and estimator.
const AuditCSVHeader = "metric,group,method,estimator,estimate,se,ci_low,ci_high,level,interval"

// intervalKind says what an estimator's interval is (the CSV's interval column): dr's
// covers the complete data's value under missingness at random (the validation study
// measured it); complete_case's covers the complete cases' value, which is not the complete
// data's when the attribute is missing by (X, Y); ip's and reg's are not orthogonal to the
// fitted G and m, and their coverage is what the study shows.
func intervalKind(e fairness.Estimator) string {
	return map[fairness.Estimator]string{
		fairness.DR:           "complete data under MAR",
		fairness.CompleteCase: "complete cases only",
		fairness.IP:           "not orthogonal to fitted G",
		fairness.Reg:          "not orthogonal to fitted m",
	}[e]
}

// WriteCSV writes every estimate, one row each.
func (r *AuditReport) WriteCSV(w io.Writer) error {
	return results.WriteRecords(w, strings.Split(AuditCSVHeader, ","), r.Result.Rows, func(x fairness.Row) []string {
		return []string{x.Metric, x.Group, x.Method, x.Estimator.String(), num(x.Estimate), num(x.SE), num(x.Low), num(x.High),
			strconv.FormatFloat(r.Result.Level, 'g', -1, 64), intervalKind(x.Estimator)}
	})
}

// SensitivityCSVHeader is the header of the sensitivity bounds' CSV.
const SensitivityCSVHeader = "metric,group,gamma,low,high,level"

// WriteSensitivityCSV writes the sensitivity bounds, one row per metric, group and Γ.
func (r *AuditReport) WriteSensitivityCSV(w io.Writer) error {
	return results.WriteRecords(w, strings.Split(SensitivityCSVHeader, ","), r.Bounds, func(b fairness.Bound) []string {
		return []string{b.Metric, b.Group, gammaText(b.Gamma), num(b.Low), num(b.High), strconv.FormatFloat(r.Result.Level, 'g', -1, 64)}
	})
}

func gammaText(g float64) string {
	if math.IsInf(g, 1) {
		return "inf"
	}
	return strconv.FormatFloat(g, 'g', -1, 64)
}

// num writes a number for a CSV: empty where there is none.
func num(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 8, 64)
}

// Markdown returns the report as Markdown: what the estimates rest on, the rates by group,
// the gaps, and the sensitivity bounds.
func (r *AuditReport) Markdown() string {
	return fmt.Sprintf("# Fairness audit of %s\n\n", r.File) + r.render(true)
}

// String returns the report as the terminal shows it.
func (r *AuditReport) String() string { return r.render(false) }

// render writes the report's sections, as Markdown (headings, tables) or for the terminal
// (plain headings, aligned columns).
func (r *AuditReport) render(md bool) string {
	var b strings.Builder
	heading := func(h string) {
		if md {
			fmt.Fprintf(&b, "\n## %s\n\n", h)
		} else {
			fmt.Fprintf(&b, "\n%s:\n", h)
		}
	}
	if md {
		b.WriteString(r.assumptions("- "))
	} else {
		b.WriteString(r.assumptions("  "))
	}
	heading("Rates by group")
	b.WriteString(r.table(md))
	heading("Gaps between groups")
	b.WriteString(r.gaps(md))
	if len(r.Protocol) > 0 {
		heading("The scores at equal selection rate and at 0.5, with the gap's noise")
		b.WriteString(r.protocolText(md))
	}
	if len(r.Bounds) > 0 {
		heading("If missingness depends on the attribute itself")
		b.WriteString(r.sensitivity(md))
	}
	if r.Scores != nil {
		heading("The scores' distribution, h ⊥ Z | Y (invmmd estimate and test)")
		b.WriteString(r.ScoreEstimate.Markdown())
		b.WriteString("\n")
		b.WriteString(r.Scores.Markdown())
	}
	return b.String()
}

func (r *AuditReport) assumptions(bullet string) string {
	var b strings.Builder
	nu := r.Nuisances
	pct := 100 * float64(r.Observed) / float64(r.Rows)
	fmt.Fprintf(&b, "%s%d rows; %s observed on %d (%.0f%%), %d groups:", bullet, r.Rows, r.ZName, r.Observed, pct, len(r.Groups))
	for g, name := range r.Groups {
		sep := ";"
		if g == len(r.Groups)-1 {
			sep = "."
		}
		fmt.Fprintf(&b, " %s: %d rows%s", name, r.GroupRows[g], sep)
	}
	b.WriteString(" complete_case is what Fairlearn reports after dropping the other rows.\n")
	if r.BinRule != "" {
		fmt.Fprintf(&b, "%s%s.\n", bullet, r.BinRule)
	}
	fmt.Fprintf(&b, "%sDecisions: %s; selection rate %.3f, P(Y = 1) %.3f.\n", bullet, r.Decision, r.Selected, r.Prevalence)
	if nu.FittedG {
		fmt.Fprintf(&b, "%sG = P(Z observed | X, Y) and m = P(Z | X, Y) by logistic regressions cross-fitted on %d folds on %d features and Y (held-out log loss: G %.3f, m %.3f).\n",
			bullet, nu.Folds, len(r.Features), nu.LossG, nu.LossM)
		fmt.Fprintf(&b, "%sPositivity: Ĝ from %.3f to %.3f; %d observed rows below 0.05 (ip and dr divide by 0.05 there).\n", bullet, nu.MinG, nu.MaxG, nu.BelowFloor)
		fmt.Fprintf(&b, "%sAssumes Z missing at random given (X, Y): whether Z is recorded may depend on the features and the label, not on Z itself beyond them; the last table shows how far the conclusions carry without it.\n", bullet)
	} else {
		fmt.Fprintf(&b, "%sZ is observed on every row: no G is fitted, and complete_case, ip and dr are one estimate, the complete data's.\n", bullet)
	}
	fmt.Fprintf(&b, "%sIntervals: %.0f%%, from dr's influence function (pointwise by group; simultaneous over the pairs of groups for the gaps, so they hold for the largest).\n", bullet, 100*r.Result.Level)
	return b.String()
}

// cell formats an estimate, with its interval for dr.
func cell(x fairness.Row, interval bool) string {
	if math.IsNaN(x.Estimate) {
		return "–"
	}
	if x.Metric == fairness.Count {
		s := strconv.FormatFloat(x.Estimate, 'f', 0, 64)
		if interval && x.SE > 0 {
			s += fmt.Sprintf(" [%.0f, %.0f]", x.Low, x.High)
		}
		return s
	}
	s := fmt.Sprintf("%.3f", x.Estimate)
	if interval && !math.IsNaN(x.Low) {
		s += fmt.Sprintf(" [%.3f, %.3f]", x.Low, x.High)
	}
	return s
}

// grid writes rows of cells as a Markdown table or aligned columns.
func grid(head []string, rows [][]string, md bool) string {
	var b strings.Builder
	if md {
		b.WriteString("| " + strings.Join(head, " | ") + " |\n|" + strings.Repeat("---|", len(head)) + "\n")
		for _, r := range rows {
			b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		}
		return b.String()
	}
	width := make([]int, len(head))
	for _, r := range append([][]string{head}, rows...) {
		for j, c := range r {
			width[j] = max(width[j], len([]rune(c)))
		}
	}
	for _, r := range append([][]string{head}, rows...) {
		b.WriteString(" ")
		for j, c := range r {
			fmt.Fprintf(&b, " %s%s", c, strings.Repeat(" ", width[j]-len([]rune(c))))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (r *AuditReport) head() []string {
	h := []string{"metric", "group"}
	for _, e := range r.Result.Estimators {
		name := e.String()
		if e == fairness.DR {
			name += fmt.Sprintf(" [%.0f%% CI]", 100*r.Result.Level)
		}
		h = append(h, name)
	}
	return h
}

func (r *AuditReport) table(md bool) string {
	var rows [][]string
	for _, m := range fairness.Metrics() {
		for _, g := range append(append([]string{}, r.Groups...), fairness.Overall) {
			row := []string{m, g}
			for _, e := range r.Result.Estimators {
				x, _ := r.Result.Find(m, g, "", e)
				row = append(row, cell(x, e == fairness.DR))
			}
			rows = append(rows, row)
		}
	}
	return grid(r.head(), rows, md)
}

func (r *AuditReport) gaps(md bool) string {
	var rows [][]string
	add := func(metric, group, method, label string) {
		row := []string{metric, label}
		for _, e := range r.Result.Estimators {
			x, _ := r.Result.Find(metric, group, method, e)
			row = append(row, cell(x, e == fairness.DR))
		}
		rows = append(rows, row)
	}
	for _, m := range []string{fairness.EqualizedOddsDifference, fairness.EqualOpportunityDifference, fairness.DemographicParityDifference, fairness.EqualizedOddsRatio, fairness.DemographicParityRatio} {
		add(m, fairness.All, "", fairness.All)
	}
	for _, m := range []string{fairness.TPR, fairness.FPR, fairness.SelectionRate} {
		add(m, fairness.Difference, fairness.BetweenGroups, "difference between_groups")
		add(m, fairness.Difference, fairness.ToOverall, "difference to_overall")
		for a := range r.Groups {
			for c := a + 1; c < len(r.Groups); c++ {
				p := r.Groups[a] + " − " + r.Groups[c]
				add(m, p, fairness.Pair, p)
			}
		}
	}
	return grid(r.head(), rows, md)
}

func (r *AuditReport) sensitivity(md bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Each range holds every value the metric can take when the odds of recording Z differ between two groups of rows alike in (X, Y) by at most a factor Γ (Γ = 1: missing at random, dr's interval; Γ = inf: no assumption, each hidden row put in the group that pushes the metric up or down), widened by dr's %.0f%% sampling margins; the gap's range takes each pair's rates at opposite ends (conservative) around dr's simultaneous interval.\n\n", 100*r.Result.Level)
	var gammas []float64
	for _, x := range r.Bounds {
		if !slices.Contains(gammas, x.Gamma) {
			gammas = append(gammas, x.Gamma)
		}
	}
	head := []string{"metric", "group"}
	for _, g := range gammas {
		head = append(head, "Γ = "+gammaText(g))
	}
	var rows [][]string
	var keys [][2]string
	for _, x := range r.Bounds {
		k := [2]string{x.Metric, x.Group}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		row := []string{k[0], k[1]}
		for _, g := range gammas {
			for _, x := range r.Bounds {
				if x.Metric == k[0] && x.Group == k[1] && x.Gamma == g {
					row = append(row, fmt.Sprintf("[%.3f, %.3f]", x.Low, x.High))
				}
			}
		}
		rows = append(rows, row)
	}
	b.WriteString(grid(head, rows, md))
	return b.String()
}
