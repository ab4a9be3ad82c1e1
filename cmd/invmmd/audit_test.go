package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// auditData writes a small table for invmmd audit into dir: a label, a three-level
// attribute blank on some rows, a feature, a score and a 0/1 decision.
func auditData(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("y,z,x,s,d\n")
	for i := range 300 {
		z := []string{"a", "b", "c", ""}[i%4]
		fmt.Fprintf(&b, "%d,%s,%d,%.3f,%d\n", i/3%2, z, i%11, float64(i%50)/50, (i/7)%2)
	}
	p := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAuditCommand: the audit writes its folder, and -out and -threshold are checked before
// any work: -force replaces only an earlier audit's folder, never the -data file's folder nor
// the current one; -outputs needs -threshold, and -decisions refuses it.
func TestAuditCommand(t *testing.T) {
	dir := t.TempDir()
	data := auditData(t, dir)
	base := []string{"audit", "-data", data, "-y", "y", "-z", "z", "-x", "x"}
	out := filepath.Join(dir, "aud")
	if _, stderr, err := runCmd(t, append(base, "-decisions", "d", "-out", out)...); err != nil {
		t.Fatalf("audit: %v\n%s", err, stderr)
	}
	for _, f := range auditFiles {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("-out lacks %s: %v", f, err)
		}
	}
	if _, _, err := runCmd(t, append(base, "-decisions", "d", "-out", out, "-force")...); err != nil {
		t.Errorf("-force over an earlier audit: %v", err)
	}
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"existing folder", []string{"-decisions", "d", "-out", out}, "exists"},
		{"folder holding -data", []string{"-decisions", "d", "-out", dir, "-force"}, "holds the -data file"},
		{"current folder", []string{"-decisions", "d", "-out", ".", "-force"}, "current folder"},
		{"scores without a threshold", []string{"-outputs", "s"}, "name -threshold"},
		{"threshold with decisions", []string{"-decisions", "d", "-threshold", "0.5"}, "-threshold decides scores"},
		{"threshold outside the scores", []string{"-outputs", "s", "-threshold", "2"}, "decides every row alike"},
	} {
		_, _, err := runCmd(t, append(base, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
	if _, err := os.Stat(data); err != nil {
		t.Errorf("the -data file is gone: %v", err)
	}
}
