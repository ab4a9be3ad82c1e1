package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMitigationQuickCommand runs invmmd mitigation -quick (seconds): its tables and
// figures written, and -from-tables making the same Markdown again without fitting.
func TestMitigationQuickCommand(t *testing.T) {
	tables := filepath.Join(t.TempDir(), "tables")
	t.Chdir(filepath.Join("..", ".."))
	stdout, stderr, err := runCmd(t, "mitigation", "-quick", "-rows", "", "-out", tables)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "## Verdicts") || !strings.Contains(stdout, "| dr | 0.25 |") {
		t.Errorf("stdout:\n%s", stdout)
	}
	for _, f := range []string{"tables/mitigation_seeds.csv", "tables/mitigation_summary.csv", "tables/mitigation.md", "mitigation_mplsstops.png", "mitigation_college.png"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(tables), f)); err != nil {
			t.Error(err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(tables, "mitigation.md"))
	if _, stderr, err := runCmd(t, "mitigation", "-from-tables", "-quick", "-out", tables); err != nil {
		t.Fatalf("-from-tables: %v\n%s", err, stderr)
	}
	again, _ := os.ReadFile(filepath.Join(tables, "mitigation.md"))
	if string(md) != string(again) {
		t.Error("-from-tables wrote another mitigation.md")
	}
}

// TestFitLambdasFlag: -lambdas names the runs by λ and fits none once; one value is
// -lambda with its files; both flags together are refused.
func TestFitLambdasFlag(t *testing.T) {
	data := ownCSV(t, 300, false)
	base := []string{"fit", "-data", data, "-y", "outcome", "-y-positive", "yes", "-z", "z", "-x", "x1,x2,group", "-methods", "none,dr", "-epochs", "2", "-aux-epochs", "2"}
	if _, _, err := runCmd(t, append(base, "-lambda", "1", "-lambdas", "1,5", "-out", "")...); err == nil || !strings.Contains(err.Error(), "-lambda and -lambdas") {
		t.Errorf("-lambda with -lambdas: %v", err)
	}
	dir := t.TempDir()
	stdout, stderr, err := runCmd(t, append(base, "-lambdas", "1,5", "-out", dir)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "| dr λ=5 |") {
		t.Errorf("stdout:\n%s", stdout)
	}
	for _, m := range []string{"none-seed1", "dr-lambda1-seed1", "dr-lambda5-seed1"} {
		if _, err := os.Stat(filepath.Join(dir, "models", m)); err != nil {
			t.Error(err)
		}
	}
	one := t.TempDir()
	if _, stderr, err := runCmd(t, append(base, "-lambdas", "5", "-out", one)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	cfg, _ := os.ReadFile(filepath.Join(one, "config.json"))
	if _, err := os.Stat(filepath.Join(one, "models", "dr-seed1")); err != nil || !strings.Contains(string(cfg), `"lambda": 5`) || strings.Contains(string(cfg), `"lambdas":`) {
		t.Errorf("-lambdas 5: %v; config.json:\n%s", err, cfg)
	}
}
