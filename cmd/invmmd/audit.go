package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/fairness"
	"github.com/invmmd/invmmd/invmmd/figures"
	"github.com/invmmd/invmmd/invmmd/owndata"
)

// auditMore is the text of audit -h between the usage line and the flags.
func auditMore() string {
	return "Audits a model's decisions for equalized odds (Ŷ ⊥ Z | Y) when the sensitive attribute Z is blank on some rows,\n" +
		"with Fairlearn's metric names: count, selection_rate, true/false positive and negative rates and accuracy by group;\n" +
		"differences and ratios between groups and to the overall value; demographic_parity_difference,\n" +
		"equal_opportunity_difference and equalized_odds_difference. Each is estimated four ways: complete_case (Fairlearn's\n" +
		"value after dropping the rows without Z), ip, reg and dr (doubly robust, AIPW), with G = P(Z observed | X, Y) and\n" +
		"m = P(Z | X, Y) fitted by logistic regressions cross-fitted on -folds folds. dr's intervals cover the complete data's\n" +
		"value when Z is missing at random given (X, Y); the report shows the bounds when it is not (-gammas).\n" +
		"The output of predict -keep-all is an input: -outputs probability -threshold 0.5."
}

// runAudit audits a CSV (owndata.Audit) and prints the report; with -out it writes
// audit.csv, audit.md, sensitivity.csv and audit.png into a new folder.
func runAudit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := owndata.AuditConfig{}
	fs := newFlags("audit", "-data FILE.csv -y COL -z COL[,COL...] (-decisions COL | -outputs COL -threshold T) [-x COLS] [-out DIR]", stdout, stderr, auditMore)
	fs.StringVar(&cfg.Data, "data", "", "CSV file with a header line (required)")
	fs.StringVar(&cfg.Y, "y", "", "label column, binary: 0/1, or two values with -y-positive (required)")
	fs.StringVar(&cfg.YPositive, "y-positive", "", "the label's value read as Y = 1, when the column is not 0/1")
	fs.StringVar(&cfg.Z, "z", "", "sensitive attribute column, blank (or NA) where unknown; several comma-separated are crossed into intersectional groups; "+
		"a numeric column of more than 10 values is binned at its observed quantiles (-bins) (required)")
	fs.StringVar(&cfg.Decisions, "decisions", "", "column of the model's 0/1 decisions (or -outputs with -threshold)")
	fs.StringVar(&cfg.DecisionsPositive, "decisions-positive", "", "the decision column's value read as selected (Ŷ = 1), when the column is not 0/1")
	fs.StringVar(&cfg.Outputs, "outputs", "", "column of the model's scores, decided by -threshold: Ŷ = 1 where score ≥ T")
	fs.Var(floatValue{&cfg.Threshold}, "threshold", "the score `T` at or above which a row is selected (with -outputs)")
	fs.StringVar(&cfg.Rate, "rate", "", "with -outputs instead of -threshold: select this share of rows by score, ties at random (seeded by -seed): prevalence (the label's share) or a number in (0, 1)")
	x := fs.String("x", "", "comma-separated feature columns on which G and m are fitted (default: every column but -y, -z, -decisions and -outputs)")
	fs.Var(intValue{&cfg.Bins}, "bins", "groups of a continuous attribute, at its observed values' quantiles (2 to 20; default 4)")
	fs.Var(floatValue{&cfg.Level}, "level", "confidence `level` of the intervals (default 0.95)")
	fs.Var(intValue{&cfg.Folds}, "folds", fmt.Sprintf("`K` folds on which G and m are cross-fitted (2 to %d; default %d)", owndata.MaxFolds, owndata.DefaultFolds))
	fs.Var(uintValue{&cfg.Seed}, "seed", "`seed` of the folds and of the simultaneous intervals' draws")
	fs.BoolVar(&cfg.ScoreTest, "score-test", false, "with -outputs, also estimate and test the scores' distribution, h ⊥ Z | Y, as invmmd estimate and test do (dr's MMD² with its SE, and its p-value; G and m fitted once by their MLPs: about 10 s at 5,000 rows)")
	ests := fs.String("estimators", "complete_case,ip,reg,dr", "comma-separated estimators to report")
	gammas := fs.String("gammas", "1,1.5,2,3,inf", "departures Γ from missingness at random for the sensitivity bounds (1: none; inf: no assumption)")
	out := fs.String("out", "", "write audit.csv, audit.md, sensitivity.csv and audit.png into this new folder (refused if it exists, unless -force)")
	force := fs.Bool("force", false, "replace the -out folder if it exists")
	if err := parse(fs, args); err != nil {
		return err
	}
	given := givenFlags(fs, args)
	switch {
	case given["threshold"] && cfg.Decisions != "":
		return fmt.Errorf("-threshold decides scores (-outputs); -decisions %s are decisions already", cfg.Decisions)
	case cfg.Outputs != "" && given["threshold"] == (cfg.Rate != ""):
		return fmt.Errorf("-outputs %s: name -threshold T, the score at or above which a row is selected (e.g. 0.5 for a probability), or -rate (e.g. prevalence), not both", cfg.Outputs)
	}
	cfg.Names = auditFlagNames
	if *x != "" {
		cfg.X = strings.Split(*x, ",")
	}
	var err error
	if cfg.Estimators, err = fairness.ParseEstimators(*ests); err != nil {
		return fmt.Errorf("-estimators: %w", err)
	}
	if cfg.Gammas, err = parseGammas(*gammas); err != nil {
		return fmt.Errorf("-gammas: %w", err)
	}
	if cfg.Data == "" {
		return fmt.Errorf("-data: name the CSV file")
	}
	if *out != "" {
		if err := checkReplaceable(*out, true); err != nil {
			return err
		}
	}
	if err := checkAuditOut(*out, cfg.Data, *force); err != nil {
		return err
	}
	cfg.Log, cfg.Warn = stderr, stderr
	rep, err := owndata.Audit(ctx, cfg)
	if err != nil {
		return ownError(err, "", "")
	}
	fmt.Fprint(stdout, rep.String())
	if *out == "" {
		return nil
	}
	if err := writeAudit(rep, *out); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	fmt.Fprintf(stdout, "\nwrote %s/{audit.csv,audit.md,sensitivity.csv,audit.png}\n", *out)
	return nil
}

// auditFlagNames names audit's settings by its flags in messages.
var auditFlagNames = map[string]string{"Data": "-data", "Y": "-y", "YPositive": "-y-positive", "Z": "-z", "X": "-x",
	"Decisions": "-decisions", "DecisionsPositive": "-decisions-positive", "Outputs": "-outputs", "Threshold": "-threshold", "Rate": "-rate", "Bins": "-bins", "Level": "-level", "Folds": "-folds", "Gammas": "-gammas", "ScoreTest": "-score-test"}

// parseGammas reads a comma-separated list of factors ≥ 1 (inf allowed).
func parseGammas(s string) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		g, err := strconv.ParseFloat(p, 64)
		if err != nil || !(g >= 1) || math.IsNaN(g) {
			return nil, fmt.Errorf("%q: want factors of 1 or more, or inf", p)
		}
		out = append(out, g)
	}
	return out, nil
}

// auditFiles are the files an audit's -out folder holds.
var auditFiles = []string{"audit.csv", "audit.md", "sensitivity.csv", "audit.png"}

// checkAuditOut checks -out before any work: a new folder, or with force a folder an earlier
// audit wrote (its files and nothing else), never the -data file's folder nor the current
// one, so that -force can only replace an audit.
func checkAuditOut(out, data string, force bool) error {
	if out == "" {
		return nil
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("-out %s: %w", out, err)
	}
	if wd, err := os.Getwd(); err == nil && (abs == wd || strings.HasPrefix(wd+string(filepath.Separator), abs+string(filepath.Separator))) {
		return fmt.Errorf("-out %s is the current folder or holds it: name a new folder for the audit's files", out)
	}
	if d, err := filepath.Abs(data); err == nil && strings.HasPrefix(d, abs+string(filepath.Separator)) {
		return fmt.Errorf("-out %s holds the -data file %s: name a new folder for the audit's files", out, data)
	}
	entries, err := os.ReadDir(out)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return fmt.Errorf("-out %s exists and is not a folder an audit wrote: name a new folder", out)
	case !force:
		return fmt.Errorf("-out %s exists: remove it, name another folder, or -force to replace the audit it holds", out)
	}
	for _, e := range entries {
		if !slices.Contains(auditFiles, e.Name()) {
			return fmt.Errorf("-out %s holds %s, which no audit writes: -force replaces only a folder of an earlier audit; name a new folder", out, e.Name())
		}
	}
	return nil
}

// writeAudit writes the report's files into a temporary folder beside dir, then puts it in
// dir's place, so that a folder there is replaced whole or not at all.
func writeAudit(rep *owndata.AuditReport, dir string) error {
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(dir)), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), "."+filepath.Base(dir)+".tmp*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	write := func(name string, fn func(io.Writer) error) error {
		f, err := os.Create(filepath.Join(tmp, name))
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if err := write("audit.csv", rep.WriteCSV); err != nil {
		return err
	}
	if err := write("sensitivity.csv", rep.WriteSensitivityCSV); err != nil {
		return err
	}
	if err := write("audit.md", func(w io.Writer) error { _, err := io.WriteString(w, rep.Markdown()); return err }); err != nil {
		return err
	}
	if err := figures.Audit(rep.Result, rep.Bounds, filepath.Join(tmp, "audit")); err != nil {
		return err
	}
	os.Remove(filepath.Join(tmp, "audit.svg"))
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}
