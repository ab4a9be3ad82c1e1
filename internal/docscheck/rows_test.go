package docscheck

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// benchRow is one row of BENCHMARKS.md's rows table (scripts/bench.sh rows).
type benchRow struct {
	seconds, mb float64
}

// rowsTable reads BENCHMARKS.md's table of estimate and test by the number of rows, keyed
// "ROWS COMMAND PATH" (e.g. "1000000 estimate auto").
func rowsTable(t *testing.T) map[string]benchRow {
	t.Helper()
	out := map[string]benchRow{}
	in := false
	for _, line := range strings.Split(readDoc(t, "BENCHMARKS.md"), "\n") {
		switch {
		case line == "<!-- rows -->":
			in = true
		case line == "<!-- /rows -->":
			in = false
		case in && strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| rows"):
			f := strings.Split(line, "|")
			if len(f) < 7 {
				continue
			}
			sec, err1 := strconv.ParseFloat(strings.TrimSpace(f[4]), 64)
			mb, err2 := strconv.ParseFloat(strings.TrimSpace(f[5]), 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("BENCHMARKS.md rows table: %q", line)
			}
			out[strings.TrimSpace(f[1])+" "+strings.TrimSpace(f[2])+" "+strings.TrimSpace(f[3])] = benchRow{sec, mb}
		}
	}
	if len(out) == 0 {
		t.Fatal("BENCHMARKS.md has no rows table (scripts/bench.sh rows)")
	}
	return out
}

// TestRowsBenchmark checks the engine's promise against the committed rows benchmark — at 10⁶
// rows on 2 cores estimate and test each take under a minute and 2 GB — and the numbers
// BENCHMARKS.md's reading of the table quotes from it.
func TestRowsBenchmark(t *testing.T) {
	rows := rowsTable(t)
	get := func(k string) benchRow {
		r, ok := rows[k]
		if !ok {
			t.Fatalf("BENCHMARKS.md rows table has no row %q", k)
		}
		return r
	}
	for _, c := range []string{"estimate", "test"} {
		if r := get("1000000 " + c + " auto"); r.seconds >= 60 || r.mb >= 2000 {
			t.Errorf("%s at 10⁶ rows: %.1f s and %.0f MB, want under 60 s and 2 GB", c, r.seconds, r.mb)
		}
	}
	e6, t6 := get("1000000 estimate auto"), get("1000000 test auto")
	e7, t7 := get("10000000 estimate auto"), get("10000000 test auto")
	e7g, t7g := get("10000000 estimate gogc100"), get("10000000 test gogc100")
	e5, x5 := get("100000 estimate auto"), get("100000 estimate exact")
	t5, y5 := get("100000 test auto"), get("100000 test exact")
	says(t, "BENCHMARKS.md", "the rows table",
		fmt.Sprintf("takes %.1f s and %.1f GB, and `test` %.1f s and %.1f GB", e6.seconds, e6.mb/1000, t6.seconds, t6.mb/1000),
		fmt.Sprintf("it took %.0f s for `estimate` (%.0f× the default) and %.1f s for `test` (%.0f×)", x5.seconds, x5.seconds/e5.seconds, y5.seconds, y5.seconds/t5.seconds),
		fmt.Sprintf("At 10⁷ rows `estimate` needs %.1f GB and %.0f s, and `test` %.1f GB and %.0f s",
			e7.mb/1000, e7.seconds, t7.mb/1000, t7.seconds),
		fmt.Sprintf("run with `GOGC=100`, Go's default, the same two commands peaked at %.1f GB and %.1f GB and took %.0f s and %.0f s",
			e7g.mb/1000, t7g.mb/1000, e7g.seconds, t7g.seconds),
		fmt.Sprintf("the lower headroom cost `estimate` %.0f%% more time for a %.0f%% lower peak, and lowered\n`test`'s peak by %.0f%%",
			100*(e7.seconds/e7g.seconds-1), 100*(1-e7.mb/e7g.mb), 100*(1-t7.mb/t7g.mb)))
	if t7.seconds > t7g.seconds {
		t.Errorf("BENCHMARKS.md says GOGC 50 lowers test's peak at no cost in time, but the table has %.2f s against %.2f s with GOGC=100", t7.seconds, t7g.seconds)
	}
}
