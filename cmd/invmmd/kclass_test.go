package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// classCSV writes a table of a label of three text classes (alpha, beta, gamma, drawn by a
// softmax of the features), a binary nuisance z left empty for about a third of the rows
// (missing at random given x1), features x1, x2 and group, and two model-output columns h1,
// h2. edit, when given, changes each row's cells before it is written (by column name).
func classCSV(t *testing.T, n int, edit func(i int, row map[string]string)) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	cols := []string{"x1", "x2", "group", "label", "z", "h1", "h2"}
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write(cols)
	for i := 0; i < n; i++ {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		z := rng.Float64() < 0.5
		s := []float64{0, 1.5*x1 + 0.5*b2f(z), 1.5 * x2}
		e, tot := make([]float64, 3), 0.0
		for k, v := range s {
			e[k] = math.Exp(v)
			tot += e[k]
		}
		u, k := rng.Float64()*tot, 0
		for u > e[k] && k < 2 {
			u -= e[k]
			k++
		}
		row := map[string]string{
			"x1": strconv.FormatFloat(x1, 'f', 4, 64), "x2": strconv.FormatFloat(x2, 'f', 4, 64), "group": fmt.Sprintf("g%d", i%3),
			"label": []string{"alpha", "beta", "gamma"}[k], "z": "",
			"h1": strconv.FormatFloat(x1+0.3*b2f(z), 'f', 4, 64), "h2": strconv.FormatFloat(x2, 'f', 4, 64),
		}
		if rng.Float64() < 1/(1+math.Exp(-(0.7+x1))) {
			row["z"] = strconv.Itoa(int(b2f(z)))
		}
		if edit != nil {
			edit(i, row)
		}
		rec := make([]string, len(cols))
		for j, c := range cols {
			rec[j] = row[c]
		}
		_ = w.Write(rec)
	}
	w.Flush()
	path := filepath.Join(t.TempDir(), "classes.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func b2f(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

// TestKClassFitPredictEstimate runs the own-data workflow on a label of three classes: fit
// trains K class logits, records the classes (results.md, config.json, the model folder)
// and tests the K logits' invariance on the test split (p-values in results.csv); predict writes one probability column per class, p_CLASS, each row summing to
// 1; estimate takes the label's three strata and a two-column h, with σ by the median
// heuristic on its rows; test takes that h by the cross route.
func TestKClassFitPredictEstimate(t *testing.T) {
	data := classCSV(t, 900, nil)
	dir := t.TempDir()
	out, stderr, err := runCmd(t, "fit", "-data", data, "-y", "label", "-z", "z", "-x", "x1,x2,group", "-methods", "none,dr", "-epochs", "6", "-aux-epochs", "6", "-out", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"label label: 3 classes alpha, beta, gamma", "observed Z by class alpha: Z0=", "| none | 1 |", "| dr | 1 |",
		"[Y=gamma: ", "test of H₀: h ⊥ Z | Y on the test split, cross route"} {
		if !strings.Contains(out, want) {
			t.Errorf("fit output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "P(Y=1)") {
		t.Errorf("fit output speaks of P(Y=1) for a label of 3 classes:\n%s", out)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "results.md"))
	if !strings.Contains(string(md), "- label label of 3 classes: alpha, beta, gamma; accuracy is of the most probable class, AUC the macro-AUC") ||
		!strings.Contains(string(md), "(always predicting the most common class)") {
		t.Errorf("results.md does not record the classes:\n%s", md)
	}
	// The held-out tests take the three class logits as one representation: p-values, not n/a.
	rf, err := os.Open(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := csv.NewReader(rf).ReadAll()
	rf.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for j, h := range res[0] {
		col[h] = j
	}
	if _, ok := col["heldout_p_ip"]; ok {
		t.Errorf("results.csv has a column of ip's held-out p-values, whose size is not shown to hold")
	}
	for _, r := range res[1:] {
		if p, err := strconv.ParseFloat(r[col["heldout_p_dr"]], 64); err != nil || p < 0 || p > 1 {
			t.Errorf("results.csv, %s seed %s: heldout_p_dr = %q, want a p-value", r[0], r[1], r[col["heldout_p_dr"]])
		}
	}
	cj, _ := os.ReadFile(filepath.Join(dir, "config.json"))
	if !strings.Contains(string(cj), `"num_classes": 3`) {
		t.Errorf("config.json does not record K:\n%s", cj)
	}
	model := filepath.Join(dir, "models", "dr-seed1")
	pred, stderr, err := runCmd(t, "predict", "-model", model, "-data", data)
	if err != nil {
		t.Fatalf("predict: %v\n%s", err, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(pred)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "row,line,p_alpha,p_beta,p_gamma,logit_alpha,logit_beta,logit_gamma,class" || len(recs) != 901 {
		t.Fatalf("predict wrote header %q and %d lines, want row,line,p_alpha,p_beta,p_gamma,logit_alpha,logit_beta,logit_gamma,class and 901", got, len(recs))
	}
	for _, r := range recs[1:] {
		sum := 0.0
		for _, v := range r[2:5] {
			p, err := strconv.ParseFloat(v, 64)
			if err != nil || p <= 0 || p >= 1 {
				t.Fatalf("row %v: probability %q", r, v)
			}
			sum += p
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Fatalf("row %v: probabilities sum to %v", r, sum)
		}
	}
	for _, h := range []string{"h1", "h1,h2"} {
		out, stderr, err := runCmd(t, "estimate", "-data", data, "-outputs", h, "-y", "label", "-z", "z", "-x", "x1,x2,group", "-aux-epochs", "6", "-bandwidth", "median", "-methods", "ip,dr")
		if err != nil {
			t.Fatalf("estimate -h %s: %v\n%s", h, err, stderr)
		}
		for _, want := range []string{"| dr | ", "Y=alpha: ", "Y=gamma: ", "label label: 3 classes alpha, beta, gamma, one stratum each"} {
			if !strings.Contains(out, want) {
				t.Errorf("estimate -h %s output lacks %q:\n%s", h, want, out)
			}
		}
		if two := strings.Contains(out, "h: 2 columns (h1, h2), one representation"); two != (h == "h1,h2") {
			t.Errorf("estimate -h %s: says two columns: %v\n%s", h, two, out)
		}
	}
	// The invariance test of the two-column h, by the cross route over the three classes.
	out, stderr, err = runCmd(t, "test", "-data", data, "-outputs", "h1,h2", "-y", "label", "-z", "z", "-x", "x1,x2,group", "-aux-epochs", "6")
	if err != nil {
		t.Fatalf("test -h h1,h2: %v\n%s", err, stderr)
	}
	for _, want := range []string{"h: 2 columns (h1, h2), one representation", "cross route", "| dr | ", "Y=gamma: "} {
		if !strings.Contains(out, want) {
			t.Errorf("test -h h1,h2 output lacks %q:\n%s", want, out)
		}
	}
}

// TestKClassCommandErrors checks the named errors of a label of K > 2 classes and of a
// multi-column h: each names the file, line, column and value, or the flag, it is about.
func TestKClassCommandErrors(t *testing.T) {
	good := classCSV(t, 600, nil)
	dir := t.TempDir()
	if _, stderr, err := runCmd(t, "fit", "-data", good, "-y", "label", "-z", "z", "-x", "x1,x2,group", "-methods", "none", "-epochs", "2", "-aux-epochs", "2", "-out", dir); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	model := filepath.Join(dir, "models", "none-seed1")
	unseen := classCSV(t, 50, func(i int, r map[string]string) {
		if i == 4 {
			r["label"] = "delta"
		}
	})
	blank := classCSV(t, 300, func(i int, r map[string]string) {
		if i == 9 {
			r["h2"] = ""
		}
	})
	inf := classCSV(t, 300, func(i int, r map[string]string) {
		if i == 2 {
			r["h2"] = "Inf"
		}
	})
	noZ := classCSV(t, 300, func(_ int, r map[string]string) {
		if r["label"] == "gamma" {
			r["z"] = ""
		}
	})
	oneZ := classCSV(t, 300, func(_ int, r map[string]string) {
		if r["label"] == "beta" && r["z"] == "1" {
			r["z"] = "0"
		}
	})
	est := func(data, h string, more ...string) []string {
		return append([]string{"estimate", "-data", data, "-y", "label", "-z", "z", "-outputs", h, "-x", "x1,x2", "-aux-epochs", "2"}, more...)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"-y-positive with 3 classes", []string{"fit", "-data", good, "-y", "label", "-y-positive", "beta", "-z", "z"},
			`classes.csv: column "label" (-y) has 3 distinct values (alpha, beta, gamma) and -y-positive "beta" names the positive value of a binary label: drop -y-positive`},
		{"-y-positive with 3 classes, estimate", append(est(good, "h1"), "-y-positive", "beta"), `-y-positive "beta" names the positive value of a binary label`},
		{"a class absent from training", []string{"predict", "-model", model, "-data", unseen},
			`classes.csv:6: column "label" (the model's label): class "delta" was absent from training; the model's classes are alpha, beta, gamma`},
		{"h columns of different lengths", est(blank, "h1,h2"),
			`classes.csv:11: column "h2" (-outputs): value "" is missing, want a number on every row: h is the 2 columns h1,h2 together`},
		{"h not finite", est(inf, "h1,h2"), `classes.csv:4: column "h2": value "Inf" is infinite`},
		{"h column listed twice", est(good, "h1,h1"), `-outputs h1,h1: column "h1" listed twice`},
		{"h column absent", est(good, "h1,h3"), `no column named "h3" (-outputs)`},
		{"a class with no observed Z, estimate", est(noZ, "h1,h2"),
			`classes.csv: 0 row(s) with label = gamma have Z (z) observed: the MMD within that class's stratum needs at least 2`},
		{"a class with no observed Z, fit", []string{"fit", "-data", noZ, "-y", "label", "-z", "z", "-out", t.TempDir()},
			`0 row(s) with label = gamma have Z (z) observed`},
		{"a class with no Z = 1", est(oneZ, "h1"), `classes.csv: no row with label = beta and z = 1 observed`},
		{"test of a representation by the wild bootstrap", []string{"test", "-data", good, "-y", "label", "-z", "z", "-outputs", "h1,h2", "-x", "x1,x2", "-route", "wild"},
			"-route wild: -outputs h1,h2 is a representation of 2 columns, which takes the cross route"},
	} {
		_, stderr, err := runCmdSafe(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: invmmd %s:\nerror %v (stderr %q)\nwant one containing %q", tc.name, strings.Join(tc.args, " "), err, stderr, tc.want)
		}
	}
}
