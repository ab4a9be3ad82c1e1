//go:build cgo && !noxla

package backend

// XLA (CPU and CUDA through PJRT plugins) is compiled in when cgo is available; build with
// the tag noxla to leave it out.
import _ "github.com/gomlx/gomlx/backends/xla"
