package main

import (
	"os"
	"runtime/debug"
	"slices"

	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/invmmd/invmmd/invmmd/backend"
)

// tuneBackend applies, before the first graph is built, the one tuning of the pure-Go
// backend that every committed result was made with: the block size of its float32
// matrix products (backend.GoDotBlockLog2Dim). In GoMLX v0.26 it is simplego's package
// variable, so the program sets it, here, where it makes its backends; the library never
// writes it. Other backends ignore it.
func tuneBackend() {
	simplego.DotGeneralTargetBlockLog2Dim[dtypes.Float32] = backend.GoDotBlockLog2Dim
}

// tuneCollector halves the garbage collector's headroom (GOGC 50 where Go's default is 100)
// for the commands that hold a table's columns and a design's in memory, estimate, test and
// audit, unless the user set GOGC. Their live memory is a few columns of n numbers, and the
// collector's default lets the heap grow to twice that before it collects: at 10⁷ rows the
// lower headroom lowered estimate's peak by 4% for 9% more time, and test's by 26% at no cost
// in time (BENCHMARKS.md, the gogc100 rows).
func tuneCollector(command string) {
	if os.Getenv("GOGC") == "" && slices.Contains([]string{"estimate", "test", "audit"}, command) {
		debug.SetGCPercent(50)
	}
}
