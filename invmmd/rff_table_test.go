package invmmd

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// The random-feature error study: how far the penalty through RFFSums lies from the exact
// kernel's, against the number of frequencies D and the width d of the representation. It
// writes figures/tables/rff_error.csv and .md when writeRFFTableEnv is 1:
//
//	INVMMD_WRITE_RFF_TABLE=1 go test ./invmmd -run TestRFFErrorTable -count=1
//
// Without it the test recomputes the study and compares it with the committed files, so a
// change to the features or the sums that moves a number fails here. The sums run in one
// goroutine, so the files do not depend on the number of CPUs; reruns are byte-identical.

// writeRFFTableEnv names the environment variable that makes TestRFFErrorTable rewrite the
// committed table.
const writeRFFTableEnv = "INVMMD_WRITE_RFF_TABLE"

var (
	rffTableWidths = []int{2, 8, 64}
	rffTableFreqs  = []int{64, 256, 1024, 4096}
)

const (
	rffTableRows  = 1000 // rows of the batch
	rffTableSeeds = 10   // frequency draws per (d, D)
	rffTableDir   = "../figures/tables"
)

// rffTableRow is one line of the study: method, width, frequencies, and the relative error
// |RFF − exact| / |exact| of the penalty summed over the Y strata, over the seeds.
type rffTableRow struct {
	method         method.Method
	dim, freqs     int
	sigma, exact   float64
	meanErr, maxEr float64
}

// rffStudy runs the study: one batch of the Monte Carlo process (defaultTestDGP, seed 1),
// its output widened to d columns (widen), σ by the median heuristic (MedianBandwidth),
// every row serving the normalisers (MainFraction 1), full and dr with the true G and m.
func rffStudy(t *testing.T) []rffTableRow {
	var out []rffTableRow
	methods := []method.Method{method.Full, method.DR}
	for _, dim := range rffTableWidths {
		rng := rand.New(rand.NewPCG(1, uint64(dim)))
		h1, rows := defaultTestDGP().draw(rng, rffTableRows)
		h := widen(rng, h1, dim)
		sigma, err := MedianBandwidth(h)
		if err != nil {
			t.Fatal(err)
		}
		d, err := NewDesign(rows, Options{Bandwidth: sigma, MainFraction: 1}, methods...)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := d.Evaluate(h, ExactSums{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, freqs := range rffTableFreqs {
			rows := make([]rffTableRow, len(methods))
			for k, m := range methods {
				rows[k] = rffTableRow{method: m, dim: dim, freqs: freqs, sigma: sigma, exact: exact[k].Value}
			}
			// The seeds run concurrently, each in one goroutine; their errors are summed in
			// seed order.
			results := make([][]Result, rffTableSeeds)
			errs := make([]error, rffTableSeeds)
			var wg sync.WaitGroup
			for s := range results {
				wg.Go(func() {
					results[s], errs[s] = d.Evaluate(h, RFFSums{Frequencies: freqs, Seed: uint64(s + 1), Workers: 1})
				})
			}
			wg.Wait()
			for s, res := range results {
				if errs[s] != nil {
					t.Fatal(errs[s])
				}
				for k := range methods {
					e := math.Abs(res[k].Value-exact[k].Value) / math.Abs(exact[k].Value)
					rows[k].meanErr += e / rffTableSeeds
					rows[k].maxEr = math.Max(rows[k].maxEr, e)
				}
			}
			out = append(out, rows...)
		}
	}
	return out
}

func rffTableCSV(rows []rffTableRow) []byte {
	var b bytes.Buffer
	b.WriteString("method,d,frequencies,features,sigma,exact,mean_rel_error,max_rel_error,seeds\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%v,%d,%d,%d,%.4f,%.5f,%.4f,%.4f,%d\n", r.method, r.dim, r.freqs, 2*r.freqs, r.sigma, r.exact, r.meanErr, r.maxEr, rffTableSeeds)
	}
	return b.Bytes()
}

func rffTableMarkdown(rows []rffTableRow) []byte {
	var b bytes.Buffer
	b.WriteString("# Random Fourier features: the penalty's error against the exact kernel\n\n")
	fmt.Fprintf(&b, "Written by `%s=1 go test ./invmmd -run TestRFFErrorTable -count=1` (invmmd/rff_table_test.go).\n", writeRFFTableEnv)
	fmt.Fprintf(&b, "One batch of %d rows of the Monte Carlo tests' process (binary Y and Z, Z missing at random given X, true G and m),\n", rffTableRows)
	b.WriteString("its output x widened to d columns (column 0 is x, column k is ±x/√(k+1) plus independent N(0, 0.25) noise),\n")
	b.WriteString("kernel exp(−‖h − h'‖²/(2σ²)) with σ the median distance between rows (invmmd.MedianBandwidth), every row\n")
	b.WriteString("serving the normalisers (MainFraction 1). The penalty Σ_y MMD²_y through invmmd.RFFSums (D frequencies, 2D paired\n")
	fmt.Fprintf(&b, "cos/sin features) against the exact sums: relative error |RFF − exact| / exact, mean (and max) over %d frequency seeds.\n\n", rffTableSeeds)
	for _, m := range []method.Method{method.DR, method.Full} {
		fmt.Fprintf(&b, "## %v\n\n", m)
		b.WriteString("| D (features) |")
		for _, dim := range rffTableWidths {
			fmt.Fprintf(&b, " d = %d |", dim)
		}
		b.WriteString(" 1/√D, for scale |\n|---|")
		for range rffTableWidths {
			b.WriteString("---|")
		}
		b.WriteString("---|\n")
		for _, freqs := range rffTableFreqs {
			fmt.Fprintf(&b, "| %d (%d) |", freqs, 2*freqs)
			for _, dim := range rffTableWidths {
				for _, r := range rows {
					if r.method == m && r.dim == dim && r.freqs == freqs {
						fmt.Fprintf(&b, " %.2f%% (%.2f%%) |", 100*r.meanErr, 100*r.maxEr)
					}
				}
			}
			fmt.Fprintf(&b, " %.3f |\n", 1/math.Sqrt(float64(freqs)))
		}
		b.WriteString("\nExact penalty and σ: ")
		var parts []string
		for _, dim := range rffTableWidths {
			for _, r := range rows {
				if r.method == m && r.dim == dim && r.freqs == rffTableFreqs[0] {
					parts = append(parts, fmt.Sprintf("d = %d: %.4f (σ = %.3f)", dim, r.exact, r.sigma))
				}
			}
		}
		b.WriteString(strings.Join(parts, "; ") + ".\n\n")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// TestRFFErrorTable recomputes the random-feature error study and compares it with the
// committed figures/tables/rff_error.csv and .md (numbers within one unit of their last
// printed digit, so that a platform whose floating point rounds differently still passes);
// with INVMMD_WRITE_RFF_TABLE=1 it writes them instead.
func TestRFFErrorTable(t *testing.T) {
	if testing.Short() {
		t.Skip("the random-feature error study takes a few seconds")
	}
	rows := rffStudy(t)
	csv, md := rffTableCSV(rows), append(rffTableMarkdown(rows), '\n')
	csvPath, mdPath := filepath.Join(rffTableDir, "rff_error.csv"), filepath.Join(rffTableDir, "rff_error.md")
	if os.Getenv(writeRFFTableEnv) == "1" {
		for p, b := range map[string][]byte{csvPath: csv, mdPath: md} {
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("wrote %s and %s", csvPath, mdPath)
		return
	}
	for p, b := range map[string][]byte{csvPath: csv, mdPath: md} {
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%v (write it with %s=1)", err, writeRFFTableEnv)
		}
		if msg := sameUpToLastDigit(string(b), string(want)); msg != "" {
			t.Errorf("%s: the recomputed study differs from the committed file: %s (rewrite it with %s=1 if the change is meant)", p, msg, writeRFFTableEnv)
		}
	}
}

// sameUpToLastDigit compares two texts token by token (split at spaces, commas, pipes,
// parentheses and percent signs): equal tokens, or numbers printed with the same number of
// decimals that differ by at most one unit of the last. It returns "" or the first
// difference.
func sameUpToLastDigit(got, want string) string {
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" ,|()%;:\n", r) })
	}
	g, w := split(got), split(want)
	if len(g) != len(w) {
		return fmt.Sprintf("%d tokens, committed %d", len(g), len(w))
	}
	for i := range g {
		if g[i] == w[i] {
			continue
		}
		x, errX := strconv.ParseFloat(g[i], 64)
		y, errY := strconv.ParseFloat(w[i], 64)
		dg, dw := strings.IndexByte(g[i], '.'), strings.IndexByte(w[i], '.')
		if errX != nil || errY != nil || dg < 0 || dw < 0 || len(g[i])-dg != len(w[i])-dw {
			return fmt.Sprintf("token %d is %q, committed %q", i, g[i], w[i])
		}
		unit := math.Pow(10, -float64(len(g[i])-dg-1))
		if math.Abs(x-y) > 1.5*unit {
			return fmt.Sprintf("token %d is %q, committed %q", i, g[i], w[i])
		}
	}
	return ""
}
