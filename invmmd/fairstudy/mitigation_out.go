package fairstudy

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/fairness"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/results"
)

// MitigationCSVHeader is the header of the study's per-seed file, one row per table,
// seed, model, λ and rule (the groups' columns for groups 0 and 1, the study's attribute
// being binary). The fits' times are logged, not written, so that a rerun writes the same
// file.
const MitigationCSVHeader = "table,seed,model,lambda,rule,selection,accuracy,balanced_accuracy,auc,gap,noise_mean,noise_sd,noise_95," +
	"within_noise,collapsed,low_auc,tpr_0,tpr_1,fpr_0,fpr_1,auc_0,auc_1,hidden_share,hidden_group"

// fmtF renders v with 5 decimals, empty for NaN.
func fmtF(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 5, 64)
}

// WriteMitigationCSV writes the per-seed rows.
func WriteMitigationCSV(w io.Writer, rows []MitigationRow) error {
	return results.WriteRecords(w, strings.Split(MitigationCSVHeader, ","), rows, func(r MitigationRow) []string {
		g := func(i int, f func(int) float64) string {
			if i < len(r.Groups) {
				return fmtF(f(i))
			}
			return ""
		}
		tpr := func(i int) float64 { return r.Groups[i].TPR }
		fpr := func(i int) float64 { return r.Groups[i].FPR }
		auc := func(i int) float64 { return r.Groups[i].AUC }
		return []string{r.Table, strconv.FormatUint(r.Seed, 10), r.Model, fmtF(r.Lambda), r.Rule, fmtF(r.Selection), fmtF(r.Accuracy),
			fmtF(r.BalancedAcc), fmtF(r.AUC), fmtF(r.Gap), fmtF(r.NoiseMean), fmtF(r.NoiseSD), fmtF(r.Noise95),
			strconv.FormatBool(r.WithinNoise), strconv.FormatBool(r.Collapsed), strconv.FormatBool(r.LowAUC),
			g(0, tpr), g(1, tpr), g(0, fpr), g(1, fpr), g(0, auc), g(1, auc), fmtF(r.HiddenShare), fmtF(r.HiddenGroup)}
	})
}

// MeanSE is a mean over seeds and its standard error.
type MeanSE struct{ Mean, SE float64 }

func (m MeanSE) String() string { return fmt.Sprintf("%.3f ± %.3f", m.Mean, m.SE) }

func meanSE(v []float64) MeanSE {
	var s, ss float64
	for _, x := range v {
		s += x
	}
	n := float64(len(v))
	mean := s / n
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	se := 0.0
	if len(v) > 1 {
		se = math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	}
	return MeanSE{mean, se}
}

// MitigationSummary is one model's (and λ's) numbers under one rule over the seeds.
type MitigationSummary struct {
	Table, Model, Rule               string
	Lambda                           float64 // NaN for none and the score files
	Seeds                            int
	Selection, BalancedAcc, AUC, Gap MeanSE
	NoiseMean, NoiseSD, Noise95      float64 // means over seeds
	WithinNoise, Collapsed, LowAUC   int     // seeds flagged
	HiddenShare, HiddenGroup         float64
}

// SummariseMitigation groups rows by table, model, λ and rule, in the order they first
// appear.
func SummariseMitigation(rows []MitigationRow) []MitigationSummary {
	type k struct {
		t, m, r string
		l       string
	}
	var order []k
	groups := map[k][]MitigationRow{}
	for _, r := range rows {
		key := k{r.Table, r.Model, r.Rule, fmtF(r.Lambda)}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], r)
	}
	var out []MitigationSummary
	for _, key := range order {
		g := groups[key]
		s := MitigationSummary{Table: key.t, Model: key.m, Rule: key.r, Lambda: g[0].Lambda, Seeds: len(g)}
		var sel, bal, auc, gap []float64
		for _, r := range g {
			sel, bal, auc, gap = append(sel, r.Selection), append(bal, r.BalancedAcc), append(auc, r.AUC), append(gap, r.Gap)
			s.NoiseMean += r.NoiseMean / float64(len(g))
			s.NoiseSD += r.NoiseSD / float64(len(g))
			s.Noise95 += r.Noise95 / float64(len(g))
			s.HiddenShare += r.HiddenShare / float64(len(g))
			s.HiddenGroup += r.HiddenGroup / float64(len(g))
			s.WithinNoise += b2i(r.WithinNoise)
			s.Collapsed += b2i(r.Collapsed)
			s.LowAUC += b2i(r.LowAUC)
		}
		s.Selection, s.BalancedAcc, s.AUC, s.Gap = meanSE(sel), meanSE(bal), meanSE(auc), meanSE(gap)
		out = append(out, s)
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// MitigationSummaryHeader is the header of the summary file.
const MitigationSummaryHeader = "table,model,lambda,rule,seeds,selection,balanced_accuracy,balanced_accuracy_se,auc,auc_se,gap,gap_se," +
	"noise_mean,noise_sd,noise_95,within_noise,collapsed,low_auc"

// WriteMitigationSummaryCSV writes the summaries.
func WriteMitigationSummaryCSV(w io.Writer, sums []MitigationSummary) error {
	return results.WriteRecords(w, strings.Split(MitigationSummaryHeader, ","), sums, func(s MitigationSummary) []string {
		return []string{s.Table, s.Model, fmtF(s.Lambda), s.Rule, strconv.Itoa(s.Seeds), fmtF(s.Selection.Mean), fmtF(s.BalancedAcc.Mean), fmtF(s.BalancedAcc.SE),
			fmtF(s.AUC.Mean), fmtF(s.AUC.SE), fmtF(s.Gap.Mean), fmtF(s.Gap.SE), fmtF(s.NoiseMean), fmtF(s.NoiseSD), fmtF(s.Noise95),
			strconv.Itoa(s.WithinNoise), strconv.Itoa(s.Collapsed), strconv.Itoa(s.LowAUC)}
	})
}

// Verdict is the two questions on one table, answered from the summaries at the
// rate rule: for each oracle λ, dr on its frontier at the oracle's balanced accuracy — of
// the dr λ whose mean balanced accuracy is within 0.02 of the oracle's, the one of smallest
// mean gap (without one, the nearest, marked so) — and whether dr's mean gap exceeds the
// oracle's by no more than the noise (the random ranking's sd at that rate); and for each
// dr λ whose mean gap is inside the noise (at most the random ranking's 95th percentile),
// whether its AUC is within 0.03 of none's.
type Verdict struct {
	Table string
	Match []VerdictMatch
	Ranks []VerdictRank
}

// VerdictMatch is one oracle λ set against the dr λ of nearest balanced accuracy.
type VerdictMatch struct {
	OracleLambda, DRLambda    float64
	OracleBal, DRBal          float64
	OracleGap, DRGap, NoiseSD float64
	BalWithin, GapWithinNoise bool
}

// VerdictRank is one dr λ whose mean gap is inside the noise, set against none's AUC.
type VerdictRank struct {
	Lambda, Gap, Noise95, AUC, NoneAUC float64
	Kept                               bool // AUC ≥ none's − 0.03
}

// Verdicts answers the questions on every table of sums.
func Verdicts(sums []MitigationSummary) []Verdict {
	var out []Verdict
	var tables []string
	for _, s := range sums {
		if len(tables) == 0 || tables[len(tables)-1] != s.Table {
			tables = append(tables, s.Table)
		}
	}
	for _, t := range tables {
		v := Verdict{Table: t}
		var oracle, dr []MitigationSummary
		none := math.NaN()
		for _, s := range sums {
			if s.Table != t || s.Rule != "rate" {
				continue
			}
			switch s.Model {
			case "oracle":
				oracle = append(oracle, s)
			case method.DR.String():
				dr = append(dr, s)
			case method.None.String():
				none = s.AUC.Mean
			}
		}
		for _, o := range oracle {
			best := -1
			near := func(d MitigationSummary) float64 { return math.Abs(d.BalancedAcc.Mean - o.BalancedAcc.Mean) }
			for i, d := range dr {
				switch {
				case best < 0:
					best = i
				case near(d) <= 0.02 && (near(dr[best]) > 0.02 || d.Gap.Mean < dr[best].Gap.Mean):
					best = i
				case near(d) > 0.02 && near(dr[best]) > 0.02 && near(d) < near(dr[best]):
					best = i
				}
			}
			if best < 0 {
				continue
			}
			d := dr[best]
			v.Match = append(v.Match, VerdictMatch{OracleLambda: o.Lambda, DRLambda: d.Lambda, OracleBal: o.BalancedAcc.Mean, DRBal: d.BalancedAcc.Mean,
				OracleGap: o.Gap.Mean, DRGap: d.Gap.Mean, NoiseSD: o.NoiseSD,
				BalWithin: math.Abs(d.BalancedAcc.Mean-o.BalancedAcc.Mean) <= 0.02, GapWithinNoise: d.Gap.Mean-o.Gap.Mean <= o.NoiseSD})
		}
		for _, d := range dr {
			if d.Gap.Mean <= d.Noise95 {
				v.Ranks = append(v.Ranks, VerdictRank{Lambda: d.Lambda, Gap: d.Gap.Mean, Noise95: d.Noise95, AUC: d.AUC.Mean, NoneAUC: none, Kept: d.AUC.Mean >= none-0.03})
			}
		}
		out = append(out, v)
	}
	return out
}

// MitigationMarkdown renders the study: per table, every model at the rate rule (and at
// 0.5), the score files at their own operating point, then the verdicts.
func MitigationMarkdown(sums []MitigationSummary, seeds int, lambdas string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Mitigation with the attribute partly missing\n\n")
	fmt.Fprintf(&b, "%d seeds; λ %s; decisions on complete held-out rows. Numbers are means ± standard errors over the seeds. "+
		"The gap is equalized_odds_difference; its noise is the gap of a random ranking selecting as many rows (mean, sd and 95th percentile over 200 draws, averaged over seeds). "+
		"Flags count seeds: within = gap ≤ the noise's 95th percentile; collapsed = the rarer decision under 1%% of rows; low AUC = AUC < 0.55.\n", seeds, lambdas)
	lam := func(l float64) string {
		if math.IsNaN(l) {
			return "–"
		}
		return strconv.FormatFloat(l, 'g', -1, 64)
	}
	for _, rule := range []string{"rate", "0.5", "own"} {
		table := ""
		for _, s := range sums {
			if s.Rule != rule {
				continue
			}
			if s.Table != table {
				table = s.Table
				what := map[string]string{"rate": "at the training prevalence, ties broken at random", "0.5": "at threshold 0.5",
					"own": "at each model's own operating point"}[rule]
				fmt.Fprintf(&b, "\n## %s, decisions %s\n\n", table, what)
				if rule == "own" {
					b.WriteString("The score files' models decide at random, Ŷ ~ Bernoulli(score) (Fairlearn's ExponentiatedGradient and ThresholdOptimizer: " +
						"their equalized-odds guarantee is for these decisions, at their own selection rate); each row is their expected rates, " +
						"the noise a random ranking selecting the expected share. fit's models decide by threshold: their own point is the 0.5 rule; " +
						"so does fairlearn_lr_cc (unconstrained, listed for reference).\n\n")
				}
				fmt.Fprintf(&b, "Training rows hidden: %.0f%% overall, %.0f%% of the group coded 1.\n\n", 100*s.HiddenShare, 100*s.HiddenGroup)
				b.WriteString("| model | λ | selection | balanced accuracy | AUC | gap | noise (mean ± sd, 95%) | within / collapsed / low AUC |\n|---|---|---|---|---|---|---|---|\n")
			}
			fmt.Fprintf(&b, "| %s | %s | %.3f | %s | %s | %s | %.3f ± %.3f, %.3f | %d / %d / %d |\n", s.Model, lam(s.Lambda), s.Selection.Mean, s.BalancedAcc, s.AUC, s.Gap,
				s.NoiseMean, s.NoiseSD, s.Noise95, s.WithinNoise, s.Collapsed, s.LowAUC)
		}
	}
	b.WriteString("\n## Verdicts (decisions at the training prevalence)\n")
	for _, v := range Verdicts(sums) {
		fmt.Fprintf(&b, "\n### %s\n\nThe oracle against dr at its balanced accuracy: of dr's λ within ± 0.02 of it, the smallest gap (without one, the nearest λ); dr's gap is within the noise of the oracle's when it exceeds it by at most the random ranking's sd:\n\n", v.Table)
		b.WriteString("| oracle λ | oracle balanced accuracy | oracle gap | dr λ | dr balanced accuracy | within ± 0.02 | dr gap | noise sd | dr gap within the noise of the oracle's |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, m := range v.Match {
			fmt.Fprintf(&b, "| %s | %.3f | %.3f | %s | %.3f | %s | %.3f | %.3f | %s |\n", lam(m.OracleLambda), m.OracleBal, m.OracleGap, lam(m.DRLambda), m.DRBal, yesNo(m.BalWithin),
				m.DRGap, m.NoiseSD, yesNo(m.GapWithinNoise))
		}
		if len(v.Ranks) == 0 {
			b.WriteString("\nNo λ of dr brings its mean gap inside the noise.\n")
			continue
		}
		b.WriteString("\ndr's λ whose mean gap is inside the noise, and its AUC against none's:\n\n| dr λ | gap | noise 95% | AUC | none's AUC | within 0.03 of none's |\n|---|---|---|---|---|---|\n")
		for _, r := range v.Ranks {
			fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f | %s |\n", lam(r.Lambda), r.Gap, r.Noise95, r.AUC, r.NoneAUC, yesNo(r.Kept))
		}
	}
	return b.String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// ReadMitigationCSV reads a per-seed file WriteMitigationCSV wrote, for the summaries, the
// Markdown and the figures to be made again without fitting (the groups' rates and AUCs
// of groups 0 and 1 kept).
func ReadMitigationCSV(r io.Reader) ([]MitigationRow, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != MitigationCSVHeader {
		return nil, fmt.Errorf("fairstudy: want the header %s", MitigationCSVHeader)
	}
	var out []MitigationRow
	for k, rec := range recs[1:] {
		var bad error
		num := func(i int) float64 {
			if rec[i] == "" {
				return math.NaN()
			}
			v, err := strconv.ParseFloat(rec[i], 64)
			if err != nil && bad == nil {
				bad = fmt.Errorf("fairstudy: line %d, column %d: %w", k+2, i+1, err)
			}
			return v
		}
		seed, err := strconv.ParseUint(rec[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("fairstudy: line %d: seed %q", k+2, rec[1])
		}
		row := MitigationRow{Table: rec[0], Seed: seed, Model: rec[2], Lambda: num(3), Rule: rec[4]}
		d := &row.Decisions
		d.Selection, d.Accuracy, d.BalancedAcc, d.AUC, d.Gap = num(5), num(6), num(7), num(8), num(9)
		d.NoiseMean, d.NoiseSD, d.Noise95 = num(10), num(11), num(12)
		d.WithinNoise, d.Collapsed, d.LowAUC = rec[13] == "true", rec[14] == "true", rec[15] == "true"
		for g := range 2 {
			if rec[16+g] != "" {
				d.Groups = append(d.Groups, fairness.GroupDecisions{Group: g, TPR: num(16 + g), FPR: num(18 + g), AUC: num(20 + g)})
			}
		}
		row.HiddenShare, row.HiddenGroup = num(22), num(23)
		if bad != nil {
			return nil, bad
		}
		out = append(out, row)
	}
	return out, nil
}
