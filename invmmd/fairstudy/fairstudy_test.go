package fairstudy

import (
	"context"
	"math"
	"testing"
)

// TestRunDeterministic: a few replicates of one cell give every tracked row for each
// estimator, shares in [0, 1], and the same rows whatever the number of workers.
func TestRunDeterministic(t *testing.T) {
	var hmda Table
	for _, tb := range Tables() {
		if tb.Name == "hmda" {
			hmda = tb
		}
	}
	c := Cell{Table: hmda, N: 1000, MNAR: math.Log(2), Replicates: 4, Seed: 3}
	one, err := Run(context.Background(), c, "../..", 1)
	if err != nil {
		t.Fatal(err)
	}
	two, err := Run(context.Background(), c, "../..", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(one) != len(two) || len(one) == 0 {
		t.Fatalf("%d rows with one worker, %d with two", len(one), len(two))
	}
	ests := map[string]bool{}
	for i, r := range one {
		if r != two[i] && !(math.IsNaN(r.Bias) && math.IsNaN(two[i].Bias)) {
			t.Errorf("row %d differs with the number of workers: %+v against %+v", i, r, two[i])
		}
		if r.Coverage < 0 || r.Coverage > 1 || r.HiddenShare <= 0 || r.HiddenShare >= 1 {
			t.Errorf("row %+v: a share outside (0, 1)", r)
		}
		ests[r.Estimator] = true
	}
	for _, e := range []string{"complete_case", "ip", "reg", "dr", "bounds Γ=2"} {
		if !ests[e] {
			t.Errorf("no rows for %s", e)
		}
	}
}
