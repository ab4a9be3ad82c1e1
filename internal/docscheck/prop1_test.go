package docscheck

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/prop1"
)

// TestProp1Numbers reruns what invmmd prop1 computes with its defaults (seed 1, 40
// repetitions of 2,000 rows; the command writes no file, so the computation is the record)
// and checks the numbers docs/results.md and the README's glance table quote.
func TestProp1Numbers(t *testing.T) {
	if testing.Short() {
		t.Skip("reruns invmmd prop1 (seconds to a minute)")
	}
	r, err := prop1.Run(context.Background(), prop1.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	get := func(d prop1.Direction, v prop1.Variant, y float64, m method.Method) prop1.Estimate {
		s, ok := r.Find(d, v, y)
		if !ok {
			t.Fatalf("no slice %v %v y=%g", d, v, y)
		}
		e, ok := s.Get(m)
		if !ok {
			t.Fatalf("no %v estimate in %v %v y=%g", m, d, v, y)
		}
		return e
	}
	var obs, limits []string
	zLo, zHi := math.Inf(1), math.Inf(-1)
	fullMax, seMax := 0.0, 0.0
	for _, y := range r.Config.Ys1 {
		full, o := get(prop1.Direction1, prop1.Hard, y, method.Full), get(prop1.Direction1, prop1.Hard, y, method.Obs)
		obs, limits = append(obs, fmt.Sprintf("%.3f", o.Mean)), append(limits, fmt.Sprintf("%.4f", o.Limit))
		z := (o.Mean - full.Mean) / math.Hypot(o.SE, full.SE)
		zLo, zHi = math.Min(zLo, z), math.Max(zHi, z)
		fullMax, seMax = math.Max(fullMax, math.Abs(full.Mean)), math.Max(seMax, full.SE)
	}
	if len(obs) != 3 {
		t.Fatalf("direction 1 has %d slices, want 3", len(obs))
	}
	// ip+ recovers 0 under the soft rule: within 4 standard errors in every slice.
	for _, y := range r.Config.Ys1 {
		if e := get(prop1.Direction1, prop1.Soft, y, method.IPPlus); math.Abs(e.Mean) > 4*e.SE+0.005 {
			t.Errorf("soft rule, y = %g: ip+ = %.4f ± %.4f, but the documents say it recovers 0", y, e.Mean, e.SE)
		}
	}
	full2, obs2 := get(prop1.Direction2, prop1.Hard, 0.5, method.Full), get(prop1.Direction2, prop1.Hard, 0.5, method.Obs)
	if obs2.Defined != 0 {
		t.Errorf("direction 2: obs defined in %d repetitions, the documents say in none", obs2.Defined)
	}
	zero := fmt.Sprintf("%.4f", fullMax)
	says(t, resultsMD, "prop1.Run with invmmd prop1's defaults",
		fmt.Sprintf("%d repetitions of %s rows, seed %d", r.Config.Reps, thousands(r.Config.N), r.Config.Seed),
		fmt.Sprintf("the full-data MMD² of h* is within %s of 0 in every slice (standard errors at most %.4f) while the observed-only MMD² is %s, %s and %s at y = −0.5, 0, 0.5, %.0f–%.0f standard errors away (their large-sample limits, by quadrature: %s, %s, %s)",
			zero, seMax, obs[0], obs[1], obs[2], zLo, zHi, limits[0], limits[1], limits[2]),
		fmt.Sprintf("at y = 0.5 the full-data MMD² is %.3f (limit %.3f) while no observed row has Z = 1, so the observed-only estimate is undefined in all %d repetitions",
			full2.Mean, full2.Limit, r.Config.Reps),
	)
	glance, _, _ := between(t, readme, "glance")
	if w := fmt.Sprintf("full-data MMD² within %s of 0, observed-only %s–%s; a dependent one: full-data %.3f, observed-only undefined", zero, obs[0], obs[2], full2.Mean); !strings.Contains(oneLine(glance), w) {
		t.Errorf("README.md's glance table does not say, as invmmd prop1 computes:\n%s", w)
	}
}
