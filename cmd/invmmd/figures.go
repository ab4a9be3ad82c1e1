package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// runFigures redraws the figures of every study of the list (experiments.Studies) from the tables under
// OUT/tables, without training anything (each study's Figures: the results figures of the
// experiments' tables, with the comparisons of their objectives and layers, and the
// bespoke studies' figures). A results table no study stores under its name is skipped
// with a note; a table whose λ its experiment's configuration does not list (left by an
// earlier sweep) is an error, as is a table without rows.
func runFigures(args []string, stdout, stderr io.Writer) error {
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
