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
	cfg := owndata.AuditConfig{Estimators: fairness.Estimators(), Gammas: fairness.DefaultGammas()}
	fs := newFlags("audit", "-data FILE.csv -y COL -z COL[,COL...] (-decisions COL | -outputs COL -threshold T) [-x COLS] [-out DIR]", stdout, stderr, auditMore)
	o := ownFlagsOf(fs, &cfg)
	out := fs.String("out", "", "write audit.csv, audit.md, sensitivity.csv and audit.png into this new folder (refused if it exists, unless -force)")
	force := fs.Bool("force", false, "replace the -out folder if it exists")
	if err := o.parse(args); err != nil {
		return err
	}
	given := givenFlags(fs, args)
	switch {
	case given["threshold"] && cfg.Decisions != "":
		return fmt.Errorf("-threshold decides scores (-outputs); -decisions %s are decisions already", cfg.Decisions)
	case cfg.H != "" && given["threshold"] == (cfg.Rate != ""):
		return fmt.Errorf("-outputs %s: name -threshold T, the score at or above which a row is selected (e.g. 0.5 for a probability), or -rate (e.g. prevalence), not both", cfg.H)
	}
	cfg.Names = o.names
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
		return ownError(o.names, err, "", "")
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
