// Command benchrows writes the table of the rows benchmark (scripts/bench.sh rows): n rows of a
// binary label y, a binary nuisance z missing at random given (x1, x2), the model output
// h = x1 + 0.3·x2, and the true G = P(Δ = 1 | X) and m = P(Z = 1 | X, Y) as columns g and
// m, so that invmmd estimate and invmmd test fit nothing and time only the estimators.
//
//	go run ./cmd/benchrows -n 1000000 > big.csv
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
	flag.Parse()
	if *n < 1 {
		fmt.Fprintln(os.Stderr, "benchrows: -n must be at least 1")
		os.Exit(2)
	}
	rng := rand.New(rand.NewPCG(*seed, uint64(*n)))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	w.WriteString("y,z,h,g,m\n")
	sigmoid := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	buf := make([]byte, 0, 64)
	for range *n {
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
		buf = strconv.AppendInt(buf[:0], int64(y), 10)
		buf = append(buf, ',')
		if rng.Float64() < g {
			buf = strconv.AppendInt(buf, int64(z), 10)
		}
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, x1+0.3*x2, 'f', 6, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, g, 'f', 6, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, m, 'f', 6, 64)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "rows:", err)
		os.Exit(1)
	}
}
