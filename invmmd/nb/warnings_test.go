package nb

import "testing"

// Warnings that differ only in their numbers and details are one line; others stay apart.
func TestWarningSummary(t *testing.T) {
	drop := func(m string, k, n int) string {
		return "h (" + m + "): " + itoa(k) + " stratum penalties over " + itoa(n) + " steps were dropped as unreliable (first: Y=1: ESS of ΔZ/G for Z=1 is 9.5 < 10)"
	}
	below := func(m, acc string) string {
		return "h (" + m + "): test accuracy " + acc + " is below the majority baseline 0.889; the penalty may be steering h (see the held-out diagnostics; try a smaller Lambda)"
	}
	for _, c := range []struct {
		name string
		ws   []Warning
		want string
	}{
		{"none", nil, ""},
		{"one", []Warning{{"ip, seed 1", below("ip", "0.880")}},
			"1 warning, of 1 kind:\n  - " + below("ip", "0.880") + " (from ip, seed 1)\n"},
		{"two kinds", []Warning{
			{"obs, seed 1", drop("obs", 5, 50)}, {"ip, seed 1", drop("ip", 15, 57)}, {"ip, seed 1", below("ip", "0.880")},
			{"dr, seed 2", drop("dr", 29, 145)}, {"dr-po, seed 2", below("dr-po", "0.882")}, {"", "the split has 3 rows"}},
			"6 warnings, of 3 kinds:\n" +
				"  - 3 like this one (from obs, seed 1; ip, seed 1; dr, seed 2): " + drop("obs", 5, 50) + "\n" +
				"  - 2 like this one (from ip, seed 1; dr-po, seed 2): " + below("ip", "0.880") + "\n" +
				"  - the split has 3 rows\n"},
	} {
		if got := WarningSummary(c.ws); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func itoa(n int) string { return Num(float64(n)) }
