package experiments

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tmnist"
	"github.com/invmmd/invmmd/invmmd/train"
)

// TestResultNamesResolve checks that every name the experiments' results are stored
// under resolves, through the study list, to its study and to the experiment of that name,
// and that names no variant is named are unknown.
func TestResultNamesResolve(t *testing.T) {
	for _, tc := range []struct{ name, study string }{
		{"sim", "sim"}, {"sim_mf075", "sim"}, {"sim_mf075_ntrain", "sim"}, {"sim_robust_feat", "sim"},
		{"tmnist", "tmnist"}, {"tmnist_digits", "tmnist"}, {"tmnist_net-wide", "tmnist"}, {"tmnist_net-pooled", "tmnist"},
		{"tmnist_fused", "tmnist"}, {"tmnist_toned", "tmnist"}, {"tmnist_brick_gravel", "tmnist"}, {"tmnist_fused_brick_gravel", "tmnist"},
		{"tmnist_toned_brick_grass", "tmnist"}, {"tmnist_robust", "tmnist"},
		{"clinical", "clinical"}, {"mimic", "clinical"}, {"clinical_ntrain", "clinical"},
		{"simcont", "simcont"}, {"variance", "variance"},
	} {
		s, ok := Studies().Owner(tc.name)
		if !ok || s.Name != tc.study {
			t.Errorf("Studies().Owner(%q) = %v, %v; want study %q", tc.name, s, ok, tc.study)
			continue
		}
		if s.Sweep == nil {
			continue
		}
		if exp, ok := Studies().Describe(tc.name); !ok || exp.Name != tc.name || exp.Title == "" {
			t.Errorf("Studies().Describe(%q) = %q (title %q), %v", tc.name, exp.Name, exp.Title, ok)
		}
	}
	for _, name := range []string{"", "simulation", "sim_mf", "tmnist_x", "tmnist_brick", "tmnist_mnistplus", "tmnist_brick_grass",
		"tmnist_net-strided", "tmnist_net-huge", "tmnist_toned_grass_brick", "tmnist_a_b_c", "clinical_mimic", "calibration", "prop1", "diagnose"} {
		if s, ok := Studies().Owner(name); ok {
			t.Errorf("Studies().Owner(%q) = %q, want unknown", name, s.Name)
		}
	}
}

// TestVariantNamesRoundTrip: every variant of every sweep is found again by its name,
// with the same experiment (title and construction), and no two variants share a name.
// The list's Describe is asked for every variant on the logit with the paper's
// objective and every seventh other one (each lookup names every variant of the list).
func TestVariantNamesRoundTrip(t *testing.T) {
	for _, s := range Studies() {
		sw := s.Sweep
		if sw == nil {
			continue
		}
		seen := map[string]bool{}
		for i, v := range sw.Variants() {
			name, err := sw.VariantName(v)
			if err != nil || seen[name] {
				t.Errorf("%s: variant %+v named %q (%v), twice: %v", s.Name, v, name, err, seen[name])
				continue
			}
			seen[name] = true
			want, _ := sw.Describe(v)
			got, ok := want, true
			if (v.Objective.Suffix == "" && v.Represent == train.RepresentLogits) || i%7 == 0 {
				got, ok = Studies().Describe(name)
			}
			a, _ := json.Marshal(want.Construction)
			b, _ := json.Marshal(got.Construction)
			if !ok || got.Name != name || got.Title != want.Title || string(a) != string(b) || got.H != want.H {
				t.Errorf("%q reads back as %q (%v), construction %s, want %s", name, got.Name, ok, b, a)
			}
		}
		if s.Name == "tmnist" && len(seen) < 2*5*12 {
			t.Errorf("textured MNIST has %d variants, want its checks and ablations with every objective and layer", len(seen))
		}
	}
}

// TestTMNISTNamesRoundTrip: every construction's name reads back to the same construction.
func TestTMNISTNamesRoundTrip(t *testing.T) {
	for _, r := range []tmnist.Rendering{tmnist.MNISTPlus, tmnist.Fused, tmnist.Toned} {
		for _, tex := range [][2]string{{}, {"brick.png", "grass.png"}, {"grass.png", "brick.png"}, {"brick.png", "gravel.png"}} {
			want := TMNISTVariant(TMNISTQuick, r, tex)
			got, ok := Studies().Describe(want.Name)
			if !ok || got.Name != want.Name || got.Title != want.Title {
				t.Errorf("%v %v: %q reads back as %q (%v)", r, tex, want.Name, got.Name, ok)
				continue
			}
			a, _ := json.Marshal(want.Construction)
			b, _ := json.Marshal(got.Construction)
			if string(a) != string(b) {
				t.Errorf("%q: construction %s reads back as %s", want.Name, a, b)
			}
		}
	}
}

// TestFigureHints: the hints each result name's figures get, as the figures have always
// been drawn: the ceiling for the simulation (both splits) and textured MNIST itself, the
// paper's dataset for the stand-in only, example images for textured MNIST itself only.
func TestFigureHints(t *testing.T) {
	for _, tc := range []struct {
		name, what, paper string
		examples          bool
	}{
		{"sim", "invariant h*", "", false}, {"sim_mf075", "invariant h*", "", false},
		{"tmnist", "label noise", "", true}, {"tmnist_digits", "", "", false}, {"tmnist_net-wide", "", "", false}, {"tmnist_fused", "", "", false},
		{"clinical", "", "MIMIC-III", false}, {"mimic", "", "", false},
	} {
		exp, ok := Studies().Describe(tc.name)
		if !ok {
			t.Fatalf("Studies().Describe(%q): unknown", tc.name)
		}
		h := exp.Figure
		if h.CeilingWhat != tc.what || (h.Ceiling > 0) != (tc.what != "") || h.PaperDataset != tc.paper || (exp.Examples != nil) != tc.examples {
			t.Errorf("%s: hints %+v, examples %v; want ceiling %q, paper dataset %q, examples %v", tc.name, h, exp.Examples != nil, tc.what, tc.paper, tc.examples)
		}
	}
	if exp, _ := Studies().Describe("tmnist"); exp.Figure.Ceiling != 0.75 {
		t.Errorf("textured MNIST's ceiling %v, want 1 − the flip probability 0.25", exp.Figure.Ceiling)
	}
}

// parseOptions sets the options of study s's command line args on a fresh copy of its
// defaults, as the command line does (its flags named by the options' tags).
func parseOptions(t *testing.T, s Study, args []string) any {
	t.Helper()
	o := s.Sweep.NewOptions()
	fields, err := OptionFields(o)
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet(s.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, f := range fields {
		switch p := f.Ptr.(type) {
		case *bool:
			fs.BoolVar(p, f.Flag, *p, f.Help)
		case *string:
			fs.StringVar(p, f.Flag, *p, f.Help)
		default:
			t.Fatalf("%s: option %s of type %T", s.Name, f.Flag, p)
		}
	}
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%s %v: %v", s.Name, args, err)
	}
	return o
}

// TestMainJob: the main job's steps in the studies' order, the paper's among them in the
// order docs/cli.md gives (an experiment added later takes its place in the list without
// changing this test), the companion sim_mf075 left out of the quick job, and each step's
// flags choosing the variant its name says.
func TestMainJob(t *testing.T) {
	names := func(steps []Step) []string {
		var s []string
		for _, st := range steps {
			s = append(s, st.Name)
		}
		return s
	}
	for _, tc := range []struct {
		quick bool
		want  []string
	}{{false, []string{"sim", "sim_mf075", "tmnist", "clinical", "variance", "simcont"}}, {true, []string{"sim", "tmnist", "clinical", "variance", "simcont"}}} {
		steps := Studies().MainJob(tc.quick)
		got := names(steps)
		var paper []string
		for _, n := range got {
			if slices.Contains([]string{"sim", "sim_mf075", "tmnist", "clinical", "variance", "simcont"}, n) {
				paper = append(paper, n)
			}
		}
		if !slices.Equal(paper, tc.want) {
			t.Errorf("Studies().MainJob(%v) = %v: the paper's steps %v, want %v", tc.quick, got, paper, tc.want)
		}
		at := func(name string) int {
			return slices.IndexFunc(Studies(), func(s Study) bool { return s.Name == name })
		}
		for i := 1; i < len(steps); i++ {
			if a, b := at(steps[i-1].Args[0]), at(steps[i].Args[0]); a < 0 || b < 0 || a > b {
				t.Errorf("Studies().MainJob(%v): step %s before %s, out of the studies' order", tc.quick, steps[i-1].Name, steps[i].Name)
			}
		}
	}
	if sim := Studies().MainJob(false)[1]; strings.Join(sim.Args, " ") != "sim -paper-split" {
		t.Errorf("the companion's step is %v, want sim -paper-split", sim.Args)
	}
	for _, st := range Studies().MainJob(false) {
		s, ok := Studies().Lookup(st.Args[0])
		if !ok {
			t.Fatalf("%s: no study %q", st.Name, st.Args[0])
		}
		if s.Sweep == nil {
			continue
		}
		name, err := s.Sweep.VariantName(Variant{Options: parseOptions(t, s, st.Args[1:])})
		if err != nil || name != st.Name {
			t.Errorf("%s: the step's command chooses %q (%v)", st.Name, name, err)
		}
	}
}

// TestOptionArgs: the flags of a variant's options against the defaults, for the main
// job's command lines, read back by the command line's flags to the same options.
func TestOptionArgs(t *testing.T) {
	tm, _ := Studies().Lookup("tmnist")
	def := *tm.Sweep.NewOptions().(*TMNISTOptions)
	for _, tc := range []struct {
		o    TMNISTOptions
		want []string
	}{
		{def, nil},
		{TMNISTOptions{Net: "wide", Rendering: "mnistplus"}, []string{"-net=wide"}},
		{TMNISTOptions{Net: "strided", Digits: true, Rendering: "mnistplus"}, []string{"-digits"}},
		{TMNISTOptions{Net: "strided", Rendering: "fused", Textures: "brick,gravel"}, []string{"-rendering=fused", "-textures=brick,gravel"}},
	} {
		args := OptionArgs(def, tc.o)
		if !slices.Equal(args, tc.want) {
			t.Errorf("OptionArgs(%+v) = %q, want %q", tc.o, args, tc.want)
		}
		if back := *parseOptions(t, tm, args).(*TMNISTOptions); back != tc.o {
			t.Errorf("%q reads back as %+v, want %+v", args, back, tc.o)
		}
	}
	if _, err := OptionFields(&struct {
		X []int `flag:"x"`
	}{}); err == nil {
		t.Error("an option of a slice type was accepted")
	}
}

// TestDefaultOptionsBuildTheSweepsExperiment: a sweep's default options build its own
// experiment, named as the sweep, with the configuration Describe gives at quick size.
func TestDefaultOptionsBuildTheSweepsExperiment(t *testing.T) {
	for _, s := range Studies() {
		sw := s.Sweep
		if sw == nil {
			continue
		}
		got, err := sw.Build(true, 0, Variant{Options: sw.NewOptions()})
		if err != nil {
			t.Logf("%s: %v (data missing?)", s.Name, err)
			continue
		}
		want, err := sw.Describe(Variant{})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := ConfigOf(want)
		b, _ := ConfigOf(got)
		a.Size, b.Size = nil, nil // Describe leaves the size record to Build
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) || got.Name != s.Name {
			t.Errorf("%s: the defaults build %s (%s), Describe %s", s.Name, got.Name, jb, ja)
		}
	}
}

// toyStudy is a valid sweep for the list's checks.
func toyStudy(name string, mut ...func(*SweepSpec)) Study {
	spec := SweepSpec{Name: name, Summary: "a toy",
		Build: func(quick bool, batch int, _ any) (Experiment, error) {
			exp := Simulation(SimulationQuick)
			exp.Name = name
			return exp, nil
		},
		Sweep: RunConfig{Methods: []method.Method{method.None}, Lambdas: []float64{1}, Seeds: []uint64{1}},
		Main:  []MainRun{{}},
	}
	for _, f := range mut {
		f(&spec)
	}
	return NewSweep(spec)
}

// TestStudyListCheck: the project's list passes its check, and the check refuses studies
// appended to it that would clash or could not run; an accepted one is found by Owner,
// Describe and the main job, last.
func TestStudyListCheck(t *testing.T) {
	if err := Studies().Check(); err != nil {
		t.Fatal(err)
	}
	odd := Study{Name: "mimic", Summary: "a bespoke toy", Merge: func(context.Context, MergeArgs, string) ([]string, error) { return nil, nil }}
	for _, tc := range []struct {
		s    Study
		want string
	}{
		{toyStudy(""), "want a non-empty file name"},
		{toyStudy("a/b"), "want a non-empty file name"},
		{toyStudy("x_lambda1"), "_lambda"},
		{toyStudy("variance"), "the name is variance's"},
		{toyStudy("sim"), "the name is sim's"},
		{toyStudy("sim_mf075"), "the name is sim's"},
		{toyStudy("tmnist_fused"), "the name is tmnist's"},
		{toyStudy("toy", func(s *SweepSpec) { s.Summary = "" }), "no summary"},
		{toyStudy("toy", func(s *SweepSpec) { s.Build = nil }), "no builder"},
		{toyStudy("toy", func(s *SweepSpec) { s.Sweep.Seeds = nil }), "needs methods, λ and seeds"},
		{toyStudy("toy", func(s *SweepSpec) { s.Main = []MainRun{{}, {}} }), "each needs a name of its own"},
		{odd, "the name is clinical's"},
		{Study{Name: "sim_x", Summary: "stores sim's", Merge: odd.Merge}, ""},
	} {
		err := append(Studies(), tc.s).Check()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.s.Name, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one saying %q", tc.s.Name, err, tc.want)
		}
	}
	if err := append(Studies(), toyStudy("toy"), toyStudy("toy")).Check(); err == nil {
		t.Error("two studies named toy passed")
	}
	l := append(Studies(), toyStudy("toy"))
	if steps := l.MainJob(true); steps[len(steps)-1].Name != "toy" {
		t.Errorf("MainJob(true) = %v: want toy last", steps)
	}
	if s, ok := l.Owner("toy_ntrain"); !ok || s.Summary != "a toy" {
		t.Errorf("Owner(toy_ntrain) = %v, %v", s.Name, ok)
	}
	if exp, ok := l.Describe("toy"); !ok || exp.Name != "toy" {
		t.Errorf("Describe(toy) = %q, %v", exp.Name, ok)
	}
	if q := toyStudy("toy").Sweep.DefaultSweep(true); !slices.Equal(q.Methods, QuickSweep().Methods) {
		t.Errorf("a sweep without a Quick sweep: quick methods %v, want QuickSweep's %v", q.Methods, QuickSweep().Methods)
	}
	names := map[string]bool{}
	for _, s := range Studies() {
		if s.Sweep != nil {
			for _, v := range s.Sweep.Variants() {
				n, _ := s.Sweep.VariantName(v)
				names[n] = true
			}
		}
	}
	if !names["sim_mf075_robust_feat"] {
		t.Error("the simulation's variants lack sim_mf075_robust_feat")
	}
}
