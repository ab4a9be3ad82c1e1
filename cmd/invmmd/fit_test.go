package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ownCSV writes a table like a researcher's: a numeric feature with some missing cells, a
// quoted string feature, a yes/no label, a nuisance that is empty for about 40% of the
// rows (missing at random given x2), and a model-output column h. With oneZ1, the Y = 1
// stratum keeps a single observed Z = 1 row; with tiny (and not oneZ1) the (Y = 0, Z = 0)
// cell holds about 0.5% of the Y = 0 rows.
func ownCSV(t *testing.T, n int, oneZ1 bool, tiny ...bool) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(41, 42))
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	var b strings.Builder
	b.WriteString("\xEF\xBB\xBFx1,x2,\"group\",outcome,z,h,g,m\r\n")
	seenZ1 := false
	for i := 0; i < n; i++ {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		y := rng.Float64() < sig(2*x1-1)
		pz := 0.35
		if y {
			pz = 0.7
		} else if len(tiny) > 0 && tiny[0] {
			pz = 0.995
		}
		z := rng.Float64() < pz
		g := sig(0.5 + x2)
		obs := rng.Float64() < g
		if oneZ1 && y && z && obs {
			if seenZ1 {
				obs = false
			}
			seenZ1 = true
		}
		x1s := strconv.FormatFloat(x1, 'f', 4, 64)
		if rng.Float64() < 0.05 {
			x1s = ""
		}
		zs := ""
		if obs {
			zs = map[bool]string{true: "1", false: "0"}[z]
		}
		label := map[bool]string{true: "yes", false: "no"}[y]
		fmt.Fprintf(&b, "%s,%.4f,\"grp %c\",%s,%s,%.4f,%.4f,%.4f\r\n", x1s, x2, 'a'+rune(i%3), label, zs, 2*x1-1+0.3*float64(map[bool]int{true: 1}[z]), g, pz)
	}
	path := filepath.Join(t.TempDir(), "own.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := dispatch(args, &out, &errb)
	return out.String(), errb.String(), err
}

// TestFitPredictOnOwnCSV runs fit on a CSV with empty Z cells and checks the per-method
// table, the held-out dr and ip estimates with diagnostics, the files, that a rerun gives
// the same results file, and that predict scores the rows with a saved model.
func TestFitPredictOnOwnCSV(t *testing.T) {
	data := ownCSV(t, 1500, false)
	dir := t.TempDir()
	args := []string{"fit", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-x", "x1,x2,group",
		"-methods", "none,dr,ip", "-epochs", "8", "-aux-epochs", "8", "-out", dir}
	out, stderr, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"| none | 1 |", "| dr | 1 |", "| ip | 1 |", "held-out MMD² dr", "min Ĝ on training rows", "val NLL", "ECE",
		"ESS ΔZ/G (Z=0, Z=1)", "majority baseline on test",
		"| p dr |", "test of H₀: h ⊥ Z | Y on the test split, cross route"} {
		if !strings.Contains(out, want) {
			t.Errorf("fit output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, `column "x1": `) || !strings.Contains(stderr, "replaced by the training mean") {
		t.Errorf("no warning about the imputed x1 values: %q", stderr)
	}
	first, err := os.ReadFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(first), "\n"); n != 4 {
		t.Errorf("results.csv has %d lines, want a header and 3 methods:\n%s", n, first)
	}
	for _, f := range []string{"results.md", "config.json", "heldout.txt", "models/dr-seed1/model.json", "models/dr-seed1/weights.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing output %s: %v", f, err)
		}
	}
	if _, _, err := runCmd(t, args...); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "results.csv"))
	if !bytes.Equal(first, again) {
		t.Errorf("same seed, different results:\n%s\n%s", first, again)
	}

	pred := filepath.Join(dir, "p.csv")
	if _, stderr, err := runCmd(t, "predict", "-model", filepath.Join(dir, "models", "dr-seed1"), "-data", data, "-out", pred); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	b, _ := os.ReadFile(pred)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1501 || lines[0] != "row,line,probability,logit" || !strings.HasPrefix(lines[1], "1,2,") {
		t.Fatalf("predictions: %d lines, starting %q", len(lines), lines[:2])
	}
	var mean float64
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		p, err := strconv.ParseFloat(f[2], 64)
		logit, err2 := strconv.ParseFloat(f[3], 64)
		if err != nil || err2 != nil || !(p > 0 && p < 1) || math.Abs(logit-math.Log(p/(1-p))) > 1e-4*(1+math.Abs(logit)) {
			t.Fatalf("line %q: not a probability and its logit", l)
		}
		mean += p
	}
	if mean /= 1500; !(mean > 0.2 && mean < 0.6) {
		t.Errorf("mean predicted probability %.3f, want near the share of yes (≈0.35)", mean)
	}
	lacking := filepath.Join(dir, "lacking.csv")
	if err := os.WriteFile(lacking, []byte("x1,group\n0.5,grp a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "predict", "-model", filepath.Join(dir, "models", "dr-seed1"), "-data", lacking); err == nil ||
		!strings.Contains(err.Error(), `lacking.csv: no column named "x2" (a feature the model was trained on)`) {
		t.Errorf("predict on a file without x2: error %v", err)
	}
}

// TestEstimateFlagsUnreliableStrata runs estimate with given G and m columns on a table
// whose Y = 1 stratum has one observed Z = 1 row: obs and ip flag it in the table and on
// standard error, and the healthy stratum is not flagged.
func TestEstimateFlagsUnreliableStrata(t *testing.T) {
	data := ownCSV(t, 1500, true)
	out, stderr, err := runCmd(t, "estimate", "-data", data, "-outputs", "h", "-y", "outcome", "-y-positive", "yes", "-z", "z", "-g", "g", "-m", "m", "-methods", "obs,ip,dr")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"| obs |", "| ip |", "| dr |", "Y = 1 |", "observed Z=0", "Z=1: 1;", "ESS of ΔZ/G for Z=1 is 1.0 < 10", "T11", "N11"} {
		if !strings.Contains(out, want) {
			t.Errorf("estimate output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "warning: obs: stratum Y = 1 is unreliable") {
		t.Errorf("no warning on stderr: %q", stderr)
	}

	// The same table with G and m fitted on -x.
	out, stderr, err = runCmd(t, "estimate", "-data", ownCSV(t, 1500, false), "-outputs", "h", "-y", "outcome", "-y-positive", "yes", "-z", "z",
		"-x", "x1,x2,group", "-methods", "ip,dr", "-aux-epochs", "5", "-bandwidth", "median")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(out, "auxiliary models G and m, fitted on (X, Y) of 5 folds") || !strings.Contains(out, "MLP [32 32]") || !strings.Contains(out, "| dr |") || strings.Contains(out, "UNRELIABLE") {
		t.Errorf("estimate with fitted G and m:\n%s", out)
	}
}

func TestOwnDataBadCommandLines(t *testing.T) {
	data := ownCSV(t, 300, false)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "-data", data, "-y", "outcome"}, "-z: required"},
		{[]string{"fit", "-data", data, "-y", "outcome", "-z", "z"}, `own.csv:2: column "outcome" (-y): value "no", want 0 or 1; the column's values are no, yes: name the positive one with -y-positive`},
		{[]string{"fit", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "zz", "-x", "x1"}, `own.csv: no column named "zz" (-z); the columns are x1, x2, group`},
		{[]string{"fit", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-x", "x1,age"}, `no column named "age" (-x)`},
		{[]string{"estimate", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-outputs", "score", "-methods", "obs"}, `no column named "score" (-outputs)`},
		{[]string{"fit", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-methods", "full"}, "method full needs Z on every row"},
		{[]string{"fit", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-methods", "dr+"}, "needs the true P(Δ = 1 | X, Y)"},
		{[]string{"fit", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-val-frac", "0.7", "-test-frac", "0.5"}, "sum < 1"},
		{[]string{"fit", "-data", filepath.Join(t.TempDir(), "none.csv"), "-y", "a", "-z", "b"}, "no such file"},
		{[]string{"estimate", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-outputs", "h", "-methods", "dr"}, "methods dr need G = P(Δ = 1 | X, Y) and m = P(Z = 1 | X, Y): they are fitted on the features named by -x, or read from columns of fitted probabilities named by -g and -m; obs, which needs neither G nor m, can run alone with -methods obs"},
		{[]string{"estimate", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-outputs", "h", "-methods", "full"}, `own.csv:3: column "z" (-z): value "": Z is missing but method full needs Z on every row`},
		{[]string{"estimate", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-outputs", "group", "-methods", "obs"}, `column "group" (-outputs): value "grp a", want a number`},
		{[]string{"estimate", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-outputs", "h", "-g", "x2", "-methods", "ip"}, `(-g): value`},
		{[]string{"predict", "-model", t.TempDir(), "-data", data}, "reading the model"},
		{[]string{"fit", "-data", data, "-y", "outcome", "-z", "z", "extra"}, `unexpected argument "extra"`},
		{[]string{"fit", "-data", data, "-y", "outcome", "-z", "z", "-seeds", "1,1"}, "-seeds: seed 1 listed twice"},
		{[]string{"fit", "-data", data, "-y", "outcome", "-z", "z", "-aux-patience", "-1"}, "-aux-patience -1: want a number of epochs ≥ 0 (0: no early stopping, train to -aux-epochs)"},
		{[]string{"fit", "-data", data, "-y", "outcome", "-z", "z", "-patience", "-2"}, "-patience -2: want a number of epochs ≥ 0 (0: no early stopping, train to -epochs)"},
		{[]string{"fit", "-data", data, "-y", "outcome", "-z", "z", "-aux-patience", "many"}, `invalid value "many" for flag -aux-patience: want a whole number`},
		{[]string{"estimate", "-data", data, "-y", "outcome", "-z", "z", "-outputs", "h", "-aux-patience", "-1"}, "-aux-patience -1: want a number of epochs ≥ 0"},
		{[]string{"test", "-data", data, "-y", "outcome", "-z", "z", "-outputs", "h", "-aux-patience", "-1"}, "-aux-patience -1: want a number of epochs ≥ 0"},
		{[]string{"estimate", "-data", data, "-y", "outcome", "-z", "z", "-outputs", "h", "-patience", "5"}, "flag provided but not defined: -patience"},
	} {
		_, stderr, err := runCmd(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("invmmd %s:\nerror %v (stderr %q)\nwant one containing %q", strings.Join(tc.args, " "), err, stderr, tc.want)
		}
	}
}

// TestFitTinyCellWarns trains dr on a table with a tiny (Y = 0, Z = 0) cell: the strata
// that rest on it are dropped from the penalty with a warning naming the reason, and the
// test accuracy is at or above the majority baseline, or a warning says it is not.
func TestFitTinyCellWarns(t *testing.T) {
	data := ownCSV(t, 3000, false, true)
	dir := t.TempDir()
	out, stderr, err := runCmd(t, "fit", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-x", "x1,x2,group",
		"-methods", "dr,dr-po", "-epochs", "10", "-aux-epochs", "10", "-out", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "dropped as unreliable (first: Y=0: ") || !strings.Contains(stderr, "ESS of ΔZ/G for Z=0 is") {
		t.Errorf("no warning about the dropped Y=0 stratum:\n%s", stderr)
	}
	var majority float64
	if _, err := fmt.Sscanf(out[strings.Index(out, "majority baseline on test: "):], "majority baseline on test: %g", &majority); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"dr", "dr-po"} {
		line := out[strings.Index(out, "| "+m+" | 1 | "):]
		var acc float64
		if _, err := fmt.Sscanf(line, "| "+m+" | 1 | %g", &acc); err != nil {
			t.Fatal(err)
		}
		if acc < majority-0.005 && !strings.Contains(stderr, "h ("+m+"): test accuracy") {
			t.Errorf("%s: test accuracy %.3f below the majority %.3f without a warning", m, acc, majority)
		}
		t.Logf("%s: test accuracy %.3f, majority %.3f", m, acc, majority)
	}
}

// TestEstimateFlagsNegativeNormaliser gives estimate G and m columns under which the dr
// estimate of P(Z = 1 | Y) is negative in both strata (observed Z = 0 rows with Ĝ = 0.1 and
// m̂ = 0.95): the normalisers are floored and both strata flagged, in the table and the
// diagnostics.
func TestEstimateFlagsNegativeNormaliser(t *testing.T) {
	var b strings.Builder
	b.WriteString("h,y,z,g,m\n")
	for i := 0; i < 40; i++ {
		y, k := i/20, i%20
		z, g := "", "0.5"
		switch {
		case k < 5:
			z, g = "0", "0.1"
		case k == 5:
			z, g = "1", "0.9"
		}
		fmt.Fprintf(&b, "%.3f,%d,%s,%s,0.95\n", float64(i%7)/3-1, y, z, g)
	}
	path := filepath.Join(t.TempDir(), "neg.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCmd(t, "estimate", "-data", path, "-outputs", "h", "-y", "y", "-z", "z", "-g", "g", "-m", "m", "-methods", "dr", "-bandwidth", "1")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, w := range []string{"| dr |", "Y = 0 and Y = 1 |", "estimate of P(Z=1|Y) is -", "(normalisers floored)", "2 normaliser(s) raised to the floor"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}
