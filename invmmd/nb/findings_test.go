package nb

import (
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/results"
)

func TestFindings(t *testing.T) {
	none, obs := V{"none", 0.66}, V{"obs", 0.78}
	full, dr, reg := V{"full", 0.81}, V{"dr", 0.82}, V{"reg", 0.815}
	for _, c := range []struct {
		name string
		f    Finding
		want string
	}{
		{"ordered holds", Ordered("test accuracy", []V{none}, []V{obs}, []V{full, dr, reg}),
			"none < obs < {full, dr, reg} in test accuracy: holds (0.660 < 0.780 < 0.810, 0.820, 0.815)"},
		{"ordered fails at the tier's extreme", Ordered("test accuracy", []V{none}, []V{{"obs", 0.815}}, []V{full, dr}),
			"none < obs < {full, dr} in test accuracy: does not hold: obs 0.815 ≥ full 0.810"},
		{"ties do not hold", Less("", V{"a", 0.5}, V{"b", 0.5}), "a < b: does not hold: a 0.500 ≥ b 0.500"},
		{"empty tier", Ordered("x", []V{none}, nil), "none < {} in x: not checked (tier 2 has no value in this run)"},
		{"within", Within(V{"obs", 0.893}, V{"truth", 0.9}, 0.02), "obs within 0.020 of truth: holds (0.893, 0.007 from 0.900)"},
		{"not within", Within(V{"obs", 0.85}, V{"truth", 0.9}, 0.02), "obs within 0.020 of truth: does not hold: 0.850, 0.050 from 0.900"},
		{"closer", Closer(V{"reg", 0.22}, V{"dr", 0.3}, V{"full", 0.2}), "reg closer to full than dr: holds (|reg − full| = 0.020, |dr − full| = 0.100)"},
		{"span", Span("test accuracy", []V{none, obs, full}, 0.2), "test accuracy of {none, obs, full} within 0.200 of each other: holds (from none 0.660 to full 0.810: 0.150 apart)"},
		{"span too wide", Span("test accuracy", []V{none, obs, full}, 0.1), "test accuracy of {none, obs, full} within 0.100 of each other: does not hold: from none 0.660 to full 0.810: 0.150 apart"},
		{"span of one", Span("x", []V{none}, 0.1), "x of none within 0.100 of each other: not checked (fewer than two values in this run)"},
		{"bare bounds", Ordered("|train MMD|", []V{{"none", 0.147}}, []V{{"", 0.05}}), "none < 0.050 in |train MMD|: does not hold: none 0.147 ≥ 0.050"},
		{"numeric names", Less("", V{"P(Q = 1)", 0.2}, V{"0.1", 0.1}), "P(Q = 1) < 0.1: does not hold: P(Q = 1) 0.200 ≥ 0.100"},
		{"missing", Missing("dr-po ≥ 0", "no dr-po in the quick sweep"), "dr-po ≥ 0: not checked (no dr-po in the quick sweep)"},
	} {
		if got := c.f.String(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestCheckText(t *testing.T) {
	got := CheckText("The paper's findings, on this run", Less("x", V{"a", 1}, V{"b", 2}))
	want := "The paper's findings, on this run:\n  - a < b in x: holds (1 < 2)\n"
	if got != want {
		t.Errorf("CheckText = %q, want %q", got, want)
	}
}

func TestOf(t *testing.T) {
	sums := results.Summarize([]results.Row{
		{Method: "none", Seed: 1, TrMMD: 0.2, TrAcc: 0.9, TeAcc: 0.6},
		{Method: "dr", Seed: 1, TrMMD: 0.01, TrAcc: 0.8, TeAcc: 0.8},
		{Method: "dr", Seed: 2, TrMMD: 0.03, TrAcc: 0.8, TeAcc: 0.7},
	})
	got := Of(sums, TeAcc, "dr", "reg", "none")
	if len(got) != 2 || got[0] != (V{"dr", 0.75}) || got[1] != (V{"none", 0.6}) {
		t.Errorf("Of(te acc, dr, reg, none) = %v, want dr 0.75 and none 0.6 (reg is not in the table)", got)
	}
	if got := Of(sums, TrMMD, "dr"); len(got) != 1 || got[0].Value != 0.02 {
		t.Errorf("Of(tr mmd, dr) = %v, want 0.02", got)
	}
	if got := Of(sums, TrAcc, "none"); len(got) != 1 || got[0].Value != 0.9 {
		t.Errorf("Of(tr acc, none) = %v, want 0.9", got)
	}
	if TeAcc.String() != "test accuracy" || !strings.HasPrefix(Metric(9).String(), "Metric(") {
		t.Errorf("Metric names: %q, %q", TeAcc, Metric(9))
	}
}

func TestNum(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{0.8123, "0.812"}, {0, "0.000"}, {0.00123, "0.00123"}, {-0.0004, "-0.0004"}, {12345.5, "1.23e+04"}, {16, "16"}, {-3, "-3"}, {2.5, "2.500"}} {
		if got := Num(c.x); got != c.want {
			t.Errorf("Num(%g) = %q, want %q", c.x, got, c.want)
		}
	}
}
