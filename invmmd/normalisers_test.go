package invmmd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
)

// TestNormalisersOf checks that the normalisers estimated on a set of rows are those a
// design with MainFraction 1 uses on the same rows, so that handing them back changes
// nothing, and that UseNormalisers refuses what it cannot use.
func TestNormalisersOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	h, rows := defaultTestDGP().draw(rng, 600)
	for _, m := range []method.Method{method.Full, method.Obs, method.DR, method.IP, method.Reg, method.DRPO} {
		n, err := NormalisersOf(rows, Options{MainFraction: 0.75}, m)
		if err != nil {
			t.Fatal(err)
		}
		d, err := NewDesign(rows, Options{MainFraction: 1}, m)
		if err != nil {
			t.Fatal(err)
		}
		before, err := d.Evaluate(ScalarRep(h), ExactSums{})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.UseNormalisers(n); err != nil {
			t.Fatal(err)
		}
		after, err := d.Evaluate(ScalarRep(h), ExactSums{})
		if err != nil {
			t.Fatal(err)
		}
		if before[0].Value != after[0].Value {
			t.Errorf("%v: the rows' own normalisers handed back changed the estimate: %v → %v", m, before[0].Value, after[0].Value)
		}
	}
	n, _ := NormalisersOf(rows, Options{}, method.DR)
	d, _ := NewDesign(rows, Options{}, method.Full)
	if err := d.UseNormalisers(n); err == nil || !strings.Contains(err.Error(), "no method dr") {
		t.Errorf("normalisers of dr given to a design of full: %v", err)
	}
	u, _ := NewDesign(rows, Options{Unconditional: true}, method.DR)
	if err := u.UseNormalisers(n); err == nil || !strings.Contains(err.Error(), "strata") {
		t.Errorf("two strata given to an unconditional design: %v", err)
	}
	if _, err := NormalisersOf(rows, Options{Estimand: JointMMD}, method.DR); err == nil {
		t.Error("normalisers of the joint estimand, which has none, were made")
	}
	if _, err := NormalisersOf(rows, Options{}, method.None); err == nil {
		t.Error("normalisers of none were made")
	}
}

// TestMonteCarloTrainingNormalisers is the mechanism behind the collapse of fits with the
// paper's 1/4 : 3/4 split at λ = 5, in numbers: where P(Z = 1 | y) is 0.1, the normalisers
// estimated on a quarter of each batch make the ratio T/N̂ biased upward (E[1/N̂] > 1/N)
// and heavy-tailed, while normalisers estimated once on many rows leave each batch's
// estimate unbiased for the large-sample value, with a smaller spread.
func TestMonteCarloTrainingNormalisers(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo study")
	}
	const draws, n = 300, 800
	dgp := testDGP{pZ: []float64{0.1, 0.9}, gLo: 0.15, gHi: 0.95}
	rng := rand.New(rand.NewPCG(61, 62))
	hBig, big := dgp.draw(rng, 400000)
	opts := Options{MainFraction: 0.75}
	type outcome struct{ ref, batch, fixed, ratio float64 }
	got := map[method.Method]outcome{}
	for _, m := range []method.Method{method.Full, method.DR} {
		ref, err := estimateWith(hBig, big, Options{MainFraction: 1}, m)
		if err != nil {
			t.Fatal(err)
		}
		norms, err := NormalisersOf(big, opts, m)
		if err != nil {
			t.Fatal(err)
		}
		var batch, fixed []float64
		for r := 0; r < draws; r++ {
			h, rows := dgp.draw(rng, n)
			d, err := NewDesign(rows, opts, m)
			if err != nil {
				t.Fatal(err)
			}
			a, err := d.Evaluate(ScalarRep(h), FourierSums{})
			if err != nil {
				t.Fatal(err)
			}
			if err := d.UseNormalisers(norms); err != nil {
				t.Fatal(err)
			}
			b, err := d.Evaluate(ScalarRep(h), FourierSums{})
			if err != nil {
				t.Fatal(err)
			}
			batch, fixed = append(batch, a[0].Value-ref[0].Value), append(fixed, b[0].Value-ref[0].Value)
		}
		mb, seb := meanSE(batch)
		mf, sef := meanSE(fixed)
		sdb, sdf := seb*math.Sqrt(draws), sef*math.Sqrt(draws)
		t.Logf("%v: large-sample %.4f; batch normalisers %+.4f (se %.4f, sd %.4f), training normalisers %+.4f (se %.4f, sd %.4f)",
			m, ref[0].Value, mb, seb, sdb, mf, sef, sdf)
		if math.Abs(mf) > 3*sef+0.002*ref[0].Value {
			t.Errorf("%v with the training set's normalisers: mean − large-sample value %+.4f = %.1f se, want within 3", m, mf, mf/sef)
		}
		if mb < 3*seb {
			t.Errorf("%v with each batch's quarter as normalisers: mean − large-sample value %+.4f = %.1f se, want the upward bias beyond 3", m, mb, mb/seb)
		}
		if sdf >= sdb {
			t.Errorf("%v: sd with the training set's normalisers %.4f, with the batch's %.4f, want smaller", m, sdf, sdb)
		}
		got[m] = outcome{ref[0].Value, mb, mf, sdb / sdf}
	}
	// docs/results.md quotes this study; it must say what the study gives.
	doc, err := os.ReadFile(filepath.Join("..", "docs", "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	f, d := got[method.Full], got[method.DR]
	want := fmt.Sprintf("full's mean estimate is %.2f above the large-sample value %.2f and dr's %.2f above, against %.2f and %.2f with normalisers from 400,000 rows (within 3 standard errors of 0), whose spread is %.0f× (full) and %.0f× (dr) smaller",
		f.batch, f.ref, d.batch, f.fixed, d.fixed, f.ratio, d.ratio)
	if !strings.Contains(strings.Join(strings.Fields(string(doc)), " "), want) {
		t.Errorf("docs/results.md does not say, as this study gives:\n%s", want)
	}
}
