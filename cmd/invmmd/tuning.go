package main

import (
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
