package invmmd

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// The penalty benchmarks time one batch's DR penalty (the widest design: 12 factor
// columns over two strata) at N = 1000, 4000 and 10000 rows: the GoMLX graph (exact and
// Fourier paths, forward and forward+backward) next to a plain Go loop over the pairs that
// computes the same sum (one goroutine visiting all ordered pairs, and the symmetric loop
// on every CPU), and the plain loop that also computes the gradient. scripts/bench.sh runs
// them and writes BENCHMARKS.md.

// BenchmarkKernelSum times the float64 evaluation of seven estimators on one batch (one
// design, 28 factor columns, one kernel pass) with the exact sum in one goroutine, the
// exact symmetric sum on every CPU, and the Fourier expansion (tolerance 1e-10 per pair),
// at N = 1000 … 100000.
func BenchmarkKernelSum(b *testing.B) {
	for _, n := range []int{1000, 4000, 10000, 100000} {
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		h, rows := defaultTestDGP().draw(rng, n)
		d, err := NewDesign(rows, Options{}, method.Full, method.Obs, method.IP, method.IPPlus, method.Reg, method.DR, method.DRPlus)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range []struct {
			name string
			sum  Summer
		}{
			{"exact-naive", ExactSums{Workers: 1}},
			{"exact-parallel", ExactSums{Workers: runtime.GOMAXPROCS(0)}},
			{"expansion", FourierSums{}},
		} {
			b.Run(fmt.Sprintf("N=%d/%s", n, s.name), func(b *testing.B) {
				for b.Loop() {
					if _, err := d.Evaluate(ScalarRep(h), s.sum); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkWide times the DR penalty of one batch (12 factor columns over two strata) of
// a representation of d columns, d = 8 and 64, at batch 1500 and 10,000 rows: the float64
// kernel sums exact on every CPU (sums-exact) against the random Fourier features with
// DefaultRFFFrequencies frequencies (sums-rff). σ is the median heuristic. The training
// graph of the same batches is timed by BenchmarkWideGraph in invmmd/penalty;
// scripts/bench.sh wide runs both and writes their section of BENCHMARKS.md.
func BenchmarkWide(b *testing.B) {
	for _, n := range []int{1500, 10000} {
		for _, dim := range []int{8, 64} {
			rng := rand.New(rand.NewPCG(uint64(n), uint64(dim)))
			h1, rows := defaultTestDGP().draw(rng, n)
			h := widen(rng, h1, dim)
			sigma, err := MedianBandwidth(h)
			if err != nil {
				b.Fatal(err)
			}
			d, err := NewDesign(rows, Options{Bandwidth: sigma}, method.DR)
			if err != nil {
				b.Fatal(err)
			}
			prefix := fmt.Sprintf("N=%d/d=%d", n, dim)
			for _, s := range []struct {
				name string
				sum  Summer
			}{
				{"sums-exact", ExactSums{Workers: runtime.GOMAXPROCS(0)}},
				{"sums-rff", RFFSums{Seed: 1}},
			} {
				b.Run(prefix+"/"+s.name, func(b *testing.B) {
					for b.Loop() {
						if _, err := d.Evaluate(h, s.sum); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
