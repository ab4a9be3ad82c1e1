package mimictest

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestFormatTimestamp checks the fixture's timestamps against the time package on random
// instants from 1700 to 2300 (MIMIC's shifted dates of birth reach back to the 1800s).
func TestFormatTimestamp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lo, hi := time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for i := 0; i < 20000; i++ {
		u := lo + rng.Int64N(hi-lo)
		if got, want := string(formatTimestamp([]byte("x"), u)), "x"+time.Unix(u, 0).UTC().Format("2006-01-02 15:04:05"); got != want {
			t.Fatalf("formatTimestamp(x, %d) = %q, want %q", u, got, want)
		}
	}
}
