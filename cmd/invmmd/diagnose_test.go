package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/results"
)

// TestDiagnoseCommand runs invmmd diagnose on the quick simulation with the paper's split
// and checks its files, that invmmd figures redraws its figure to the byte, and its errors.
func TestDiagnoseCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("trains G, m and two fits of h")
	}
	dir := t.TempDir()
	msg, stdout, _ := run(t, "diagnose", "sim", "-paper-split", "-quick", "-methods", "dr", "-lambdas", "5", "-seeds", "1", "-out", dir)
	if msg != "" {
		t.Fatal(msg)
	}
	name := "diagnosis_sim_mf075_dr_lambda5_seed1"
	for _, want := range []string{"sim_mf075, dr, λ = 5, seed 1, objective paper: train acc", "sim_mf075, dr, λ = 5, seed 1, objective train-norms: train acc", name} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	steps, err := results.ReadDiagnosisCSV(filepath.Join(dir, "tables", name+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	objs := map[string]int{}
	for _, s := range steps {
		objs[s.Objective]++
	}
	if len(objs) != 2 || objs["paper"] == 0 || objs["train-norms"] == 0 {
		t.Errorf("steps by objective: %v", objs)
	}
	png := filepath.Join(dir, name+".png")
	before, err := os.ReadFile(png)
	if err != nil {
		t.Fatal(err)
	}
	if msg, _, _ := run(t, "figures", "-out", dir); msg != "" {
		t.Fatal(msg)
	}
	if after, _ := os.ReadFile(png); string(after) != string(before) {
		t.Error("invmmd figures redrew the diagnosis figure differently")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"diagnose"}, "want the experiment first"},
		{[]string{"diagnose", "nosuch"}, `unknown experiment "nosuch"`},
		{[]string{"diagnose", "sim", "-quick", "-methods", "none"}, "no penalty"},
		{[]string{"diagnose", "sim", "-quick", "-lambdas", "0"}, "-lambdas 0"},
		{[]string{"diagnose", "sim", "-quick", "-objectives", "paper,cheat"}, `objective "cheat"`},
	} {
		if msg, _, _ := run(t, tc.args...); !strings.Contains(msg, tc.want) {
			t.Errorf("%v: error %q, want it to say %q", tc.args, msg, tc.want)
		}
	}
}
