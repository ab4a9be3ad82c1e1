package experiments

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd"
	"github.com/invmmd/invmmd/invmmd/tmnist"
)

// TestSweeps checks the claims of the sweep defaults: five seeds and the paper's λ for every
// paper-size table, and quick runs that use the paper-size data with fewer fits.
func TestSweeps(t *testing.T) {
	for _, name := range []string{"sim", "sim_mf075", "tmnist", "clinical"} {
		rc := PaperSweep(name)
		if !slices.Equal(rc.Seeds, []uint64{1, 2, 3, 4, 5}) {
			t.Errorf("%s: seeds %v, want 1–5", name, rc.Seeds)
		}
		wantL := []float64{1, 5}
		if name == "clinical" {
			wantL = []float64{1}
		}
		if !slices.Equal(rc.Lambdas, wantL) {
			t.Errorf("%s: λ %v, want %v", name, rc.Lambdas, wantL)
		}
		q := QuickSweep(name)
		if len(q.Seeds) != 1 || !slices.Equal(q.Lambdas, []float64{1}) || !slices.Equal(q.Methods, QuickMethods) {
			t.Errorf("%s quick: %+v", name, q)
		}
	}
	if q, p := SimulationQuick, SimulationPaper; q.NTrain != p.NTrain || q.NVal != p.NVal || q.NTest != p.NTest || q.Batch != p.Batch {
		t.Errorf("quick simulation data %+v, want the paper-size data of %+v", q, p)
	}
	if TMNISTQuick.MaxTrain != TMNISTPaper.MaxTrain || TMNISTQuick.MaxTest != TMNISTPaper.MaxTest {
		t.Errorf("quick textured MNIST caps %+v, want the paper-size data", TMNISTQuick)
	}
	if !slices.Contains(PaperSweep("sim").Methods, invmmd.DRPO) {
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
	if a.H != b.H || a.Aux.Epochs != b.Aux.Epochs || a.Aux.LearningRate != b.Aux.LearningRate || a.Aux.Patience != b.Aux.Patience {
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
