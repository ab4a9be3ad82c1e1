package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// runFigures redraws every study's figures (its Figures) from the tables under OUT/tables,
// without training; a results table that no study stores is skipped with a note.
func runFigures(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("figures", "[-out DIR]", stdout, stderr, nil)
	out := fs.String("out", "figures", "folder holding tables/ (read) and the figures (written)")
	if err := parse(fs, args); err != nil {
		return err
	}
	paths, err := filepath.Glob(filepath.Join(*out, "tables", "*_lambda*.csv"))
	if err != nil {
		return err
	}
	for _, p := range paths {
		name, _, _ := strings.Cut(strings.TrimSuffix(filepath.Base(p), ".csv"), "_lambda")
		if _, ok := studies.Owner(name); !ok && !strings.HasPrefix(filepath.Base(p), "diagnosis_") {
			fmt.Fprintf(stderr, "invmmd figures: skipping %s (unknown experiment %q)\n", p, name)
		}
	}
	var files []string
	for _, s := range studies {
		if s.Figures == nil {
			continue
		}
		f, err := s.Figures(*out, drawer{}, stdout)
		if err != nil {
			return err
		}
		files = append(files, f...)
	}
	if len(files) == 0 {
		return fmt.Errorf("no result tables under %s: run an experiment first (e.g. invmmd sim)", filepath.Join(*out, "tables"))
	}
	fmt.Fprintf(stdout, "Wrote %s\n", strings.Join(files, ", "))
	return nil
}
