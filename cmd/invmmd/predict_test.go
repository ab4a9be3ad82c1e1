package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCmdSafe is runCmd that turns a panic into an error, so that a test can say which
// case panicked.
func runCmdSafe(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return runCmd(t, args...)
}

// copyModel copies the model folder src to a new folder and returns it.
func copyModel(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"model.json", "weights.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestPredictRefusesMismatchedModels reproduces what a user found: predict with a model
// folder whose weights come from another model (it panicked in matmul.Affine), and with a
// model.json whose hidden list was edited (it printed wrong probabilities and exited 0).
// Both must be errors naming the file and the variable, and predict must still score the
// untouched folder.
func TestPredictRefusesMismatchedModels(t *testing.T) {
	data := ownCSV(t, 600, false)
	big, small := t.TempDir(), t.TempDir()
	common := []string{"-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-methods", "none", "-epochs", "2", "-aux-epochs", "2"}
	if _, stderr, err := runCmd(t, append(append([]string{"fit"}, common...), "-x", "x1,x2,group", "-out", big)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := runCmd(t, append(append([]string{"fit"}, common...), "-x", "x2", "-hidden", "8", "-out", small)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	model := filepath.Join(big, "models", "none-seed1")
	if _, stderr, err := runCmdSafe(t, "predict", "-model", model, "-data", data); err != nil {
		t.Fatalf("the untouched model: %v\n%s", err, stderr)
	}

	foreign := copyModel(t, model)
	w, err := os.ReadFile(filepath.Join(small, "models", "none-seed1", "weights.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "weights.json"), w, 0o644); err != nil {
		t.Fatal(err)
	}

	edited := copyModel(t, model)
	path := filepath.Join(edited, "model.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var mj map[string]any
	if err := json.Unmarshal(b, &mj); err != nil {
		t.Fatal(err)
	}
	if arch, ok := mj["architecture"].(map[string]any); ok {
		arch["hidden"] = []int{32}
	} else {
		mj["hidden"] = []int{32} // the unversioned model.json
	}
	if b, err = json.Marshal(mj); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, dir string
		want      []string
	}{
		{"weights of another model", foreign, []string{filepath.Join(foreign, "weights.json"), "variable /model/hidden0/weights has shape [1 8]", "variable /model/output/weights has shape [8 1]"}},
		{"hidden list edited", edited, []string{filepath.Join(edited, "model.json"), "variable /model/hidden1/weights [32 32] is not used by the architecture"}},
	} {
		stdout, stderr, err := runCmdSafe(t, "predict", "-model", tc.dir, "-data", data)
		if err == nil {
			t.Errorf("%s: predict succeeded:\n%.200s", tc.name, stdout)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error\n%v\nlacks %q (stderr %q)", tc.name, err, w, stderr)
			}
		}
	}
}

// TestPredictRefusesOutputOverInput checks that predict will not write its probabilities
// over the file it reads, under the same name, another spelling of it, a hard link or a
// symbolic link, and leaves the file as it was.
func TestPredictRefusesOutputOverInput(t *testing.T) {
	data := ownCSV(t, 300, false)
	out := t.TempDir()
	if _, stderr, err := runCmd(t, "fit", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-x", "x1,x2", "-methods", "none",
		"-epochs", "2", "-aux-epochs", "2", "-out", out); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	model := filepath.Join(out, "models", "none-seed1")
	before, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(data)
	hard, soft := filepath.Join(dir, "hard.csv"), filepath.Join(dir, "soft.csv")
	if err := os.Link(data, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(data, soft); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{data, dir + "/./sub/../" + filepath.Base(data), hard, soft} {
		_, _, err := runCmdSafe(t, "predict", "-model", model, "-data", data, "-out", o)
		if err == nil || !strings.Contains(err.Error(), "it would be overwritten") {
			t.Errorf("predict -data %s -out %s: error %v, want a refusal", data, o, err)
		}
		if after, _ := os.ReadFile(data); string(after) != string(before) {
			t.Fatalf("-out %s changed the input file", o)
		}
	}
	other := filepath.Join(dir, "p.csv")
	if _, stderr, err := runCmdSafe(t, "predict", "-model", model, "-data", data, "-out", other); err != nil {
		t.Errorf("predict to another file: %v\n%s", err, stderr)
	}
	// A cell that is not a number in a numeric feature is named by its own line and value
	// (it used to be reported at line 2 with that line's valid value).
	typo := filepath.Join(dir, "typo.csv")
	os.WriteFile(typo, []byte("x1,x2\n0.1,0.2\n0.3,0.4\n0.5,0.6\nabc,0.8\n0.9,1.0\n1.1,1.2\n1.3,1.4\n1.5,1.6\n1.7,1.8\n1.9,2.0\n2.1,2.2\n"), 0o644)
	if _, _, err := runCmdSafe(t, "predict", "-model", model, "-data", typo); err == nil || !strings.Contains(err.Error(), `typo.csv:5: column "x1": value "abc" is not a number`) {
		t.Errorf("predict on a typo at line 5: %v", err)
	}
}
