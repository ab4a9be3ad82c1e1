package experiments

import (
	"encoding/json"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/dataset"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/tmnist"
)

// TestSweeps checks the claims of the sweep defaults: five seeds and the paper's λ for every
// paper-size table, and quick runs that use the paper-size data with fewer fits.
func TestSweeps(t *testing.T) {
	for _, name := range []string{"sim", "sim_mf075", "tmnist", "clinical", "mimic", "tmnist_fused"} {
		s, ok := Studies().Owner(name)
		if !ok {
			t.Fatalf("Studies().Owner(%q): no study", name)
		}
		e := s.Sweep
		rc := e.DefaultSweep(false)
		if !slices.Equal(rc.Seeds, []uint64{1, 2, 3, 4, 5}) {
			t.Errorf("%s: seeds %v, want 1–5", name, rc.Seeds)
		}
		wantL := []float64{1, 5}
		if s.Name == "clinical" {
			wantL = []float64{1}
		}
		if !slices.Equal(rc.Lambdas, wantL) {
			t.Errorf("%s: λ %v, want %v", name, rc.Lambdas, wantL)
		}
		q := e.DefaultSweep(true)
		if len(q.Seeds) != 1 || !slices.Equal(q.Lambdas, []float64{1}) || !slices.Equal(q.Methods, QuickSweep().Methods) {
			t.Errorf("%s quick: %+v", name, q)
		}
	}
	if q, p := SimulationQuick, SimulationPaper; q.NTrain != p.NTrain || q.NVal != p.NVal || q.NTest != p.NTest || q.Batch != p.Batch {
		t.Errorf("quick simulation data %+v, want the paper-size data of %+v", q, p)
	}
	if TMNISTQuick.MaxTrain != TMNISTPaper.MaxTrain || TMNISTQuick.MaxTest != TMNISTPaper.MaxTest {
		t.Errorf("quick textured MNIST caps %+v, want the paper-size data", TMNISTQuick)
	}
	if s, _ := Studies().Lookup("sim"); !slices.Contains(s.Sweep.DefaultSweep(false).Methods, method.DRPO) {
		t.Error("the simulation sweep lacks the dr-po extension")
	}
}

// TestSimulationPaperSplit checks that the companion differs from the simulation only in its
// name, title, notes and normaliser split.
func TestSimulationPaperSplit(t *testing.T) {
	a, b := Simulation(SimulationPaper), SimulationPaperSplit(SimulationPaper)
	if b.Name != "sim_mf075" || b.H.Estimator.MainFraction != 0.75 || a.H.Estimator.MainFraction != 1 {
		t.Fatalf("companion %q with MainFraction %v (sim: %v)", b.Name, b.H.Estimator.MainFraction, a.H.Estimator.MainFraction)
	}
	b.H.Estimator.MainFraction = a.H.Estimator.MainFraction
	if !reflect.DeepEqual(a.H, b.H) || a.Aux.Epochs != b.Aux.Epochs || a.Aux.LearningRate != b.Aux.LearningRate || a.Aux.Patience != b.Aux.Patience {
		t.Errorf("companion trains differently: %+v / %+v", b.H, b.Aux)
	}
}

// TestTMNISTVariant names each construction apart and records it in the configuration,
// and leaves the default experiment's configuration as it was (no Construction field).
func TestTMNISTVariant(t *testing.T) {
	for _, tc := range []struct {
		r        tmnist.Rendering
		textures [2]string
		name     string
		data     string
	}{
		{tmnist.MNISTPlus, [2]string{}, "tmnist", ""},
		{tmnist.MNISTPlus, [2]string{"brick.png", "grass.png"}, "tmnist", ""},
		{tmnist.Fused, [2]string{}, "tmnist_fused", `"Construction":{"Rendering":"fused","Textures":["brick.png","grass.png"]}`},
		{tmnist.MNISTPlus, [2]string{"brick.png", "gravel.png"}, "tmnist_brick_gravel", `"Textures":["brick.png","gravel.png"]`},
		{tmnist.Toned, [2]string{}, "tmnist_toned", `"Construction":{"Rendering":"toned","Textures":["grass.png","brick.png"]}`},
	} {
		exp := TMNISTVariant(TMNISTQuick, tc.r, tc.textures)
		c, err := ConfigOf(exp)
		if err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(c)
		if exp.Name != tc.name || (tc.data == "") != !strings.Contains(string(js), `"Construction"`) || !strings.Contains(string(js), tc.data) {
			t.Errorf("%v %v: name %q, config %s; want name %q and %s", tc.r, tc.textures, exp.Name, js, tc.name, tc.data)
		}
	}
	def, _ := ConfigOf(TMNIST(TMNISTQuick))
	if js, _ := json.Marshal(def); strings.Contains(string(js), `"Construction"`) {
		t.Errorf("the default experiment's configuration has a Construction field: %s", js)
	}
}

// TestTMNISTDigits: the digit-reading measurement keeps the labels (no flips), makes the
// texture independent of the label in every split, and is named and configured apart.
func TestTMNISTDigits(t *testing.T) {
	exp := TMNISTDigits(TMNISTSize{MaxTrain: 3000, MaxTest: 1000, Epochs: 1, AuxEpochs: 1})
	c, err := ConfigOf(exp)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(c)
	if want := `"Construction":{"FlipProb":0,"PTrainAgree":0.5,"PTestAgree":0.5}`; exp.Name != "tmnist_digits" || !strings.Contains(string(js), want) || exp.Paper != nil {
		t.Errorf("name %q, paper %v, config %s; want tmnist_digits, no paper numbers and %s", exp.Name, exp.Paper != nil, js, want)
	}
	if testing.Short() {
		t.Skip("-short runs no test that reads MNIST")
	}
	if err := tmnist.Available(tmnist.DefaultConfig()); err != nil {
		if os.Getenv(tmnist.RequireDataEnv) == "1" {
			t.Fatalf("%s=1 and the data is missing: %v", tmnist.RequireDataEnv, err)
		}
		t.Skipf("data missing (set %s=1 to fail instead): %v", tmnist.RequireDataEnv, err)
	}
	sp, err := exp.Data(1)
	if err != nil {
		t.Fatal(err)
	}
	// P(Z = Y) is 0.5 in train and test (the experiment's 0.9 and 0.1 are 16+ SE away).
	for _, s := range []*dataset.Set{sp.Train, sp.Test} {
		agree := 0.0
		for i := range s.Y {
			if s.Y[i] == s.Z[i] {
				agree++
			}
		}
		n := float64(len(s.Y))
		if p, se := agree/n, 0.5/math.Sqrt(n); math.Abs(p-0.5) > 4*se {
			t.Errorf("%s: P(Z = Y) = %.3f over %d rows, want 0.5 ± %.3f", s.Name, p, len(s.Y), 4*se)
		}
	}
}

// TestTMNISTWithNet: another h is named and configured apart, G and m are unchanged, and
// the experiment's own network gives the experiment itself.
func TestTMNISTWithNet(t *testing.T) {
	def, _ := ConfigOf(TMNIST(TMNISTQuick))
	exp, err := TMNISTWithNet(TMNISTQuick, "wide")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ConfigOf(exp)
	if err != nil {
		t.Fatal(err)
	}
	if exp.Name != "tmnist_net-wide" || c.Nets["h"] == def.Nets["h"] || c.Nets["G"] != def.Nets["G"] || c.Nets["m"] != def.Nets["m"] {
		t.Errorf("name %q, nets %v; want tmnist_net-wide with another h than %v and the same G and m", exp.Name, c.Nets, def.Nets)
	}
	if !strings.Contains(c.Nets["h"], "16") || !strings.Contains(c.Nets["h"], "32") {
		t.Errorf("wide h is %q, want channels 16 and 32", c.Nets["h"])
	}
	same, err := TMNISTWithNet(TMNISTQuick, "strided")
	if err != nil || same.Name != "tmnist" {
		t.Errorf("strided: %q, %v; want the experiment itself", same.Name, err)
	}
	if _, err := TMNISTWithNet(TMNISTQuick, "huge"); err == nil || !strings.Contains(err.Error(), "pooled, strided, wide") {
		t.Errorf("unknown network: error %v, want one listing the networks", err)
	}
}
