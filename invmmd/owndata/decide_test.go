package owndata

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAuditAtRate: -rate selects the label's prevalence (or the share given) by score, the
// report adds the protocol's two rules on the rows with the attribute recorded, and a rate
// beside a threshold, without scores or out of (0, 1) is refused.
func TestAuditAtRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	lines := []string{"y,z,x,s"}
	ones := 0
	for range 500 {
		x := rng.NormFloat64()
		z := []string{"a", "b"}[rng.IntN(2)]
		y := 0
		if rng.Float64() < 1/(1+math.Exp(-x)) {
			y = 1
			ones++
		}
		if rng.Float64() < 0.3 {
			z = ""
		}
		lines = append(lines, fmt.Sprintf("%d,%s,%.4f,%.1f", y, z, x, math.Round(x))) // scores tied in blocks
	}
	path := auditCSV(t, lines...)
	cfg := AuditConfig{Source: Source{Columns: Columns{Data: path, Y: "y", Z: "z", X: []string{"x"}}, H: "s"}, Rate: "prevalence", Seed: 2}
	rep, err := Audit(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(ones) / 500; math.Abs(rep.Selected-want) > 1e-9 {
		t.Errorf("selected %v, want the prevalence %v", rep.Selected, want)
	}
	if len(rep.Protocol) != 2 || rep.Protocol[0].Rule[:4] != "rate" || rep.Protocol[1].Rule != "threshold 0.5" || rep.Protocol[0].NoiseSD <= 0 {
		t.Fatalf("protocol %+v", rep.Protocol)
	}
	if s := rep.String(); !strings.Contains(s, "equal selection rate") || !strings.Contains(s, "ties at random") {
		t.Errorf("report:\n%s", s)
	}
	cfg.Rate = "0.2"
	if rep, err = Audit(context.Background(), cfg); err != nil || math.Abs(rep.Selected-0.2) > 1e-9 {
		t.Errorf("rate 0.2: selected %v, %v", rep.Selected, err)
	}
	for _, bad := range []AuditConfig{{Rate: "1.5", Source: Source{H: "s"}}, {Rate: "prevalence", Source: Source{H: "s"}, Threshold: 0.5}, {Rate: "prevalence", Decisions: "s"}} {
		c := cfg
		c.Rate, c.H, c.Threshold, c.Decisions = bad.Rate, bad.H, bad.Threshold, bad.Decisions
		if _, err := Audit(context.Background(), c); err == nil || !strings.Contains(err.Error(), "Rate") && !strings.Contains(err.Error(), "prevalence") {
			t.Errorf("%+v accepted or unclear: %v", bad, err)
		}
	}
}
