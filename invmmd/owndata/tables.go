package owndata

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/results"

	"github.com/invmmd/invmmd/invmmd/method"
)

// The files invmmd fit writes: where the models go, the results table (results.md,
// results.csv), the description of what it was fitted on and the configuration record.

// Markdown renders the results table (results.md), with a line saying the held-out MMD²'s
// estimand and scale (Row.Scale) when the rows record it.
func Markdown(rows []Row) string {
	var b strings.Builder
	b.WriteString("| method | seed | test acc | test AUC | val acc | held-out MMD² dr ± SE | p dr | held-out MMD² ip ± SE | unreliable strata (held-out) | strata dropped in training | h's training |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		u, st := cmp.Or(r.Unreliable, "none"), cmp.Or(r.HStop.String(), "not recorded")
		held := func(v, se float64, bad bool) string {
			if bad {
				return fmt.Sprintf("IMPOSSIBLE (%.4g ± %.4g)", v, se)
			}
			if r.HeldOutFull {
				return fmt.Sprintf("%.4f ± %.4f (full)", v, se)
			}
			return fmt.Sprintf("%.4f ± %.4f", v, se)
		}
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %.3f | %s | %s | %s | %s | %d | %s |\n", r.Label(), r.Seed, r.TestAcc, r.TestAUC, r.ValAcc,
			held(r.DR, r.DRSE, r.DRImpossible), r.PDR, held(r.IP, r.IPSE, r.IPImpossible), u, r.Dropped, st)
	}
	if len(rows) > 0 && rows[0].Scale != "" {
		fmt.Fprintf(&b, "\nheld-out MMD²: %s\n", rows[0].Scale)
	}
	if len(rows) > 0 && rows[0].HeldOutFull {
		fmt.Fprintf(&b, "(full): %s\n", heldOutFullNote)
	}
	return b.String()
}

// writeConfig writes config.json: the settings, the methods, seeds and command line, the
// split sizes, the majority baseline, the encoded inputs and G and m's reports.
func (r *Result) writeConfig(p *Plan) error {
	cfg := p.Config
	sp := r.Data.Splits
	data := map[string]any{"rows": r.Data.Table.Len(), "train": sp.Train.Len(), "val": sp.Val.Len(), "test": sp.Test.Len(),
		"majority_baseline": r.Majority, "inputs": r.Data.Encoder.Names()}
	if c := r.Data.Classes; len(c) > 2 {
		data["classes"], data["num_classes"] = c, len(c)
	}
	if r.Aux != nil {
		// Without the seconds each took, so that a rerun writes the same config.json.
		g, m := r.Aux.G, r.Aux.M
		g.Seconds, m.Seconds = 0, 0
		data["aux"] = map[string]any{"G": g.String(), "m": m.String()}
		data["aux_stop"] = map[string]Stop{"G": r.AuxFit.GStop, "m": r.AuxFit.MStop}
	}
	rec := configRecord{Format: outputFormat, Settings: settingsOf(cfg, p.hash), Methods: method.List(cfg.Methods), Seeds: cfg.Seeds, Args: cfg.Args, Data: data}
	return results.WriteJSON(filepath.Join(cfg.Out, ConfigFile), rec)
}

// Describe says in a few lines what the results table was fitted on: the data file, the
// columns, λ, the split sizes and the majority baseline; results.md starts with it.
func (r *Result) Describe(cfg Config) string {
	var b strings.Builder
	sp := r.Data.Splits
	pos := func(col, p string) string {
		if p == "" {
			return col
		}
		return fmt.Sprintf("%s (%s = 1)", col, p)
	}
	split := fmt.Sprintf("a random split seeded by %d", cfg.Seeds[0])
	if cfg.Split != "" {
		split = "column " + cfg.Split
	}
	fmt.Fprintf(&b, "# invmmd fit: %s\n\n", cfg.Data)
	fmt.Fprintf(&b, "- label %s, nuisance %s, %d inputs from %d feature columns\n", pos(cfg.Y, cfg.YPositive), pos(cfg.Z, cfg.ZPositive), r.Data.Encoder.Dim(), len(r.Data.Encoder.Features))
	if c := r.Data.Classes; len(c) > 2 {
		fmt.Fprintf(&b, "- label %s of %d classes: %s; accuracy is of the most probable class, AUC the macro-AUC (the mean over the classes of each one-vs-rest AUC)\n", cfg.Y, len(c), strings.Join(c, ", "))
	}
	fmt.Fprintf(&b, "- rows: %d training, %d validation, %d test (%s)\n", sp.Train.Len(), sp.Val.Len(), sp.Test.Len(), split)
	fmt.Fprintf(&b, "- λ = %s; methods %s; seeds %v; MLP %v, at most %d epochs with patience %d (G and m: at most %d, patience %d; 0: no early stopping)\n",
		lambdaText(cfg), method.List(cfg.Methods), cfg.Seeds, cfg.Hidden, cfg.Epochs, cfg.Patience, cfg.AuxEpochs, cfg.AuxPatience)
	if r.Aux != nil && r.AuxFit.Observed {
		fmt.Fprintf(&b, "- G and m: %s\n", ObservedNote)
	} else if r.Aux != nil {
		fmt.Fprintf(&b, "- G: %s; m: %s\n", r.AuxFit.GStop, r.AuxFit.MStop)
	}
	common := "the more common label"
	if len(r.Data.Classes) > 2 {
		common = "the most common class"
	}
	fmt.Fprintf(&b, "- majority baseline on test: %.3f (always predicting %s)\n", r.Majority, common)
	kernel := "σ by the median heuristic on h (each model's test outputs)"
	if !cfg.Median {
		kernel = fmt.Sprintf("σ = %g", cfg.Bandwidth)
	}
	fmt.Fprintf(&b, "- held-out MMD² and tests on the test split, Gaussian kernel on h with %s; terms and diagnostics in %s\n", kernel, HeldOutFile)
	return b.String()
}

// write rewrites results.md, heldout.txt and results.csv under cfg.Out with the rows so
// far, each atomically.
func (r *Result) write(p *Plan) error {
	cfg := p.Config
	md := r.Describe(cfg) + "\n" + Markdown(r.Rows)
	for name, body := range map[string]string{ResultsMD: md, HeldOutFile: r.HeldOut} {
		if err := results.WriteFile(filepath.Join(cfg.Out, name), func(w io.Writer) error {
			_, err := io.WriteString(w, body)
			return err
		}); err != nil {
			return err
		}
	}
	return writeCSV(filepath.Join(cfg.Out, ResultsCSV), r.Rows)
}

// writeCSV writes the results table as CSV (results.csv), numbers with 8 significant digits.
// The held-out p-value of dr's test comes after the first twelve columns, and how h's training ended
// (h_best_epoch, h_stop_epoch, h_max_epochs, h_stop_reason: "patience" or "max-epochs")
// after them, then mmd2_scale (Row.Scale: the estimand and scale of the held-out MMD²,
// e.g. the joint MMD² unscaled) and heldout_full (true: no test row has Z missing, so the
// held-out dr and ip columns hold full's estimate, Row.HeldOutFull), so that a reader of the earlier columns reads a file with or without the
// later ones alike.
func writeCSV(path string, rows []Row) error {
	return results.WriteFile(path, func(f io.Writer) error {
		header := []string{"method", "seed", "test_acc", "test_auc", "val_acc", "heldout_mmd_dr", "heldout_mmd_dr_se", "heldout_mmd_ip", "heldout_mmd_ip_se", "unreliable", "dropped_strata", "warning",
			"heldout_p_dr", "h_best_epoch", "h_stop_epoch", "h_max_epochs", "h_stop_reason", "mmd2_scale", "heldout_full"}
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
		p := func(v PValue) string { // empty when the test failed, or the row predates the tests
			if v.OK {
				return g(v.P)
			}
			return ""
		}
		epoch := func(n int, s Stop) string { // empty when the row predates the record
			if s.Reason == "" {
				return ""
			}
			return strconv.Itoa(n)
		}
		full := func(r Row) string { // empty when the row predates the record
			switch {
			case r.HeldOutFull:
				return "true"
			case r.Scale != "":
				return "false"
			}
			return ""
		}
		return results.WriteRecords(f, header, rows, func(r Row) []string {
			s := r.HStop
			return []string{r.Label(), strconv.FormatUint(r.Seed, 10), g(r.TestAcc), g(r.TestAUC), g(r.ValAcc), g(r.DR), g(r.DRSE), g(r.IP), g(r.IPSE), r.Unreliable, strconv.Itoa(r.Dropped), r.Warning,
				p(r.PDR), epoch(s.BestEpoch, s), epoch(s.StopEpoch, s), epoch(s.MaxEpochs, s), string(s.Reason), r.Scale, full(r)}
		})
	})
}
