package owndata

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/train"
)

// TestStopRendersAndWarns checks how a Stop reads and when it warns: a stop by patience
// never warns; a stop by the cap warns when the rule could still have ended it later
// (patience > 0) or, without patience, when the best epoch is the last.
func TestStopRendersAndWarns(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Stop
		str  string
		warn string // "" for none
	}{
		{"patience", Stop{BestEpoch: 37, StopEpoch: 57, MaxEpochs: 400, Patience: 20, Reason: train.StopPatience},
			"best epoch 37, stopped at 57 of 400 by patience", ""},
		{"cap with patience", Stop{BestEpoch: 55, StopEpoch: 60, MaxEpochs: 60, Patience: 20, Reason: train.StopMaxEpochs},
			"best epoch 55, stopped at 60 of 60 by max-epochs", "G stopped at the cap of 60 epochs with its best epoch (55) within the last 20, so the stopping rule had not ended it: it may not have converged; raise -aux-epochs"},
		{"cap without patience, best last", Stop{BestEpoch: 60, StopEpoch: 60, MaxEpochs: 60, Reason: train.StopMaxEpochs},
			"best epoch 60, stopped at 60 of 60 by max-epochs", "G stopped at the cap of 60 epochs with its best epoch (60) the last: it may not have converged; raise -aux-epochs"},
		{"cap without patience, best earlier", Stop{BestEpoch: 12, StopEpoch: 60, MaxEpochs: 60, Reason: train.StopMaxEpochs},
			"best epoch 12, stopped at 60 of 60 by max-epochs", ""},
		{"not recorded", Stop{}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.String(); got != tc.str {
				t.Errorf("String() = %q, want %q", got, tc.str)
			}
			if got := stopWarning("G", tc.s, "-aux-epochs"); got != tc.warn {
				t.Errorf("stopWarning = %q, want %q", got, tc.warn)
			}
		})
	}
}

// TestFitStopsByPatience fits on the calibration simulation, whose G, m and h converge
// within a few dozen epochs of batches of 64 rows, with a cap of 300 epochs: with a patience of 5 every model
// stops by patience, 5 epochs after its best one and long before the cap, and the stop is
// reported in the log, the results files and config.json; with patience 0 every model
// trains to its cap (here 7 epochs for G and m, 6 for h) and the report says max-epochs.
func TestFitStopsByPatience(t *testing.T) {
	data := calibCSV(t, 1500, 0.5, 3)
	for _, tc := range []struct {
		name                         string
		epochs, patience             int
		auxEpochs, auxPatience       int
		reason                       train.StopReason
		wantStop, wantAuxStop        func(s Stop) bool
		describe, wantLog, wantMDRow string
	}{
		{name: "patience", epochs: 300, patience: 5, auxEpochs: 300, auxPatience: 5, reason: train.StopPatience,
			wantStop:    func(s Stop) bool { return s.StopEpoch == s.BestEpoch+5 && s.StopEpoch < 300 && s.MaxEpochs == 300 },
			wantAuxStop: func(s Stop) bool { return s.StopEpoch == s.BestEpoch+5 && s.StopEpoch < 300 && s.MaxEpochs == 300 },
			wantLog:     "stopped after 5 epochs without a better one", wantMDRow: " of 300 by patience |"},
		{name: "no patience", epochs: 6, patience: 0, auxEpochs: 7, auxPatience: 0, reason: train.StopMaxEpochs,
			wantStop:    func(s Stop) bool { return s.StopEpoch == 6 && s.MaxEpochs == 6 && s.BestEpoch <= 6 },
			wantAuxStop: func(s Stop) bool { return s.StopEpoch == 7 && s.MaxEpochs == 7 && s.BestEpoch <= 7 },
			wantLog:     "stopped at the cap", wantMDRow: "stopped at 6 of 6 by max-epochs |"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Data, cfg.Y, cfg.Z, cfg.X = data, "y", "z", []string{"x1", "x2"}
			cfg.Hidden, cfg.Methods, cfg.Out, cfg.Batch = []int{8}, []method.Method{method.DR}, t.TempDir(), 64
			cfg.Epochs, cfg.Patience, cfg.AuxEpochs, cfg.AuxPatience = tc.epochs, tc.patience, tc.auxEpochs, tc.auxPatience
			var log strings.Builder
			cfg.Log = &log
			res, err := Fit(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			h, g, m := res.Rows[0].HStop, res.AuxFit.GStop, res.AuxFit.MStop
			if h.Reason != tc.reason || h.Patience != tc.patience || !tc.wantStop(h) {
				t.Errorf("h: %+v, want stopped by %s", h, tc.reason)
			}
			for name, s := range map[string]Stop{"G": g, "m": m} {
				if s.Reason != tc.reason || s.Patience != tc.auxPatience || !tc.wantAuxStop(s) {
					t.Errorf("%s: %+v, want stopped by %s", name, s, tc.reason)
				}
			}
			if !strings.Contains(log.String(), tc.wantLog) || !strings.Contains(log.String(), g.String()) || !strings.Contains(log.String(), m.String()) {
				t.Errorf("log lacks %q or the stops of G (%s) and m (%s):\n%s", tc.wantLog, g, m, log.String())
			}
			md, _ := os.ReadFile(filepath.Join(cfg.Out, ResultsMD))
			if !strings.Contains(string(md), "| "+h.String()+" |") || !strings.Contains(string(md), tc.wantMDRow) ||
				!strings.Contains(string(md), "- G: "+g.String()+"; m: "+m.String()) {
				t.Errorf("results.md lacks the stops of h (%s), G and m:\n%s", h, md)
			}
			if !strings.Contains(res.HeldOut, "h trained with dr (seed 1; "+h.String()+"), held-out") {
				t.Errorf("heldout.txt lacks h's stop:\n%s", res.HeldOut)
			}

			f, err := os.Open(filepath.Join(cfg.Out, ResultsCSV))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(f).ReadAll()
			f.Close()
			if err != nil || len(recs) != 2 {
				t.Fatalf("results.csv: %d records, %v", len(recs), err)
			}
			col := map[string]string{}
			for i, name := range recs[0] {
				col[name] = recs[1][i]
			}
			for name, want := range map[string]string{"h_best_epoch": itoa(h.BestEpoch), "h_stop_epoch": itoa(h.StopEpoch), "h_max_epochs": itoa(tc.epochs), "h_stop_reason": string(tc.reason)} {
				if col[name] != want {
					t.Errorf("results.csv %s = %q, want %q", name, col[name], want)
				}
			}

			b, err := os.ReadFile(filepath.Join(cfg.Out, ConfigFile))
			if err != nil {
				t.Fatal(err)
			}
			var rec struct {
				Data struct {
					AuxStop map[string]Stop `json:"aux_stop"`
				} `json:"data_read"`
			}
			if err := json.Unmarshal(b, &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Data.AuxStop["G"] != g || rec.Data.AuxStop["m"] != m {
				t.Errorf("config.json aux_stop %+v, want G %+v and m %+v", rec.Data.AuxStop, g, m)
			}
			var run RunFile
			if b, err = os.ReadFile(runPath(cfg.Out, method.DR, 1)); err == nil {
				err = json.Unmarshal(b, &run)
			}
			if err != nil || run.Row.HStop != h {
				t.Errorf("run file's h stop %+v (%v), want %+v", run.Row.HStop, err, h)
			}
		})
	}
}

// TestEstimateAndTestStopByPatience checks that estimate and test, which fit G and m on
// part of the table, stop them by patience on the rows they hold out, and say so.
func TestEstimateAndTestStopByPatience(t *testing.T) {
	data := calibCSV(t, 1500, 0.5, 4)
	ec := DefaultEstimateConfig()
	ec.Data, ec.Y, ec.Z, ec.H, ec.X = data, "y", "z", "h", []string{"x1", "x2"}
	ec.Hidden, ec.Methods, ec.AuxEpochs, ec.AuxPatience, ec.Batch = []int{8}, []method.Method{method.DR}, 300, 5, 64
	var elog strings.Builder
	ec.Log = &elog
	est, err := Estimate(ctx, ec)
	if err != nil {
		t.Fatal(err)
	}
	tc := DefaultTestConfig()
	tc.Columns, tc.H, tc.Nets = ec.Columns, "h", ec.Nets
	var tlog strings.Builder
	tc.Log = &tlog
	tst, err := Test(ctx, tc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, log string
		rep       AuxReport
		on        string
	}{
		{"estimate", elog.String(), est.AuxFit, "(fold 1's: 1200 rows, 960 to fit and 240 held out to stop training)"},
		{"test", tlog.String(), tst.AuxFit, "(fold 1's: 1200 rows, 960 to fit and 240 held out to stop training)"},
	} {
		for model, s := range map[string]Stop{"G": c.rep.GStop, "m": c.rep.MStop} {
			if s.Reason != train.StopPatience || s.StopEpoch != s.BestEpoch+5 || s.MaxEpochs != 300 {
				t.Errorf("%s: %s %+v, want stopped by patience 5 epochs after its best", c.name, model, s)
			}
			if !strings.Contains(c.log, s.String()) {
				t.Errorf("%s: the log lacks %s's stop %q:\n%s", c.name, model, s, c.log)
			}
		}
		if !strings.Contains(c.log, c.on) {
			t.Errorf("%s: the log does not say which rows stop G and m (want %q):\n%s", c.name, c.on, c.log)
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
