package main

import (
	"context"
	"flag"
	"io"
	"strconv"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/owndata"
)

// runEstimate estimates, for a column of model outputs h in a CSV (or several columns of
// one representation), the MMD² between p(h | Z = 1, Y = y) and p(h | Z = 0, Y = y) summed
// over the label's classes y, by each requested estimator, with per-stratum terms and
// diagnostics (owndata.Estimate).
func runEstimate(_ context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := owndata.DefaultEstimateConfig()
	fs := newFlags("estimate", "-data FILE.csv -h COL[,COL...] -y COL -z COL [-g COL] [-m COL] [-x COLS] [-methods ...] [-unconditional] [-bandwidth σ|median]", stdout, stderr, nil)
	var tf tableFlags
	var nf netFlags
	tf.register(fs, &cfg.Columns, "comma-separated feature columns on which G and m are fitted when -g or -m is not given, on a random 70% of the rows "+
		"with another 20% held out to stop their training (-aux-patience, -aux-epochs) (default: none)")
	nf.register(fs, &cfg.Nets, false)
	fs.StringVar(&cfg.H, "h", cfg.H, "column of model outputs h (logits or scores), or several comma-separated columns of one representation h ∈ ℝ^d, "+
		"the kernel on the Euclidean distance between rows; every row needs a number in each (required; -h alone, or -help, shows this help)")
	fs.StringVar(&cfg.G, "g", cfg.G, "column of fitted P(Δ = 1 | X, Y) (default: fit an MLP on -x)")
	fs.StringVar(&cfg.M, "m", cfg.M, "column of fitted P(Z = 1 | X, Y) (default: fit an MLP on -x)")
	methods := fs.String("methods", method.List(cfg.Methods), "comma-separated estimators (full only when no Z is missing)")
	fs.BoolVar(&cfg.Unconditional, "unconditional", cfg.Unconditional, "MMD² between p(h|Z=1) and p(h|Z=0) over all rows instead of Σ_y within Y strata")
	bw := fs.String("bandwidth", strconv.FormatFloat(cfg.Bandwidth, 'g', -1, 64), "Gaussian kernel bandwidth σ, or median (the median heuristic on h: the median distance between rows of h, of any width)")
	csvOut := fs.String("csv", "", "also write one row per estimator to this CSV file: method,value,se,unreliable (refused if it exists, or is the -data file)")
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
	if cfg.Methods, err = parseMethods(*methods); err != nil {
		return err
	}
	if err := nf.parse(); err != nil {
		return err
	}
	if cfg.Bandwidth, cfg.Median, err = parseBandwidth(*bw); err != nil {
		return err
	}
	cfg.Log, cfg.Warn = stdout, stderr
	return printTable(*csvOut, cfg.Data, stdout, func() (*owndata.Estimates, error) { return owndata.Estimate(cfg) })
}
