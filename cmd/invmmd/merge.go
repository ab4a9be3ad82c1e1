package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
)

// runMerge assembles the tables and figures of every study's results under OUT/fits (or
// those named), each by its study's Merge, e.g. after the shards of a Slurm job array.
func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
		stored := names
		names = nil
		for _, n := range strings.Split(*only, ",") {
			if n = strings.TrimSpace(n); !slices.Contains(stored, n) {
				return noResults(*out, n, stored)
			}
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("merge: no results under %s/fits: run an experiment (or its shards) with -out %s first", *out, *out)
	}
	for _, n := range names {
		s, ok := studies.Owner(n)
		if !ok {
			return fmt.Errorf("merge: %s: unknown experiment %q", store.Dir(*out, n), n)
		}
		if _, err := s.Merge(ctx, mergeArgs(*out, *force, stdout), n); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	return nil
}

// mergeArgs are what a study's Merge reads: the folder, the drawer and, unless force, the
// guard that refuses to replace tables of another configuration (guardTables).
func mergeArgs(out string, force bool, stdout io.Writer) experiments.MergeArgs {
	return experiments.MergeArgs{Out: out, Draw: drawer{}, Stdout: stdout,
		Check: func(sw store.Sweep) error { return guardTables(out, sw, force) }}
}

// noResults is merge's error for -experiments naming n, which has no results under
// out/fits: it says which results are there and, when n is no study's, which there are.
func noResults(out, n string, stored []string) error {
	there := "there are none"
	if len(stored) > 0 {
		there = "the results there are of " + strings.Join(stored, ", ")
	}
	msg := fmt.Sprintf("merge: -experiments %s: no results of %q under %s (%s)", n, n, filepath.Join(out, "fits"), there)
	if _, ok := studies.Owner(n); !ok {
		var steps []string
		for _, st := range studies.MainJob(false) {
			steps = append(steps, st.Name)
		}
		msg += fmt.Sprintf("; %q is no experiment's name: the main job stores its results as %s (other variants of an experiment, e.g. -objective robust, under their own names)",
			n, strings.Join(steps, ", "))
	}
	return errors.New(msg)
}
