package invmmd

import "testing"

// TestBelowTextNeverReadsAsTheMinimum: an ESS just below MinESS is printed with enough
// digits not to read as MinESS ("9.96 < 10", not "10.0 < 10").
func TestBelowTextNeverReadsAsTheMinimum(t *testing.T) {
	for _, tc := range []struct {
		e, min float64
		want   string
	}{{9.96, 10, "9.96"}, {9.4, 10, "9.4"}, {9.99991, 10, "9.9999"}, {3.25, 10, "3.2"}} {
		if got := belowText(tc.e, tc.min); got != tc.want {
			t.Errorf("belowText(%v, %v) = %q, want %q", tc.e, tc.min, got, tc.want)
		}
	}
}
