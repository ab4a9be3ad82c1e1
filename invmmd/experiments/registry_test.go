package experiments

import (
	"encoding/json"
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tmnist"
)

// TestResultNamesResolve checks that every name the experiments' results are stored
// under resolves, through the registry, to its entry and to the experiment of that name,
// and that names no constructor gives are unknown.
func TestResultNamesResolve(t *testing.T) {
	for _, tc := range []struct{ name, entry string }{
		{"sim", "sim"}, {"sim_mf075", "sim"},
		{"tmnist", "tmnist"}, {"tmnist_digits", "tmnist"}, {"tmnist_net-wide", "tmnist"}, {"tmnist_net-pooled", "tmnist"},
		{"tmnist_fused", "tmnist"}, {"tmnist_toned", "tmnist"}, {"tmnist_brick_gravel", "tmnist"}, {"tmnist_fused_brick_gravel", "tmnist"},
		{"tmnist_toned_brick_grass", "tmnist"},
		{"clinical", "clinical"}, {"mimic", "clinical"},
	} {
		e, ok := ByName(tc.name)
		if !ok || e.Name != tc.entry {
			t.Errorf("ByName(%q) = %q, %v; want entry %q", tc.name, e.Name, ok, tc.entry)
			continue
		}
		if exp, ok := Describe(tc.name); !ok || exp.Name != tc.name || exp.Title == "" {
			t.Errorf("Describe(%q) = %q (title %q), %v", tc.name, exp.Name, exp.Title, ok)
		}
	}
	for _, name := range []string{"", "variance", "simulation", "sim_mf", "tmnist_x", "tmnist_brick", "tmnist_mnistplus", "tmnist_brick_grass",
		"tmnist_net-strided", "tmnist_net-huge", "tmnist_toned_grass_brick", "tmnist_a_b_c", "clinical_mimic"} {
		if e, ok := ByName(name); ok {
			t.Errorf("ByName(%q) = %q, want unknown", name, e.Name)
		}
	}
}

// TestTMNISTNamesRoundTrip: every construction's name reads back to the same construction.
func TestTMNISTNamesRoundTrip(t *testing.T) {
	for _, r := range []tmnist.Rendering{tmnist.MNISTPlus, tmnist.Fused, tmnist.Toned} {
		for _, tex := range [][2]string{{}, {"brick.png", "grass.png"}, {"grass.png", "brick.png"}, {"brick.png", "gravel.png"}} {
			want := TMNISTVariant(TMNISTQuick, r, tex)
			got, ok := tmnistNamed(want.Name)
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
		exp, ok := Describe(tc.name)
		if !ok {
			t.Fatalf("Describe(%q): unknown", tc.name)
		}
		h := exp.Figure
		if h.CeilingWhat != tc.what || (h.Ceiling > 0) != (tc.what != "") || h.PaperDataset != tc.paper || (exp.Examples != nil) != tc.examples {
			t.Errorf("%s: hints %+v, examples %v; want ceiling %q, paper dataset %q, examples %v", tc.name, h, exp.Examples != nil, tc.what, tc.paper, tc.examples)
		}
	}
	if exp, _ := Describe("tmnist"); exp.Figure.Ceiling != 0.75 {
		t.Errorf("textured MNIST's ceiling %v, want 1 − the flip probability 0.25", exp.Figure.Ceiling)
	}
}

// TestMainJob: the main job's steps and their order, at paper size and quick.
func TestMainJob(t *testing.T) {
	show := func(steps []Step) string {
		var s []string
		for _, st := range steps {
			s = append(s, st.Name+"="+strings.Join(st.Args, " "))
		}
		return strings.Join(s, ", ")
	}
	if got, want := show(MainJob(false)), "sim=sim, sim_mf075=sim -paper-split, tmnist=tmnist, clinical=clinical, variance=variance, simcont=simcont"; got != want {
		t.Errorf("MainJob(false) = %s, want %s", got, want)
	}
	if got, want := show(MainJob(true)), "sim=sim, tmnist=tmnist, clinical=clinical, variance=variance, simcont=simcont"; got != want {
		t.Errorf("MainJob(true) = %s, want %s", got, want)
	}
	// Each step's flags are its entry's, and build the experiment its name says.
	for _, st := range MainJob(false) {
		if st.Name == "variance" {
			continue
		}
		e, ok := ByName(st.Args[0])
		if !ok {
			t.Fatalf("%s: no entry %q", st.Name, st.Args[0])
		}
		fs := flag.NewFlagSet(e.Name, flag.ContinueOnError)
		build := e.New
		if e.Flags != nil {
			build = e.Flags(fs)
		}
		if err := fs.Parse(st.Args[1:]); err != nil {
			t.Fatalf("%s: %v", st.Name, err)
		}
		if st.Name == "tmnist" { // building checks the textures, which need no MNIST
			if err := tmnist.Available(tmnist.DefaultConfig()); err != nil {
				continue
			}
		}
		exp, err := build(true, 0)
		if err != nil || exp.Name != st.Name {
			t.Errorf("%s: the step's command builds %q (%v)", st.Name, exp.Name, err)
		}
	}
}

// TestFlagsAtDefaultsBuildNew: an entry's command with no flags of its own runs the
// experiment New builds, with the same configuration.
func TestFlagsAtDefaultsBuildNew(t *testing.T) {
	for _, e := range All() {
		if e.Flags == nil {
			continue
		}
		for _, quick := range []bool{true, false} {
			want, err := e.New(quick, 0)
			if err != nil {
				t.Logf("%s: %v (data missing?)", e.Name, err)
				continue
			}
			got, err := e.Flags(flag.NewFlagSet(e.Name, flag.ContinueOnError))(quick, 0)
			if err != nil {
				t.Fatalf("%s: %v", e.Name, err)
			}
			a, _ := ConfigOf(want)
			b, _ := ConfigOf(got)
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if string(ja) != string(jb) || want.Name != e.Name {
				t.Errorf("%s quick=%v: New gives %s (%s), the command at its defaults %s", e.Name, quick, want.Name, ja, jb)
			}
		}
	}
}

// toyEntry is a valid entry for the registration tests.
func toyEntry(name string, order int) Entry {
	return Entry{Name: name, Summary: "a toy", Order: order,
		New: func(quick bool, batch int) (Experiment, error) {
			exp := Simulation(SimulationQuick)
			exp.Name = name
			return exp, nil
		},
		Sweep: RunConfig{Methods: []method.Method{method.None}, Lambdas: []float64{1}, Seeds: []uint64{1}},
		Main:  []MainRun{{Name: name}},
	}
}

// TestRegister refuses entries that would clash or could not run, and places an accepted
// one in All, ByName and the main job by its Order.
func TestRegister(t *testing.T) {
	t.Cleanup(func() {
		registry.Lock()
		registry.added = nil
		registry.Unlock()
	})
	bad := func(f func(*Entry)) Entry {
		e := toyEntry("toy", 35)
		f(&e)
		return e
	}
	for _, tc := range []struct {
		e    Entry
		want string
	}{
		{bad(func(e *Entry) { e.Name = "" }), "want a non-empty file name"},
		{bad(func(e *Entry) { e.Name = "a/b" }), "want a non-empty file name"},
		{bad(func(e *Entry) { e.Name = "x_lambda1" }), "_lambda"},
		{bad(func(e *Entry) { e.Name = "variance" }), "the variance study's name"},
		{bad(func(e *Entry) { e.Name = "sim" }), `the name is sim's`},
		{bad(func(e *Entry) { e.Name = "sim_mf075" }), `the name is sim's`},
		{bad(func(e *Entry) { e.Name = "tmnist_fused" }), `the name is tmnist's`},
		{bad(func(e *Entry) { e.Summary = "" }), "no summary"},
		{bad(func(e *Entry) { e.New = nil }), "no builder"},
		{bad(func(e *Entry) { e.Sweep.Seeds = nil }), "needs methods, λ and seeds"},
		{bad(func(e *Entry) { e.Main = []MainRun{{Name: "toy"}, {Name: "toy"}} }), "each needs a name of its own"},
	} {
		err := Register(tc.e)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Register(%q): error %v, want one saying %q", tc.e.Name, err, tc.want)
		}
	}
	if len(All()) != len(builtins()) {
		t.Fatalf("refused entries were registered: %d entries", len(All()))
	}
	if err := Register(toyEntry("toy", 35)); err != nil {
		t.Fatal(err)
	}
	if err := Register(toyEntry("toy", 5)); err == nil {
		t.Error("a second entry named toy was registered")
	}
	if err := Register(toyEntry("early", 5)); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range All() {
		names = append(names, e.Name)
	}
	if want := []string{"early", "sim", "tmnist", "clinical", "toy", "simcont"}; !slices.Equal(names, want) {
		t.Errorf("All() = %v, want %v", names, want)
	}
	var steps []string
	for _, st := range MainJob(true) {
		steps = append(steps, st.Name)
	}
	if want := []string{"early", "sim", "tmnist", "clinical", "toy", "variance", "simcont"}; !slices.Equal(steps, want) {
		t.Errorf("MainJob(true) = %v, want %v", steps, want)
	}
	if e, ok := ByName("toy"); !ok || e.Summary != "a toy" {
		t.Errorf("ByName(toy) = %+v, %v", e.Name, ok)
	}
	if exp, ok := Describe("toy"); !ok || exp.Name != "toy" {
		t.Errorf("Describe(toy) = %q, %v", exp.Name, ok)
	}
	if q := toyEntry("toy", 35).DefaultSweep(true); !slices.Equal(q.Methods, QuickMethods()) {
		t.Errorf("an entry without a Quick sweep: quick methods %v, want QuickSweep's %v", q.Methods, QuickMethods())
	}
}
