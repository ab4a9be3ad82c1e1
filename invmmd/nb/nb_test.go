package nb

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/figures"
	"github.com/invmmd/invmmd/invmmd/results"
	"github.com/invmmd/invmmd/invmmd/train"
)

func TestRelTo(t *testing.T) {
	for _, c := range []struct{ dir, p, want string }{
		{"/repo/notebooks", "/repo/data/cache/nb01-quick", filepath.Join("..", "data", "cache", "nb01-quick")},
		{"/repo/notebooks", "/repo/notebooks/x.csv", "x.csv"},
		{"/repo/notebooks", "relative/x.csv", "x.csv"}, // Rel fails on mixed forms: the base name
		{"", "/machine/path/table.csv", "table.csv"},
		{"", "data/table.csv", "data/table.csv"},
	} {
		if got := relTo(c.dir, c.p); got != c.want {
			t.Errorf("relTo(%q, %q) = %q, want %q", c.dir, c.p, got, c.want)
		}
	}
}

func TestRunPathsAndKeys(t *testing.T) {
	quick := &Run{Name: "nb01", dir: "/repo/notebooks"}
	paper := &Run{Name: "nb01", Paper: true, dir: "/repo/notebooks"}
	for _, c := range []struct{ got, want string }{
		{quick.Root(), "/repo"},
		{quick.CacheDir(), "/repo/data/cache/nb01-quick"},
		{paper.CacheDir(), "/repo/data/cache/nb01-paper"},
		{quick.CacheDir("split"), "/repo/data/cache/nb01-quick/split"},
		{quick.Key("aux", "sim", "seed1"), "aux-quick-sim-seed1"},
		{paper.Key("aux", "sim", "seed1"), "aux-paper-sim-seed1"},
		{quick.Key("aux", 3, "a/b"), "aux-quick-3-a_b"},
		{quick.Rel("/repo/data/cache/nb01-quick/sim_lambda1.csv"), "../data/cache/nb01-quick/sim_lambda1.csv"},
		{quick.Size(), "quick"},
		{paper.Size(), "paper"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if Sized(quick, 1, 2) != 1 || Sized(paper, 1, 2) != 2 {
		t.Errorf("Sized: quick %d, paper %d; want 1, 2", Sized(quick, 1, 2), Sized(paper, 1, 2))
	}
	if !strings.Contains(quick.Which(), "set INVMMD_PAPER_SIZE=1") || !strings.Contains(paper.Which(), "paper-size run") {
		t.Errorf("Which: quick %q, paper %q", quick.Which(), paper.Which())
	}
}

func TestSweep(t *testing.T) {
	r := &Run{Name: "nb01", dir: "/repo/notebooks"}
	rc := r.Sweep("sim")
	s, _ := experiments.Studies().Lookup("sim")
	want := s.Sweep.DefaultSweep(true)
	if len(rc.Methods) != len(want.Methods) || rc.TableDir != "/repo/data/cache/nb01-quick" {
		t.Errorf("Sweep(sim) = %+v, want the quick sweep %v into the run's cache folder", rc, want.Methods)
	}
	defer func() {
		if recover() == nil {
			t.Error("Sweep of an unknown experiment did not panic")
		}
	}()
	r.Sweep("no-such-experiment")
}

func TestNotesMarkdown(t *testing.T) {
	got := NotesMarkdown("Where the set-up differs", []string{"one", "two"})
	want := "**Where the set-up differs**\n\n- one\n- two\n"
	if got != want {
		t.Errorf("NotesMarkdown = %q, want %q", got, want)
	}
}

func TestTableMarkdown(t *testing.T) {
	sums := results.Summarize([]results.Row{{Method: "none", Seed: 1, TrMMD: 0.2, TrAcc: 0.9, TeAcc: 0.6}})
	exp := experiments.Experiment{Title: "Sim", Paper: map[float64]map[string]results.PaperRow{1: {"none": {TeAcc: results.Cell{Mean: 0.67}}}}, MMDNote: "tr mmd is X."}
	got := TableMarkdown("Sim, λ = 1", exp, 1, sums)
	for _, want := range []string{"### Sim, λ = 1", "| te acc (ours) | 0.600 |", "| te acc (paper) | 0.670 ± 0.000 |", "tr mmd is X."} {
		if !strings.Contains(got, want) {
			t.Errorf("TableMarkdown lacks %q:\n%s", want, got)
		}
	}
	if got := TableMarkdown("t", experiments.Experiment{}, 1, sums); !strings.Contains(got, results.DefaultMMDNote) || strings.Contains(got, "(paper)") {
		t.Errorf("TableMarkdown without paper numbers or note:\n%s", got)
	}
}

func TestReport(t *testing.T) {
	for _, c := range []struct {
		r         train.FitReport
		want, not []string
	}{
		{train.FitReport{Model: "G", Target: "Δ", TrainRows: 10, ValNLL: 0.5, HasBayes: true, BayesNLL: 0.4, HasTrueG: true, MAETrueG: 0.1, Floored: 3, StopReason: train.StopPatience},
			[]string{"G (target Δ): 10 train rows, validation NLL 0.5000 (Bayes 0.4000)", "accuracy", "mean |Ĝ − G| 0.100", "3 train rows below the floor"}, []string{"marginal"}},
		{train.FitReport{Model: "m", Target: "Z", HasBaseline: true, BaselineNLL: 1.2},
			[]string{"(marginal model 1.2000)"}, []string{"accuracy", "below the floor", "Bayes", "Ĝ"}},
	} {
		got := Report(c.r)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("Report = %q, lacks %q", got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("Report = %q, has %q", got, w)
			}
		}
	}
}

func TestMeanSD(t *testing.T) {
	m, sd := MeanSD([]float64{1, 2, 3, 4})
	if m != 2.5 || math.Abs(sd-math.Sqrt(5.0/3)) > 1e-12 {
		t.Errorf("MeanSD = %g, %g; want 2.5, %g", m, sd, math.Sqrt(5.0/3))
	}
	if _, sd := MeanSD([]float64{7}); !math.IsNaN(sd) {
		t.Errorf("MeanSD of one value: sd %g, want NaN", sd)
	}
}

func TestSweepSummary(t *testing.T) {
	out := &experiments.Outcome{Fits: []experiments.FitRecord{
		{BestEpoch: 5, Epochs: 10, EmptyStrata: 1},
		{BestEpoch: 12, Epochs: 20, FlooredNorm: 2},
	}}
	rc := experiments.RunConfig{Lambdas: []float64{1}, Seeds: []uint64{1}}
	got := SweepSummary(out, rc, 20)
	for _, want := range []string{"2 models trained", "best epochs 5 to 12; 1 of 2 fits stopped by patience, 1 ran to the cap of 20 epochs",
		"empty stratum in some batch: 1; with a floored normaliser: 1", "tables: \n"} {
		if !strings.Contains(got, want) {
			t.Errorf("SweepSummary lacks %q:\n%s", want, got)
		}
	}
}

func TestLastLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"fit 1/4\rfit 2/4\x1b[K\r", "fit 2/4"},
		{"a\nb\n\n", "b"},
		{"\r\n  \n", ""},
	} {
		if got := lastLine(c.in); got != c.want {
			t.Errorf("lastLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCommitted(t *testing.T) {
	dir := t.TempDir()
	tables := filepath.Join(dir, "figures", "tables")
	if err := os.MkdirAll(tables, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := results.WriteCSV(&b, []results.Row{{Method: "none", Seed: 1, TeAcc: 0.6}, {Method: "none", Seed: 2, TeAcc: 0.8}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(results.TablePath(tables, "sim", 1), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Run{Name: "nb01", dir: filepath.Join(dir, "notebooks")}
	sums, ok := r.Committed("sim", 1)
	if !ok || len(sums) != 1 || sums[0].N != 2 || math.Abs(sums[0].TeAcc.Mean-0.7) > 1e-12 {
		t.Errorf("Committed(sim, 1) = %+v, %v; want none over 2 seeds, mean test accuracy 0.7", sums, ok)
	}
	if _, ok := r.Committed("sim", 5); ok {
		t.Error("Committed(sim, 5) found a table that was never written")
	}
}

func TestVLine(t *testing.T) {
	p := Must(figures.Histograms("μ_X", "μ_X", []figures.Distribution{{Name: "a", Values: []float64{0.1, 0.2, 0.2, 0.4}}}, 4))
	lo, hi := p.Y.Min, p.Y.Max
	VLine(p, 0.3, "Q needs μ_X < 0.3")
	if p.Y.Min != lo || p.Y.Max != hi {
		t.Errorf("VLine changed the vertical range: [%g, %g] → [%g, %g]", lo, hi, p.Y.Min, p.Y.Max)
	}
	VLine(p, 5, "") // a line outside the data widens the horizontal range to reach it
	if p.X.Max < 5 {
		t.Errorf("VLine at 5: horizontal range ends at %g, so no line was added", p.X.Max)
	}
	if _, err := figures.PNG(p, figures.Width, figures.Height); err != nil {
		t.Errorf("drawing a plot with VLine: %v", err)
	}
}

func TestCached(t *testing.T) {
	r := &Run{Name: "nbtest", dir: filepath.Join(t.TempDir(), "notebooks")}
	calls := 0
	fn := func() []float64 { calls++; return []float64{1, 2} }
	for range 2 {
		if got := Cached(r, "v", fn); len(got) != 2 || got[1] != 2 {
			t.Fatalf("Cached = %v, want [1 2]", got)
		}
	}
	if calls != 1 {
		t.Errorf("Cached computed the value %d times, want once", calls)
	}
	if _, err := os.Stat(filepath.Join(r.Root(), "data", "cache", "gonb", "nbtest", "v-quick.bin")); err != nil {
		t.Errorf("Cached kept no file under data/cache/gonb/NAME/KEY: %v", err)
	}
}
