package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/invmmd/invmmd/invmmd/method"
)

// parseMethods parses -methods, refusing an empty list and an empty name (a doubled or trailing comma, e.g.
// "dr,,obs", is a typo that would otherwise drop a method silently) and duplicates.
func parseMethods(s string) ([]method.Method, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("-methods %q: empty; want at least one method", s)
	}
	if parts := strings.Split(s, ","); len(parts) > 1 {
		for i, p := range parts {
			if strings.TrimSpace(p) == "" {
				return nil, fmt.Errorf("-methods %q: method %d of %d is empty (a doubled or trailing comma?)", s, i+1, len(parts))
			}
		}
	}
	ms, err := method.ParseList(s)
	if err != nil {
		return nil, fmt.Errorf("-methods: %w", err)
	}
	for i, m := range ms {
		if slices.Contains(ms[:i], m) {
			return nil, fmt.Errorf("-methods: %v listed twice", m)
		}
	}
	return ms, nil
}

// parseLambdas parses -lambdas: finite values ≥ 0, at least one, no duplicates.
func parseLambdas(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("-lambdas %q: empty; want at least one λ", s)
	}
	var out []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil {
			return nil, fmt.Errorf("-lambdas: λ %q is not a number", part)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, fmt.Errorf("-lambdas: λ = %v, want a finite value ≥ 0", v)
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("-lambdas: λ %v listed twice", v)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseSeeds parses -seeds: non-negative integers, at least one, no duplicates (two equal seeds would
// make a table "over 2 seeds" of one model).
func parseSeeds(s string) ([]uint64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("-seeds %q: empty; want at least one seed", s)
	}
	var out []uint64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(part), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-seeds: seed %q is not a non-negative integer", part)
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("-seeds: seed %d listed twice", v)
		}
		out = append(out, v)
	}
	return out, nil
}

// checkBatch checks a -batch value: 0 keeps the experiment's own, otherwise at least 2.
func checkBatch(n int) error {
	if n != 0 && n < 2 {
		return fmt.Errorf("-batch %d: want at least 2 rows (0 keeps the experiment's batch size)", n)
	}
	return nil
}

// quickOut is where quick runs write when -out is not given: a scratch folder, never
// over the committed paper-size results under figures/.
func quickOut() string { return filepath.Join(os.TempDir(), "invmmd-quick") }

// outDir returns -out, or its default: figures/ for paper-size runs, quickOut() for quick
// ones.
func outDir(out string, quick bool) string {
	switch {
	case out != "":
		return out
	case quick:
		return quickOut()
	}
	return "figures"
}

// checkOut checks, without creating or writing anything, that dir is a folder in which
// files can be written, or can be created where the nearest existing folder above it is.
func checkOut(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("-out %s is a file, want a folder", dir)
	case err == nil:
		return writable(dir, dir)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-out %s: %w", dir, err)
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if st, err := os.Stat(p); err == nil {
			if !st.IsDir() {
				return fmt.Errorf("-out %s: %s is a file, not a folder", dir, p)
			}
			return writable(dir, p)
		}
		if p == filepath.Dir(p) {
			return fmt.Errorf("-out %s: no existing folder above it", dir)
		}
	}
}

// writable checks that files can be created in the folder p (on behalf of -out dir),
// leaving nothing behind.
func writable(dir, p string) error {
	f, err := os.CreateTemp(p, ".invmmd-write-test*")
	if err != nil {
		return fmt.Errorf("-out %s: not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// prepareOut checks, before any work, that dir is a folder (creating it and its tables/
// subfolder if needed) in which files can be written.
func prepareOut(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("-out %s is a file, want a folder", dir)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-out %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "tables"), 0o755); err != nil {
		return fmt.Errorf("-out %s: cannot create it: %w", dir, err)
	}
	return writable(dir, dir)
}
