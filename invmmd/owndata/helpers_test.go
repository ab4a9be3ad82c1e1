package owndata

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/invmmd/invmmd/invmmd/method"
)

// ctx is the context of the tests' calls that are not interrupted.
var ctx = context.Background()

// errorsAs is errors.As.
func errorsAs(err error, target any) bool { return errors.As(err, target) }

// modelDir returns the folder where Fit saves h trained with method m and seed under out:
// out/models/METHOD-seedS.
func modelDir(out string, m method.Method, seed uint64) string {
	return filepath.Join(out, ModelsDir, runName(m, seed))
}

// runPath returns the file where Fit records method m with seed under out:
// out/runs/METHOD-seedS.json.
func runPath(out string, m method.Method, seed uint64) string {
	return filepath.Join(out, RunsDir, runName(m, seed)+".json")
}
