package experiments

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/invmmd/invmmd/invmmd/train"
)

// Variant chooses one experiment of a Sweep: the sweep's own options (a value of its
// options type; nil for its defaults), the training objective (train.Objectives; the
// zero value is the paper's) and the layer of h the penalty acts on (train.Representation;
// the zero value is the paper's logit). The name its results are stored under is derived
// from these fields (SweepStudy.VariantName: the experiment's name for its options, then
// the objective's suffix, then FeaturesSuffix), never parsed back from a name: to find the
// variant of a stored name, the sweep's Variants are named and compared.
type Variant struct {
	Options   any
	Objective train.Objective
	Represent train.Representation
}

// SweepSpec describes a sweep: an experiment of the study list run over a grid of methods,
// λ and seeds, with options (a struct whose fields tagged `flag:"NAME" help:"…"` the
// command line offers as flags; nil when it has none). The functions receive options as
// a value of Defaults' type.
type SweepSpec struct {
	// Name names the sweep: its command, the results of its default options.
	Name string
	// Summary is one line saying what it is: its command's description.
	Summary string
	// Defaults are its options when none are given (nil: struct{}{}).
	Defaults any
	// Build builds the experiment of options o at quick or paper size, with batch rows per
	// step (0: its own), checking the inputs it will read. With the defaults it is the
	// sweep's own experiment, named Name.
	Build func(quick bool, batch int, o any) (Experiment, error)
	// Describe returns the experiment of options o without reading or checking data (its
	// sizes the quick ones); nil means Build(true, 0, o), for a Build that reads nothing.
	Describe func(o any) (Experiment, error)
	// Variants lists the options of every variant it can store results under; nil means
	// the defaults alone. Objectives and the features penalty multiply them (Variants).
	Variants func() []any
	// Batch says whether Build reads its batch argument (the command's -batch).
	Batch bool
	// Sweep is the default paper-size sweep: methods (also what "-methods all" runs), λ
	// and seeds. Quick is the default sweep of a quick run; its zero value means
	// QuickSweep().
	Sweep, Quick RunConfig
	// Main lists its runs in the main job, in order; none: it is not part of it.
	Main []MainRun
}

// MainRun is one run of a sweep in the main job (invmmd all): its options (nil: the
// defaults), whose non-default fields become the step's flags, whether it is left out of
// the quick main job, and its measured wall times (Step).
type MainRun struct {
	Options     any
	PaperOnly   bool
	Quick, Full time.Duration
}

// SweepStudy is the sweep of a Study (NewSweep): what the command line, merge, figures and
// the notebooks need of it, its options as untyped values. Its run is Run(ctx, exp, rc)
// of the experiment one of its variants builds.
type SweepStudy struct{ spec SweepSpec }

// NewSweep returns the study of spec: its sweep, its steps in the main job (the name each
// run's results are stored under and its command line, the sweep's command with the flags
// of its options that differ from the defaults, OptionArgs), its merge and its figures.
func NewSweep(spec SweepSpec) Study {
	if spec.Defaults == nil {
		spec.Defaults = struct{}{}
	}
	s := &SweepStudy{spec: spec}
	st := Study{Name: spec.Name, Summary: spec.Summary, Sweep: s, Merge: s.merge, Figures: s.figures}
	for _, r := range spec.Main {
		o := cmp.Or(r.Options, spec.Defaults)
		name, err := s.VariantName(Variant{Options: o})
		if err != nil {
			name = "" // refused by StudyList.Check
		}
		st.Steps = append(st.Steps, Step{Name: name, Args: append([]string{spec.Name}, OptionArgs(spec.Defaults, o)...),
			PaperOnly: r.PaperOnly, Quick: r.Quick, Full: r.Full})
	}
	return st
}

// TakesBatch says whether Build reads its batch argument (the command's -batch).
func (s *SweepStudy) TakesBatch() bool { return s.spec.Batch }

// NewOptions returns a pointer to a fresh copy of the default options, whose tagged fields
// the command line offers as flags (OptionFields).
func (s *SweepStudy) NewOptions() any {
	p := reflect.New(reflect.TypeOf(s.spec.Defaults))
	p.Elem().Set(reflect.ValueOf(s.spec.Defaults))
	return p.Interface()
}

// options returns v's options as a value of the defaults' type: the defaults for nil, the
// value or what a pointer (NewOptions') points to.
func (s *SweepStudy) options(v Variant) (any, error) {
	if v.Options == nil {
		return s.spec.Defaults, nil
	}
	o := reflect.ValueOf(v.Options)
	if o.Kind() == reflect.Pointer && !o.IsNil() {
		o = o.Elem()
	}
	if o.Type() != reflect.TypeOf(s.spec.Defaults) {
		return nil, fmt.Errorf("experiments: %s: options of type %T, want %T", s.spec.Name, v.Options, s.spec.Defaults)
	}
	return o.Interface(), nil
}

// apply returns exp with v's objective and representation (WithObjective, WithRepresentation).
func apply(exp Experiment, v Variant) Experiment {
	if v.Objective.Name != "" {
		exp = WithObjective(exp, v.Objective)
	}
	return WithRepresentation(exp, v.Represent)
}

// Build builds the experiment of variant v at quick or paper size, with batch rows per
// training step (0: the experiment's own; TakesBatch says whether the sweep reads it),
// checking its inputs (data files) before any work.
func (s *SweepStudy) Build(quick bool, batch int, v Variant) (Experiment, error) {
	o, err := s.options(v)
	if err != nil {
		return Experiment{}, err
	}
	exp, err := s.spec.Build(quick, batch, o)
	if err != nil {
		return Experiment{}, err
	}
	return apply(exp, v), nil
}

// Describe returns the experiment of variant v without reading or checking any data: its
// name, title, notes, paper numbers and figure hints; its sizes are the quick ones.
func (s *SweepStudy) Describe(v Variant) (Experiment, error) {
	o, err := s.options(v)
	if err != nil {
		return Experiment{}, err
	}
	var exp Experiment
	switch {
	case s.spec.Describe != nil:
		exp, err = s.spec.Describe(o)
	case s.spec.Build != nil:
		exp, err = s.spec.Build(true, 0, o)
	default:
		err = fmt.Errorf("experiments: study %q: no builder (Build)", s.spec.Name)
	}
	if err != nil {
		return Experiment{}, err
	}
	return apply(exp, v), nil
}

// VariantName returns the name v's results are stored under.
func (s *SweepStudy) VariantName(v Variant) (string, error) {
	exp, err := s.Describe(v)
	return exp.Name, err
}

// Variants returns every variant the sweep can store results under: each of its options
// (SweepSpec.Variants) with each objective, on the logit and on the features, each name
// once, the default first.
func (s *SweepStudy) Variants() []Variant {
	opts := []any{s.spec.Defaults}
	if s.spec.Variants != nil {
		opts = append(opts, s.spec.Variants()...)
	}
	var out []Variant
	seen := map[string]bool{}
	for _, r := range []train.Representation{train.RepresentLogits, train.RepresentFeatures} {
		for _, obj := range train.Objectives() {
			for _, o := range opts {
				v := Variant{Options: o, Objective: obj, Represent: r}
				if n, err := s.VariantName(v); err == nil && !seen[n] {
					seen[n] = true
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// variantNamed returns the variant of s whose results are stored under name.
func (s *SweepStudy) variantNamed(name string) (Variant, bool) {
	for _, v := range s.Variants() {
		if n, err := s.VariantName(v); err == nil && n == name {
			return v, true
		}
	}
	return Variant{}, false
}

// DefaultSweep returns the default sweep at paper size, or with quick the quick one:
// fresh slices of methods, λ and seeds; the rest of the RunConfig is the caller's.
func (s *SweepStudy) DefaultSweep(quick bool) RunConfig {
	g := s.spec.Sweep
	if quick {
		g = s.spec.Quick
		if len(g.Methods) == 0 && len(g.Lambdas) == 0 && len(g.Seeds) == 0 {
			g = QuickSweep()
		}
	}
	return RunConfig{Methods: slices.Clone(g.Methods), Lambdas: slices.Clone(g.Lambdas), Seeds: slices.Clone(g.Seeds)}
}

// check checks what the study list needs of a sweep: a builder, a default sweep, the
// default options naming the sweep's own experiment, and options that the command line can
// offer as flags.
func (s *SweepStudy) check() error {
	switch {
	case s.spec.Build == nil:
		return fmt.Errorf("experiments: study %q: no builder (Build)", s.spec.Name)
	case len(s.spec.Sweep.Methods) == 0 || len(s.spec.Sweep.Lambdas) == 0 || len(s.spec.Sweep.Seeds) == 0:
		return fmt.Errorf("experiments: study %q: the default sweep needs methods, λ and seeds", s.spec.Name)
	}
	if n, err := s.VariantName(Variant{}); err != nil || n != s.spec.Name {
		return fmt.Errorf("experiments: study %q: its default options describe %q (%v), want the study's own name", s.spec.Name, n, err)
	}
	_, err := OptionFields(s.NewOptions())
	return err
}

// merge assembles the tables of the variant whose results are stored under name, draws
// their figures and shows them (mergeSweep).
func (s *SweepStudy) merge(_ context.Context, a MergeArgs, name string) ([]string, error) {
	v, ok := s.variantNamed(name)
	if !ok {
		return nil, fmt.Errorf("experiments: %s stores no results under %q", s.spec.Name, name)
	}
	exp, err := s.Describe(v)
	if err != nil {
		return nil, err
	}
	return mergeSweep(exp, a)
}

// OptionField is one field of a sweep's options that the command line offers as a flag:
// its name and help from the field's tags, and a pointer to the field, through which the
// parsed value is set (*bool, *string, *int, *uint64 or *float64).
type OptionField struct {
	Flag string
	Help string
	Ptr  any
}

// OptionFields returns the tagged fields of the options p points to (a pointer to a
// struct, as NewOptions returns), in their order. A tagged field of another kind is an
// error.
func OptionFields(p any) ([]OptionField, error) {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("experiments: options %T: want a pointer to a struct", p)
	}
	v = v.Elem()
	var out []OptionField
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name, ok := f.Tag.Lookup("flag")
		if !ok {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Bool, reflect.String, reflect.Int, reflect.Uint64, reflect.Float64:
		default:
			return nil, fmt.Errorf("experiments: option %s.%s (flag %q) is a %s: want bool, string, int, uint64 or float64", v.Type(), f.Name, name, f.Type)
		}
		if name == "" || !f.IsExported() {
			return nil, fmt.Errorf("experiments: option %s.%s: want an exported field and a flag name", v.Type(), f.Name)
		}
		out = append(out, OptionField{Flag: name, Help: f.Tag.Get("help"), Ptr: v.Field(i).Addr().Interface()})
	}
	return out, nil
}

// OptionArgs returns the command-line flags that choose options o against the defaults
// def (both of one options type): "-NAME" for a bool field set, "-NAME=VALUE" for another
// field that differs, in the fields' order.
func OptionArgs(def, o any) []string {
	dv, ov := reflect.ValueOf(def), reflect.ValueOf(o)
	if dv.Kind() != reflect.Struct || ov.Type() != dv.Type() {
		return nil
	}
	var args []string
	for i := 0; i < dv.NumField(); i++ {
		name, ok := dv.Type().Field(i).Tag.Lookup("flag")
		a, b := dv.Field(i), ov.Field(i)
		if !ok || !dv.Type().Field(i).IsExported() || a.Equal(b) {
			continue
		}
		if b.Kind() == reflect.Bool && b.Bool() {
			args = append(args, "-"+name)
		} else { // %v writes a float64 as strconv's shortest 'g' form, as flag parses it
			args = append(args, fmt.Sprintf("-%s=%v", name, b.Interface()))
		}
	}
	return args
}

// WithObjective returns exp trained with objective o (train.Objectives): its name suffixed
// (its results are stored apart), its title and notes saying so, its h configuration
// changed. The paper's objective returns exp unchanged.
func WithObjective(exp Experiment, o train.Objective) Experiment {
	if o.Suffix == "" {
		return exp
	}
	exp.Name += o.Suffix
	exp.Title += ", " + o.Name
	o.Apply(&exp.H)
	exp.Notes = append([]string{"Objective " + o.Name + ": " + o.Doc + " (the paper's objective is in the tables without the " + o.Suffix + " suffix)."}, exp.Notes...)
	return exp
}

// FeaturesSuffix is appended to an experiment's name when its penalty acts on h's
// penultimate features (train.RepresentFeatures) instead of the logit, so that its results
// are stored apart: sim_feat, sim_ntrain_feat.
const FeaturesSuffix = "_feat"

// WithRepresentation returns exp with its penalty on representation r: for the features,
// its name suffixed with FeaturesSuffix, its title and notes saying so, its h
// configuration's Represent set, and without the paper's numbers (the paper penalised the
// logit; its train MMD² is of the logit). The logits, the paper's, return exp unchanged.
func WithRepresentation(exp Experiment, r train.Representation) Experiment {
	if r != train.RepresentFeatures {
		return exp
	}
	exp.Name += FeaturesSuffix
	exp.Title += ", penalty on the penultimate features"
	exp.H.Represent = r
	// The paper penalised the logit: its numbers (its train MMD² is of the logit) are no
	// reference for these tables; RepresentationMarkdown sets them next to ours.
	exp.Paper = nil
	exp.Figure.MMDOf = "the penultimate features"
	exp.MMDNote = strings.TrimSuffix(exp.TrMMDNote(), ".") + ", computed on h's penultimate features (the layer the penalty acted on) with the kernel's σ by the median heuristic on the initial network's training features."
	exp.Notes = append([]string{"Representation: the MMD penalty, its validation objective and the tr mmd row act on h's penultimate layer (the last hidden layer's outputs) with the Gaussian kernel exp(−‖f − f'‖²/(2σ²)), σ by the median heuristic on the initial network's training features, as DomainBed's MMD penalises the featurizer's output; the paper penalises the logit (the tables without the " + FeaturesSuffix + " suffix), so its numbers are left out here: representations_" + strings.TrimSuffix(exp.Name, FeaturesSuffix) + ".md compares the two."}, exp.Notes...)
	return exp
}
