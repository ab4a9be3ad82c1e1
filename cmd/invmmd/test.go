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
		"G and m are fitted on -x of a random half B of the rows (half of each (Y, Δ) cell, by -seed; 80% of B to fit,\n" +
		"the other 20% held out to stop their training, -aux-patience); the cross route then sums its statistic over\n" +
		"the other half A, and the wild and permutation routes test half A only.\n\n" +
		"routes: cross (default: a studentised statistic between two halves, standard normal under H₀, no resampling),\n" +
		"wild (wild bootstrap of a V-statistic, -B draws), permutation (Z permuted within Y strata, -B draws; valid for\n" +
		"full, and for obs only when missingness does not depend on X).\n" +
		"methods: full, obs, ip, reg, dr, dr-po (default: dr,ip,reg; full when no Z is missing; obs for -route permutation)"
}

// runTest tests whether the model outputs h in a CSV (a column, or several: a
// representation) are independent of the
// nuisance Z given the label (owndata.Test), and prints each method's p-value.
func runTest(_ context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := owndata.DefaultTestConfig()
	fs := newFlags("test", "-data FILE.csv -h COL[,COL...] -y COL -z COL [-g COL] [-m COL] [-x COLS] [-methods ...] [-route cross|wild|permutation] [-B N] [-seed S] [-bandwidth σ|median] [-unconditional] [-csv FILE]", stdout, stderr, testMore)
	var tf tableFlags
	var nf netFlags
	tf.register(fs, &cfg.Columns, "comma-separated feature columns on which G and m are fitted (on half B) when -g or -m is not given (default: none)")
	nf.register(fs, &cfg.Nets, false)
	fs.StringVar(&cfg.H, "h", cfg.H, "column of model outputs h (logits or scores), or comma-separated columns of one representation (cross route only) (required; -h alone, or -help, shows this help)")
	fs.StringVar(&cfg.G, "g", cfg.G, "column of P(Δ = 1 | X, Y) fitted on rows other than these (default: fit an MLP on -x of half B)")
	fs.StringVar(&cfg.M, "m", cfg.M, "column of P(Z = 1 | X, Y) fitted on rows other than these (default: fit an MLP on -x of half B)")
	methods := fs.String("methods", "", "comma-separated methods whose pseudo-outcome of Z is tested (default: see above)")
	route := fs.String("route", cfg.Route.String(), "null distribution: cross, wild or permutation (see above)")
	fs.IntVar(&cfg.Resamples, "B", cfg.Resamples, fmt.Sprintf("draws of the wild bootstrap or the permutation test (at least %d)", invmmd.MinResamples))
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the halves and the draws")
	fs.BoolVar(&cfg.Unconditional, "unconditional", cfg.Unconditional, "test h ⊥ Z over all rows instead of h ⊥ Z | Y")
	bw := fs.String("bandwidth", "median", "Gaussian kernel bandwidth σ on h, or median (the median heuristic on h: of half B for the cross route)")
	csvOut := fs.String("csv", "", "also write one row per method to this CSV file: method,statistic,p_value,unreliable (refused if it exists, or is the -data file)")
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--h") {
		// -h names the model-output column here; alone it still asks for help, as for
		// every command.
		fs.SetOutput(stdout)
		fs.Usage()
		return flag.ErrHelp
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := tf.check([2]string{"h", cfg.H}); err != nil {
		return err
	}
	var err error
	if *methods != "" {
		if cfg.Methods, err = parseMethods(*methods); err != nil {
			return err
		}
	}
	if cfg.Route, err = invmmd.ParseTestRoute(*route); err != nil {
		return fmt.Errorf("-route: %w", err)
	}
	if err := nf.parse(); err != nil {
		return err
	}
	if cfg.Bandwidth, cfg.Median, err = parseBandwidth(*bw); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil { // -B, -route with -methods: before the table is read
		return err
	}
	cfg.Log, cfg.Warn = stdout, stderr
	return printTable(*csvOut, cfg.Data, stdout, func() (*owndata.Tests, error) { return owndata.Test(cfg) })
}
