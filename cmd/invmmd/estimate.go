package main

import (
	"context"
	"io"

	"github.com/invmmd/invmmd/invmmd/owndata"
)

// estimateMore is the text of estimate -h between the usage line and the flags.
func estimateMore() string {
	return "Estimates, for the model outputs h in a CSV (a column, or several of one representation), the MMD² between\n" +
		"p(h | Z = 1, Y = y) and p(h | Z = 0, Y = y) summed over the label's classes y, by each estimator, with its jackknife\n" +
		"standard error, per-stratum terms and diagnostics; a stratum resting on too few effective rows is flagged unreliable,\n" +
		"and an estimate outside its possible range (an MMD² beyond ±2, a probability far outside [0, 1]) IMPOSSIBLE.\n" +
		"The kernel's σ is the median heuristic on h by default, as in test and in fit's held-out estimates (-bandwidth).\n" +
		"G and m come from -g and -m columns, or are cross-fitted on -x: each row's Ĝ and m̂ from the models fitted on\n" +
		"the other -folds folds (5), so that no row's pseudo-outcome rests on a model fitted on it (the standard errors\n" +
		"then need no correction for the fit where the estimator is doubly robust; reg's SE is not printed when m is\n" +
		"fitted: it ignores m's error). The output of predict -keep-all is an input: -outputs logit (or logit_CLASS,...)."
}

// runEstimate estimates, for a column of model outputs h in a CSV (or several columns of
// one representation), the MMD² between p(h | Z = 1, Y = y) and p(h | Z = 0, Y = y)
// summed over the label's classes y, by each requested estimator, with per-stratum terms
// and diagnostics (owndata.Estimate).
func runEstimate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := owndata.DefaultEstimateConfig()
	fs := newFlags("estimate", "-data FILE.csv -outputs COL[,COL...] -y COL -z COL [-g COL] [-m COL] [-x COLS] [-methods ...] [-unconditional] [-bandwidth median|σ] [-out FILE.csv]", stdout, stderr, estimateMore)
	return runTable(fs, &cfg, &cfg, map[string]string{"folds": foldsWant}, args, stdout, stderr, "estimates",
		func() error { return cfg.Validate() }, func() (*owndata.Estimates, error) { return owndata.Estimate(ctx, cfg) })
}
