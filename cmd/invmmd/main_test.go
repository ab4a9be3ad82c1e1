package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/clinical"
	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/mimic/mimictest"
	"github.com/invmmd/invmmd/invmmd/tmnist"
)

// run runs the command line args and returns its error message ("" when none), stdout
// and stderr.
func run(t *testing.T, args ...string) (msg, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	if err := dispatch(args, &out, &errb); err != nil {
		msg = err.Error()
	}
	return msg, out.String(), errb.String()
}

// TestBadCommandLinesAreClearErrors probes command lines a user trips over: each must be
// an error that says what is wrong, before any work (no output folder is created, nothing
// is trained: every case returns at once).
func TestBadCommandLinesAreClearErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, []byte("x"), 0o644)
	fresh := filepath.Join(dir, "never")
	noMNIST := mnistUnavailable(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "no command given"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"sim", "-methods", "dr,xx"}, `unknown method "xx"`},
		{[]string{"sim", "-lambdas", "1,-5"}, "λ = -5, want a finite value ≥ 0"},
		{[]string{"sim", "-lambdas", "one"}, `λ "one" is not a number`},
		{[]string{"sim", "-lambdas", "NaN"}, "λ = NaN, want a finite value"},
		{[]string{"sim", "-lambdas", "1,+Inf"}, "λ = +Inf, want a finite value"},
		{[]string{"sim", "-lambdas", "1,1"}, "λ 1 listed twice"},
		{[]string{"sim", "-seeds", "1,a"}, `seed "a"`},
		{[]string{"sim", "-seeds", "1,1"}, "seed 1 listed twice"},
		{[]string{"sim", "-methods", "dr,dr"}, "dr listed twice"},
		{[]string{"sim", "-nosuchflag"}, "flag provided but not defined"},
		{[]string{"sim", "extra", "-quick"}, `unexpected argument "extra"`},
		{[]string{"sim", "extra", "-seeds", "notanumber"}, `unexpected argument "extra"`},
		{[]string{"sim", "-quick", "-out", file}, "is a file, want a folder"},
		{[]string{"sim", "-quick", "-shard", "5/4", "-out", fresh}, "1 ≤ i ≤ n"},
		{[]string{"sim", "-quick", "-shard", "x", "-out", fresh}, "want i/n"},
		{[]string{"sim", "-quick", "-batch", "1", "-out", fresh}, "-batch 1: want at least 2"},
		{[]string{"sim", "-quick", "-represent", "penultimate", "-out", fresh}, `-represent: train: representation "penultimate", want logits or features`},
		{[]string{"variance", "-batches", "-3", "-out", fresh}, "-batches -3: want at least 2"},
		{[]string{"variance", "-batches", "1", "-out", fresh}, "-batches 1: want at least 2"},
		{[]string{"variance", "-quick", "-out", file}, "is a file, want a folder"},
		{[]string{"variance", "-quick", "-shard", "3/2", "-out", fresh}, "1 ≤ i ≤ n"},
		{[]string{"clinical", "-quick", "-data", filepath.Join(dir, "none.csv"), "-out", fresh}, "none.csv: stat"},
		{[]string{"clinical", "-quick", "-data", file, "-mimic", dir, "-out", fresh}, "-mimic and -data: give one"},
		{[]string{"tmnist", "-quick", "-rendering", "emboss", "-out", fresh}, `-rendering: tmnist: unknown rendering "emboss"`},
		{[]string{"tmnist", "-quick", "-textures", "brick", "-out", fresh}, "want two texture names"},
		{[]string{"tmnist", "-quick", "-digits", "-rendering", "fused", "-out", fresh}, "-digits measures the experiment's own images"},
		{[]string{"tmnist", "-quick", "-net", "huge", "-out", fresh}, `-net: tmnist: unknown network "huge" (have pooled, strided, wide)`},
		{[]string{"tmnist", "-quick", "-net", "wide", "-textures", "brick,gravel", "-out", fresh}, "-net wide trains another h on the experiment's own images"},
		{[]string{"tmnist", "-quick", "-textures", "brick,brick.png", "-out", fresh}, "the two textures must differ"},
		{[]string{"tmnist", "-quick", "-textures", "brick,nosuch", "-out", fresh}, "nosuch.png"},
		{[]string{"merge"}, "-out DIR is required"},
		{[]string{"merge", "-out", dir}, "no results under"},
		{[]string{"merge", "-out", dir, "-experiments", "sim"}, `no results of "sim"`},
		{[]string{"figures", "-out", dir, "stray"}, `unexpected argument "stray"`},
		{[]string{"prop1", "-n", "-1"}, "want ≥ 0"},
		{[]string{"prop1", "-n", "2"}, "-n 2: want at least 4 rows per slice"},
	} {
		if tc.want == "nosuch.png" && noMNIST != "" { // the textures are checked after MNIST
			t.Logf("skipping invmmd %s: %s", strings.Join(tc.args, " "), noMNIST)
			continue
		}
		msg, _, stderr := run(t, tc.args...)
		if msg == "" || !strings.Contains(msg+stderr, tc.want) {
			t.Errorf("invmmd %s: error %q (stderr %q), want one mentioning %q", strings.Join(tc.args, " "), msg, stderr, tc.want)
		}
		if strings.Contains(msg, "0x") || strings.Contains(msg, "{") {
			t.Errorf("invmmd %s: error %q dumps a Go value", strings.Join(tc.args, " "), msg)
		}
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("a refused command line created its output folder %s", fresh)
	}
	t.Setenv(tmnist.DataDirEnv, dir)
	if msg, _, _ := run(t, "clinical", "-quick", "-out", fresh); !strings.Contains(msg, filepath.Join(dir, "flchain", "flchain.csv")) {
		t.Errorf("clinical with %s=%s: error %q, want it to name the CSV under that folder", tmnist.DataDirEnv, dir, msg)
	}
}

// TestHelpSaysWhatEachCommandDoes checks that every command's -h starts with its one-line
// description and that the experiments list what -methods all runs.
func TestHelpSaysWhatEachCommandDoes(t *testing.T) {
	methods := map[string]string{
		"sim":      "none,obs,full,dr,dr+,reg,ip,ip+,dr-po,dr-po+",
		"tmnist":   "none,obs,full,dr,dr+,reg,ip,ip+",
		"clinical": "none,obs,full,dr,reg,ip",
		"variance": "full,dr,dr+,reg,ip,ip+,dr-po,dr-po+",
	}
	for _, c := range commands() {
		msg, stderr, errOut := run(t, c.name, "-h") // help goes to stdout
		if msg != "" && msg != "flag: help requested" {
			t.Errorf("%s -h: error %q", c.name, msg)
		}
		if errOut != "" {
			t.Errorf("%s -h wrote to stderr: %q", c.name, errOut)
		}
		if !strings.HasPrefix(stderr, "invmmd "+c.name+": "+c.summary+"\n") {
			t.Errorf("%s -h does not start with its description:\n%s", c.name, stderr)
		}
		if m, ok := methods[c.name]; ok && !strings.Contains(stderr, ": "+m+"\n") {
			t.Errorf("%s -h does not list its methods %s:\n%s", c.name, m, stderr)
		}
		if _, viaHelp, _ := run(t, "help", c.name); viaHelp != stderr {
			t.Errorf("invmmd help %s differs from invmmd %s -h:\n%s", c.name, c.name, viaHelp)
		}
	}
	if _, stdout, _ := run(t, "help"); !strings.Contains(stdout, "commands:") {
		t.Errorf("invmmd help: stdout %q, want the command list", stdout)
	}
	_, est, _ := run(t, "estimate", "-h")
	if strings.Contains(est, "\n  -epochs") || !strings.Contains(est, "(default: none)") {
		t.Errorf("estimate -h lists -epochs, which it ignores, or a wrong -x default:\n%s", est)
	}
	_, fit, _ := run(t, "fit", "-h")
	for _, w := range []string{"heldout.txt", "methods: none,obs,full", "-resume", "-force"} {
		if !strings.Contains(fit, w) {
			t.Errorf("fit -h lacks %q", w)
		}
	}
	if _, sim, _ := run(t, "sim", "-h"); !strings.Contains(sim, "default grid: λ 1,5, seeds 1,2,3,4,5") {
		t.Errorf("sim -h does not print the default grid:\n%s", sim)
	}
}

// TestCommandNamesAreUnique: no registered experiment takes another command's name (the
// first of two would shadow the second).
func TestCommandNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands() {
		if seen[c.name] {
			t.Errorf("two commands named %q", c.name)
		}
		seen[c.name] = true
	}
	if !seen["sim"] || !seen["merge"] || len(seen) < 11 {
		t.Errorf("commands %v: want the experiments' and the others", seen)
	}
}

// TestTMNISTVariantCommand checks that an ablation run of textured MNIST is stored under
// its own name, and that merge and figures know that name again.
func TestTMNISTVariantCommand(t *testing.T) {
	if why := mnistUnavailable(t); why != "" {
		t.Skip(why)
	}
	dir := t.TempDir()
	msg, stdout, _ := run(t, "tmnist", "-quick", "-check", "-rendering", "fused", "-textures", "brick,gravel", "-out", dir)
	if want := "tmnist_fused_brick_gravel: 5 fits in all"; msg != "" || !strings.HasPrefix(stdout, want) {
		t.Fatalf("check: %q, stdout %q, want it to start with %q", msg, stdout, want)
	}
	// merge and figures find the experiment by that name (the registry's tests cover every
	// variant's name).
	if e, ok := experiments.Studies().Describe("tmnist_fused_brick_gravel"); !ok || e.Name != "tmnist_fused_brick_gravel" {
		t.Errorf("experiments.Describe(tmnist_fused_brick_gravel) = %q, %v", e.Name, ok)
	}
}

func TestCheckListsAShardWithoutTraining(t *testing.T) {
	dir := t.TempDir()
	msg, stdout, _ := run(t, "sim", "-quick", "-check", "-v", "-seeds", "1,2", "-methods", "none,obs", "-lambdas", "1,5", "-shard", "2/4", "-out", dir)
	want := "sim: 6 fits in all; shard 2/4 holds 2; results under " + dir + "\nfits/sim/obs_lambda1_seed1.json\nfits/sim/obs_lambda5_seed1.json\n"
	if msg != "" || stdout != want {
		t.Fatalf("check: %q, stdout %q, want %q", msg, stdout, want)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("check wrote %d entries into %s, want none", len(ents), dir)
	}
}

// TestRepresentFeaturesStoresApart checks that -represent features names the results
// NAME_feat (the fit files' folder) without training.
func TestRepresentFeaturesStoresApart(t *testing.T) {
	dir := t.TempDir()
	msg, stdout, _ := run(t, "sim", "-quick", "-represent", "features", "-check", "-v", "-seeds", "1", "-methods", "dr", "-out", dir)
	want := "sim_feat: 1 fits in all; shard 1/1 holds 1; results under " + dir + "\nfits/sim_feat/dr_lambda1_seed1.json\n"
	if msg != "" || stdout != want {
		t.Fatalf("check: %q, stdout %q, want %q", msg, stdout, want)
	}
}

func TestQuickRunsWriteToAScratchFolder(t *testing.T) {
	skipLong(t, "a quick run of the simulation")
	if got := outDir("", true); got != quickOut() || strings.HasPrefix(got, "figures") {
		t.Errorf("quick default -out %q, want the scratch folder %q", got, quickOut())
	}
	if outDir("", false) != "figures" || outDir("x", true) != "x" {
		t.Errorf("outDir defaults: %q, %q", outDir("", false), outDir("x", true))
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	msg, _, _ := run(t, "sim", "-quick", "-seeds", "1", "-methods", "none", "-lambdas", "1")
	if msg != "" {
		t.Fatal(msg)
	}
	if _, err := os.Stat(filepath.Join(tmp, "invmmd-quick", "tables", "sim_lambda1.csv")); err != nil {
		t.Errorf("quick run without -out: %v", err)
	}
}

func readTables(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	paths, _ := filepath.Glob(filepath.Join(dir, "tables", "*"))
	for _, p := range paths {
		if strings.HasSuffix(p, "_timing.json") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got[filepath.Base(p)] = string(b)
	}
	return got
}

// TestSimQuickShardsMergeAndReruns runs a small quick grid whole, then in three shards
// and merge, and checks: the tables and figures are written; sharded+merged tables are
// byte-identical to the whole run's; merge names the fits of a shard that did not run;
// rerunning (with or without -resume) leaves the tables byte-identical; rerunning with
// fewer λ removes the stale table.
func TestSimQuickShardsMergeAndReruns(t *testing.T) {
	skipLong(t, "seven quick runs of the simulation (minutes)")
	grid := []string{"-quick", "-seeds", "1,2", "-methods", "none,obs,dr", "-lambdas", "1,5"}
	whole := t.TempDir()
	msg, stdout, stderr := run(t, append([]string{"sim", "-out", whole}, grid...)...)
	if msg != "" {
		t.Fatalf("%s\n%s", msg, stderr)
	}
	for _, f := range []string{"tables/sim_lambda1.csv", "tables/sim_lambda1.md", "tables/sim_config.json", "tables/sim_timing.json", "sim_lambda1.png", "sim_lambda5.svg", "fits/sim/dr_lambda5_seed2.json"} {
		if st, err := os.Stat(filepath.Join(whole, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	if !strings.Contains(stdout, "| te acc (paper) |") {
		t.Errorf("stdout lacks the table next to the paper's numbers:\n%s", stdout)
	}
	want := readTables(t, whole)
	// invmmd figures redraws, from the tables, the very figures the run drew.
	checkRedrawn(t, whole, "sim_lambda1.png", "sim_lambda1.svg", "sim_lambda5.png", "sim_lambda5.svg")

	sharded := t.TempDir()
	for _, s := range []string{"1/3", "3/3"} {
		if msg, _, stderr := run(t, append([]string{"sim", "-out", sharded, "-shard", s}, grid...)...); msg != "" {
			t.Fatalf("shard %s: %s\n%s", s, msg, stderr)
		}
	}
	msg, _, _ = run(t, "merge", "-out", sharded)
	if !strings.Contains(msg, "missing") || !strings.Contains(msg, "dr λ=1 seed 1") || !strings.Contains(msg, "none λ=0 seed 2") {
		t.Fatalf("merge without shard 2/3: %q, want it to name the missing fits", msg)
	}
	if msg, _, _ := run(t, append([]string{"sim", "-out", sharded, "-shard", "2/3", "-resume"}, grid...)...); msg != "" {
		t.Fatal(msg)
	}
	if msg, _, _ := run(t, "merge", "-out", sharded); msg != "" {
		t.Fatal(msg)
	}
	got := readTables(t, sharded)
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: sharded and merged differs from the whole run", name)
		}
	}
	if _, err := os.Stat(filepath.Join(sharded, "sim_lambda5.png")); err != nil {
		t.Errorf("merge drew no figure: %v", err)
	}

	for _, extra := range [][]string{{"-resume"}, nil} {
		if msg, _, _ := run(t, append(append([]string{"sim", "-out", whole}, grid...), extra...)...); msg != "" {
			t.Fatal(msg)
		}
		again := readTables(t, whole)
		for name, w := range want {
			if again[name] != w {
				t.Errorf("rerun %v: %s changed", extra, name)
			}
		}
	}
	// Fewer λ than the tables hold: refused, naming λ 5, unless -force.
	if msg, _, _ := run(t, "sim", "-out", whole, "-quick", "-seeds", "1,2", "-methods", "none,obs,dr", "-lambdas", "1", "-resume"); !strings.Contains(msg, "hold λ 5, which this run leaves out") {
		t.Fatalf("fewer λ without -force: %q", msg)
	}
	for _, f := range []string{"tables/sim_lambda5.csv", "sim_lambda5.png"} {
		if _, err := os.Stat(filepath.Join(whole, f)); err != nil {
			t.Errorf("a refused run removed %s", f)
		}
	}
	if msg, _, _ := run(t, "sim", "-out", whole, "-quick", "-seeds", "1,2", "-methods", "none,obs,dr", "-lambdas", "1", "-resume", "-force"); msg != "" {
		t.Fatal(msg)
	}
	for _, f := range []string{"tables/sim_lambda5.csv", "tables/sim_lambda5.md", "sim_lambda5.png"} {
		if _, err := os.Stat(filepath.Join(whole, f)); err == nil {
			t.Errorf("stale %s kept after a rerun without λ = 5", f)
		}
	}
	// Another configuration into the same folder: refused before any work, saying what differs.
	msg, _, _ = run(t, "sim", "-out", whole, "-quick", "-batch", "500", "-seeds", "1,2", "-methods", "none,obs,dr", "-lambdas", "1")
	if !strings.Contains(msg, "H.BatchSize: 2000 → 500") || !strings.Contains(msg, "Size.Batch: 2000 → 500") {
		t.Errorf("another configuration: %q", msg)
	}
}

func TestFiguresRedrawsFromTables(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tables"), 0o755); err != nil {
		t.Fatal(err)
	}
	csv := "method,seed,tr_mmd,tr_acc,te_acc\nnone,1,0.2,0.9,0.7\nfull,1,0.01,0.85,0.8\n"
	p := filepath.Join(dir, "tables", "sim_lambda1.csv")
	if err := os.WriteFile(p, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, _, stderr := run(t, "figures", "-out", dir); msg != "" {
		t.Fatalf("%v\n%s", msg, stderr)
	}
	if st, err := os.Stat(filepath.Join(dir, "sim_lambda1.png")); err != nil || st.Size() == 0 {
		t.Fatalf("sim_lambda1.png not written: %v", err)
	}
	if msg, _, _ := run(t, "figures", "-out", t.TempDir()); !strings.Contains(msg, "no result tables") {
		t.Fatalf("empty folder: error %v", msg)
	}
	// A table its configuration does not list is stale: an error naming both.
	os.WriteFile(filepath.Join(dir, "tables", "sim_config.json"), []byte(`{"Lambdas": [5]}`), 0o644)
	if msg, _, _ := run(t, "figures", "-out", dir); !strings.Contains(msg, "stale table") || !strings.Contains(msg, p) {
		t.Errorf("stale table: error %q", msg)
	}
	os.WriteFile(filepath.Join(dir, "tables", "sim_config.json"), []byte(`{"Lambdas": [1]}`), 0o644)
	os.WriteFile(p, []byte("method,seed,tr_mmd,tr_acc,te_acc\n"), 0o644)
	if msg, _, _ := run(t, "figures", "-out", dir); !strings.Contains(msg, p) || !strings.Contains(msg, "no rows") {
		t.Errorf("header-only CSV: error %q, want it to name the file", msg)
	}
}

// flchainSample returns every fourth data row of the committed flchain CSV under its
// header: a clinical table with the same columns that trains in a fraction of the time.
func flchainSample(t *testing.T) []byte {
	t.Helper()
	src, err := clinical.FindFLChain()
	if err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.SplitAfter(string(full), "\n")
	sub := all[:1]
	for i := 1; i < len(all); i += 4 {
		sub = append(sub, all[i])
	}
	return []byte(strings.Join(sub, ""))
}

// TestClinicalDataFlagAndMIMICFixture runs the clinical experiment on a subsample of the
// flchain CSV (every fourth row, for speed) with a byte-order mark given by -data, and on
// the MIMIC-III test fixture with -quick (whose batch of 4000 would exceed the fixture's
// training rows).
func TestClinicalDataFlagAndMIMICFixture(t *testing.T) {
	b := flchainSample(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "flchain.csv")
	os.WriteFile(data, append([]byte("\ufeff"), b...), 0o644)
	out := filepath.Join(dir, "out")
	if msg, _, stderr := run(t, "clinical", "-quick", "-data", data, "-seeds", "1", "-methods", "none,dr", "-out", out); msg != "" {
		t.Fatalf("clinical -data with a BOM: %s\n%s", msg, stderr)
	}
	// The same CSV found through INVMMD_DATA_DIR, without -data.
	ddir := filepath.Join(dir, "data")
	os.MkdirAll(filepath.Join(ddir, "flchain"), 0o755)
	os.WriteFile(filepath.Join(ddir, "flchain", "flchain.csv"), b, 0o644)
	t.Setenv(tmnist.DataDirEnv, ddir)
	if msg, _, stderr := run(t, "clinical", "-quick", "-seeds", "1", "-methods", "none", "-out", filepath.Join(dir, "out-env")); msg != "" {
		t.Fatalf("clinical with %s: %s\n%s", tmnist.DataDirEnv, msg, stderr)
	}
	// A value too large to standardise is reported by CSV line, column and column name.
	lines := strings.SplitN(string(b), "\n", 4)
	f := strings.Split(lines[2], ",")
	f[0] = "1e308" // age
	lines[2] = strings.Join(f, ",")
	huge := filepath.Join(dir, "huge.csv")
	os.WriteFile(huge, []byte(strings.Join(lines, "\n")), 0o644)
	msg, _, _ := run(t, "clinical", "-quick", "-data", huge, "-seeds", "1", "-methods", "none", "-out", filepath.Join(dir, "out-huge"))
	if !strings.Contains(msg, "huge.csv:3:1: column \"age\": value \"1e308\" is out of range") {
		t.Errorf("age 1e308: error %q, want the CSV line and column", msg)
	}
	fix := filepath.Join(dir, "mimic")
	if err := mimictest.WriteFixture(fix, 1, mimictest.FixtureOptions{}); err != nil {
		t.Fatal(err)
	}
	if msg, _, stderr := run(t, "clinical", "-quick", "-mimic", fix, "-seeds", "1", "-methods", "none,dr", "-out", out); msg != "" {
		t.Fatalf("clinical -mimic fixture -quick: %s\n%s", msg, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "tables", "mimic_lambda1.csv")); err != nil {
		t.Error(err)
	}
}

// TestDefaultGrids checks, without training, the grid each command runs when -methods,
// -lambdas and -seeds are left out: the paper's sweep (five seeds) at paper size, and
// experiments.QuickSweep (one seed, λ = 1, none/obs/full/dr/reg) with -quick.
func TestDefaultGrids(t *testing.T) {
	noMNIST := mnistUnavailable(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		// none once per seed (λ does not change it), the other 9 methods at λ 1 and 5.
		{[]string{"sim"}, "sim: 95 fits in all"},
		{[]string{"sim", "-paper-split"}, "sim_mf075: 95 fits in all"},
		{[]string{"sim", "-quick"}, "sim: 5 fits in all"},
		{[]string{"tmnist", "-quick"}, "tmnist: 5 fits in all"},
		{[]string{"clinical"}, "clinical: 30 fits in all"},
		{[]string{"clinical", "-quick"}, "clinical: 5 fits in all"},
		{[]string{"sim", "-quick", "-methods", "all"}, "sim: 10 fits in all"},
	} {
		if c.args[0] == "tmnist" && noMNIST != "" { // building the experiment reads MNIST
			t.Logf("skipping %v: %s", c.args, noMNIST)
			continue
		}
		args := append(append([]string{}, c.args...), "-check", "-out", t.TempDir())
		msg, stdout, _ := run(t, args...)
		if msg != "" || !strings.HasPrefix(stdout, c.want+";") {
			t.Errorf("%v: %q, stdout %q, want it to start with %q", c.args, msg, stdout, c.want)
		}
	}
}

// TestFiguresRedrawsVarianceToTheByte: the variance figure invmmd figures redraws from
// variance.csv is the one the study drew.
func TestFiguresRedrawsVarianceToTheByte(t *testing.T) {
	skipLong(t, "a quick variance study")
	dir := t.TempDir()
	if msg, _, stderr := run(t, "variance", "-quick", "-batches", "3", "-out", dir); msg != "" {
		t.Fatalf("%s\n%s", msg, stderr)
	}
	checkRedrawn(t, dir, "variance.png", "variance.svg")
}

// checkRedrawn runs invmmd figures on dir and checks that it rewrites each of the figure
// files (which a run drew there) byte for byte.
func checkRedrawn(t *testing.T, dir string, files ...string) {
	t.Helper()
	drawn := map[string][]byte{}
	for _, f := range files {
		drawn[f], _ = os.ReadFile(filepath.Join(dir, f))
	}
	if msg, _, stderr := run(t, "figures", "-out", dir); msg != "" {
		t.Fatalf("figures: %s\n%s", msg, stderr)
	}
	for f, b := range drawn {
		if again, _ := os.ReadFile(filepath.Join(dir, f)); len(b) == 0 || !bytes.Equal(again, b) {
			t.Errorf("%s: invmmd figures redrew it differently from the run (%d → %d bytes)", f, len(b), len(again))
		}
	}
}

// TestCommittedResultsAreNotReplaced reruns the probes against a copy of the repository's
// figures/ layout: a quick run into the repository's figures/ is refused, and a paper-size
// run with fewer methods and seeds than the committed tables is refused before any work,
// naming what it leaves out; nothing there changes.
func TestCommittedResultsAreNotReplaced(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+modulePath+"\n\ngo 1.26\n"), 0o644)
	figs := filepath.Join(root, "figures")
	os.MkdirAll(filepath.Join(figs, "tables"), 0o755)
	for _, f := range []string{"clinical_config.json", "clinical_lambda1.csv", "sim_config.json", "sim_lambda1.csv", "sim_lambda5.csv"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "figures", "tables", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(figs, "tables", f), b, 0o644)
	}
	before := readTables(t, figs)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "-quick", "-methods", "none", "-out", figs}, "that is the repository's figures/ folder"},
		{[]string{"variance", "-quick", "-out", figs}, "that is the repository's figures/ folder"},
		{[]string{"all", "-quick", "-out", figs}, "that is the repository's figures/ folder"},
		{[]string{"clinical", "-methods", "none", "-seeds", "1", "-out", figs}, "hold methods obs,full,dr,reg,ip; seeds 2,3,4,5, which this run leaves out"},
		{[]string{"sim", "-lambdas", "1", "-out", figs}, "hold λ 5, which this run leaves out"},
		{[]string{"sim", "-batch", "100", "-out", figs}, "another configuration (H.BatchSize: 2000 → 100"},
	} {
		msg, _, _ := run(t, tc.args...)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("invmmd %s: %q, want %q", strings.Join(tc.args, " "), msg, tc.want)
		}
	}
	if after := readTables(t, figs); len(after) != len(before) {
		t.Errorf("tables changed: %d files before, %d after", len(before), len(after))
	}
	if _, err := os.Stat(filepath.Join(figs, "fits")); err == nil {
		t.Error("a refused run wrote fits")
	}
	// The paper-size default grid matches the committed tables: -check passes and writes nothing.
	if msg, _, _ := run(t, "clinical", "-check", "-out", figs); msg != "" {
		t.Errorf("clinical -check on its own tables: %q", msg)
	}
}

// TestFlagCombinationsRefused: combinations that used to be accepted silently.
func TestFlagCombinationsRefused(t *testing.T) {
	data := ownCSV(t, 300, false)
	base := []string{"fit", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-out", filepath.Join(t.TempDir(), "o")}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(base, "-methods", "dr,,obs"), `-methods "dr,,obs": method 2 of 3 is empty`},
		{[]string{"sim", "-methods", "dr,"}, "is empty"},
		{append(base, "-x", "x1,x1"), `-x x1,x1: column "x1" listed twice`},
		{append(base, "-x", "x1,z"), `column "z" is both a feature (-x) and the nuisance (-z)`},
		{append(base, "-split", "group", "-val-frac", "0.3"), "-split group and -val-frac"},
	} {
		msg, _, _ := run(t, tc.args...)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("invmmd %s: %q, want %q", strings.Join(tc.args[1:], " "), msg, tc.want)
		}
	}
}

// TestResumeLine: the line printed after an interruption reruns the same command with
// -resume, quoting what a shell would split.
func TestResumeLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"sim", []string{"-quick", "-out", "my dir"}, "invmmd sim -quick -out 'my dir' -resume"},
		{"all", []string{"-jobs", "2", "-resume"}, "invmmd all -jobs 2 -resume"},
	} {
		if got := resumeLine(tc.name, tc.args); got != tc.want {
			t.Errorf("resumeLine(%s, %q) = %q, want %q", tc.name, tc.args, got, tc.want)
		}
	}
}

// TestMessageSaysEachPrefixOnce: the printed error drops a leading "invmmd: " (main adds
// its own) and says a prefix doubled by two layers of wrapping once.
func TestMessageSaysEachPrefixOnce(t *testing.T) {
	for in, want := range map[string]string{
		"invmmd: tmnist: tmnist: MNIST file x not found": "tmnist: MNIST file x not found",
		"experiments: sim: sim: bad":                     "experiments: sim: bad",
		"-out x: not writable":                           "-out x: not writable",
		"a: b: a: c":                                     "a: b: a: c",
	} {
		if got := message(errors.New(in)); got != want {
			t.Errorf("message(%q) = %q, want %q", in, got, want)
		}
	}
}
