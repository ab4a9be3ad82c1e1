package fairstudy

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/owndata"
)

// TestMitigationQuick runs the study in seconds (400 rows a table, one seed and λ, small
// networks): every model at both rules, the rows exported with the attribute hidden where
// the rule hid it and whole in z_full and on the test rows, a score file found there
// evaluated by the same code (a constant score flagged), and the same numbers again for the
// same seed.
func TestMitigationQuick(t *testing.T) {
	nets := owndata.DefaultNets()
	nets.Hidden, nets.Epochs, nets.AuxEpochs, nets.Batch = []int{8}, 5, 5, 128
	tables := MitigationTables()
	for i := range tables {
		tables[i].Rows = 400
	}
	dir := t.TempDir()
	c := MitigationConfig{Root: "../..", Dir: dir, Tables: tables, Seeds: []uint64{3}, Lambdas: []float64{1}, Nets: nets, Draws: 20}
	rows, err := RunMitigation(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s/%s/%s", r.Table, r.Model, r.Rule))
	}
	want := "mplsstops/none/rate,mplsstops/none/0.5,mplsstops/obs/rate,mplsstops/obs/0.5,mplsstops/ip/rate,mplsstops/ip/0.5,mplsstops/dr/rate,mplsstops/dr/0.5,mplsstops/oracle/rate,mplsstops/oracle/0.5"
	if g := strings.Join(got[:10], ","); g != want || len(rows) != 20 {
		t.Fatalf("%d rows, the first table's: %s\nwant %s", len(rows), g, want)
	}
	// The exported rows: z empty exactly where hidden, z_full whole and equal to z elsewhere.
	train, err := os.ReadFile(filepath.Join(dir, "mplsstops", "seed3", "train.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(train)), "\n")
	head := strings.Split(lines[0], ",")
	n := len(head)
	if strings.Join(head[n-4:], ",") != "y,z,z_full,split" {
		t.Fatalf("train.csv header ends %v", head[n-4:])
	}
	hidden := 0
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		switch {
		case f[n-3] == "":
			hidden++
		case f[n-3] != f[n-2]:
			t.Fatalf("train.csv row %q: z differs from z_full", l)
		}
		if f[n-2] == "" {
			t.Fatalf("train.csv row %q: z_full missing", l)
		}
	}
	if share := float64(hidden) / float64(len(lines)-1); share < 0.1 || share > 0.6 {
		t.Errorf("%.2f of the exported training rows hidden", share)
	}
	test, _ := os.ReadFile(filepath.Join(dir, "mplsstops", "seed3", "test.csv"))
	tl := strings.Split(strings.TrimSpace(string(test)), "\n")
	if strings.Contains(string(test), ",\n") || len(tl)-1 != rows[0].Groups[0].N+rows[0].Groups[1].N {
		t.Errorf("test.csv: %d rows (want %d, every z recorded)", len(tl)-1, rows[0].Groups[0].N+rows[0].Groups[1].N)
	}
	// A peer's score file: a constant score, evaluated and flagged.
	var b strings.Builder
	b.WriteString("score\n")
	for range len(tl) - 1 {
		b.WriteString("0.5\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "mplsstops", "seed3", "scores_fairlearn_const.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Tables = tables[:1]
	again, err := RunMitigation(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	last, own := again[len(again)-3], again[len(again)-1]
	if last.Model != "fairlearn_const" || last.Rule != "rate" || last.AUC != 0.5 || !last.LowAUC {
		t.Errorf("score file row: %s %s AUC %v low %v", last.Model, last.Rule, last.AUC, last.LowAUC)
	}
	// At its own operating point a fair coin for everyone: selection 0.5, every rate 0.5,
	// no gap.
	if own.Model != "fairlearn_const" || own.Rule != "own" || own.Selection != 0.5 || own.BalancedAcc != 0.5 || own.Gap != 0 || own.Groups[1].TPR != 0.5 {
		t.Errorf("score file at its own point: %s %s selection %v balanced accuracy %v gap %v", own.Model, own.Rule, own.Selection, own.BalancedAcc, own.Gap)
	}
	if md := MitigationMarkdown(SummariseMitigation(again), 1, "1"); !strings.Contains(md, "## mplsstops, decisions at each model's own operating point") ||
		!strings.Contains(md, "| fairlearn_const | – | 0.500 |") {
		t.Errorf("markdown without the own operating point's section:\n%s", md)
	}
	for i := range 10 {
		a, b := rows[i], again[i]
		if a.Gap != b.Gap || a.AUC != b.AUC || a.BalancedAcc != b.BalancedAcc || a.NoiseMean != b.NoiseMean {
			t.Errorf("%s %s: seed 3 again gives gap %v AUC %v, first %v %v", a.Model, a.Rule, b.Gap, b.AUC, a.Gap, a.AUC)
		}
	}
	sums := SummariseMitigation(rows)
	md := MitigationMarkdown(sums, 1, "1")
	if !strings.Contains(md, "## mplsstops, decisions at the training prevalence") || !strings.Contains(md, "### college") {
		t.Errorf("markdown:\n%s", md)
	}
}

// TestWithPeers: the score files' rows replace those a file held (a file that already
// ends each folder with score files' rows too), after each folder's own models; a folder
// without score files keeps its rows.
func TestWithPeers(t *testing.T) {
	row := func(table string, seed uint64, model, rule string) MitigationRow {
		return MitigationRow{Table: table, Seed: seed, Model: model, Rule: rule}
	}
	rows := []MitigationRow{row("a", 1, "none", "rate"), row("a", 1, "dr", "rate"), row("a", 1, "fairlearn_old", "rate"),
		row("a", 2, "none", "rate"), row("a", 2, "fairlearn_old", "rate"), row("b", 1, "dr", "rate")}
	peers := []MitigationRow{row("a", 1, "fairlearn_new", "rate"), row("a", 1, "fairlearn_new", "own")}
	var got []string
	for _, r := range WithPeers(rows, peers, map[string]bool{"a/1": true}) {
		got = append(got, fmt.Sprintf("%s%d %s %s", r.Table, r.Seed, r.Model, r.Rule))
	}
	want := "a1 none rate,a1 dr rate,a1 fairlearn_new rate,a1 fairlearn_new own,a2 none rate,a2 fairlearn_old rate,b1 dr rate"
	if g := strings.Join(got, ","); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
}
