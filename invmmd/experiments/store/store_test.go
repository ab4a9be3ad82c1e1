package store

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sweep(config string) Sweep {
	return Sweep{Experiment: "sim", Config: json.RawMessage(config), Methods: []string{"none", "dr"}, Lambdas: []float64{1, 5}, Seeds: []uint64{1, 2}}
}

// TestKeyFileName: a fit's file is METHOD_lambdaΛ_seedS.json, λ spelt as the tables
// spell it (results.LambdaName).
func TestKeyFileName(t *testing.T) {
	if got := (Key{Method: "dr+", Lambda: 0.125, Seed: 3}).FileName(); got != "dr+_lambda0.125_seed3.json" {
		t.Errorf("FileName = %q", got)
	}
}

func TestPutGetCollect(t *testing.T) {
	out := t.TempDir()
	st, err := Open(out, sweep(`{"H":{"Epochs":15}}`))
	if err != nil {
		t.Fatal(err)
	}
	k := Key{"dr", 1, 2}
	if _, ok, err := st.Get(k); ok || err != nil {
		t.Fatalf("Get before Put: ok %v, err %v", ok, err)
	}
	if err := st.Put(k, map[string]float64{"TestAcc": 0.8}, 3.5); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "fits", "sim", "dr_lambda1_seed2.json")); err != nil {
		t.Fatalf("result file: %v", err)
	}
	rec, ok, err := st.Get(k)
	var res map[string]float64
	json.Unmarshal(rec.Result, &res)
	if !ok || err != nil || rec.Seconds != 3.5 || res["TestAcc"] != 0.8 {
		t.Fatalf("Get = %+v, %v, %v", rec, ok, err)
	}
	_, err = st.Collect([]Key{k, {"none", 0, 1}, {"dr", 5, 1}})
	if err == nil || !strings.Contains(err.Error(), "none λ=0 seed 1") || !strings.Contains(err.Error(), "dr λ=5 seed 1") || !strings.Contains(err.Error(), "2 of 3 fits") {
		t.Fatalf("Collect with two missing: %v", err)
	}
	recs, err := st.Collect([]Key{k})
	if err != nil || len(recs) != 1 {
		t.Fatalf("Collect = %v, %v", recs, err)
	}
	// Another file made with another configuration is refused by Get, and named.
	other := Record{Experiment: "sim", Key: Key{"dr", 5, 1}, Config: json.RawMessage(`{"H":{"Epochs":60}}`), Result: json.RawMessage(`{}`)}
	js, _ := json.Marshal(other)
	os.WriteFile(filepath.Join(st.Dir(), other.Key.FileName()), js, 0o644)
	if _, _, err := st.Get(other.Key); err == nil || !strings.Contains(err.Error(), "H.Epochs: 15 → 60") {
		t.Fatalf("Get of another configuration's file: %v", err)
	}
	_, err = st.Collect([]Key{k, other.Key})
	if err == nil || !strings.Contains(err.Error(), "made with another configuration or unreadable (1)") || !strings.Contains(err.Error(), other.Key.FileName()) {
		t.Fatalf("Collect with a file of another configuration: %v", err)
	}
}

func TestOpenRefusesAnotherConfiguration(t *testing.T) {
	out := t.TempDir()
	if _, err := Open(out, sweep(`{"Size":{"NTrain":3000},"H":{"Epochs":15,"LearningRate":0.001}}`)); err != nil {
		t.Fatal(err)
	}
	// Another grid with the same configuration is fine (a later run may add λ or seeds).
	sw := sweep(`{"Size":{"NTrain":3000},"H":{"Epochs":15,"LearningRate":0.001}}`)
	sw.Lambdas = []float64{2}
	if _, err := Open(out, sw); err != nil {
		t.Fatalf("same configuration, other grid: %v", err)
	}
	_, err := Open(out, sweep(`{"Size":{"NTrain":10000},"H":{"Epochs":60,"LearningRate":0.001}}`))
	var mm *MismatchError
	if !errors.As(err, &mm) || len(mm.Diffs) != 2 || mm.Diffs[0] != "H.Epochs: 15 → 60" || mm.Diffs[1] != "Size.NTrain: 3000 → 10000" {
		t.Fatalf("error %v, want a MismatchError listing H.Epochs and Size.NTrain", err)
	}
	if !strings.Contains(err.Error(), "use another -out") {
		t.Errorf("error does not say what to do: %v", err)
	}
}

func TestOpenRejectsBadGrids(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Sweep)
		want string
	}{
		{func(s *Sweep) { s.Methods = []string{"dr", "dr"} }, "method dr listed twice"},
		{func(s *Sweep) { s.Seeds = []uint64{1, 1} }, "seed 1 listed twice"},
		{func(s *Sweep) { s.Lambdas = []float64{1, 1} }, "λ 1 listed twice"},
		{func(s *Sweep) { s.Lambdas = []float64{-1} }, "λ = -1"},
		{func(s *Sweep) { s.Seeds = nil }, "nothing to run"},
	} {
		sw := sweep(`{}`)
		tc.edit(&sw)
		if _, err := Open(t.TempDir(), sw); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestShards(t *testing.T) {
	for _, tc := range []struct{ in, want string }{{"0/4", "1 ≤ i ≤ n"}, {"5/4", "1 ≤ i ≤ n"}, {"a/4", "want i/n"}, {"3", "want i/n"}, {"1/0", "1 ≤ i ≤ n"}} {
		if _, err := ParseShard(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseShard(%q) error %v, want %q", tc.in, err, tc.want)
		}
	}
	for _, total := range []int{0, 1, 3, 7, 46} {
		for n := 1; n <= 6; n++ {
			next := 0
			for i := 1; i <= n; i++ {
				s, err := ParseShard(Shard{i, n}.String())
				if err != nil {
					t.Fatal(err)
				}
				lo, hi := s.Range(total)
				if lo != next || hi < lo || hi-lo > total/n+1 {
					t.Fatalf("total %d, shard %v: [%d,%d) after %d", total, s, lo, hi, next)
				}
				next = hi
			}
			if next != total {
				t.Fatalf("total %d in %d shards covers %d", total, n, next)
			}
		}
	}
}

// TestCount counts result files, not the sweep or the per-seed records.
func TestCount(t *testing.T) {
	out := t.TempDir()
	if n := Count(out, "sim"); n != 0 {
		t.Fatalf("Count without a store = %d, want 0", n)
	}
	st, err := Open(out, sweep(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range []Key{{"none", 0, 1}, {"dr", 1, 1}, {"dr", 5, 2}} {
		if n := Count(out, "sim"); n != i {
			t.Fatalf("Count after %d fits = %d", i, n)
		}
		if err := st.Put(k, map[string]float64{}, 1); err != nil {
			t.Fatal(err)
		}
		if err := st.PutSeed("aux", k.Seed, map[string]int{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := Count(out, "sim"); n != 3 {
		t.Fatalf("Count = %d, want 3 (3 fits, 2 seed records, sweep.json)", n)
	}
}

// TestCheckWritesNothing: Check refuses what Open refuses and creates no file or folder.
func TestCheckWritesNothing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	sw := Sweep{Experiment: "x", Config: json.RawMessage(`{"a":1}`), Methods: []string{"dr"}, Lambdas: []float64{1}, Seeds: []uint64{1}}
	if err := Check(out, sw); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("Check created %s", out)
	}
	if _, err := Open(out, sw); err != nil {
		t.Fatal(err)
	}
	other := sw
	other.Config = json.RawMessage(`{"a":2}`)
	var me *MismatchError
	if err := Check(out, other); !errors.As(err, &me) || !strings.Contains(err.Error(), "a: 1 → 2") {
		t.Errorf("another configuration: %v", err)
	}
	bad := sw
	bad.Seeds = nil
	if err := Check(out, bad); err == nil {
		t.Error("an empty grid passed")
	}
}
