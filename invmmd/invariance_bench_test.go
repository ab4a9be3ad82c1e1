package invmmd

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// BenchmarkInvarianceTest times one invariance test of dr's pseudo-outcome on n rows of
// the calibration simulation (true G and m) by each route — cross (one kernel pass between
// the halves), wild (1000 sign draws through the Fourier features of the kernel) — next to
// the plain loop a user would write for the wild bootstrap: the n×n matrix (φ̃ᵢ·φ̃ⱼ)k̃ᵢⱼ of
// each stratum built once with the exact kernel, then εᵀMε for each of the 1000 draws.
// scripts/bench.sh test writes the table of BENCHMARKS.md from it.
func BenchmarkInvarianceTest(b *testing.B) {
	for _, n := range []int{500, 2000} {
		h, rows := calibRows(n, 0.2, 1)
		for _, route := range []TestRoute{CrossRoute, WildRoute} {
			b.Run(fmt.Sprintf("n=%d/%v", n, route), func(b *testing.B) {
				for b.Loop() {
					if _, err := InvarianceTest(context.Background(), ScalarRep(h), rows, TestOptions{Options: Options{Bandwidth: 1}, Route: route, Seed: 1}, method.DR); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("n=%d/wild-plain-loop", n), func(b *testing.B) {
			phi, include := pseudo(&testing.T{}, method.DR, rows)
			for b.Loop() {
				plainWild(h, phi, include, rows.Y, 1, DefaultResamples, 1)
			}
		})
	}
}

// plainWild is the wild bootstrap as a plain loop: per stratum the matrix M_ij =
// (φ̃ᵢ·φ̃ⱼ)·k̃ᵢⱼ (exact Gaussian kernel, doubly centred, zero diagonal), then W = Σ εᵢεⱼM_ij
// for B sign vectors; it returns the p-value (1 + #{W* ≥ W})/(1 + B).
func plainWild(h []float64, phi [][]float64, include, y []float64, sigma float64, B int, seed uint64) float64 {
	type stratum struct {
		m   [][]float64
		off int // the stratum's first sign in a draw
	}
	var ss []stratum
	for _, yv := range []float64{0, 1} {
		var idx []int
		for i := range h {
			if y[i] == yv && include[i] != 0 {
				idx = append(idx, i)
			}
		}
		n := len(idx)
		kc := centredGram(h, idx, sigma)
		ph := centred(phi, idx)
		D := len(phi)
		m := make([][]float64, n)
		for p := range m {
			m[p] = make([]float64, n)
			for q := range m[p] {
				if p == q {
					continue
				}
				dot := 0.0
				for d := 0; d < D; d++ {
					dot += ph[p*D+d] * ph[q*D+d]
				}
				m[p][q] = dot * kc[p][q]
			}
		}
		off := 0
		if len(ss) > 0 {
			off = ss[len(ss)-1].off + len(ss[len(ss)-1].m)
		}
		ss = append(ss, stratum{m, off})
	}
	quad := func(eps func(int) float64) float64 {
		w := 0.0
		for _, s := range ss {
			for p, r := range s.m {
				ep, acc := eps(s.off+p), 0.0
				for q, v := range r {
					acc += eps(s.off+q) * v
				}
				w += ep * acc
			}
		}
		return w
	}
	w := quad(func(int) float64 { return 1 })
	rng := rand.New(rand.NewPCG(seed, 1))
	signs := make([]float64, len(h))
	exceed := 0
	for range B {
		for i := range signs {
			signs[i] = float64(2*int(rng.Uint64()&1) - 1)
		}
		if quad(func(i int) float64 { return signs[i] }) >= w {
			exceed++
		}
	}
	return float64(1+exceed) / float64(1+B)
}
