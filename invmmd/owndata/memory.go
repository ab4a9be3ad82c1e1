package owndata

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// The memory a fit plans for, checked once the table is read and before any network is
// built: a width, a batch or a count of outputs that would not fit ends in a named error
// instead of the Go runtime's out-of-memory crash.

// netMemory estimates the bytes of training one MLP: its float32 parameters (weights and
// biases, with their gradient, Adam's two moments and the best epoch's copy: 5 copies), the
// activations of a batch through every layer forward and backward (3 copies), and, for h
// with a penalty, the penalty's exact kernel sums on the batch (batch² values, forward and
// backward: the path taken whenever the outputs spread beyond the Fourier expansion).
func netMemory(inputs int, hidden []int, outputs, batch int, penalised bool) float64 {
	params, acts := 0.0, float64(inputs)
	in := float64(inputs)
	for _, w := range append(append([]int(nil), hidden...), outputs) {
		params += (in + 1) * float64(w)
		acts += float64(w)
		in = float64(w)
	}
	b := 4 * (5*params + 3*float64(batch)*acts)
	if penalised {
		b += 4 * 3 * float64(batch) * float64(batch)
	}
	return b
}

// memoryLimit returns the bytes a plan may take: three quarters of the machine's memory
// (MemTotal of /proc/meminfo), or 16 GiB where that cannot be read. A variable, so that a
// test can lower it.
var memoryLimit = sync.OnceValue(func() float64 {
	f, err := os.Open("/proc/meminfo")
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
				if err == nil && kb > 0 {
					return 0.75 * kb * 1024
				}
			}
		}
	}
	return 16 << 30
})

// gib renders bytes in GiB (or MiB below one GiB).
func gib(b float64) string {
	if b < 1<<30 {
		return fmt.Sprintf("%.0f MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", b/(1<<30))
}

// checkMemory refuses networks whose training would not fit in memory: what is the network
// ("h", "G and m"), inputs the encoded inputs, outputs the network's outputs, batch the
// rows per step (capped at the training rows). The error names the widths and the batch
// (their fields, which the command line names by its flags) and the estimate.
func checkMemory(c Columns, n Nets, what string, inputs, outputs, trainRows int, penalised bool) error {
	batch := min(n.Batch, trainRows)
	need := netMemory(inputs, n.Hidden, outputs, batch, penalised)
	if limit := memoryLimit(); need > limit {
		return fieldError("Hidden", n.Hidden, "training %s with %d inputs, %d output(s) and batches of %d rows (%s) needs about %s, more than the %s this machine can give; use narrower layers (%s) or smaller batches (%s)",
			what, inputs, outputs, batch, c.name("Batch"), gib(need), gib(limit), c.name("Hidden"), c.name("Batch"))
	}
	return nil
}
