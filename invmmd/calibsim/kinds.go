package calibsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/invmmd/invmmd/invmmd/dataset"
)

// The same simulation with a nuisance of another kind (the calibration study of the test
// for every kind of Z): Y, X₁, X₂, Δ and h as in Draw, and
//
//	categorical (3 levels): P(Z = b | X, Y) ∝ exp(l_b),  l₀ = 0,  l₁ = ZX2·X₂ + ZY·s,  l₂ = −ZX2·X₂ + ZY·s,
//	continuous:             Z | X, Y ~ N(ZX2·X₂ + ZY·s, 1).
//
// In both Z depends on X₂ (and Y), so h = X₁ + δ·X₂ depends on Z given Y exactly when
// δ ≠ 0, and the observed rows (Δ depends on X₁ + X₂) carry Berkson's bias as before.

// KindSample is n rows of the simulation with a nuisance of any kind.
type KindSample struct {
	*Sample // Z, ZFull hold the level (0, 1, 2) or the value; MTrue is unused unless binary
	Kind    dataset.ZKind
}

// DrawKind returns n rows with dependence strength delta and a nuisance of the given kind
// (binary, categorical or continuous), from rng. The binary kind is Draw's process.
func DrawKind(n int, delta float64, kind dataset.ZKind, rng *rand.Rand) (*KindSample, error) {
	if kind != dataset.BinaryZ && kind != dataset.CategoricalZ && kind != dataset.ContinuousZ {
		return nil, fmt.Errorf("calibsim: no simulation of a %v nuisance", kind)
	}
	k := &KindSample{Sample: &Sample{}, Kind: kind}
	s := k.Sample
	for range n {
		y := float64(rng.IntN(2))
		sg := 2*y - 1
		x1 := MeanX1*sg + rng.NormFloat64()
		x2 := rng.NormFloat64()
		g := sigmoid(GConst + GX*(x1+x2))
		var z float64
		switch kind {
		case dataset.BinaryZ:
			m := sigmoid(ZX2*x2 + ZY*sg)
			if rng.Float64() < m {
				z = 1
			}
			s.MTrue = append(s.MTrue, m)
		case dataset.CategoricalZ:
			l := [3]float64{0, ZX2*x2 + ZY*sg, -ZX2*x2 + ZY*sg}
			tot := 0.0
			for b := range l {
				l[b] = math.Exp(l[b])
				tot += l[b]
			}
			u := rng.Float64() * tot
			switch {
			case u < l[0]:
				z = 0
			case u < l[0]+l[1]:
				z = 1
			default:
				z = 2
			}
		default:
			z = ZX2*x2 + ZY*sg + rng.NormFloat64()
		}
		s.add(x1, x2, y, z, g, x1+delta*x2, rng)
	}
	return k, nil
}
