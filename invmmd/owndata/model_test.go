package owndata

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// tinyCSV is a 160-row table (x1 with missing cells, x2, a categorical grp, y, and z empty
// for about 40% of the rows); testdata/v0 is a model folder that invmmd fit wrote for it
// before saved models had a format version (-hidden 4 -methods dr -epochs 2).
const (
	tinyCSV = "testdata/tiny.csv"
	v0Dir   = "testdata/v0"
)

// copyDir copies the files of the folder src into a new temporary folder.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// v1Dir returns a folder holding the model of testdata/v0 saved by SaveModel.
func v1Dir(t testing.TB) string {
	t.Helper()
	m, err := LoadModel(v0Dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := train.ModelFromWeights(nil, m.net, m.ws, 16)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "dr-seed1")
	if err := saveModel(dir, h, m.Info); err != nil {
		t.Fatal(err)
	}
	return dir
}

// predictTiny predicts every row of testdata/tiny.csv with the model in dir.
func predictTiny(t testing.TB, dir string) []float64 {
	t.Helper()
	m, err := LoadModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := m.ReadTable(tinyCSV)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := m.Predict(tab)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// editJSON rewrites the JSON file path with edit applied to its decoded value.
func editJSON(t *testing.T, path string, edit func(v any) any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if b, err = json.MarshalIndent(edit(v), "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// set returns an edit that sets the value at the path of object keys to val.
func set(val any, keys ...string) func(v any) any {
	return func(v any) any {
		o := v.(map[string]any)
		for _, k := range keys[:len(keys)-1] {
			o = o[k].(map[string]any)
		}
		o[keys[len(keys)-1]] = val
		return v
	}
}

// weightsEdit returns an edit of weights.json applying f to the list of variables.
func weightsEdit(f func(vars []any) []any) func(v any) any {
	return func(v any) any { return f(v.([]any)) }
}

// TestLoadModelRefuses breaks a saved model in each way that must not give predictions:
// every case is an error naming the file (and the variable where one is at fault), never
// a panic, never a model.
func TestLoadModelRefuses(t *testing.T) {
	v1 := v1Dir(t)
	variable := func(name string) func([]any) (int, map[string]any) {
		return func(vars []any) (int, map[string]any) {
			for i, x := range vars {
				m := x.(map[string]any)
				if m["scope"].(string)+"/"+m["name"].(string) == name {
					return i, m
				}
			}
			panic("no variable " + name)
		}
	}
	for _, tc := range []struct {
		name string
		from string // the folder broken: v0Dir or v1
		file string // the file edited
		edit func(v any) any
		raw  string // instead of edit: the file's new bytes
		want []string
	}{
		{name: "newer format", from: v1, file: ModelFile, edit: set(3, "format"), want: []string{"model.json: format 3 was written by a newer invmmd; this one reads formats 0 to 2"}},
		{name: "classes in format 1", from: v1, file: ModelFile, edit: func(v any) any {
			m := v.(map[string]any)
			m["format"], m["classes"] = 1, []string{"a", "b", "c"}
			return v
		}, want: []string{"model.json: format 1 has no classes (a binary label); classes are format 2's"}},
		{name: "classes without class outputs", from: v1, file: ModelFile, edit: set([]string{"a", "b", "c"}, "classes"),
			want: []string{`model.json: classes ["a" "b" "c"]: 3 names, the architecture has 0 class outputs`}},
		{name: "class outputs without names", from: v1, file: ModelFile, edit: set(3, "architecture", "classes"),
			want: []string{"model.json: the architecture has 3 class outputs and no class is named"}},
		{name: "two classes as class outputs", from: v1, file: ModelFile, edit: set(2, "architecture", "classes"),
			want: []string{"model.json: architecture: 2 classes, want 0 (a binary label) or 3 to 50"}},
		{name: "a class named twice", from: v1, file: ModelFile, edit: func(v any) any {
			m := v.(map[string]any)
			m["classes"] = []string{"a", "b", "a"}
			m["architecture"].(map[string]any)["classes"] = 3
			return v
		}, want: []string{`model.json: classes: "a" listed twice`}},
		{name: "class outputs, weights of one logit", from: v1, file: ModelFile, edit: func(v any) any {
			m := v.(map[string]any)
			m["classes"] = []string{"a", "b", "c"}
			m["architecture"].(map[string]any)["classes"] = 3
			return v
		}, want: []string{"model.json: its variable list does not fit its architecture (mlp [4] with 6 inputs and 3 class outputs)", "variable /model/heads/weights [4 3], which the architecture needs, is missing"}},
		{name: "negative format", from: v1, file: ModelFile, edit: set(-1, "format"), want: []string{"model.json: unknown format -1"}},
		{name: "format not a number", from: v1, file: ModelFile, edit: set("one", "format"), want: []string{`model.json: format "one", want a whole number`}},
		{name: "not JSON", from: v1, file: ModelFile, raw: "{\n  \"format\": 1,\n  \"data\": x\n}", want: []string{"model.json:3:11: invalid character 'x'"}},
		{name: "a field of the wrong type", from: v1, file: ModelFile, edit: set("32", "architecture", "hidden"), want: []string{"model.json:", "cannot unmarshal string"}},
		{name: "unknown field", from: v1, file: ModelFile, edit: set(true, "calibrated"), want: []string{`model.json:`, `unknown field "calibrated"`}},
		{name: "data after the description", from: v1, file: ModelFile, raw: `{"format": 1} {}`, want: []string{"model.json:1:15: invalid character '{' after top-level value"}},
		{name: "unknown method", from: v1, file: ModelFile, edit: set("dr++", "method"), want: []string{`model.json: method: unknown method "dr++"`}},
		{name: "another network", from: v1, file: ModelFile, edit: set("cnn", "architecture", "net"), want: []string{`model.json: architecture: net "cnn", want "mlp"`}},
		{name: "absurd width", from: v1, file: ModelFile, edit: set([]int{1 << 40}, "architecture", "hidden"), want: []string{"model.json: architecture: hidden widths [1099511627776]"}},
		{name: "inputs differ from the encoder's", from: v1, file: ModelFile, edit: set(7, "architecture", "inputs"), want: []string{"model.json: the encoder gives 6 inputs and the architecture takes 7"}},
		{name: "input names differ", from: v1, file: ModelFile, edit: set([]string{"a", "b", "c", "d", "e", "f"}, "inputs"), want: []string{"model.json: inputs", "but the encoder gives"}},
		{name: "zero standard deviation", from: v1, file: ModelFile, edit: func(v any) any {
			v.(map[string]any)["encoder"].(map[string]any)["features"].([]any)[1].(map[string]any)["std"] = 0
			return v
		}, want: []string{`model.json: encoder: column "x2": mean`, "want finite values and a deviation > 0"}},
		{name: "hidden list edited", from: v1, file: ModelFile, edit: set([]int{4, 4}, "architecture", "hidden"),
			want: []string{"model.json: its variable list does not fit its architecture (mlp [4 4] with 6 inputs)", "variable /model/hidden1/weights [4 4], which the architecture needs, is missing"}},
		{name: "hidden list edited, version 0", from: v0Dir, file: ModelFile, edit: set([]int{4, 4}, "hidden"),
			want: []string{"weights.json does not hold the weights of the model described in model.json (mlp [4 4] with 6 inputs)", "variable /model/hidden1/biases [4], which the architecture needs, is missing"}},
		{name: "hidden width edited, version 0", from: v0Dir, file: ModelFile, edit: set([]int{8}, "hidden"),
			want: []string{"weights.json does not hold", "variable /model/hidden0/weights has shape [6 4], the architecture needs [6 8]"}},
		{name: "variable list edited", from: v1, file: ModelFile, edit: func(v any) any {
			v.(map[string]any)["variables"].([]any)[1].(map[string]any)["dims"] = []int{5, 4}
			return v
		}, want: []string{"model.json: its variable list does not fit", "variable /model/hidden0/weights has shape [5 4], the architecture needs [6 4]"}},
		{name: "a variable the architecture does not use", from: v1, file: WeightsFile, edit: weightsEdit(func(vars []any) []any {
			return append(vars, map[string]any{"scope": "/model/hidden1", "name": "weights", "dims": []int{1}, "data": []float64{0.5}})
		}), want: []string{"weights.json does not hold the weights", "variable /model/hidden1/weights [1] is not used by the architecture"}},
		{name: "a variable missing", from: v1, file: WeightsFile, edit: weightsEdit(func(vars []any) []any {
			i, _ := variable("/model/output/biases")(vars)
			return slices.Delete(vars, i, i+1)
		}), want: []string{"weights.json does not hold the weights", "variable /model/output/biases [1], which the architecture needs, is missing"}},
		{name: "a shape that differs", from: v1, file: WeightsFile, edit: weightsEdit(func(vars []any) []any {
			_, m := variable("/model/hidden0/weights")(vars)
			m["dims"] = []int{4, 6}
			return vars
		}), want: []string{"weights.json does not hold the weights", "variable /model/hidden0/weights has shape [4 6], the architecture needs [6 4]"}},
		{name: "a value beyond float32", from: v1, file: WeightsFile, edit: weightsEdit(func(vars []any) []any {
			_, m := variable("/model/output/weights")(vars)
			m["data"].([]any)[2] = 1e300
			return vars
		}), want: []string{"weights.json: variable /model/output/weights: value 2 is 1e+300, want a finite float32"}},
		{name: "weights of another model of the same shape", from: v1, file: WeightsFile, edit: weightsEdit(func(vars []any) []any {
			_, m := variable("/model/output/weights")(vars)
			m["data"].([]any)[0] = 0.5
			return vars
		}), want: []string{"weights.json is not the file saved with", "model.json", "another model's weights"}},
		{name: "weights of another model", from: v1, file: WeightsFile, edit: weightsEdit(func(vars []any) []any {
			for _, x := range vars { // a network of 2 inputs and width 3
				m := x.(map[string]any)
				dims := map[string][]int{"/model/hidden0/biases": {3}, "/model/hidden0/weights": {2, 3}, "/model/output/biases": {1}, "/model/output/weights": {3, 1}}[m["scope"].(string)+"/"+m["name"].(string)]
				size := 1
				for _, d := range dims {
					size *= d
				}
				m["dims"], m["data"] = dims, make([]float64, size)
			}
			return vars
		}), want: []string{"weights.json does not hold the weights", "variable /model/hidden0/weights has shape [2 3], the architecture needs [6 4]", "variable /model/output/weights has shape [3 1], the architecture needs [4 1]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, tc.from)
			path := filepath.Join(dir, tc.file)
			if tc.raw != "" {
				if err := os.WriteFile(path, []byte(tc.raw), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				editJSON(t, path, tc.edit)
			}
			m, err := LoadModel(dir)
			if err == nil {
				t.Fatalf("LoadModel accepted it: %+v", m.Info)
			}
			if strings.Contains(tc.name, "format") && !strings.Contains(tc.name, "not a number") && !strings.Contains(tc.name, "classes") && !errors.Is(err, ErrModelFormat) {
				t.Errorf("error %v does not wrap ErrModelFormat", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nlacks %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), dir) {
				t.Errorf("error %v does not name the folder %s", err, dir)
			}
		})
	}
}

// TestLoadModelVersions reads the unversioned folder invmmd fit wrote before (version 0),
// the same model saved by SaveModel (the current version) and that folder marked version 1
// (a binary label, before the classes were recorded): the descriptions agree and the
// predictions are the same.
func TestLoadModelVersions(t *testing.T) {
	v1 := v1Dir(t)
	a, err := LoadModel(v0Dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadModel(v1)
	if err != nil {
		t.Fatal(err)
	}
	if a.Info.Format != 0 || b.Info.Format != ModelFormat || ModelFormat != 2 {
		t.Errorf("formats %d and %d, want 0 and %d (2)", a.Info.Format, b.Info.Format, ModelFormat)
	}
	old := copyDir(t, v1)
	editJSON(t, filepath.Join(old, ModelFile), set(1, "format"))
	c, err := LoadModel(old)
	if err != nil {
		t.Fatalf("format 1: %v", err)
	}
	if c.Info.Format != 1 || !reflect.DeepEqual(c.Info.Architecture, b.Info.Architecture) || !slices.Equal(predictTiny(t, old), predictTiny(t, v1)) {
		t.Errorf("format 1 read as %+v, want the model of the current format", c.Info)
	}
	want := Architecture{Net: "mlp", Inputs: 6, Hidden: []int{4}}
	if !reflect.DeepEqual(a.Info.Architecture, want) || !reflect.DeepEqual(b.Info.Architecture, want) {
		t.Errorf("architectures %v and %v, want %v", a.Info.Architecture, b.Info.Architecture, want)
	}
	if !reflect.DeepEqual(b.Info.Variables, want.Variables()) {
		t.Errorf("saved variable list %v, want %v", b.Info.Variables, want.Variables())
	}
	if pa, pb := predictTiny(t, v0Dir), predictTiny(t, v1); !slices.Equal(pa, pb) || len(pa) != 160 {
		t.Errorf("predictions differ between the versions: %v... vs %v...", pa[:3], pb[:3])
	}
}

// TestSaveLoadRoundTrip trains h on the tiny table, saves it, loads it and predicts: the
// probabilities are those of the trained model, to the bit, and the saved variable list is
// what the architecture says an MLP needs.
func TestSaveLoadRoundTrip(t *testing.T) {
	cfg := tinyConfig()
	cfg.Out = ""
	plan, err := Prepare(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := plan.Data
	aux, _, err := plan.FitNuisances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, hidden := range [][]int{{3}, {5, 2}} {
		plan.Config.Hidden = hidden
		tr, err := plan.Train(ctx, aux, method.DR, 3)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "dr-seed3")
		if err := saveModel(dir, tr.Model, ModelInfo{Data: cfg.Data, Y: cfg.Y, Z: cfg.Z, Method: "dr", Lambda: 1, Seed: 3, Encoder: d.Encoder}); err != nil {
			t.Fatal(err)
		}
		arch := Architecture{Net: "mlp", Inputs: d.Encoder.Dim(), Hidden: hidden}
		if got := tr.Model.VarShapes(); !reflect.DeepEqual(got, arch.Variables()) {
			t.Errorf("hidden %v: the trained network has variables %v, Architecture.Variables says %v", hidden, got, arch.Variables())
		}
		got := predictTiny(t, dir)
		all := make([]int, d.Table.Len())
		for i := range all {
			all[i] = i
		}
		x, _, err := d.Encoder.Encode(d.Table, all)
		if err != nil {
			t.Fatal(err)
		}
		want, err := tr.Model.Probabilities(&dataset.Set{Name: "all", X: x, Shape: []int{d.Encoder.Dim()}, Y: make([]float64, len(all))})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("hidden %v: loaded model predicts %v..., the trained one %v...", hidden, got[:3], want[:3])
		}
	}
}

// TestSaveModelRefuses checks that SaveModel writes nothing for a network it cannot
// describe or without an encoder.
func TestSaveModelRefuses(t *testing.T) {
	m, err := LoadModel(v0Dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := train.ModelFromWeights(nil, m.net, m.ws, 8)
	if err != nil {
		t.Fatal(err)
	}
	cnn, err := train.ModelFromWeights(nil, models.DefaultCNN(1), m.ws, 8)
	if err != nil {
		t.Fatal(err)
	}
	wrongEnc := &tabular.Encoder{Features: m.Info.Encoder.Features[1:]}
	for _, tc := range []struct {
		name string
		h    *train.Model
		info ModelInfo
		want string
	}{
		{"not an MLP", cnn, m.Info, "is not an MLP"},
		{"no encoder", h, ModelInfo{Method: "dr"}, "no encoder"},
		{"no method", h, ModelInfo{Encoder: m.Info.Encoder}, "unknown method"},
		{"an encoder of other inputs", h, ModelInfo{Method: "dr", Encoder: wrongEnc}, "variable /model/hidden0/weights has shape [6 4], the architecture needs [4 4]"},
	} {
		dir := filepath.Join(t.TempDir(), "m")
		err := saveModel(dir, tc.h, tc.info)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
		if _, serr := os.Stat(dir); serr == nil {
			t.Errorf("%s: SaveModel created %s", tc.name, dir)
		}
	}
}

// FuzzLoadModel gives LoadModel arbitrary model.json bytes beside the weights of
// testdata/v0: it must return an error or a model that predicts a probability for every
// row of the tiny table, never panic. The seed corpus (run by plain go test) is the
// version 0 and version 1 descriptions and a few edits of them.
func FuzzLoadModel(f *testing.F) {
	v0, err := os.ReadFile(filepath.Join(v0Dir, ModelFile))
	if err != nil {
		f.Fatal(err)
	}
	v1, err := os.ReadFile(filepath.Join(v1Dir(f), ModelFile))
	if err != nil {
		f.Fatal(err)
	}
	weights, err := os.ReadFile(filepath.Join(v0Dir, WeightsFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v0)
	f.Add(v1)
	f.Add([]byte(strings.Replace(string(v1), `"format": 1`, `"format": 2`, 1)))
	f.Add([]byte(strings.Replace(string(v0), `"hidden": [`, `"hidden": [4,`, 1)))
	f.Add([]byte(strings.Replace(string(v1), `"std": `, `"std": -`, 1)))
	f.Add([]byte(`{"format": 1, "architecture": {"net": "mlp", "inputs": 1, "hidden": [1]}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ModelFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, WeightsFile), weights, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := LoadModel(dir)
		if err != nil {
			return
		}
		if err := compareVariables(m.Info.Architecture, m.Info.Architecture.Variables()); err != nil {
			t.Fatalf("accepted an architecture that does not fit itself: %v", err)
		}
		tab, err := m.ReadTable(tinyCSV)
		if err != nil {
			return // the description names columns the table lacks
		}
		p, _, err := m.Predict(tab)
		if err != nil {
			return // e.g. an encoder whose statistics make an input infinite
		}
		if len(p) != tab.Len() {
			t.Fatalf("%d probabilities for %d rows", len(p), tab.Len())
		}
		for i, v := range p {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("row %d: probability %v", i, v)
			}
		}
	})
}

// TestPredictRefusesUnseenLabel: a binary model refuses a row whose label is neither of
// its classes (0 and 1, or its -y-positive value and the other value it was trained on),
// naming file, line, column and value; a missing label, or a file without the label
// column, passes.
func TestPredictRefusesUnseenLabel(t *testing.T) {
	b, err := os.ReadFile(tinyCSV)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	withLabel := func(label string) string { // line 3's label replaced
		l := slices.Clone(lines)
		f := strings.Split(l[2], ",")
		f[3] = label
		l[2] = strings.Join(f, ",")
		path := filepath.Join(t.TempDir(), "new.csv")
		os.WriteFile(path, []byte(strings.Join(l, "\n")), 0o644)
		return path
	}
	words := func(label string) string { // 0/1 written no/yes, line 3's label replaced
		path := withLabel(label)
		b, _ := os.ReadFile(path)
		l := strings.Split(string(b), "\n")
		for i := 1; i < len(l); i++ {
			f := strings.Split(l[i], ",")
			if len(f) > 3 && i != 2 {
				f[3] = map[string]string{"0": "no", "1": "yes"}[f[3]]
			}
			l[i] = strings.Join(f, ",")
		}
		os.WriteFile(path, []byte(strings.Join(l, "\n")), 0o644)
		return path
	}
	for _, tc := range []struct {
		name, data string
		yPositive  string // the model's -y-positive ("" for a 0/1 label; its other value is "no")
		want       string // "" when accepted
	}{
		{"0/1 label", withLabel("1"), "", ""},
		{"missing label", withLabel(""), "", ""},
		{"a third class", withLabel("2"), "", `:3: column "y" (the model's label): class "2" was absent from training; the model's classes are 0, 1`},
		{"text label of a 0/1 model", withLabel("yes"), "", `:3: column "y": value "yes"`},
		{"named classes", words("no"), "yes", ""},
		{"a class beside the named ones", words("maybe"), "yes", `:3: column "y" (the model's label): class "maybe" was absent from training; the model's classes are no, yes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := LoadModel(v1Dir(t))
			if err != nil {
				t.Fatal(err)
			}
			if tc.yPositive != "" {
				m.Info.YPositive, m.Info.YNegative = tc.yPositive, "no"
			}
			_, err = m.ReadTableContext(ctx, tc.data)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.data)):
				t.Errorf("error %v, want %q naming %s", err, tc.want, tc.data)
			}
		})
	}
}
