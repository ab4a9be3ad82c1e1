package penalty

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX graph code reads best with the dot import.

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/method"
)

var benchSizes = []int{1000, 4000, 10000}

func benchDesign(b *testing.B, n int) ([]float64, *invmmd.Design) {
	b.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), 99))
	h, rows := binaryRows(rng, n)
	d, err := invmmd.NewDesign(rows, invmmd.Options{}, method.DR)
	if err != nil {
		b.Fatal(err)
	}
	return h, d
}

// loopPenalty is the plain Go loop: Σ_{i≠j} k_ij (V C Vᵀ)_ij summed over strata, visiting
// the pairs like Exact (all ordered pairs in one goroutine, or each unordered pair once on
// several). With grad non-nil it also accumulates dPenalty/dh.
func loopPenalty(h, v, c []float64, p, strata int, sigma float64, workers int, grad []float64) float64 {
	n := len(h)
	// A = V·Cᵀ summed over strata: the penalty is Σ_{i≠j} k_ij (a_i · v_j), a_i = Σ_s C[s] v_i.
	cs := make([]float64, p*p)
	for s := 0; s < strata; s++ {
		for x := range cs {
			cs[x] += c[s*p*p+x]
		}
	}
	a := make([]float64, n*p)
	for i := 0; i < n; i++ {
		for x := 0; x < p; x++ {
			for y := 0; y < p; y++ {
				a[i*p+y] += v[i*p+x] * cs[x*p+y]
			}
		}
	}
	gamma := 1 / (2 * sigma * sigma)
	dot := func(i, j int) float64 {
		s := 0.0
		ai, vj := a[i*p:(i+1)*p], v[j*p:(j+1)*p]
		for x := range ai {
			s += ai[x] * vj[x]
		}
		return s
	}
	if workers <= 1 {
		total := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i == j {
					continue
				}
				d := h[i] - h[j]
				k := math.Exp(-gamma * d * d)
				w := dot(i, j)
				total += k * w
				if grad != nil {
					g := -2 * gamma * d * k * w // ∂k_ij/∂h_i · w_ij; ∂/∂h_j is its negative
					grad[i] += g
					grad[j] -= g
				}
			}
		}
		return total
	}
	parts := make([]float64, workers)
	grads := make([][]float64, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var gr []float64
			if grad != nil {
				gr = make([]float64, n)
			}
			total := 0.0
			for i := w; i < n; i += workers {
				for j := i + 1; j < n; j++ {
					d := h[i] - h[j]
					k := math.Exp(-gamma * d * d)
					wsum := dot(i, j) + dot(j, i)
					total += k * wsum
					if gr != nil {
						g := -2 * gamma * d * k * wsum
						gr[i] += g
						gr[j] -= g
					}
				}
			}
			parts[w], grads[w] = total, gr
		}(w)
	}
	wg.Wait()
	total := 0.0
	for w := range parts {
		total += parts[w]
		for i, g := range grads[w] {
			grad[i] += g
		}
	}
	return total
}

// TestLoopPenaltyMatchesDesign keeps the benchmark's baseline honest: the plain loop
// computes the same penalty and gradient as the graph.
func TestLoopPenaltyMatchesDesign(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 99))
	h, rows := binaryRows(rng, 200)
	d, _ := invmmd.NewDesign(rows, invmmd.Options{}, method.DR)
	v, c, p, s := d.Matrices()
	want, wantGrad := penaltyAndGrad(t, d, h, 1, dtypes.Float64)
	for _, w := range []int{1, 3} {
		grad := make([]float64, len(h))
		got := loopPenalty(h, v, c, p, s, 1, w, grad)
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("workers %d: loop %v, graph %v", w, got, want)
		}
		for i := range grad {
			if math.Abs(grad[i]-wantGrad[i]) > 1e-9*math.Max(1, math.Abs(wantGrad[i])) {
				t.Fatalf("workers %d: gradient[%d] loop %v, graph %v", w, i, grad[i], wantGrad[i])
			}
		}
	}
}

func BenchmarkPenalty(b *testing.B) {
	be, err := backend.Shared()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range benchSizes {
		h, d := benchDesign(b, n)
		v, c, p, s := d.Matrices()
		b.Run(fmt.Sprintf("N=%d/loop-1", n), func(b *testing.B) {
			for b.Loop() {
				loopPenalty(h, v, c, p, s, 1, 1, nil)
			}
		})
		b.Run(fmt.Sprintf("N=%d/loop-%d", n, runtime.GOMAXPROCS(0)), func(b *testing.B) {
			for b.Loop() {
				loopPenalty(h, v, c, p, s, 1, runtime.GOMAXPROCS(0), nil)
			}
		})
		b.Run(fmt.Sprintf("N=%d/loop-%d-grad", n, runtime.GOMAXPROCS(0)), func(b *testing.B) {
			grad := make([]float64, n)
			for b.Loop() {
				loopPenalty(h, v, c, p, s, 1, runtime.GOMAXPROCS(0), grad)
			}
		})
		vt, ct, _ := Tensors(d, dtypes.Float32)
		ht := floatTensor(dtypes.Float32, h, n)
		sig := tensors.FromScalar(float32(1))
		terms, err := FourierTermsFor(spanOfSlice(h), 1, 1e-6)
		if err != nil {
			b.Fatal(err)
		}
		for _, path := range []string{"exact", "fourier"} {
			for _, withGrad := range []bool{false, true} {
				name := fmt.Sprintf("N=%d/graph-%s-forward", n, path)
				if withGrad {
					name = fmt.Sprintf("N=%d/graph-%s-backward", n, path)
				}
				exec, err := NewExec(be, func(h, v, c, sg *Node) []*Node {
					var pen *Node
					if path == "exact" {
						pen = ReduceAllSum(PenaltyGraph(h, v, c, sg))
					} else {
						strata, _ := FourierPenaltyGraph(h, v, c, sg, terms, 1e-6)
						pen = ReduceAllSum(strata)
					}
					if withGrad {
						return []*Node{pen, Gradient(pen, h)[0]}
					}
					return []*Node{pen}
				})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := exec.Exec(ht, vt, ct, sig); err != nil { // compile outside the timing
					b.Fatal(err)
				}
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						if _, err := exec.Exec(ht, vt, ct, sig); err != nil {
							b.Fatal(err)
						}
					}
				})
				exec.Finalize()
			}
		}
	}
}

func spanOfSlice(h []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range h {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return hi - lo
}

// BenchmarkWideGraph times one training step's graph of the batches of invmmd's
// BenchmarkWide (the DR penalty of a representation of d = 8 and 64 columns at batch 1500
// and 10,000 rows, σ the median heuristic): the penalty and its gradient in float32, exact
// (graph-exact: PenaltyGraph, the Gram form of the n×n kernel) against random features
// (graph-rff: RFFPenaltyGraph).
func BenchmarkWideGraph(b *testing.B) {
	be, err := backend.Shared()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1500, 10000} {
		for _, dim := range []int{8, 64} {
			rng := rand.New(rand.NewPCG(uint64(n), uint64(dim)))
			h1, rows := binaryRows(rng, n)
			h := widen(rng, h1, dim)
			sigma, err := invmmd.MedianBandwidth(h)
			if err != nil {
				b.Fatal(err)
			}
			d, err := invmmd.NewDesign(rows, invmmd.Options{Bandwidth: sigma}, method.DR)
			if err != nil {
				b.Fatal(err)
			}
			prefix := fmt.Sprintf("N=%d/d=%d", n, dim)
			vt, ct, _ := Tensors(d, dtypes.Float32)
			ht := floatTensor(dtypes.Float32, h.Data, n, dim)
			sig := tensors.FromScalar(float32(sigma))
			omega := RFFFrequencyTensor(dtypes.Float32, dim, invmmd.DefaultRFFFrequencies, 1)
			for _, path := range []string{"exact", "rff"} {
				exec, err := NewExec(be, func(in []*Node) []*Node {
					var strata *Node
					if path == "exact" {
						strata = PenaltyGraph(in[0], in[1], in[2], in[3])
					} else {
						strata = RFFPenaltyGraph(in[0], in[1], in[2], in[3], in[4])
					}
					pen := ReduceAllSum(strata)
					return []*Node{pen, Gradient(pen, in[0])[0]}
				})
				if err != nil {
					b.Fatal(err)
				}
				inputs := []any{ht, vt, ct, sig, omega}
				if path == "exact" {
					inputs = inputs[:4]
				}
				if _, err := exec.Exec(inputs...); err != nil { // compile outside the timing
					b.Fatal(err)
				}
				b.Run(prefix+"/graph-"+path, func(b *testing.B) {
					for b.Loop() {
						if _, err := exec.Exec(inputs...); err != nil {
							b.Fatal(err)
						}
					}
				})
				exec.Finalize()
			}
		}
	}
}
