package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/tabular"
)

// runEstimate estimates, for a column of model outputs h in a CSV, the MMD² between
// p(h | Z = 1, Y = y) and p(h | Z = 0, Y = y) summed over y, by each requested estimator,
// with per-stratum terms and diagnostics.
func runEstimate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("estimate", "-data FILE.csv -h COL -y COL -z COL [-g COL] [-m COL] [-x COLS] [-methods ...] [-unconditional] [-bandwidth σ|median]", stderr, nil)
	var tf tableFlags
	var nf netFlags
	tf.register(fs)
	nf.register(fs)
	hCol := fs.String("h", "", "column of model outputs h (logits or scores) (required; -h alone, or -help, shows this help)")
	gCol := fs.String("g", "", "column of fitted P(Δ = 1 | X, Y) (default: fit an MLP on -x)")
	mCol := fs.String("m", "", "column of fitted P(Z = 1 | X, Y) (default: fit an MLP on -x)")
	methods := fs.String("methods", "obs,ip,reg,dr,dr-po", "comma-separated estimators (full only when no Z is missing)")
	uncond := fs.Bool("unconditional", false, "MMD² between p(h|Z=1) and p(h|Z=0) over all rows instead of Σ_y within Y strata")
	bw := fs.String("bandwidth", "1", "Gaussian kernel bandwidth σ, or median (the median heuristic on h)")
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--h") {
		// -h names the model-output column here (as the command line has it);
		// alone it still asks for help, as for every command.
		fs.Usage()
		return flag.ErrHelp
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := tf.check([2]string{"h", *hCol}); err != nil {
		return err
	}
	ms, err := parseMethods(*methods)
	if err != nil {
		return err
	}
	var needG, needM bool
	for _, m := range ms {
		if m == invmmd.None {
			return fmt.Errorf("method none has no estimate; name estimators such as obs, ip, reg, dr")
		}
		if m.NeedsTrueG() {
			return fmt.Errorf("method %v needs the true P(Δ = 1 | X, Y), which only a simulation knows; use %v with -g", m, strings.TrimSuffix(m.String(), "+"))
		}
		needG, needM = needG || m.NeedsG(), needM || m.NeedsM()
	}
	hidden, err := nf.widths()
	if err != nil {
		return err
	}
	var sigma float64
	if *bw != "median" {
		if sigma, err = strconv.ParseFloat(*bw, 64); err != nil || !(sigma > 0) {
			return fmt.Errorf("-bandwidth %q: want a number > 0 or median", *bw)
		}
	}
	x := tf.columns()
	fitG, fitM := needG && *gCol == "", needM && *mCol == ""
	if (fitG || fitM) && len(x) == 0 {
		which := "G = P(Δ = 1 | X, Y) (-g)"
		if !fitG {
			which = "m = P(Z = 1 | X, Y) (-m)"
		}
		return fmt.Errorf("methods %s need %s: give a column of fitted probabilities, or -x COLS to fit an MLP on (X, Y)", *methods, which)
	}
	cols := []string{*hCol, tf.y, tf.z}
	for _, c := range []string{*gCol, *mCol} {
		if c != "" {
			cols = append(cols, c)
		}
	}
	tab, err := readTable(tf.data, append(cols, x...), map[string]string{*hCol: "-h", tf.y: "-y", tf.z: "-z", *gCol: "-g", *mCol: "-m"})
	if err != nil {
		return err
	}
	y, z, delta, err := tab.LabelsAndNuisance(tf.y, tf.yPos, tf.z, tf.zPos)
	if err != nil {
		return err
	}
	rows := invmmd.Rows{Y: y, Z: z, Delta: delta}
	h, err := tab.Numbers(*hCol, "-h")
	if err != nil {
		return err
	}
	if *gCol != "" {
		if rows.G, err = tab.Probabilities(*gCol, "-g"); err != nil {
			return err
		}
	}
	if *mCol != "" {
		if rows.M, err = tab.Probabilities(*mCol, "-m"); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "%s: %d rows, %d with Z missing\n", tf.data, tab.Len(), rows.MissingZ())
	if fitG || fitM {
		spec := tabular.Spec{Y: tf.y, Z: tf.z, YPositive: tf.yPos, ZPositive: tf.zPos, X: x, ValFrac: 0.2, TestFrac: 0.1, Seed: nf.seedAux}
		d, err := tabular.Build(tab, spec)
		if err != nil {
			return err
		}
		warnAll(stderr, d.Warnings)
		fmt.Fprintf(stdout, "fitting G and m: MLP %v on the %d encoded inputs of -x and Y, on a random 70%% of the rows (20%% for early stopping)\n", hidden, d.Encoder.Dim())
		aux, err := fitAux(d.Splits, hidden, nf, stdout, stderr)
		if err != nil {
			return err
		}
		all := make([]int, tab.Len())
		for i := range all {
			all[i] = i
		}
		xs, _, err := d.Encoder.Encode(tab, all)
		if err != nil {
			return err
		}
		pred, err := aux.Predict(&dataset.Set{Name: "all", X: xs, Shape: []int{d.Encoder.Dim()}, Y: y, Z: z, Delta: delta})
		if err != nil {
			return err
		}
		if fitG {
			rows.G = pred.G
		}
		if fitM {
			rows.M = pred.M
		}
	}
	if *bw == "median" {
		if sigma, err = invmmd.MedianBandwidth(h); err != nil {
			return err
		}
	}
	opts := invmmd.Options{Bandwidth: sigma, MainFraction: 1, Unconditional: *uncond, MinESS: nf.minESS}
	res, err := invmmd.Estimate(h, rows, opts, ms...)
	if err != nil {
		return err
	}
	what := "Σ_y MMD²_y of h between Z = 1 and Z = 0 within each Y stratum"
	if *uncond {
		what = "MMD² of h between Z = 1 and Z = 0 over all rows"
	}
	fmt.Fprintf(stdout, "\n%s, Gaussian kernel σ = %.4g, every row in both the main terms and the normalisers\n\n", what, sigma)
	fmt.Fprintln(stdout, "| estimator | MMD² ± jackknife SE | per stratum | unreliable strata |")
	fmt.Fprintln(stdout, "|---|---|---|---|")
	for _, r := range res {
		var per []string
		for s, v := range r.Strata {
			per = append(per, fmt.Sprintf("%s: %.5g ± %.2g", r.Report.Strata[s].Name(), v, r.SE[s]))
		}
		u := "none"
		if l := r.Report.Unreliable(); len(l) > 0 {
			u = fmt.Sprintf("Y=%v", l)
		}
		fmt.Fprintf(stdout, "| %v | %.5g ± %.2g | %s | %s |\n", r.Method, r.Value, r.ValueSE, strings.Join(per, ", "), u)
	}
	fmt.Fprintln(stdout, "\nterms (MMD² = T11/N11 + T00/N00 − 2·T10/N10) and diagnostics:")
	for _, r := range res {
		fmt.Fprintf(stdout, "%s\n", r)
		for s, t := range r.Terms {
			if !t.Empty {
				fmt.Fprintf(stdout, "    %s: T11 %.5g  T00 %.5g  T10 %.5g  |  N11 %.5g  N00 %.5g  N10 %.5g\n", r.Report.Strata[s].Name(), t.T[1][1], t.T[0][0], t.T[1][0], t.N[1][1], t.N[0][0], t.N[1][0])
			}
		}
	}
	for _, r := range res {
		if len(r.Report.Unreliable()) > 0 {
			fmt.Fprintf(stderr, "warning: %v: strata Y=%v are unreliable (see the diagnostics); their terms rest on too few effective rows or a floored normaliser\n", r.Method, r.Report.Unreliable())
		}
	}
	return nil
}
