package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The own-data workflow: fit → predict → estimate → test without glue, every
// bad input a named error before any work, Ctrl-C within a second, one writer per folder.

// binCSV writes a table with a 0/1 label y (P(y = 1) rising with x1), a binary z missing
// at random given x2 for about 40% of the rows, and columns h (depending on z), g and m.
// edit, when given, changes each row's cells (by column) before it is written.
func binCSV(t *testing.T, n int, edit func(i int, row map[string]string)) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	cols := []string{"x1", "x2", "y", "z", "h", "g", "m"}
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write(cols)
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	for i := 0; i < n; i++ {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		y := b2f(rng.Float64() < sig(1.5*x1))
		z := b2f(rng.Float64() < 0.3+0.4*y)
		g := sig(0.5 + x2)
		row := map[string]string{"x1": strconv.FormatFloat(x1, 'f', 4, 64), "x2": strconv.FormatFloat(x2, 'f', 4, 64), "y": fmt.Sprint(y), "z": "",
			"h": strconv.FormatFloat(x1+0.5*z, 'f', 4, 64), "g": strconv.FormatFloat(g, 'f', 4, 64), "m": strconv.FormatFloat(0.3+0.4*y, 'f', 2, 64)}
		if rng.Float64() < g {
			row["z"] = fmt.Sprint(z)
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
	path := filepath.Join(t.TempDir(), "bin.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeFile writes body to a new file name under a temporary folder and returns its path.
func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOwnDataBadInputsAreNamedErrors: every bad case and weak class of input (a
// diverging learning rate, sizes beyond their bounds, G = 0 where Z is observed, a constant
// h, malformed or out-of-range cells, a row id as a feature, a tab-separated file) is an
// error before any work (nothing is fitted: no report of the auxiliary models), naming
// the file, line, column and value, or the flag by its name in this command — never a
// package prefix in the middle, never a Go value.
func TestOwnDataBadInputsAreNamedErrors(t *testing.T) {
	data := binCSV(t, 300, nil)
	g0 := binCSV(t, 300, func(i int, r map[string]string) {
		if i == 7 && r["z"] != "" || i == 9 {
			r["g"], r["z"] = "0", "1"
		}
	})
	idCol := withColumn(t, data, "id", func(i int) string { return strconv.Itoa(i + 1) })
	hNaN := binCSV(t, 300, func(i int, r map[string]string) {
		if i == 5 {
			r["h"] = "NaN"
		}
	})
	huge := binCSV(t, 300, func(i int, r map[string]string) {
		if i == 5 {
			r["x2"] = "1e400"
		}
	})
	zBig := binCSV(t, 300, func(i int, r map[string]string) {
		if r["z"] != "" {
			r["z"] = strconv.FormatFloat(1e300*(float64(i%13)+0.5), 'g', -1, 64)
		}
	})
	zCont := binCSV(t, 300, func(i int, r map[string]string) {
		if r["z"] != "" {
			r["z"] = strconv.FormatFloat(float64(i%97)/7, 'f', 3, 64)
		}
	})
	var vb strings.Builder
	vb.WriteString("y,a,b,h,x1\n")
	for i := range 60 {
		a, b := fmt.Sprint(float64(i%9)/4), fmt.Sprint(float64(i%5)/3)
		switch {
		case i%4 == 0:
			a, b = "", ""
		case i == 11:
			b = ""
		}
		fmt.Fprintf(&vb, "%d,%s,%s,%d,%d\n", i%2, a, b, i%7, i%3)
	}
	vecBlank := writeFile(t, "vec.csv", vb.String())
	constH := binCSV(t, 300, func(_ int, r map[string]string) { r["h"] = "2" })
	tsv := writeFile(t, "t.tsv", strings.ReplaceAll(mustRead(t, data), ",", "\t"))
	classes := classCSV(t, 300, nil)
	out := t.TempDir()
	fitDir := filepath.Join(t.TempDir(), "fitted")
	if _, stderr, err := runCmd(t, "fit", "-data", data, "-y", "y", "-z", "z", "-x", "x1,x2", "-methods", "none", "-epochs", "2", "-aux-epochs", "2", "-out", fitDir); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	est := func(d string, more ...string) []string {
		return append([]string{"estimate", "-data", d, "-y", "y", "-z", "z", "-outputs", "h", "-g", "g", "-m", "m"}, more...)
	}
	fit := func(d string, more ...string) []string {
		return append([]string{"fit", "-data", d, "-y", "y", "-z", "z", "-out", filepath.Join(out, "never")}, more...)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		// The bad cases.
		{"a diverging learning rate", fit(data, "-lr", "1e6"), "-lr 1e+06: want a value in (0, 1]"},
		{"a width that does not fit in memory", fit(data, "-hidden", "100000000"), "-hidden 100000000: want widths from 1 to 65536"},
		{"random Z features beyond the bound", est(data, "-z-features", "100000000"), "-z-features 100000000: want 0 (the default) to 1024"},
		{"bootstrap draws beyond the bound", []string{"test", "-data", data, "-y", "y", "-z", "z", "-outputs", "h", "-g", "g", "-m", "m", "-route", "wild", "-B", "99999999"}, "-B 99999999: want 100 to 100000"},
		{"a batch beyond the bound", fit(data, "-batch", "999999999"), "-batch 999999999: want 2 to"},
		{"G = 0 where Z is observed", est(g0, "-methods", "dr"), `bin.csv:9: column "g" (-g): value "0" on a row whose Z is observed`},
		// The weak classes.
		{"λ = 1e308", fit(data, "-lambda", "1e308"), "-lambda 1e+308: want a value from 0 to 1e+06"},
		{"features of h with K classes", []string{"fit", "-data", classes, "-y", "label", "-z", "z", "-represent", "features", "-out", filepath.Join(out, "never")}, "-represent features: a label of 3 classes (alpha, beta, gamma)"},
		{"a constant h", []string{"test", "-data", constH, "-y", "y", "-z", "z", "-outputs", "h", "-x", "x1"}, "h is constant (every row is 2)"},
		{"an output file in a folder that does not exist", est(data, "-out", filepath.Join(out, "no", "such", "e.csv")), "not writable"},
		{"a kernel on Z that tells no rows apart", []string{"estimate", "-data", zCont, "-y", "y", "-z", "z", "-outputs", "h", "-x", "x1", "-z-bandwidth", "1e-300"}, "-z-bandwidth 1e-300: "},
		{"Z of 1e300", []string{"estimate", "-data", zBig, "-y", "y", "-z", "z", "-outputs", "h", "-x", "x1"}, `column "z" (-z): value "5e+299" is beyond ±1e+150`},
		{"a numeric row id as a default feature", fit(idCol), `column "id" holds the integers 1 to 300, each once: a row number`},
		{"a column listed twice in -z", est(data, "-z", "z,z"), `-z z,z: column "z" listed twice`},
		{"a vector Z with one blank component", []string{"estimate", "-data", vecBlank, "-y", "y", "-z", "a,b", "-outputs", "h", "-x", "x1"}, `vec.csv:13: column "b" (-z): value "" is missing while column "a" holds "0.5"`},
		{"an h cell NaN", est(hNaN, "-methods", "obs"), `bin.csv:7: column "h" (-outputs): value "NaN" is missing`},
		{"a number beyond float64", est(huge, "-x", "x2", "-methods", "obs"), `bin.csv:7: column "x2": value "1e400" is out of range`},
		{"a negative seed", []string{"test", "-data", data, "-y", "y", "-z", "z", "-outputs", "h", "-seeds", "-1"}, `invalid value "-1" for flag -seeds: want a whole number ≥ 0`},
		{"two seeds for a test", []string{"test", "-data", data, "-y", "y", "-z", "z", "-outputs", "h", "-seeds", "1,2"}, "want one seed"},
		{"estimate's epochs of G and m", est(data, "-aux-epochs", "-5"), "-aux-epochs -5: want at least 1"},
		{"a fit's folder as the model", []string{"predict", "-model", fitDir, "-data", data}, fitDir + " is the output folder of a fit, not a model: name one of its models, e.g. " + filepath.Join(fitDir, "models", "none-seed1")},
		{"a tab-separated file", est(tsv), "the file looks tab-separated"},
		{"a prefix of the estimators' package", []string{"estimate", "-data", zCont, "-y", "y", "-z", "z", "-outputs", "h", "-x", "x1", "-z-bandwidth", "1e-300", "-z-kind", "continuous"}, "-z-bandwidth 1e-300: "},
		{"a word that is not a number", fit(data, "-lr", "fast"), `invalid value "fast" for flag -lr: want a number`},
	} {
		stdout, stderr, err := runCmdSafe(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: invmmd %s:\nerror %v\nwant one containing %q (stderr %q)", tc.name, strings.Join(tc.args, " "), err, tc.want, stderr)
			continue
		}
		msg := err.Error()
		if strings.Contains(stdout, "auxiliary models") || strings.Contains(stdout, "fitting G and m") {
			t.Errorf("%s: G and m were fitted before the error:\n%s", tc.name, stdout)
		}
		if regexp.MustCompile(`(^|: |\()(invmmd|owndata|train|tabular): `).MatchString(msg) || strings.Contains(msg, "0x") || strings.Contains(msg, "parse error") {
			t.Errorf("%s: error %q carries a package prefix, a Go value or a bare parse error", tc.name, msg)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "never")); err == nil {
		t.Errorf("a refused fit created its output folder")
	}
}

// mustRead returns the content of the file at path.
func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// withColumn returns a copy of the CSV file at path with a column name added in front,
// its cell of row i being cell(i).
func withColumn(t *testing.T, path, name string, cell func(i int) string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(mustRead(t, path)), "\n")
	lines[0] = name + "," + lines[0]
	for i := 1; i < len(lines); i++ {
		lines[i] = cell(i-1) + "," + lines[i]
	}
	return writeFile(t, name+".csv", strings.Join(lines, "\n")+"\n")
}

// TestOwnDataMissingMarkersAndRetiredNames: na is missing like NA (it was read as a level
// of Z), the retired flag names (-h, -csv, -seed, test's -min-ess) are refused, and
// estimate, test and fit's held-out numbers say that σ is the median heuristic on h.
func TestOwnDataMissingMarkersAndRetiredNames(t *testing.T) {
	data := binCSV(t, 400, func(i int, r map[string]string) {
		if r["z"] == "" {
			r["z"] = []string{"na", "NA", "N/A", "nan", "Null"}[i%5]
		}
	})
	out, stderr, err := runCmd(t, "estimate", "-data", data, "-y", "y", "-z", "z", "-outputs", "h", "-g", "g", "-m", "m", "-methods", "obs,dr", "-out", filepath.Join(t.TempDir(), "e.csv"))
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(out, "Z (z) is binary") || !strings.Contains(out, "(the median heuristic on h)") {
		t.Errorf("estimate: Z not binary with na missing, or σ not the median heuristic:\n%s", out)
	}
	for _, args := range [][]string{{"estimate", "-csv", "e.csv"}, {"test", "-seed", "3"}, {"test", "-min-ess", "5"}} {
		if _, _, err := runCmd(t, append(args, "-data", data, "-y", "y", "-z", "z", "-outputs", "h")...); err == nil || !strings.Contains(err.Error(), "flag provided but not defined: "+args[1]) {
			t.Errorf("invmmd %s: %v, want the retired name refused", strings.Join(args, " "), err)
		}
	}
	out, stderr, err = runCmd(t, "test", "-data", data, "-y", "y", "-z", "z", "-outputs", "h", "-g", "g", "-m", "m", "-seeds", "3")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(out, "(the median heuristic on h, on half B)") {
		t.Errorf("test: stderr %q\n%s", stderr, out)
	}
	est, _, _ := runCmd(t, "estimate", "-h")
	tst, _, _ := runCmd(t, "test", "-h")
	for _, w := range []string{"-batch rows\n    \t`rows` per training step of G and m", "-bandwidth string\n"} {
		w = strings.ReplaceAll(w, "`", "")
		if !strings.Contains(est, w) || !strings.Contains(tst, w) {
			t.Errorf("estimate -h or test -h lacks %q", w)
		}
	}
	if strings.Contains(tst, "-min-ess") || strings.Contains(est, "dropped from the training penalty") {
		t.Errorf("test offers -min-ess, or estimate's help is copied from fit's:\n%s", tst)
	}
}

// TestOwnCommandsStopWithinASecond cancels fit, estimate and test while they work (as
// SIGINT or SIGTERM does through main's context) and checks that each returns within a
// second, saying what was kept and how to go on; a fit's finished methods are on disk and
// its folder's lock released. While the fit holds its folder, a second fit into it is
// refused, naming the holder's process and command line.
func TestOwnCommandsStopWithinASecond(t *testing.T) {
	data := binCSV(t, 1500, nil)
	dir := t.TempDir()
	fitArgs := []string{"fit", "-data", data, "-y", "y", "-z", "z", "-x", "x1,x2", "-methods", "none,dr", "-epochs", "300", "-patience", "0", "-aux-epochs", "30", "-out", dir}
	cases := []struct {
		name string
		args []string
		want []string
		// during runs while the command works, before the cancel.
		during func(t *testing.T)
	}{
		{"fit", fitArgs, []string{"interrupted; the 0 finished method(s) of 2 are kept under " + dir, "-resume"}, func(t *testing.T) {
			lock := filepath.Join(dir, ".invmmd-lock")
			for start := time.Now(); time.Since(start) < 20*time.Second; time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(lock); err == nil {
					break
				}
			}
			_, _, err := runCmd(t, "fit", "-data", data, "-y", "y", "-z", "z", "-x", "x1,x2", "-methods", "none,dr", "-lambda", "5", "-out", dir)
			want := fmt.Sprintf("-out %s: %s is being written by process %d", dir, dir, os.Getpid())
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "invmmd fit -data") {
				t.Errorf("a second fit into the folder: %v, want %q and the holder's command line", err, want)
			}
		}},
		{"estimate", []string{"estimate", "-data", data, "-y", "y", "-z", "z", "-outputs", "h", "-x", "x1,x2", "-aux-epochs", "300", "-aux-patience", "0"},
			[]string{"interrupted; nothing was written", "invmmd estimate -data"}, nil},
		{"test", []string{"test", "-data", binCSV(t, 20000, nil), "-y", "y", "-z", "z", "-outputs", "h", "-g", "g", "-m", "m", "-route", "wild", "-B", "100000", "-methods", "dr"},
			[]string{"interrupted; nothing was written", "invmmd test -data"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			var stdout, stderr bytes.Buffer
			go func() { done <- dispatchContext(ctx, tc.args, &stdout, &stderr) }()
			if tc.during != nil {
				tc.during(t)
			} else {
				time.Sleep(400 * time.Millisecond)
			}
			select {
			case err := <-done:
				t.Fatalf("finished before the cancel: %v\n%s", err, stderr.String())
			default:
			}
			cancel()
			start := time.Now()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("still running 5 s after the cancel")
			}
			if took := time.Since(start); took > time.Second {
				t.Errorf("stopped %v after the cancel, want within a second", took)
			}
			var ie *interrupted
			if !errors.As(err, &ie) {
				t.Fatalf("error %v, want an interruption", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, ".invmmd-lock")); err == nil {
		t.Errorf("the interrupted fit left its lock")
	}
}

// TestFitLockAndData: a lock left by a process that died is taken over with a note; a
// folder whose results were fitted on other data (the same file name and size, every label
// flipped) is refused with -resume, and replaced with -force.
func TestFitLockAndData(t *testing.T) {
	data := binCSV(t, 300, nil)
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no process to outlive:", err)
	}
	stale := fmt.Sprintf(`{"pid": %d, "host": "h", "command": "invmmd fit -data old.csv", "started": "2020-01-02T03:04:05Z"}`, dead.Process.Pid)
	if err := os.WriteFile(filepath.Join(dir, ".invmmd-lock"), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"fit", "-data", data, "-y", "y", "-z", "z", "-x", "x1,x2", "-methods", "none", "-epochs", "2", "-aux-epochs", "2", "-out", dir}
	_, stderr, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if want := fmt.Sprintf("warning: took over the lock of process %d on h (invmmd fit -data old.csv", dead.Process.Pid); !strings.Contains(stderr, want) {
		t.Errorf("no note about the stale lock %q:\n%s", want, stderr)
	}
	before := mustRead(t, data)
	flipped := strings.NewReplacer(",0,", ",1,", ",1,", ",0,").Replace(before) // y is the third column, x2 has 4 decimals
	if len(flipped) != len(before) || flipped == before {
		t.Fatalf("flipping the labels changed the size (%d → %d) or nothing", len(before), len(flipped))
	}
	if err := os.WriteFile(data, []byte(flipped), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = runCmd(t, append(args, "-resume")...)
	if err == nil || !strings.Contains(err.Error(), "its results were made from other data") || !strings.Contains(err.Error(), "-force") {
		t.Errorf("-resume on other data: %v", err)
	}
	if _, stderr, err := runCmd(t, append(args, "-force")...); err != nil {
		t.Errorf("-force on other data: %v\n%s", err, stderr)
	}
}

// TestPredictOutput: predict refuses an -out that exists unless -force, never writes over
// the model's own files, writes the logit next to the probability, and keeps the columns
// asked for, as written.
func TestPredictOutput(t *testing.T) {
	data := binCSV(t, 300, nil)
	dir := t.TempDir()
	if _, stderr, err := runCmd(t, "fit", "-data", data, "-y", "y", "-z", "z", "-x", "x1,x2", "-methods", "none", "-epochs", "2", "-aux-epochs", "2", "-out", dir); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	model := filepath.Join(dir, "models", "none-seed1")
	out := writeFile(t, "p.csv", "precious\n")
	if _, _, err := runCmd(t, "predict", "-model", model, "-data", data, "-out", out); err == nil || !strings.Contains(err.Error(), "exists") || !strings.Contains(err.Error(), "-force") {
		t.Errorf("predict over an existing file: %v", err)
	}
	if mustRead(t, out) != "precious\n" {
		t.Fatalf("the refused predict changed the file")
	}
	if _, _, err := runCmd(t, "predict", "-model", model, "-data", data, "-out", filepath.Join(model, "model.json"), "-force"); err == nil || !strings.Contains(err.Error(), "the model's own model.json") {
		t.Errorf("predict over model.json with -force: %v", err)
	}
	if _, _, err := runCmd(t, "predict", "-model", model, "-data", data, "-keep", "y,nosuch"); err == nil || !strings.Contains(err.Error(), "no column named") {
		t.Errorf("-keep of a column the data lacks: %v", err)
	}
	if _, stderr, err := runCmd(t, "predict", "-model", model, "-data", data, "-out", out, "-force", "-keep", "y,z"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(mustRead(t, out))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	in, _ := csv.NewReader(strings.NewReader(mustRead(t, data))).ReadAll()
	if strings.Join(recs[0], ",") != "row,line,probability,logit,y,z" || len(recs) != len(in) {
		t.Fatalf("header %q, %d lines (the data has %d)", recs[0], len(recs), len(in))
	}
	for i, r := range recs[1:] {
		p, _ := strconv.ParseFloat(r[2], 64)
		l, _ := strconv.ParseFloat(r[3], 64)
		if math.Abs(l-math.Log(p/(1-p))) > 1e-4 || r[4] != in[i+1][2] || r[5] != in[i+1][3] {
			t.Fatalf("row %d: %q; the data's y, z are %q, %q", i+1, r, in[i+1][2], in[i+1][3])
		}
	}
}

// readmeCommands returns the command lines of README.md's own-data example (between its
// markers), continuation lines joined, each split into its words.
func readmeCommands(t *testing.T) [][]string {
	t.Helper()
	readme := mustRead(t, filepath.Join("..", "..", "README.md"))
	_, block, ok := strings.Cut(readme, "<!-- own-data example -->")
	block, _, ok2 := strings.Cut(block, "<!-- /own-data example -->")
	if !ok || !ok2 {
		t.Fatal("README.md has no own-data example between <!-- own-data example --> and <!-- /own-data example -->")
	}
	block = strings.TrimSpace(block)
	block = strings.TrimPrefix(strings.TrimSuffix(block, "```"), "```sh")
	var cmds [][]string
	for _, line := range strings.Split(strings.ReplaceAll(block, "\\\n", " "), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		words := strings.Fields(line)
		switch {
		case len(words) > 3 && strings.Join(words[:3], " ") == "go run ./cmd/invmmd":
			words = words[3:]
		case len(words) > 1 && words[0] == "invmmd":
			words = words[1:]
		default:
			t.Fatalf("README.md's own-data example: %q is not an invmmd command", line)
		}
		for _, w := range words {
			if strings.ContainsAny(w, `'"$*?;|&<>`) {
				t.Fatalf("README.md's own-data example: %q needs a shell; keep the block plain words", w)
			}
		}
		cmds = append(cmds, words)
	}
	return cmds
}

// TestREADMEOwnDataExample runs README.md's own-data example as written, in a fresh
// folder that holds the repository's data/: fit, predict (its output the input of the
// next two), estimate and test, each reading the previous one's files without glue.
func TestREADMEOwnDataExample(t *testing.T) {
	cmds := readmeCommands(t)
	var names []string
	for _, c := range cmds {
		names = append(names, c[0])
	}
	if strings.Join(names, ",") != "fit,predict,estimate,test,audit" {
		t.Fatalf("the example runs %v, want fit, predict, estimate, test and audit", names)
	}
	repoData, err := filepath.Abs(filepath.Join("..", "..", "data"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(repoData, filepath.Join(dir, "data")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, c := range cmds {
		stdout, stderr, err := runCmd(t, c...)
		if err != nil {
			t.Fatalf("invmmd %s: %v\n%s\n%s", strings.Join(c, " "), err, stdout, stderr)
		}
		if strings.Contains(stderr, "is now -") {
			t.Errorf("invmmd %s uses an old flag name:\n%s", strings.Join(c, " "), stderr)
		}
	}
	scored := mustRead(t, "scored.csv")
	if !strings.HasPrefix(scored, "row,line,probability,logit,gender,ethnicity,score,") {
		t.Errorf("scored.csv header: %.120s", scored)
	}
	for file, rows := range map[string][]string{"estimates.csv": {"obs,", "ip,", "dr,"}, "tests.csv": {"dr,"},
		"college-audit/audit.csv": {"equalized_odds_difference,all,,dr,", "true_positive_rate,afam,,complete_case,"}} {
		got := mustRead(t, file)
		for _, r := range rows {
			if !strings.Contains(got, "\n"+r) {
				t.Errorf("%s lacks a row %q:\n%s", file, r, got)
			}
		}
	}
}
