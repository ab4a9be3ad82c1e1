package main

import (
	"context"
	"fmt"
	"io"

	"github.com/invmmd/invmmd/invmmd/method"
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
	o := &ownCommand{fs: fs, stderr: stderr}
	o.columns(&cfg.Columns, "comma-separated feature columns on which G and m are fitted when -g or -m is not given: cross-fitted on -folds folds, "+
		"each fit with a fifth of its rows held out to stop its training (-aux-patience, -aux-epochs) (default: none)")
	o.auxNets(&cfg.Nets, "(cross-fitted, -folds) when -g or -m is not given")
	fs.Var(intValue{&cfg.Folds}, "folds", fmt.Sprintf("`K` folds on which G and m are cross-fitted, each row's Ĝ and m̂ from the models fitted on the other folds (1 to %d; 1: fitted on a random half, the other half estimated); with fewer than %d the standard errors of the methods reading G or m are withheld: the calibration study found G and m fitted on half the rows too rough for them", owndata.MaxFolds, owndata.DefaultFolds))
	fs.Var(floatValue{&cfg.MinESS}, "min-ess", "Kish effective sample size `ess` under which a stratum is flagged unreliable")
	fs.StringVar(&cfg.H, "outputs", cfg.H, "column of model outputs h (a logit, a score), or several comma-separated columns of one representation h ∈ ℝ^d, "+
		"the kernel on the Euclidean distance between rows; every row needs a number in each (required)")
	alias(fs, "h", stderr)
	fs.StringVar(&cfg.G, "g", cfg.G, "column of fitted P(Δ = 1 | X, Y), > 0 on every row whose Z is observed (default: cross-fit an MLP on -x)")
	fs.StringVar(&cfg.M, "m", cfg.M, "column of fitted P(Z = 1 | X, Y) of a binary Z (default: cross-fit an MLP on -x)")
	methods := fs.String("methods", method.List(cfg.Methods), "comma-separated estimators (full only when no Z is missing)")
	fs.BoolVar(&cfg.Unconditional, "unconditional", cfg.Unconditional, "MMD² between p(h|Z=1) and p(h|Z=0) over all rows instead of Σ_y within Y strata")
	fs.BoolVar(&cfg.Exact, "exact", false, "kernel sums on every pair of rows, the O(n²) reference (default: exact up to 2^24 pairs per stratum, linear in the rows beyond; the output names the path and its error bound)")
	o.bandwidth("Gaussian kernel bandwidth σ on h, or median (the median heuristic on h: the median distance between rows of h, of any width)")
	out := fs.String("out", "", "also write one row per estimator to this CSV file: method,value,se,unreliable,impossible,mmd2_scale (refused if it exists unless -force, or is the -data file)")
	alias(fs, "csv", stderr)
	force := fs.Bool("force", false, "replace the -out file if it exists")
	if err := o.parse(args, &cfg.Columns, &cfg.Nets, &cfg.Bandwidth, &cfg.Median); err != nil {
		return err
	}
	if err := refuseZero(fs, map[string]string{"folds": foldsWant}); err != nil {
		return err
	}
	var err error
	if cfg.Methods, err = parseMethods(*methods); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return ownError(err, "", "")
	}
	if err := checkOutFile(*out, cfg.Data, *force); err != nil {
		return err
	}
	release, err := lockOutFile(*out, "estimate", args, stderr)
	if err != nil {
		return err
	}
	defer release()
	cfg.Log, cfg.Warn = stdout, stderr
	err = printTable(*out, *force, stdout, func() (*owndata.Estimates, error) { return owndata.Estimate(ctx, cfg) })
	return ownError(err, "nothing was written (the estimates are written when they are done)", rerunLine("estimate", args))
}
