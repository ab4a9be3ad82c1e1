package train

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"

	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/method"
	"github.com/invmmd/invmmd/invmmd/models"
)

// TestBackendPassedIn: Fit, FitAux and LoadModel run on the backend they are given, on the
// shared one when given none, and the configurations' JSON carries no runtime object.
func TestBackendPassedIn(t *testing.T) {
	own, err := backend.NewWithConfig(backend.Default)
	if err != nil {
		t.Fatal(err)
	}
	defer own.Finalize()
	shared, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	if own == shared {
		t.Fatal("NewWithConfig returned the shared backend")
	}
	sp := smallSim(t, 11)
	path := filepath.Join(t.TempDir(), "weights.json")
	for _, tc := range []struct {
		name  string
		given backends.Backend
		want  backends.Backend
	}{{"given", own, own}, {"nil means shared", nil, shared}} {
		t.Run(tc.name, func(t *testing.T) {
			aux, err := FitAux(context.Background(), sp, auxMLP, AuxConfig{BatchSize: 300, Epochs: 1, LearningRate: 1e-2, Seed: 1}, Runtime{Backend: tc.given})
			if err != nil {
				t.Fatal(err)
			}
			if aux.gModel.backend != tc.want || aux.mModel.backend != tc.want {
				t.Errorf("FitAux ran G on %p and m on %p, want %p", aux.gModel.backend, aux.mModel.backend, tc.want)
			}
			model, _, err := Fit(context.Background(), sp, aux, mlp(1), Config{Method: method.DR, Lambda: 1, BatchSize: 300, Epochs: 1, LearningRate: 1e-2}, Runtime{Backend: tc.given})
			if err != nil {
				t.Fatal(err)
			}
			if model.backend != tc.want {
				t.Errorf("Fit ran on %p, want %p", model.backend, tc.want)
			}
			if err := model.Save(path); err != nil {
				t.Fatal(err)
			}
			back, err := loadModel(tc.given, mlp(1), path, 64)
			if err != nil {
				t.Fatal(err)
			}
			if back.backend != tc.want {
				t.Errorf("LoadModel loaded onto %p, want %p", back.backend, tc.want)
			}
		})
	}
	for name, cfg := range map[string]any{"Config": Config{}, "AuxConfig": AuxConfig{}} {
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, runtime := range []string{"Backend", "Progress", "Trace", "ZMap", "BayesM", "Hooks"} {
			if strings.Contains(string(b), `"`+runtime+`"`) {
				t.Errorf("%s's JSON %s carries %s, which is the Runtime's: the stored hyperparameters hold no runtime object", name, b, runtime)
			}
		}
	}
}

// TestFitAuxRoles: FitAux asks for G's network with RoleG and its seed, then m's with RoleM
// and the next seed, and names the reports after the roles.
func TestFitAuxRoles(t *testing.T) {
	type call struct {
		role Role
		seed uint64
	}
	var calls []call
	aux, err := FitAux(context.Background(), smallSim(t, 12), func(r Role, s uint64) models.Net {
		calls = append(calls, call{r, s})
		return mlp(s)
	}, AuxConfig{BatchSize: 300, Epochs: 1, LearningRate: 1e-2, Seed: 40}, Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []call{{RoleG, 40}, {RoleM, 41}}; !slices.Equal(calls, want) {
		t.Errorf("network constructor called with %v, want %v", calls, want)
	}
	if aux.G.Model != "G" || aux.M.Model != "m" {
		t.Errorf("reports named %q and %q, want G and m", aux.G.Model, aux.M.Model)
	}
}

func TestRoleString(t *testing.T) {
	for r, want := range map[Role]string{RoleH: "h", RoleG: "G", RoleM: "m", Role(7): "Role(7)"} {
		if got := r.String(); got != want {
			t.Errorf("Role(%d).String() = %q, want %q", int(r), got, want)
		}
	}
}
