package owndata

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/fairness"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// The audit's decisions at a selection rate (AuditConfig.Rate) and the evaluation
// protocol of a score column (fairness.EvaluateScores) on the rows whose attribute is
// recorded.

// auditRate returns the share of rows AuditConfig.Rate selects: the label's prevalence y
// for "prevalence", else the share given, in (0, 1).
func (c AuditConfig) auditRate(y []int) (float64, error) {
	if strings.EqualFold(strings.TrimSpace(c.Rate), "prevalence") {
		p := 0.0
		for _, v := range y {
			p += float64(v)
		}
		return p / float64(len(y)), nil
	}
	r, err := strconv.ParseFloat(strings.TrimSpace(c.Rate), 64)
	if err != nil || !(r > 0 && r < 1) {
		return 0, fieldError("Rate", c.Rate, "want prevalence (the label's share of 1s) or a share of rows in (0, 1)")
	}
	return r, nil
}

// decideAtRate selects the share AuditConfig.Rate of rows by their scores s, ties broken
// at random (seeded by Seed), and says what the decisions are.
func (c AuditConfig) decideAtRate(tab *tabular.Table, s []float64, dec []int) (string, error) {
	yf, err := tab.Binary(c.Y, c.YPositive, "Y")
	if err != nil {
		return "", err
	}
	y := make([]int, len(yf))
	for i, v := range yf {
		y[i] = int(v)
	}
	r, err := c.auditRate(y)
	if err != nil {
		return "", err
	}
	copy(dec, fairness.DecideAtRate(s, r, rand.New(rand.NewPCG(c.Seed, 0x5e1ec7))))
	return fmt.Sprintf("the %.3f of rows with the highest score (column %s), ties at random", r, c.H), nil
}

// protocol evaluates the score column by the mitigation study's protocol on the rows whose
// attribute is recorded: decisions at the audit's rate (the label's prevalence on those
// rows when Rate is not given) and at 0.5, with the gap's noise.
func (c AuditConfig) protocol(tab *tabular.Table, d *fairness.Data) ([]fairness.Decisions, error) {
	s, err := tab.Numbers(c.H, "H")
	if err != nil {
		return nil, err
	}
	var sc []float64
	var y, z []int
	for i, g := range d.Group {
		if g >= 0 {
			sc, y, z = append(sc, s[i]), append(y, d.Y[i]), append(z, g)
		}
	}
	if c.Rate == "" {
		c.Rate = "prevalence"
	}
	rate, err := c.auditRate(y)
	if err != nil {
		return nil, err
	}
	atRate, atHalf, err := fairness.EvaluateScores(sc, y, z, fairness.DecisionOptions{Rate: rate, Seed: c.Seed})
	if err != nil {
		return nil, fmt.Errorf("the scores' evaluation on the rows with %s recorded: %w", c.Z, err)
	}
	return []fairness.Decisions{atRate, atHalf}, nil
}

// protocolText renders the protocol's decisions: one line (or table row) per rule.
func (r *AuditReport) protocolText(md bool) string {
	var b strings.Builder
	b.WriteString("On the rows whose attribute is recorded; the gap's noise is a random ranking's at the same rate (mean ± sd, 95th percentile).\n\n")
	if md {
		b.WriteString("| rule | selection | accuracy | balanced accuracy | AUC | equalized_odds_difference | noise | flags |\n|---|---|---|---|---|---|---|---|\n")
	}
	for _, d := range r.Protocol {
		f := d.Flags()
		if f == "" {
			f = "–"
		}
		if md {
			fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f ± %.3f, %.3f | %s |\n", d.Rule, d.Selection, d.Accuracy, d.BalancedAcc, d.AUC, d.Gap, d.NoiseMean, d.NoiseSD, d.Noise95, f)
		} else {
			fmt.Fprintf(&b, "  %s: selection %.3f, accuracy %.3f, balanced accuracy %.3f, AUC %.3f, equalized_odds_difference %.3f (noise %.3f ± %.3f, 95%% %.3f); %s\n",
				d.Rule, d.Selection, d.Accuracy, d.BalancedAcc, d.AUC, d.Gap, d.NoiseMean, d.NoiseSD, d.Noise95, f)
		}
	}
	return b.String()
}
