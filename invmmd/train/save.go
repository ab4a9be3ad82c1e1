package train

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/invmmd/invmmd/invmmd/models"
)

// savedVariable is one network variable in a weights file.
type savedVariable struct {
	Scope string    `json:"scope"`
	Name  string    `json:"name"`
	Dims  []int     `json:"dims"`
	Data  []float32 `json:"data"`
}

// Save writes the network's variables to path as JSON (scope, name, dimensions, float32
// values), sorted by scope and name so that the same weights give the same file. The
// architecture is not in the file: LoadModel takes the same Net.
func (m *Model) Save(path string) error {
	var vars []savedVariable
	for name, t := range m.snapshot() {
		data := tensors.MustCopyFlatData[float32](t) // every network variable is float32 (models.Param)
		scope, short := splitScope(name)
		vars = append(vars, savedVariable{Scope: scope, Name: short, Dims: t.Shape().Dimensions, Data: data})
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

// LoadModel reads weights written by Model.Save for network net (the same architecture),
// predicting batch rows per call on backend b (nil: backend.Shared()).
func LoadModel(b backends.Backend, net models.Net, path string, batch int) (*Model, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("train: loading the model: %w", err)
	}
	var vars []savedVariable
	if err := json.Unmarshal(raw, &vars); err != nil {
		return nil, fmt.Errorf("train: loading the model from %s: %w", path, err)
	}
	if len(vars) == 0 {
		return nil, fmt.Errorf("train: %s holds no weights", path)
	}
	be, err := backendOr(b)
	if err != nil {
		return nil, err
	}
	m := newModel(be, net, batch)
	for _, v := range vars {
		size := 1
		for _, d := range v.Dims {
			size *= d
		}
		if size != len(v.Data) {
			return nil, fmt.Errorf("train: %s: variable %s/%s has %d values for dimensions %v", path, v.Scope, v.Name, len(v.Data), v.Dims)
		}
		m.ctx.InAbsPath(v.Scope).VariableWithValue(v.Name, tensors.FromFlatDataAndDimensions(v.Data, v.Dims...))
	}
	return m, nil
}

// splitScope splits a variable's "scope/name" at the last separator.
func splitScope(scopeAndName string) (scope, name string) {
	for i := len(scopeAndName) - 1; i >= 0; i-- {
		if scopeAndName[i] == '/' {
			return scopeAndName[:i], scopeAndName[i+1:]
		}
	}
	return "/", scopeAndName
}
