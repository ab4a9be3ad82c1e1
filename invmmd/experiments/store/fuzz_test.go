package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/settings"
)

// FuzzGet writes arbitrary bytes as the result file of one fit and reads it with Get, and
// the same bytes as a store's sweep.json read with Load. Neither may panic. Get may accept
// the file only when it holds that fit's key and experiment and a configuration equal to
// the store's, and only when the file is valid JSON.
func FuzzGet(f *testing.F) {
	cfg := `{"H":{"Epochs":15}}`
	k := Key{"dr", 1, 2}
	good, err := json.Marshal(Record{Experiment: "sim", Key: k, Config: json.RawMessage(cfg), Result: json.RawMessage(`{"TestAcc":0.8}`), Seconds: 3.5})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		string(good),
		strings.Replace(string(good), `"Epochs":15`, `"Epochs":60`, 1),   // another configuration
		strings.Replace(string(good), `"Seed":2`, `"Seed":3`, 1),         // another fit
		strings.Replace(string(good), `"Lambda":1`, `"Lambda":1e999`, 1), // λ out of range
		`{"Experiment":"sim","Key":{"Method":"dr","Lambda":1,"Seed":2},"Config":null}`,
		`{"Experiment":"sim","Key":{"Method":"dr","Lambda":1,"Seed":2},"Config":[1,{"a":[]}]}`,
		`{`,
		``,
		`null`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	// One store for every input (each fuzzing process has its own): opening one per input
	// made the target a hundred times slower.
	out := f.TempDir()
	st, err := Open(out, Sweep{Experiment: "sim", Config: json.RawMessage(cfg), Methods: []string{"dr"}, Lambdas: []float64{1}, Seeds: []uint64{2}})
	if err != nil {
		f.Fatal(err)
	}
	dir := Dir(out, "other")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(st.Dir(), k.FileName()), data, 0o644); err != nil {
			t.Fatal(err)
		}
		rec, ok, err := st.Get(k)
		switch {
		case err != nil && ok:
			t.Fatalf("Get: ok and error %v", err)
		case err != nil && !strings.Contains(err.Error(), k.FileName()):
			t.Errorf("error does not name the file: %v", err)
		case ok:
			if rec.Key != k || rec.Experiment != "sim" || len(settings.Diff(json.RawMessage(cfg), rec.Config)) > 0 {
				t.Fatalf("Get accepted %+v", rec)
			}
			if !json.Valid(data) {
				t.Fatalf("Get accepted a file that is not valid JSON")
			}
		case !ok && err == nil:
			t.Fatalf("Get: the file exists but ok is false with no error")
		}
		if _, err := st.Collect([]Key{k}); (err == nil) != ok {
			t.Fatalf("Get ok %v, Collect error %v", ok, err)
		}

		// The same bytes as the sweep.json of another experiment's folder.
		if err := os.WriteFile(filepath.Join(dir, "sweep.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if ld, err := Load(out, "other"); err == nil && ld.Sweep().Experiment != "other" {
			t.Fatalf("Load accepted the sweep of %q as other's", ld.Sweep().Experiment)
		}
	})
}
