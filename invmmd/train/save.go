package train

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/invmmd/invmmd/invmmd/models"
)

// savedVariable is one network variable in a weights file, its values of type T (float32
// when written, json.Number when read).
type savedVariable[T any] struct {
	Scope string `json:"scope"`
	Name  string `json:"name"`
	Dims  []int  `json:"dims"`
	Data  []T    `json:"data"`
}

// VarShape names one network variable by its scope and name ("/model/hidden0/weights")
// and gives its dimensions: what a saved model's description lists, so that weights can be
// checked against an architecture before they are used.
type VarShape struct {
	Name string `json:"name"`
	Dims []int  `json:"dims"`
}

// String renders the variable as "NAME [d1 d2]".
func (v VarShape) String() string { return fmt.Sprintf("%s %v", v.Name, v.Dims) }

// Weight is one network variable with its values (row-major), as a weights file holds it.
type Weight struct {
	VarShape
	Values []float32
}

// Save writes the network's variables to path as JSON (scope, name, dimensions, float32
// values), sorted by scope and name so that the same weights give the same file. The
// architecture is not in the file: LoadModel takes the same Net.
func (m *Model) Save(path string) error {
	var vars []savedVariable[float32]
	for name, t := range m.snapshot() {
		data := tensors.MustCopyFlatData[float32](t) // every network variable is float32 (models.Param)
		scope, short := splitScope(name)
		vars = append(vars, savedVariable[float32]{Scope: scope, Name: short, Dims: t.Shape().Dimensions, Data: data})
	}
	sort.Slice(vars, func(i, j int) bool {
		return vars[i].Scope+"/"+vars[i].Name < vars[j].Scope+"/"+vars[j].Name
	})
	b, err := json.Marshal(vars)
	if err != nil {
		return fmt.Errorf("train: saving the model: %w", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("train: saving the model: %w", err)
	}
	return nil
}

// VarShapes returns the name and dimensions of each of the model's variables, sorted by
// name: the list Save writes, without the values.
func (m *Model) VarShapes() []VarShape {
	var out []VarShape
	for name, t := range m.snapshot() {
		out = append(out, VarShape{Name: name, Dims: append([]int(nil), t.Shape().Dimensions...)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ReadWeights reads a weights file written by Model.Save and checks what can be checked
// without the architecture: every variable is named once, its dimensions are positive and
// its values fill them exactly, and every value is finite. The variables come back sorted
// by name. Whether they fit a network is the caller's check (compare them with the
// VarShapes the network needs); ModelFromWeights does not make it.
func ReadWeights(path string) ([]Weight, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("train: loading the model: %w", err)
	}
	// Values are read as decimal text and parsed as float32 here, so that a value beyond
	// float32's range is reported with its variable.
	var vars []savedVariable[json.Number]
	if err := json.Unmarshal(b, &vars); err != nil {
		return nil, fmt.Errorf("train: loading the model from %s: %w", path, err)
	}
	if len(vars) == 0 {
		return nil, fmt.Errorf("train: %s holds no weights", path)
	}
	out := make([]Weight, 0, len(vars))
	seen := map[string]bool{}
	for _, v := range vars {
		name := v.Scope + "/" + v.Name
		if v.Scope == "" || v.Scope[0] != '/' || v.Name == "" {
			return nil, fmt.Errorf("train: %s: variable with scope %q and name %q: want an absolute scope and a name", path, v.Scope, v.Name)
		}
		if seen[name] {
			return nil, fmt.Errorf("train: %s: variable %s appears twice", path, name)
		}
		seen[name] = true
		if len(v.Dims) == 0 {
			return nil, fmt.Errorf("train: %s: variable %s has no dimensions", path, name)
		}
		size := 1
		for _, d := range v.Dims {
			if d < 1 || size > len(v.Data)/d {
				return nil, fmt.Errorf("train: %s: variable %s has %d values for dimensions %v", path, name, len(v.Data), v.Dims)
			}
			size *= d
		}
		if size != len(v.Data) {
			return nil, fmt.Errorf("train: %s: variable %s has %d values for dimensions %v", path, name, len(v.Data), v.Dims)
		}
		values := make([]float32, len(v.Data))
		for k, x := range v.Data {
			f, err := strconv.ParseFloat(string(x), 32)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("train: %s: variable %s: value %d is %s, want a finite float32", path, name, k, x)
			}
			values[k] = float32(f)
		}
		out = append(out, Weight{VarShape: VarShape{Name: name, Dims: v.Dims}, Values: values})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ModelFromWeights returns network net with the variables ws (as ReadWeights returns them),
// predicting batch rows per call on backend b (nil: backend.Shared()). It does not check
// ws against net: a variable net does not use is ignored, one it needs and ws lacks is
// drawn at random, and a shape net does not expect makes prediction fail. Compare
// ReadWeights' shapes with the network's first (owndata.LoadModel does).
func ModelFromWeights(b backends.Backend, net models.Net, ws []Weight, batch int) (*Model, error) {
	if batch < 1 {
		return nil, fmt.Errorf("train: prediction batch %d, want at least 1", batch)
	}
	be, err := Runtime{Backend: b}.backend()
	if err != nil {
		return nil, err
	}
	m := newModel(be, net, batch)
	for _, w := range ws {
		scope, short := splitScope(w.Name)
		m.ctx.InAbsPath(scope).VariableWithValue(short, tensors.FromFlatDataAndDimensions(append([]float32(nil), w.Values...), w.Dims...))
	}
	return m, nil
}

// splitScope splits a variable's "scope/name" at the last separator.
func splitScope(scopeAndName string) (scope, name string) {
	if i := strings.LastIndexByte(scopeAndName, '/'); i >= 0 {
		return scopeAndName[:i], scopeAndName[i+1:]
	}
	return "/", scopeAndName
}
