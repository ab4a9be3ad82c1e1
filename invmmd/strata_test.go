package invmmd

import "testing"

// TestStrataList: a list of strata reads as words ("Y = 0 and Y = 1"), where it used to
// be printed as a Go slice ("Y=[0 1]").
func TestStrataList(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"1"}, "Y = 1"},
		{[]string{"0", "1"}, "Y = 0 and Y = 1"},
		{[]string{"A", "N", "Y"}, "Y = A, Y = N and Y = Y"},
	} {
		if got := StrataList(tc.in...); got != tc.want {
			t.Errorf("StrataList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
