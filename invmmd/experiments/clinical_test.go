package experiments

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMajorityFromConfig: the majority baseline comes from the data records of the
// configuration record (seed → split summaries), in seed order; a record without a test
// summary, a missing file, and an experiment without Majority are handled as documented.
func TestMajorityFromConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"Data": {
		"10": [{"Name": "train", "PY1": 0.25}, {"Name": "val", "PY1": 0.9}, {"Name": "test", "PY1": 0.35}],
		"2": [{"Name": "train", "PY1": 0.3}, {"Name": "val", "PY1": 0.9}, {"Name": "test", "PY1": 0.25}]}}`)
	noTest := write("notest.json", `{"Data": {"1": [{"Name": "train", "PY1": 0.3}]}}`)
	exp := ClinicalFLChain(ClinicalQuick)
	ex, err := exp.TableExtras(good)
	if err != nil {
		t.Fatal(err)
	}
	m := ex.Majority
	if m == nil || m.Label != 0 || m.N != 2 || math.Abs(m.TeAcc.Mean-0.7) > 1e-12 || math.Abs(m.TrAcc.Mean-0.725) > 1e-12 || ex.PaperDataset != "MIMIC-III" {
		t.Fatalf("extras %+v (majority %+v), want label 0, test 0.7, train 0.725 over 2 seeds, paper on MIMIC-III", ex, m)
	}
	if _, err := exp.TableExtras(noTest); err == nil || !strings.Contains(err.Error(), "seed 1") || !strings.Contains(err.Error(), "notest.json") {
		t.Errorf("record without a test summary: error %v, want one naming the seed and the file", err)
	}
	if _, err := exp.TableExtras(filepath.Join(dir, "none.json")); err == nil {
		t.Error("missing configuration record: want an error")
	}
	sim, _ := Studies().Describe("sim")
	if ex, err := sim.TableExtras(filepath.Join(dir, "none.json")); err != nil || ex.Majority != nil {
		t.Errorf("sim (no Majority) extras %+v, %v: want none and no file read", ex, err)
	}
}
