package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBadCommandLinesAreClearErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "no command given"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"sim", "-methods", "dr,xx"}, `unknown method "xx"`},
		{[]string{"sim", "-lambdas", "1,-5"}, "λ = -5, want ≥ 0"},
		{[]string{"sim", "-lambdas", "one"}, `λ "one" is not a number`},
		{[]string{"sim", "-seeds", "1,a"}, `seed "a"`},
		{[]string{"sim", "-nosuchflag"}, "flag provided but not defined"},
	} {
		var out, errb bytes.Buffer
		err := dispatch(tc.args, &out, &errb)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if err == nil || !strings.Contains(msg+errb.String(), tc.want) {
			t.Errorf("invmmd %s: error %q (stderr %q), want one mentioning %q", strings.Join(tc.args, " "), msg, errb.String(), tc.want)
		}
	}
}

func TestSimQuickWritesTablesAndFigures(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	err := dispatch([]string{"sim", "-quick", "-seeds", "1", "-methods", "none,reg", "-lambdas", "1", "-out", dir}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, f := range []string{"tables/sim_lambda1.csv", "tables/sim_lambda1.md", "tables/sim_config.json", "sim_lambda1.png", "sim_lambda1.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	if !strings.Contains(out.String(), "| te acc (paper) |") {
		t.Errorf("stdout lacks the table next to the paper's numbers:\n%s", out.String())
	}
}

func TestFiguresRedrawsFromTables(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tables"), 0o755); err != nil {
		t.Fatal(err)
	}
	csv := "method,seed,tr_mmd,tr_acc,te_acc\nnone,1,0.2,0.9,0.7\nfull,1,0.01,0.85,0.8\n"
	if err := os.WriteFile(filepath.Join(dir, "tables", "sim_lambda1.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := dispatch([]string{"figures", "-out", dir}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if st, err := os.Stat(filepath.Join(dir, "sim_lambda1.png")); err != nil || st.Size() == 0 {
		t.Fatalf("sim_lambda1.png not written: %v", err)
	}
	if err := dispatch([]string{"figures", "-out", t.TempDir()}, &out, &errb); err == nil || !strings.Contains(err.Error(), "no result tables") {
		t.Fatalf("empty folder: error %v", err)
	}
}
