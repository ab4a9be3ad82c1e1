package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
)

// runMerge assembles the tables, Markdown and figures of every experiment (or those
// named) from the per-fit result files under OUT/fits, e.g. after the shards of a Slurm
// job array. It refuses, listing them, when fits are missing or were made with another
// configuration.
func runMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", "-out DIR [-experiments sim,tmnist,...]", stdout, stderr, func() string {
		return "Reads OUT/fits/EXPERIMENT/*.json (written by invmmd EXPERIMENT -out OUT, whole or with -shard i/n)\nand writes OUT/tables and the figures in OUT, as a whole run does."
	})
	out := fs.String("out", "", "the results folder of the runs (required)")
	only := fs.String("experiments", "", "comma-separated experiments to merge (default: every one with results under OUT/fits)")
	force := fs.Bool("force", false, "replace tables under OUT/tables even when they were made with another configuration or hold fits the stored sweep leaves out")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("merge: -out DIR is required (the folder the runs or shards wrote to)")
	}
	names, err := store.Experiments(*out)
	if err != nil {
		return err
	}
	if *only != "" {
		have := map[string]bool{}
		for _, n := range names {
			have[n] = true
		}
		names = nil
		for _, n := range strings.Split(*only, ",") {
			n = strings.TrimSpace(n)
			if !have[n] {
				return fmt.Errorf("merge: no results of %q under %s", n, store.Dir(*out, n))
			}
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("merge: no results under %s/fits: run an experiment (or its shards) with -out %s first", *out, *out)
	}
	for _, n := range names {
		if n == "variance" {
			res, err := experiments.MergeVariance(*out, filepath.Join(*out, "tables"))
			if err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			base, err := drawVariance(res.Points, *out)
			if err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			fmt.Fprintf(stdout, "variance: wrote %s, %s.png, %s.svg\n", strings.Join(res.Files, ", "), base, base)
			continue
		}
		exp, ok := experiments.Describe(n)
		if !ok {
			return fmt.Errorf("merge: %s: unknown experiment %q", store.Dir(*out, n), n)
		}
		if err := publish(exp, *out, *force, stdout); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	return nil
}
