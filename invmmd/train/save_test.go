package train

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
)

// TestReadWeightsRefuses gives ReadWeights broken weights files: each is refused with an
// error naming the file and what is wrong, never a panic.
func TestReadWeightsRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"empty list", `[]`, "holds no weights"},
		{"not JSON", `[{"scope":`, "unexpected end of JSON input"},
		{"too few values", `[{"scope":"/model/a","name":"w","dims":[2,3],"data":[1,2,3]}]`, "variable /model/a/w has 3 values for dimensions [2 3]"},
		{"negative dimensions", `[{"scope":"/model/a","name":"w","dims":[-1,-3],"data":[1,2,3]}]`, "has 3 values for dimensions [-1 -3]"},
		{"overflowing dimensions", `[{"scope":"/model/a","name":"w","dims":[4294967296,4294967296,4294967296],"data":[1]}]`, "has 1 values for dimensions"},
		{"no dimensions", `[{"scope":"/model/a","name":"w","dims":[],"data":[1]}]`, "has no dimensions"},
		{"twice", `[{"scope":"/model/a","name":"w","dims":[1],"data":[1]},{"scope":"/model/a","name":"w","dims":[1],"data":[2]}]`, "variable /model/a/w appears twice"},
		{"relative scope", `[{"scope":"model/a","name":"w","dims":[1],"data":[1]}]`, `scope "model/a"`},
		{"beyond float32", `[{"scope":"/model/a","name":"w","dims":[2],"data":[1,-1e39]}]`, "variable /model/a/w: value 1 is -1e39, want a finite float32"},
		{"a string value", `[{"scope":"/model/a","name":"w","dims":[1],"data":["x"]}]`, "invalid number literal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "weights.json")
			if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadWeights(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("ReadWeights(%s): error %v, want one naming the file and containing %q", tc.body, err, tc.want)
			}
		})
	}
}

// TestVarShapesMatchFile checks that VarShapes lists what Save writes and ReadWeights reads
// back, and that ModelFromWeights gives the saved model's outputs.
func TestVarShapesMatchFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	sp := dataset.Splits{Train: tinyCell(rng, "train", 400), Val: tinyCell(rng, "val", 200), Test: tinyCell(rng, "test", 200)}
	model, _, err := Fit(context.Background(), sp, nil, mlp(6), Config{Method: method.None, BatchSize: 200, Epochs: 1, LearningRate: 1e-2, Seed: 6}, Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "w.json")
	if err := model.Save(path); err != nil {
		t.Fatal(err)
	}
	ws, err := ReadWeights(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []VarShape
	for _, w := range ws {
		got = append(got, w.VarShape)
	}
	if want := model.VarShapes(); !reflect.DeepEqual(got, want) || len(want) == 0 {
		t.Errorf("the file holds %v, VarShapes says %v", got, want)
	}
	back, err := ModelFromWeights(nil, mlp(98), ws, 64)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := model.Logits(sp.Test)
	b, err := back.Logits(sp.Test)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("outputs differ after ModelFromWeights: %v... vs %v...", a[:3], b[:3])
	}
}

// loadModel reads the weights Model.Save wrote to path into net (ReadWeights, then
// ModelFromWeights), predicting batch rows per call on backend b.
func loadModel(b backends.Backend, net models.Net, path string, batch int) (*Model, error) {
	ws, err := ReadWeights(path)
	if err != nil {
		return nil, err
	}
	return ModelFromWeights(b, net, ws, batch)
}
