package owndata

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
	"github.com/invmmd/invmmd/invmmd/tabular"
	"github.com/invmmd/invmmd/invmmd/train"
)

// ModelFormat is the version of the saved-model folder that SaveModel writes (model.json's
// "format"). Version 2 added the label's classes (ModelInfo.Classes, Architecture.Classes:
// a label of K > 2 classes, whose network has K outputs). LoadModel reads it, version 1
// (a binary label; the same fields without the classes), and version 0, the folders
// invmmd fit wrote before the format had a version (no "format" and no variable list;
// their weights are checked against the architecture all the same), and refuses any
// other with an error naming the file and the format (ErrModelFormat).
const ModelFormat = 2

// ErrModelFormat is wrapped by LoadModel's error for a model.json of a format this
// version does not read (newer, or unknown).
var ErrModelFormat = errors.New("saved-model format not read by this invmmd")

// The files of a saved-model folder.
const (
	ModelFile   = "model.json"   // ModelInfo
	WeightsFile = "weights.json" // the network's variables (train.Model.Save)
)

// maxWidth bounds each hidden layer width and the number of inputs that LoadModel accepts
// from model.json: far above any network this workflow trains, low enough that the
// numbers cannot overflow.
const maxWidth = 1 << 20

// Architecture describes the network h of a saved model.
type Architecture struct {
	// Net names the kind of network: "mlp", a models.MLP (ReLU hidden layers, linear output).
	Net    string `json:"net"`
	Inputs int    `json:"inputs"` // encoded input columns
	Hidden []int  `json:"hidden"` // hidden layer widths
	// Classes is the number K of outputs of a label of K > 2 classes (the class logits,
	// models.MLP.Heads); 0 for a binary label's one logit.
	Classes int `json:"classes,omitempty"`
}

// archMLP is Architecture.Net for a models.MLP.
const archMLP = "mlp"

// String names the architecture in one line.
func (a Architecture) String() string {
	if a.Classes > 2 {
		return fmt.Sprintf("%s %v with %d inputs and %d class outputs", a.Net, a.Hidden, a.Inputs, a.Classes)
	}
	return fmt.Sprintf("%s %v with %d inputs", a.Net, a.Hidden, a.Inputs)
}

// Variables returns the name and shape of every variable the network needs, sorted by
// name: for an MLP, the weights [in, out] and biases [out] of each hidden layer (scope
// /model/hiddenK) and of the one-output layer (/model/output), or for K classes of the
// K-output layer (/model/heads).
func (a Architecture) Variables() []train.VarShape {
	var out []train.VarShape
	in := a.Inputs
	layer := func(scope string, n int) {
		out = append(out, train.VarShape{Name: "/model/" + scope + "/biases", Dims: []int{n}},
			train.VarShape{Name: "/model/" + scope + "/weights", Dims: []int{in, n}})
		in = n
	}
	for k, w := range a.Hidden {
		layer(fmt.Sprintf("hidden%d", k), w)
	}
	if a.Classes > 2 {
		layer("heads", a.Classes)
	} else {
		layer("output", 1)
	}
	slices.SortFunc(out, func(a, b train.VarShape) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// validate checks that the architecture is one this package can build.
func (a Architecture) validate() error {
	if a.Net != archMLP {
		return fmt.Errorf("architecture: net %q, want %q", a.Net, archMLP)
	}
	if a.Inputs < 1 || a.Inputs > maxWidth {
		return fmt.Errorf("architecture: %d inputs, want 1 to %d", a.Inputs, maxWidth)
	}
	if len(a.Hidden) == 0 || len(a.Hidden) > 64 {
		return fmt.Errorf("architecture: %d hidden layers, want 1 to 64", len(a.Hidden))
	}
	for _, w := range a.Hidden {
		if w < 1 || w > maxWidth {
			return fmt.Errorf("architecture: hidden widths %v, want each 1 to %d", a.Hidden, maxWidth)
		}
	}
	if a.Classes != 0 && (a.Classes < 3 || a.Classes > tabular.MaxClasses) {
		return fmt.Errorf("architecture: %d classes, want 0 (a binary label) or 3 to %d", a.Classes, tabular.MaxClasses)
	}
	return nil
}

// ModelInfo is the description of a saved model (model.json): what it was trained on,
// how its inputs are encoded, its architecture and the shape of every variable.
type ModelInfo struct {
	Format    int     `json:"format"` // ModelFormat; 0 for a folder read as version 0
	Data      string  `json:"data"`   // the CSV file it was trained on, as named to fit
	Y         string  `json:"y"`
	YPositive string  `json:"y_positive,omitempty"`
	Z         string  `json:"z,omitempty"`
	ZPositive string  `json:"z_positive,omitempty"`
	Method    string  `json:"method"` // the method h was trained with
	Lambda    float64 `json:"lambda"`
	Seed      uint64  `json:"seed"`
	// Classes names the label's K > 2 classes in the order of the network's outputs
	// (Table.LabelClasses at fit time); empty for a binary label (format 2).
	Classes []string `json:"classes,omitempty"`
	// YNegative is a binary label's value read as 0 when YPositive names the one read as
	// 1, so that predict refuses a third value; empty for a 0/1 label and in folders
	// written before it was recorded.
	YNegative string `json:"y_negative,omitempty"`
	// WeightsSHA256 is the SHA-256 of weights.json as saved with this model.json, so that
	// weights copied from another model of the same shape are refused (LoadModel); empty
	// in folders written before it was recorded.
	WeightsSHA256 string `json:"weights_sha256,omitempty"`
	// SaveModel sets Format, Architecture, Inputs and Variables.
	Architecture Architecture     `json:"architecture"`
	Encoder      *tabular.Encoder `json:"encoder"`
	Inputs       []string         `json:"inputs"` // the encoded input columns (Encoder.Names)
	Variables    []train.VarShape `json:"variables"`
}

// Positive names the label's value whose probability the model gives for a binary label
// (the classes of a label of K > 2 classes are Classes).
func (i ModelInfo) Positive() string {
	return cmp.Or(i.YPositive, "1")
}

// infoV0 is model.json as invmmd fit wrote it before the format had a version.
type infoV0 struct {
	Data      string           `json:"data"`
	Y         string           `json:"y"`
	YPositive string           `json:"y_positive,omitempty"`
	Method    string           `json:"method"`
	Lambda    float64          `json:"lambda"`
	Seed      uint64           `json:"seed"`
	Hidden    []int            `json:"hidden"`
	Encoder   *tabular.Encoder `json:"encoder"`
	Inputs    []string         `json:"inputs"`
}

// saveModel writes h and its description to the folder dir (created if needed):
// model.json (info, with the format version, the architecture, the encoded input names and
// the shape of every variable filled in) and weights.json. info must carry the Encoder of
// h's inputs and the Method; h must be an MLP whose variables are those its architecture
// needs.
func saveModel(dir string, h *train.Model, info ModelInfo) error {
	mlp, ok := h.Net.(models.MLP)
	if !ok {
		return fmt.Errorf("saving %s: network %s is not an MLP, the only network a saved model can hold", dir, h.Net.Describe())
	}
	if info.Encoder == nil {
		return fmt.Errorf("saving %s: no encoder of the model's inputs", dir)
	}
	if _, err := method.Parse(info.Method); err != nil {
		return fmt.Errorf("saving %s: %w", dir, err)
	}
	info.Format = ModelFormat
	info.Architecture = Architecture{Net: archMLP, Inputs: info.Encoder.Dim(), Hidden: slices.Clone(mlp.Hidden)}
	if len(info.Classes) > 2 {
		info.Architecture.Classes = len(info.Classes)
	}
	info.Inputs = info.Encoder.Names()
	info.Variables = h.VarShapes()
	if err := compareVariables(info.Architecture, info.Variables); err != nil {
		return fmt.Errorf("saving %s: the model's variables do not fit %v: %w", dir, info.Architecture, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	wpath := filepath.Join(dir, WeightsFile)
	if err := h.Save(wpath); err != nil {
		return err
	}
	var err error
	if info.WeightsSHA256, err = fileDigest(wpath); err != nil {
		return fmt.Errorf("saving %s: %w", dir, err)
	}
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("saving %s: %w", dir, err)
	}
	return os.WriteFile(filepath.Join(dir, ModelFile), append(b, '\n'), 0o644)
}

// fileDigest returns the SHA-256 of the file at path, in hexadecimal.
func fileDigest(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// Model is a saved model read back and checked by LoadModel, ready to predict.
type Model struct {
	Dir  string
	Info ModelInfo
	// Backend runs Predict; nil means backend.Shared().
	Backend backends.Backend
	net     models.MLP
	ws      []train.Weight
	h       *train.Model // built for hBatch rows per call, the batch size of the last prediction
	// hBatch is h's batch size.
	hBatch int
	heads  int // the class outputs of a label of K > 2 classes; 0 for one logit
}

// LoadModel reads the saved-model folder dir (written by SaveModel, or by invmmd fit) and
// checks it before any use: the format version; that model.json is well formed, with a
// known method, an architecture this package builds, and an encoder whose inputs are the
// architecture's; that its variable list is the architecture's (names and shapes); and
// that weights.json holds exactly those variables, with those shapes and finite values.
// Any mismatch is an error naming the file and the variable.
func LoadModel(dir string) (*Model, error) {
	if err := fitFolderHint(dir); err != nil {
		return nil, err
	}
	info, err := readInfo(filepath.Join(dir, ModelFile))
	if err != nil {
		return nil, err
	}
	wpath := filepath.Join(dir, WeightsFile)
	ws, err := train.ReadWeights(wpath)
	if err != nil {
		return nil, err
	}
	shapes := make([]train.VarShape, len(ws))
	for i, w := range ws {
		shapes[i] = w.VarShape
	}
	if err := compareVariables(info.Architecture, shapes); err != nil {
		return nil, fmt.Errorf("%s does not hold the weights of the model described in %s (%v):\n%w", wpath, ModelFile, info.Architecture, err)
	}
	if info.WeightsSHA256 != "" {
		got, err := fileDigest(wpath)
		if err != nil {
			return nil, err
		}
		if got != info.WeightsSHA256 {
			return nil, fmt.Errorf("%s is not the file saved with %s (SHA-256 %.12s…, %s records %.12s…): another model's weights, or an edited file; "+
				"copy the model's folder whole, as fit wrote it", wpath, filepath.Join(dir, ModelFile), got, ModelFile, info.WeightsSHA256)
		}
	}
	return &Model{Dir: dir, Info: *info, net: models.MLP{Hidden: info.Architecture.Hidden, Seed: info.Seed}, ws: ws, heads: info.Architecture.Classes}, nil
}

// fitFolderHint refuses, with the models it holds, a folder that is a fit's output
// folder rather than one of its models (models/METHOD-seedS).
func fitFolderHint(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, ModelFile)); err == nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, ConfigFile)); err != nil {
		return nil
	}
	ents, err := os.ReadDir(filepath.Join(dir, ModelsDir))
	if err != nil || len(ents) == 0 {
		return fmt.Errorf("%s is the output folder of a fit, not a model, and holds no model yet (%s/ is empty)", dir, filepath.Join(dir, ModelsDir))
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return fmt.Errorf("%s is the output folder of a fit, not a model: name one of its models, e.g. %s (it holds %s)", dir, filepath.Join(dir, ModelsDir, names[0]), strings.Join(names, ", "))
}

// readInfo reads and checks model.json.
func readInfo(path string) (*ModelInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the model: %w", err)
	}
	var head struct {
		Format *json.RawMessage `json:"format"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, jsonError(path, b, err, -1)
	}
	var info ModelInfo
	switch {
	case head.Format == nil:
		var v0 infoV0
		if err := decodeStrict(path, b, &v0); err != nil {
			return nil, err
		}
		if v0.Encoder == nil {
			return nil, fmt.Errorf("%s: no encoder: not a model written by invmmd fit", path)
		}
		info = ModelInfo{Data: v0.Data, Y: v0.Y, YPositive: v0.YPositive, Method: v0.Method, Lambda: v0.Lambda, Seed: v0.Seed,
			Architecture: Architecture{Net: archMLP, Inputs: v0.Encoder.Dim(), Hidden: v0.Hidden}, Encoder: v0.Encoder, Inputs: v0.Inputs}
	default:
		var f int
		if err := json.Unmarshal(*head.Format, &f); err != nil {
			return nil, fmt.Errorf("%s: format %s, want a whole number", path, *head.Format)
		}
		switch {
		case f > ModelFormat:
			return nil, fmt.Errorf("%s: format %d was written by a newer invmmd; this one reads formats 0 to %d: update invmmd: %w", path, f, ModelFormat, ErrModelFormat)
		case f < 1:
			return nil, fmt.Errorf("%s: unknown format %d; this invmmd reads formats 0 (no format field) to %d: %w", path, f, ModelFormat, ErrModelFormat)
		}
		if err := decodeStrict(path, b, &info); err != nil {
			return nil, err
		}
		if f == 1 && (len(info.Classes) > 0 || info.Architecture.Classes != 0) {
			return nil, fmt.Errorf("%s: format 1 has no classes (a binary label); classes are format %d's", path, ModelFormat)
		}
	}
	if err := info.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if head.Format != nil {
		if err := compareVariables(info.Architecture, info.Variables); err != nil {
			return nil, fmt.Errorf("%s: its variable list does not fit its architecture (%v):\n%w", path, info.Architecture, err)
		}
	}
	return &info, nil
}

// decodeStrict decodes the JSON value b into v, refusing unknown fields (b has been
// checked to be one JSON value).
func decodeStrict(path string, b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(path, b, err, dec.InputOffset())
	}
	return nil
}

// jsonError places a JSON decoding error at its line and column of path: a syntax error at
// the offending character, a type error after the value, any other at offset (-1:
// unknown).
func jsonError(path string, b []byte, err error, offset int64) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		offset = se.Offset - 1 // the offending character
	case errors.As(err, &te):
		offset = te.Offset
	}
	if offset < 0 || offset > int64(len(b)) {
		return fmt.Errorf("%s: %w", path, err)
	}
	line := 1 + bytes.Count(b[:offset], []byte{'\n'})
	col := int(offset) - bytes.LastIndexByte(b[:offset], '\n')
	return fmt.Errorf("%s:%d:%d: %w", path, line, col, err)
}

// check checks a model description on its own: a known method, a buildable architecture,
// and an encoder that gives the architecture's inputs under the listed names.
func (i *ModelInfo) check() error {
	if i.Y == "" {
		return fmt.Errorf("no label column (y)")
	}
	if _, err := method.Parse(i.Method); err != nil {
		return fmt.Errorf("method: %w", err)
	}
	if i.Lambda < 0 || math.IsNaN(i.Lambda) || math.IsInf(i.Lambda, 0) {
		return fmt.Errorf("lambda %v: want a finite value ≥ 0", i.Lambda)
	}
	if err := i.Architecture.validate(); err != nil {
		return err
	}
	switch k := len(i.Classes); {
	case k > 0 && k != i.Architecture.Classes:
		return fmt.Errorf("classes %q: %d names, the architecture has %d class outputs", i.Classes, k, i.Architecture.Classes)
	case k == 0 && i.Architecture.Classes != 0:
		return fmt.Errorf("the architecture has %d class outputs and no class is named (classes)", i.Architecture.Classes)
	case k > 0 && i.YPositive != "":
		return fmt.Errorf("y_positive %q names the positive value of a binary label, and the label has %d classes", i.YPositive, k)
	}
	for k, c := range i.Classes {
		if slices.Contains(i.Classes[:k], c) {
			return fmt.Errorf("classes: %q listed twice", c)
		}
	}
	if i.Encoder == nil {
		return fmt.Errorf("no encoder")
	}
	if err := checkEncoder(i.Encoder); err != nil {
		return err
	}
	if d := i.Encoder.Dim(); d != i.Architecture.Inputs {
		return fmt.Errorf("the encoder gives %d inputs and the architecture takes %d", d, i.Architecture.Inputs)
	}
	if names := i.Encoder.Names(); !slices.Equal(names, i.Inputs) {
		return fmt.Errorf("inputs %q, but the encoder gives %q", i.Inputs, names)
	}
	return nil
}

// checkEncoder checks that each feature can encode a value: a named column, once; a
// numeric one with a finite mean and a finite positive standard deviation and no levels;
// a categorical one with distinct levels.
func checkEncoder(e *tabular.Encoder) error {
	if len(e.Features) == 0 {
		return fmt.Errorf("encoder: no feature")
	}
	seen := map[string]bool{}
	for _, f := range e.Features {
		switch {
		case f.Column == "":
			return fmt.Errorf("encoder: a feature without a column name")
		case seen[f.Column]:
			return fmt.Errorf("encoder: column %q listed twice", f.Column)
		case f.Numeric && len(f.Levels) > 0:
			return fmt.Errorf("encoder: column %q is numeric and has levels", f.Column)
		case f.Numeric && (math.IsNaN(f.Mean) || math.IsInf(f.Mean, 0) || !(f.Std > 0) || math.IsInf(f.Std, 0)):
			return fmt.Errorf("encoder: column %q: mean %v, standard deviation %v, want finite values and a deviation > 0", f.Column, f.Mean, f.Std)
		case !f.Numeric && len(f.Levels) == 0:
			return fmt.Errorf("encoder: categorical column %q has no level", f.Column)
		}
		seen[f.Column] = true
		for k, l := range f.Levels {
			if slices.Contains(f.Levels[:k], l) {
				return fmt.Errorf("encoder: column %q: level %q listed twice", f.Column, l)
			}
		}
	}
	if len(e.Names()) > maxWidth {
		return fmt.Errorf("encoder: more than %d inputs", maxWidth)
	}
	return nil
}

// compareVariables lists every difference between the variables a network of architecture
// a needs and the variables got: one it does not use, one it needs that is missing, one
// whose shape differs. Nil when they are the same.
func compareVariables(a Architecture, got []train.VarShape) error {
	want := map[string][]int{}
	for _, v := range a.Variables() {
		want[v.Name] = v.Dims
	}
	var errs []error
	seen := map[string]bool{}
	for _, v := range got {
		w, ok := want[v.Name]
		switch {
		case seen[v.Name]:
			errs = append(errs, fmt.Errorf("variable %s is listed twice", v.Name))
		case !ok:
			errs = append(errs, fmt.Errorf("variable %s %v is not used by the architecture", v.Name, v.Dims))
		case !slices.Equal(w, v.Dims):
			errs = append(errs, fmt.Errorf("variable %s has shape %v, the architecture needs %v", v.Name, v.Dims, w))
		}
		seen[v.Name] = true
	}
	for _, v := range a.Variables() {
		if !seen[v.Name] {
			errs = append(errs, fmt.Errorf("variable %s %v, which the architecture needs, is missing", v.Name, v.Dims))
		}
	}
	return errors.Join(errs...)
}
