package results

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv")
	if err := WriteFile(p, func(w io.Writer) error { _, err := io.WriteString(w, "old\n"); return err }); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(p, func(w io.Writer) error {
		io.WriteString(w, "half of the new")
		return errors.New("interrupted")
	})
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("error %v", err)
	}
	b, _ := os.ReadFile(p)
	ents, _ := os.ReadDir(dir)
	if string(b) != "old\n" || len(ents) != 1 {
		t.Fatalf("after a failed write: %q, %d entries (want the old content and no temporary file)", b, len(ents))
	}
}
