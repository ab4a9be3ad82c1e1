package main

import (
	"context"
	"io"

	"github.com/invmmd/invmmd/invmmd/owndata"
)

// testMore is the text of test -h between the usage line and the flags: what the p-value
// means, what it assumes, and how G and m are kept off the rows tested.
func testMore() string {
	return "The p-value is the probability, under H₀: h ⊥ Z | Y (h ⊥ Z with -unconditional), of a statistic at least as\n" +
		"large as the one observed; a small p-value is evidence that h depends on the nuisance Z given the label.\n" +
		"It assumes: Z is missing at random given (X, Y); positivity, G = P(Δ = 1 | X, Y) > 0; G right for ip, m right\n" +
		"for reg, either for dr (obs: missingness independent of X given Y; full: Z on every row); and G and m fitted\n" +
		"on rows other than those tested. Columns -g and -m are taken to have been fitted on other rows. Without them,\n" +
		"G and m are cross-fitted on -x: the rows are split into -folds folds (5; at random within each (Y, Δ) cell),\n" +
		"G and m fitted once per fold on the other folds (80% of those rows to fit, 20% held out to stop their training,\n" +
		"-aux-patience), and each row's pseudo-outcome taken from the models that did not see it. With -folds 1 they\n" +
		"are fitted on a random half B of the rows instead; the wild and permutation routes then test half A only.\n" +
		"Only dr's p-value is printed by default, the one whose size held at α in the calibration study with fitted G\n" +
		"and m (ip's and reg's pseudo-outcomes carry the fit's error at first order, and obs ignores why Z is missing:\n" +
		"asked for, their p-values are marked unreliable, with the reason).\n\n" +
		"The kernel's σ is the median heuristic on h by default (on half B for the cross route), as in estimate and in\n" +
		"fit's held-out tests (-bandwidth).\n" +
		"routes: cross (default: a studentised statistic between two halves, standard normal under H₀, no resampling),\n" +
		"wild (wild bootstrap of a V-statistic, -B draws), permutation (Z permuted within Y strata, -B draws; valid for\n" +
		"full, and for obs only when missingness does not depend on X).\n" +
		"methods: full, obs, ip, reg, dr, dr-po (default: dr; full when no Z is missing; obs for -route permutation)"
}

// runTest tests whether the model outputs h in a CSV (a column, or several: a
// representation) are independent of the nuisance Z given the label (owndata.Test), and
// prints each method's p-value.
func runTest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := owndata.DefaultTestConfig()
	fs := newFlags("test", "-data FILE.csv -outputs COL[,COL...] -y COL -z COL [-g COL] [-m COL] [-x COLS] [-methods ...] [-route cross|wild|permutation] [-B N] [-seeds S] [-bandwidth median|σ] [-unconditional] [-out FILE.csv]", stdout, stderr, testMore)
	return runTable(fs, &cfg, &cfg.EstimateConfig, map[string]string{"folds": foldsWant, "B": resamplesWant}, args, stdout, stderr, "p-values",
		func() error { return cfg.Validate() }, func() (*owndata.Tests, error) { return owndata.Test(ctx, cfg) })
}
