package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/invmmd/invmmd/invmmd/prop1"
)

// runAll runs every experiment and the variance study into one folder.
func runAll(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("all", "[-quick] [-out DIR] [-resume]", stderr, func() string {
		return "Runs sim, sim -paper-split (not with -quick), tmnist, clinical and variance with their default methods, λ and seeds."
	})
	quick := fs.Bool("quick", false, "small data and few epochs; writes to "+quickOut()+" unless -out is given")
	out := fs.String("out", "", "output folder (default figures/, or "+quickOut()+" with -quick)")
	resume := fs.Bool("resume", false, "skip fits (and variance batch sizes) whose result file exists under OUT/fits")
	if err := parse(fs, args); err != nil {
		return err
	}
	dir := outDir(*out, *quick)
	if err := prepareOut(dir); err != nil {
		return err
	}
	q := []string{"-out", dir}
	if *quick {
		q = append(q, "-quick")
	}
	runs := [][]string{{"sim"}, {"sim", "-paper-split"}, {"tmnist"}, {"clinical"}, {"variance"}}
	if *quick {
		// The companion table is a paper-size comparison; quick runs teach with the default.
		runs = append(runs[:1], runs[2:]...)
	}
	for _, r := range runs {
		c := strings.Join(r, " ")
		a := append(append([]string{}, r...), q...)
		if *resume {
			a = append(a, "-resume")
		}
		if err := dispatch(a, stdout, stderr); err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
	}
	return nil
}

func runProp1(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("prop1", "[flags]", stderr, nil)
	seed := fs.Uint64("seed", 1, "seed of every draw")
	n := fs.Int("n", 0, "rows per slice and repetition (0: 2000)")
	reps := fs.Int("reps", 0, "repetitions per slice (0: 40)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < 0 || *reps < 0 {
		return fmt.Errorf("prop1: -n %d, -reps %d: want ≥ 0 (0: the default)", *n, *reps)
	}
	res, err := prop1.Run(prop1.Config{Seed: *seed, N: *n, Reps: *reps, Progress: stderr})
	if err != nil {
		return err
	}
	return res.Write(stdout)
}
