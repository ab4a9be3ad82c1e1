package mimictest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFixtureIdempotent(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFixture(dir, 9, FixtureOptions{Patients: 20, Compression: "gzip"}); err != nil {
		t.Fatal(err)
	}
	// Rewriting in another form replaces the files instead of leaving both forms behind.
	if err := WriteFixture(dir, 9, FixtureOptions{Patients: 20, Compression: "none"}); err != nil {
		t.Fatal(err)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*.gz")); len(names) != 0 {
		t.Errorf("stale gzipped tables left: %v", names)
	}
	a, err := os.ReadFile(filepath.Join(dir, "CHARTEVENTS.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFixture(dir, 9, FixtureOptions{Patients: 20, Compression: "none"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "CHARTEVENTS.csv"))
	if string(a) != string(b) {
		t.Error("the same seed wrote different files")
	}
	if err := WriteFixture(dir, 9, FixtureOptions{Compression: "zip"}); err == nil || !strings.Contains(err.Error(), `"zip"`) {
		t.Errorf("bad compression: error %v", err)
	}
}
