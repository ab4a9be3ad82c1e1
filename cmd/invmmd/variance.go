package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/method"
)

// runVariance runs the variance study (or a shard of it), refusing first a quick run into
// figures/ and a table of other settings (guardStudy); once ctx is done it stops, keeping
// the finished batch sizes' files, and says how to go on.
func runVariance(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("variance", "[flags]", stdout, stderr, func() string {
		return "estimators: " + method.List(experiments.VariancePaper().Methods)
	})
	quick := fs.Bool("quick", false, "7 batch sizes × 30 batches and a small training run; writes to "+quickOut()+" unless -out is given")
	out := fs.String("out", "", "output folder: the table goes to OUT/tables, the figure to OUT (default figures/, or "+quickOut()+" with -quick)")
	batches, seed := new(int), new(uint64)
	*seed = 1
	fs.Var(intValue{batches}, "batches", "`n` batches per size, at least 2 (0: 100, or 30 with -quick)")
	fs.Var(uintValue{seed}, "seeds", "the `seed` of the training run and of the batches (one: the study trains h once)")
	shardFlag := fs.String("shard", "", "i/n: estimate only the i-th of n slices of the batch sizes and write their result files under OUT/fits/variance; then invmmd merge -out OUT")
	resume := fs.Bool("resume", false, "skip batch sizes whose result file exists under OUT/fits/variance (same configuration)")
	checkOnly := fs.Bool("check", false, "check the flags, the output folder and the configuration stored there, then exit without computing or writing anything")
	force := fs.Bool("force", false, "replace OUT/tables/variance.csv even when it was made with other settings, and let -quick write into the repository's figures/")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *batches < 0 || *batches == 1 {
		return fmt.Errorf("-batches %d: want at least 2 (a standard deviation needs two), or 0 for the default", *batches)
	}
	cfg := experiments.VariancePaper()
	if *quick {
		cfg = experiments.VarianceQuick()
	}
	if *batches > 0 {
		cfg.Batches = *batches
	}
	if *shardFlag != "" {
		var err error
		if cfg.Shard, err = store.ParseShard(*shardFlag); err != nil {
			return fmt.Errorf("-shard: %w", err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	dir, err := outFor(*out, *quick, *force)
	if err != nil {
		return err
	}
	cfg.Seed, cfg.Resume, cfg.StoreDir = *seed, *resume, dir
	if err := guardStudy(dir, "variance", varianceSettings(cfg), *force || cfg.Shard.N > 1); err != nil {
		return err
	}
	if *checkOnly {
		if err := experiments.CheckVariance(cfg); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "variance: %d batch sizes; results under %s\n", len(cfg.Sizes), dir)
		return nil
	}
	if err := prepareOut(dir); err != nil {
		return err
	}
	cfg.TableDir = filepath.Join(dir, "tables")
	cfg.Progress = stderr
	kept := "every finished batch size is kept under " + store.Dir(dir, "variance")
	if cfg.Shard.N > 1 {
		cfg.TableDir = ""
	}
	res, err := runUntilDone(ctx, "variance", args, kept, func() (*experiments.VarianceOutcome, error) {
		return experiments.Variance(ctx, cfg)
	})
	if err != nil {
		return err
	}
	if cfg.Shard.N > 1 {
		fmt.Fprintf(stdout, "variance shard %v: done in %.0f s, written to %s. When every shard is done: invmmd merge -out %s\n",
			cfg.Shard, res.Seconds, store.Dir(dir, "variance"), dir)
		return nil
	}
	base := filepath.Join(dir, "variance")
	if err := (drawer{}).Variance(base, res.Points); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "variance study: %d sizes × %d batches × %d estimators in %.1f s (estimators %.1f s, training %.1f s, pool of %d rows)\n",
		len(cfg.Sizes), cfg.Batches, len(cfg.Methods), res.Seconds, res.EstimateSeconds, res.TrainSeconds, res.PoolRows)
	last := cfg.Sizes[len(cfg.Sizes)-1]
	for _, p := range res.Points {
		if p.BatchSize == last || p.BatchSize == cfg.Sizes[0] {
			fmt.Fprintf(stdout, "  %-6s n=%-5d mean %.4f  sd %.4f  median %.4f  IQR %.4f  (empty strata %d, floored normalisers %d)\n",
				p.Estimator, p.BatchSize, p.Mean, p.Std, p.Median, p.IQR(), p.Empty, p.Floored)
		}
	}
	fmt.Fprintf(stdout, "Wrote %s, %s.png, %s.svg\n", strings.Join(res.Files, ", "), base, base)
	return nil
}

// varianceSettings returns the settings of the study that its table's record
// (tables/variance_config.json) holds, by the record's field names, for guardStudy.
func varianceSettings(cfg experiments.VarianceConfig) map[string]any {
	methods := strings.Split(method.List(cfg.Methods), ",") // by name, as the record holds them (Validate: not empty)
	return map[string]any{"Sizes": cfg.Sizes, "Batches": cfg.Batches, "Seed": cfg.Seed, "Data": cfg.Data, "Methods": methods, "Backend": backend.Config()}
}
