// Command benchrows writes the table of the rows benchmark (scripts/bench.sh rows): n rows of a
// binary label y, a binary nuisance z missing at random given (x1, x2), the model output
// h = x1 + 0.3·x2, and the true G = P(Δ = 1 | X) and m = P(Z = 1 | X, Y) as columns g and
// m, so that invmmd estimate and invmmd test fit nothing and time only the estimators.
//
//	go run ./cmd/benchrows -n 1000000 > big.csv
//
// With -audit it writes the audit benchmark's table instead (scripts/bench.sh audit): a
// binary label y, features x1, x2 and a five-level c, a three-level attribute z blank on
// about 40% of the rows at random given (x1, x2, c, y), and 0/1 decisions d that depend on
// x1 and z, for invmmd audit (which fits G and m on x1, x2, c and y).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	n := flag.Int("n", 10000, "rows")
	seed := flag.Uint64("seed", 1, "seed of the draws")
	audit := flag.Bool("audit", false, "write the audit benchmark's table (y,z,x1,x2,c,d)")
	flag.Parse()
	if *n < 1 {
		fmt.Fprintln(os.Stderr, "benchrows: -n must be at least 1")
		os.Exit(2)
	}
	rng := rand.New(rand.NewPCG(*seed, uint64(*n)))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	if *audit {
		auditRows(w, rng, *n)
	} else {
		estimateRows(w, rng, *n)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "rows:", err)
		os.Exit(1)
	}
}

func sigmoid(v float64) float64 { return 1 / (1 + math.Exp(-v)) }

// estimateRows writes n rows of the rows benchmark's table.
func estimateRows(w *bufio.Writer, rng *rand.Rand, n int) {
	w.WriteString("y,z,h,g,m\n")
	buf := make([]byte, 0, 64)
	for range n {
		y := rng.IntN(2)
		s := float64(2*y - 1)
		x1 := 0.8*s + rng.NormFloat64()
		x2 := rng.NormFloat64()
		m := sigmoid(1.5*x2 + 0.5*s)
		z := 0
		if rng.Float64() < m {
			z = 1
		}
		g := sigmoid(0.3 + 0.8*x1 + 0.8*x2)
		buf = append(strconv.AppendInt(buf[:0], int64(y), 10), ',')
		if rng.Float64() < g {
			buf = strconv.AppendInt(buf, int64(z), 10)
		}
		for _, v := range []float64{x1 + 0.3*x2, g, m} {
			buf = strconv.AppendFloat(append(buf, ','), v, 'f', 6, 64)
		}
		buf = append(buf, '\n')
		w.Write(buf)
	}
}

// auditRows writes n rows of the audit benchmark's table.
func auditRows(w *bufio.Writer, rng *rand.Rand, n int) {
	w.WriteString("y,z,x1,x2,c,d\n")
	buf := make([]byte, 0, 64)
	for range n {
		x1, x2, c := rng.NormFloat64(), rng.NormFloat64(), rng.IntN(5)
		z := 0
		if u := rng.Float64(); u < sigmoid(0.8*x2-0.5) {
			z = 1
		} else if u < sigmoid(0.8*x2-0.5)+0.25 {
			z = 2
		}
		y := 0
		if rng.Float64() < sigmoid(x1+0.3*float64(c)-0.6) {
			y = 1
		}
		d := 0
		if x1+0.4*float64(z)+0.8*rng.NormFloat64() > 0.3 {
			d = 1
		}
		buf = append(strconv.AppendInt(buf[:0], int64(y), 10), ',')
		if rng.Float64() < sigmoid(0.3+0.7*x1-0.5*x2+0.2*float64(c)-0.6*float64(y)) {
			buf = append(buf, "abc"[z])
		}
		buf = strconv.AppendFloat(append(buf, ','), x1, 'f', 5, 64)
		buf = strconv.AppendFloat(append(buf, ','), x2, 'f', 5, 64)
		buf = append(buf, ',', 'k', byte('0'+c), ',')
		buf = strconv.AppendInt(buf, int64(d), 10)
		buf = append(buf, '\n')
		w.Write(buf)
	}
}
