package penalty_test

import (
	"fmt"
	"log"
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/penalty"
)

// exampleRows returns n rows where h leaks Z and Z is missing, with probability 2/3, for the
// rows with Z = 1 and x > 0 (G = 1/3 there, 1 elsewhere); m is a constant 0.5 (wrong).
func exampleRows(n int) ([]float64, invmmd.Rows) {
	h := make([]float64, n)
	r := invmmd.Rows{Y: make([]float64, n), Z: make([]float64, n), Delta: make([]float64, n), G: make([]float64, n), M: make([]float64, n)}
	for i := range n {
		y, z, x := float64(i%2), float64((i/2)%2), math.Sin(float64(i))
		h[i] = 0.8*z + 0.3*y + 0.5*x
		r.Y[i], r.Z[i], r.Delta[i], r.G[i], r.M[i] = y, z, 1, 1, 0.5
		if z == 1 && x > 0 {
			r.G[i] = 1.0 / 3
			if i%3 != 0 {
				r.Delta[i] = 0
			}
		}
	}
	return h, r
}

// ExamplePenaltyGraph computes the DR penalty of a small batch as a GoMLX graph on the
// pure-Go backend, as training does (the graph is differentiable in h), and checks it
// against the float64 reference of the same Design.
func ExamplePenaltyGraph() {
	h, rows := exampleRows(40)
	d, err := invmmd.NewDesign(rows, invmmd.Options{}, method.DR)
	if err != nil {
		log.Fatal(err)
	}
	v, c, err := penalty.Tensors(d, dtypes.Float64) // the design's factor columns and coefficients
	if err != nil {
		log.Fatal(err)
	}
	b, err := backend.NewWithConfig(backend.Default) // the pure-Go backend
	if err != nil {
		log.Fatal(err)
	}
	exec, err := graph.NewExec(b, func(h, v, c, sigma *graph.Node) *graph.Node {
		return graph.ReduceAllSum(penalty.PenaltyGraph(h, v, c, sigma)) // Σ over the Y strata
	})
	if err != nil {
		log.Fatal(err)
	}
	defer exec.Finalize()
	out, err := exec.Exec(tensors.FromFlatDataAndDimensions(h, len(h)), v, c, tensors.FromScalar(d.Options().Bandwidth))
	if err != nil {
		log.Fatal(err)
	}
	ref, err := d.Evaluate(invmmd.ScalarRep(h), nil) // the float64 reference, exact kernel sums
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("graph %.4f, reference %.4f\n", tensors.ToScalar[float64](out[0]), ref[0].Value)
	// Output:
	// graph 6.0541, reference 6.0541
}
