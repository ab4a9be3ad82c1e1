package owndata

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// TestLockDir: a folder's lock refuses a second holder, naming the first (process and
// command line), and is free again once released; a lock file left without its lock (a
// process that died) is taken over with a note.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	a, note, err := lockDir(dir, []string{"-data", "a.csv"})
	if err != nil || note != "" {
		t.Fatalf("first lock: %v, note %q", err, note)
	}
	_, _, err = lockDir(dir, []string{"-data", "b.csv"})
	var le *LockedError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), fmt.Sprintf("process %d", os.Getpid())) || !strings.Contains(err.Error(), "invmmd fit -data a.csv") {
		t.Fatalf("second lock: %v, want a LockedError naming process %d and its command", err, os.Getpid())
	}
	if err := a.release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err == nil {
		t.Errorf("release left %s", LockFile)
	}
	b, _, err := lockDir(dir, nil)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	b.release()
	os.WriteFile(filepath.Join(dir, LockFile), []byte(`{"pid": 999999999, "host": "gone", "command": "invmmd fit -data old.csv"}`), 0o644)
	c, note, err := lockDir(dir, nil)
	if err != nil || !strings.Contains(note, "took over the lock of process 999999999 on gone (invmmd fit -data old.csv") {
		t.Errorf("a lock file without its lock: %v, note %q", err, note)
	}
	c.release()
}

// TestMemoryEstimate: networks whose training would not fit are refused by their widths
// and batch before any is built, with the estimate; those that fit pass.
func TestMemoryEstimate(t *testing.T) {
	old := memoryLimit
	memoryLimit = func() float64 { return 1 << 30 } // 1 GiB
	defer func() { memoryLimit = old }()
	n := DefaultNets()
	if err := checkMemory(Columns{}, n, "h", 20, 1, 100000, true); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	n.Hidden = []int{20000, 20000}
	err := checkMemory(Columns{}, n, "h", 20, 1, 100000, true)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "Hidden" || !strings.Contains(err.Error(), "needs about 8.4 GiB, more than the 1.0 GiB") {
		t.Errorf("two layers of 20,000: %v", err)
	}
	n.Hidden, n.Batch = []int{32}, 100000
	if err := checkMemory(Columns{}, n, "h", 20, 1, 100000, true); err == nil || !strings.Contains(err.Error(), "batches of 100000 rows") {
		t.Errorf("a batch of 100,000 rows with a penalty: %v", err)
	}
	if err := checkMemory(Columns{}, n, "G and m", 20, 1, 100000, false); err != nil {
		t.Errorf("the same batch without a penalty: %v", err)
	}
}

// TestImpossibleEstimates: a stratum whose MMD² is beyond ±2, or whose estimate of
// P(Z = 1 | Y) is far outside [0, 1], is flagged unreliable with the reason, warned about,
// and shown as IMPOSSIBLE in the estimates' table and CSV and in fit's results table;
// a possible one is left alone.
func TestImpossibleEstimates(t *testing.T) {
	strat := func(y, mean float64) invmmd.StratumReport {
		return invmmd.StratumReport{Y: y, Rows: 40, Mean: [2]float64{1 - mean, mean}}
	}
	res := []invmmd.Result{
		{Method: method.DR, Value: 5.43, Strata: []float64{0.02, 5.41}, SE: []float64{0.1, 3}, ValueSE: 3,
			Terms: make([]invmmd.Terms, 2), Report: invmmd.Report{Strata: []invmmd.StratumReport{strat(0, 0.4), strat(1, 6.8)}}},
		{Method: method.IP, Value: -1608, Strata: []float64{-1608}, SE: []float64{1742}, ValueSE: 1742,
			Terms: make([]invmmd.Terms, 1), Report: invmmd.Report{Strata: []invmmd.StratumReport{strat(0, 0.5)}}},
		{Method: method.Obs, Value: 0.3, Strata: []float64{-0.1, 0.4}, SE: []float64{0.1, 0.1}, ValueSE: 0.14,
			Terms: make([]invmmd.Terms, 2), Report: invmmd.Report{Strata: []invmmd.StratumReport{strat(0, -0.2), strat(1, 1.2)}}},
	}
	warn := flagImpossible(res, nil)
	if len(warn) != 2 || !strings.Contains(warn[0], "dr: impossible estimates") || !strings.Contains(warn[0], "Y=1: its MMD² 5.41 is outside the possible range [0, 2]") ||
		!strings.Contains(warn[0], "P(Z=1|Y) 6.8 is far outside [0, 1]") || !strings.Contains(warn[1], "ip: impossible") {
		t.Errorf("warnings %q", warn)
	}
	if !impossible(res[0]) || !impossible(res[1]) || impossible(res[2]) || res[0].Report.Strata[0].Unreliable || !res[0].Report.Strata[1].Unreliable {
		t.Errorf("impossible: %v %v %v; dr's strata unreliable: %v %v", impossible(res[0]), impossible(res[1]), impossible(res[2]),
			res[0].Report.Strata[0].Unreliable, res[0].Report.Strata[1].Unreliable)
	}
	e := &Estimates{Results: res, Sigma: 1}
	md := e.Markdown()
	for _, w := range []string{"| dr | IMPOSSIBLE (5.43 ± 3) | Y=0: 0.02 ± 0.1, Y=1: IMPOSSIBLE (5.41 ± 3) | Y = 1 |", "| ip | IMPOSSIBLE (-1608 ± 1.7e+03) |", "| obs | 0.3 ± 0.14 |"} {
		if !strings.Contains(md, w) {
			t.Errorf("estimates' table lacks %q:\n%s", w, md)
		}
	}
	var b strings.Builder
	if err := e.CSV(&b); err != nil || !strings.Contains(b.String(), "dr,5.43,3,Y=1,Y=1,MMD² between p(h|Z=1) and p(h|Z=0) within Y strata\n") || !strings.Contains(b.String(), "obs,0.3,0.14,,,MMD²") {
		t.Errorf("CSV (%v):\n%s", err, b.String())
	}
	row := Row{Method: "dr", DR: -1608, DRSE: 1742, DRImpossible: true, IP: 0.01, IPSE: 0.02}
	if md := Markdown([]Row{row}); !strings.Contains(md, "IMPOSSIBLE (-1608 ± 1742)") || !strings.Contains(md, "0.0100 ± 0.0200") {
		t.Errorf("results table:\n%s", md)
	}
}

// TestClassNamesInText: strata of a K-class label are named by their classes in the text
// the estimators write; a binary label's text is left as it is.
func TestClassNamesInText(t *testing.T) {
	classes := []string{"A", "N", "U", "Y"}
	in := "dr: MMD² = 1  [Y=0: 0.1]  [Y=3: 0.2]  UNRELIABLE in Y = 0 and Y = 3\n  Y=2: 40 rows"
	want := "dr: MMD² = 1  [Y=A: 0.1]  [Y=Y: 0.2]  UNRELIABLE in Y = A and Y = Y\n  Y=U: 40 rows"
	if got := classText(in, classes); got != want {
		t.Errorf("classText:\n%s\nwant\n%s", got, want)
	}
	if got := classText(in, nil); got != in {
		t.Errorf("binary: %q", got)
	}
	if got := strataList([]float64{0, 1}, nil); got != "Y = 0 and Y = 1" {
		t.Errorf("strataList binary: %q", got)
	}
}

// TestDivergedIsTheLearningRate: a network that diverged is a FieldError of LearningRate,
// so that the command names -lr; other errors pass unchanged.
func TestDivergedIsTheLearningRate(t *testing.T) {
	err := divergedError(fmt.Errorf("training h with dr (seed 1): h diverged at epoch 2, step 1: the loss is +Inf; lower the learning rate (now 0.9)"), 0.9)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "LearningRate" || !strings.HasPrefix(err.Error(), "LearningRate 0.9: training h with dr") {
		t.Errorf("diverged: %v", err)
	}
	other := errors.New("something else")
	if divergedError(other, 0.9) != other {
		t.Errorf("another error was changed")
	}
}

// TestTableInMemory runs estimate and test on a table built in memory, as a calibration
// study would, and gets the numbers the same table gives from a CSV file.
func TestTableInMemory(t *testing.T) {
	path := calibCSV(t, 600, 0.5, 9)
	file, err := tabular.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cols []tabular.Col
	for _, c := range file.Columns {
		cols = append(cols, tabular.NumberColumn(c.Name, c.Num))
	}
	mem, err := tabular.NewTable("simulated", cols...)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultTestConfig()
	cfg.Data, cfg.H, cfg.Y, cfg.Z, cfg.G, cfg.M = path, "h", "y", "z", "g", "m"
	fromFile, err := Test(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Data = ""
	fromMemory, err := TestTable(context.Background(), mem, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range fromFile.Results {
		if m := fromMemory.Results[i]; m.Statistic != r.Statistic || m.PValue != r.PValue || math.IsNaN(m.PValue) {
			t.Errorf("%v: file T = %v, p = %v; memory T = %v, p = %v", r.Method, r.Statistic, r.PValue, m.Statistic, m.PValue)
		}
	}
	ec := DefaultEstimateConfig()
	ec.H, ec.Y, ec.Z, ec.G, ec.M = "h", "y", "z", "g", "m"
	est, err := EstimateTable(context.Background(), mem, ec)
	if err != nil || len(est.Results) != 5 || est.File != "simulated" {
		t.Fatalf("EstimateTable: %v", err)
	}
}

// TestOnceEach: the warnings of the models fitted on the folds are said once each, in
// their first order, with how many models gave one given more than once.
func TestOnceEach(t *testing.T) {
	w := "G's validation NLL did not improve"
	for _, tc := range []struct {
		name   string
		ws     []string
		fitted int
		want   []string
	}{
		{"none", nil, 10, nil},
		{"one model", []string{w}, 10, []string{w}},
		{"every model", slices.Repeat([]string{w}, 10), 10, []string{w + " (from 10 of the 10 models fitted on the folds)"}},
		{"two kinds", []string{"a", "b", "a"}, 4, []string{"a (from 2 of the 4 models fitted on the folds)", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := onceEach(tc.ws, tc.fitted); !slices.Equal(got, tc.want) {
				t.Errorf("onceEach = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestHistoryWarningNamesTheSetting: the warning of unreliable strata kept in the loss
// names the setting that keeps them (-keep-unreliable for the command line), not the
// library's Options.DropUnreliable; the warning of dropped strata is unchanged.
func TestHistoryWarningNamesTheSetting(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Names = tabular.Names{"DropUnreliable": "-keep-unreliable"}
	for _, tc := range []struct {
		name       string
		hist       train.History
		want, lack string
	}{
		{"kept", train.History{Name: "h", UnreliableStrata: 3, Steps: 10, DropReason: "ESS 2"}, "leave out -keep-unreliable to drop them", "Options.DropUnreliable"},
		{"dropped", train.History{Name: "h", UnreliableStrata: 3, DroppedStrata: 3, Steps: 10, DropReason: "ESS 2"}, "were dropped as unreliable", "keep-unreliable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if w := historyWarning(&tc.hist, cfg); !strings.Contains(w, tc.want) || strings.Contains(w, tc.lack) {
				t.Errorf("%q, want %q and not %q", w, tc.want, tc.lack)
			}
		})
	}
}

// TestZNamesTheLabel: -z naming the label's column (alone or among a vector nuisance's
// columns) is refused as such before the table is read, not as a nuisance of 0/1 values.
func TestZNamesTheLabel(t *testing.T) {
	for _, tc := range []struct {
		name, y, z string
		refused    bool
	}{
		{"other column", "y", "z", false},
		{"same column", "y", "y", true},
		{"among a vector's", "y", "z1,y", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Columns{Data: "d.csv", Y: tc.y, Z: tc.z, Names: tabular.Names{"Y": "-y", "Z": "-z"}}
			err := c.validate(true)
			if got := err != nil && strings.Contains(err.Error(), "-z and -y name the same column"); got != tc.refused {
				t.Errorf("validate: %v, want refused %v", err, tc.refused)
			}
		})
	}
}
