package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/invmmd/invmmd/invmmd/fairstudy"
	"github.com/invmmd/invmmd/invmmd/figures"
)

// runAuditStudy runs the fairness audit's validation study (package fairstudy) and writes
// figures/tables/audit_validation.{csv,md}.
func runAuditStudy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("auditstudy", "[-replicates 400] [-sizes 1000,4000] [-out figures/tables]", stdout, stderr, func() string {
		return "The fairness audit's validation study: on public tables whose attribute is complete (data/fairness), the attribute is hidden\n" +
			"at random given (X, Y), or more often for one group (Γ = 2), and each estimator's intervals are scored against the complete\n" +
			"data's values over the replicates. Writes audit_validation.csv and audit_validation.md into -out."
	})
	reps := fs.Int("replicates", 400, "replicates per cell")
	sizes := fs.String("sizes", "1000,4000", "comma-separated numbers of rows drawn per replicate")
	out := fs.String("out", "figures/tables", "folder of the tables")
	seed := fs.Uint64("seed", 1, "seed of the draws")
	mpls := fs.Bool("case", false, "run the real case instead: the Minneapolis stops' model audited across race (audit_mplsstops.{csv,md} into -out, audit_mplsstops.png beside it)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *mpls {
		return runMplsCase(ctx, *out, *seed, stdout)
	}
	ns, err := parseInts(*sizes)
	if err != nil {
		return fmt.Errorf("-sizes: %w", err)
	}
	if *reps < 2 {
		return fmt.Errorf("-replicates %d: want 2 or more", *reps)
	}
	var rows []fairstudy.Row
	for _, t := range fairstudy.Tables() {
		for _, n := range ns {
			for _, mnar := range []float64{0, math.Log(2)} {
				c := fairstudy.Cell{Table: t, N: n, MNAR: mnar, Replicates: *reps, Seed: *seed}
				start := time.Now()
				r, err := fairstudy.Run(ctx, c, ".", runtime.GOMAXPROCS(0))
				if err != nil {
					return err
				}
				fmt.Fprintf(stderr, "auditstudy: %s n=%d %s: %d replicates in %.0f s\n", t.Name, n, c.Missingness(), *reps, time.Since(start).Seconds())
				rows = append(rows, r...)
			}
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(*out, "audit_validation.csv"))
	if err != nil {
		return err
	}
	if err := fairstudy.WriteCSV(f, rows); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	md := fairstudy.Markdown(rows, 0.95)
	fmt.Fprint(stdout, md)
	return os.WriteFile(filepath.Join(*out, "audit_validation.md"), []byte(md), 0o644)
}

// parseInts reads a comma-separated list of positive whole numbers.
func parseInts(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%q: want positive whole numbers", p)
		}
		out = append(out, v)
	}
	return out, nil
}

// runMplsCase audits the Minneapolis stops' model (fairstudy.MplsStops) and writes its
// report and figure.
func runMplsCase(ctx context.Context, out string, seed uint64, stdout io.Writer) error {
	rep, err := fairstudy.MplsStops(ctx, ".", seed)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, rep.String())
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(out, "audit_mplsstops.csv"))
	if err != nil {
		return err
	}
	if err := rep.WriteCSV(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "audit_mplsstops.md"), []byte(rep.Markdown()), 0o644); err != nil {
		return err
	}
	base := filepath.Join(filepath.Dir(filepath.Clean(out)), "audit_mplsstops")
	if err := figures.Audit(rep.Result, rep.Bounds, base); err != nil {
		return err
	}
	return os.Remove(base + ".svg")
}
