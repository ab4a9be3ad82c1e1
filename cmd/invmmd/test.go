package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/invmmd/invmmd/invmmd"
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
	o := &ownCommand{fs: fs, stderr: stderr}
	o.columns(&cfg.Columns, "comma-separated feature columns on which G and m are fitted (cross-fitted, -folds) when -g or -m is not given (default: none)")
	o.auxNets(&cfg.Nets, "(cross-fitted, -folds) when -g or -m is not given")
	fs.Var(intValue{&cfg.Folds}, "folds", fmt.Sprintf("`K` folds on which G and m are cross-fitted (1 to %d; 1: fitted on half B, half A tested); with fewer than %d the p-values of the methods reading G or m are marked unreliable: the calibration study found dr's test rejecting a true H₀ too often then", owndata.MaxFolds, owndata.DefaultFolds))
	var minESS float64
	fs.Var(floatValue{&minESS}, "min-ess", "no effect on test, whose p-values flag strata by their rows with a pseudo-outcome (fewer than 20), not by an effective sample size `ess`; kept for this release")
	fs.StringVar(&cfg.H, "outputs", cfg.H, "column of model outputs h (a logit, a score), or comma-separated columns of one representation (cross route only) (required)")
	alias(fs, "h", stderr)
	fs.StringVar(&cfg.G, "g", cfg.G, "column of P(Δ = 1 | X, Y) fitted on rows other than these, > 0 on every row whose Z is observed (default: cross-fit an MLP on -x)")
	fs.StringVar(&cfg.M, "m", cfg.M, "column of P(Z = 1 | X, Y) fitted on rows other than these (default: cross-fit an MLP on -x)")
	methods := fs.String("methods", "", "comma-separated methods whose pseudo-outcome of Z is tested (default: see above)")
	route := fs.String("route", cfg.Route.String(), "null distribution: cross, wild or permutation (see above)")
	fs.Var(intValue{&cfg.Resamples}, "B", fmt.Sprintf("`N` draws of the wild bootstrap or the permutation test (%d to %d)", invmmd.MinResamples, invmmd.MaxResamples))
	fs.Var(uintValue{&cfg.Seed}, "seeds", "`seed` of the halves and the draws (one)")
	alias(fs, "seed", stderr)
	fs.BoolVar(&cfg.Unconditional, "unconditional", cfg.Unconditional, "test h ⊥ Z over all rows instead of h ⊥ Z | Y")
	fs.BoolVar(&cfg.Exact, "exact", false, "kernel sums on every pair of rows, the O(n²) reference (default: exact up to 2^24 pairs per stratum, linear in the rows beyond; the output names the path and its error bound)")
	o.bandwidth("Gaussian kernel bandwidth σ on h, or median (the median heuristic on h: of half B for the cross route)")
	out := fs.String("out", "", "also write one row per method to this CSV file: method,statistic,p_value,unreliable (refused if it exists unless -force, or is the -data file)")
	alias(fs, "csv", stderr)
	force := fs.Bool("force", false, "replace the -out file if it exists")
	if err := o.parse(args, &cfg.Columns, &cfg.Nets, &cfg.Bandwidth, &cfg.Median); err != nil {
		return err
	}
	if err := refuseZero(fs, map[string]string{"folds": foldsWant, "B": resamplesWant}); err != nil {
		return err
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "min-ess" {
			fmt.Fprintln(stderr, "warning: -min-ess has no effect on test; it will be removed in the next release")
		}
	})
	var err error
	if *methods != "" {
		if cfg.Methods, err = parseMethods(*methods); err != nil {
			return err
		}
	}
	if cfg.Route, err = invmmd.ParseTestRoute(*route); err != nil {
		return fmt.Errorf("-route: %w", err)
	}
	if err := cfg.Validate(); err != nil { // -B, -route with -methods: before the table is read
		return ownError(err, "", "")
	}
	if err := checkOutFile(*out, cfg.Data, *force); err != nil {
		return err
	}
	release, err := lockOutFile(*out, "test", args, stderr)
	if err != nil {
		return err
	}
	defer release()
	cfg.Log, cfg.Warn = stdout, stderr
	err = printTable(*out, *force, stdout, func() (*owndata.Tests, error) { return owndata.Test(ctx, cfg) })
	return ownError(err, "nothing was written (the p-values are written when they are done)", rerunLine("test", args))
}
