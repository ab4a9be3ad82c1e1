package results

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The project's one atomic file writer: the studies' tables and records, the own-data
// workflow's files and the commands' -out files go through it.

// WriteJSON writes v as indented JSON, with a final newline, to path atomically.
func WriteJSON(path string, v any) error {
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(append(js, '\n'))
		return err
	})
}

// WriteFile writes path atomically: fn writes a temporary file in the same folder, which
// is then renamed over path, so that an interrupted run leaves the earlier file or the new
// one, never half of one. On any error path is left as it was.
func WriteFile(path string, fn func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	if err = fn(f); err != nil {
		f.Close()
	} else if err = f.Close(); err == nil {
		if err = os.Chmod(tmp, 0o644); err == nil {
			err = os.Rename(tmp, path)
		}
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
