package nb

import (
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/results"
)

// Every finding reads as one sentence: the claim, whether it holds on this run, the
// numbers in words.
func TestFindings(t *testing.T) {
	none, obs := V{"none", 0.66}, V{"obs", 0.78}
	full, dr, reg := V{"full", 0.81}, V{"dr", 0.82}, V{"reg", 0.815}
	for _, c := range []struct {
		name string
		f    Finding
		want string
	}{
		{"ordered holds", Ordered("test accuracy", []V{none}, []V{obs}, []V{full, dr, reg}),
			"In test accuracy, none is below obs, which is below each of full, dr and reg: this holds (none at 0.660; obs at 0.780; full at 0.810, dr at 0.820, reg at 0.815)."},
		{"ordered fails at the tier's extreme", Ordered("test accuracy", []V{none}, []V{{"obs", 0.815}}, []V{full, dr}),
			"In test accuracy, none is below obs, which is below each of full and dr: this does NOT hold here (obs at 0.815 is not below full at 0.810)."},
		{"a middle tier of several", Ordered("", []V{none}, []V{obs, full}, []V{dr}),
			"none is below each of obs and full, each of which is below dr: this holds (none at 0.660; obs at 0.780, full at 0.810; dr at 0.820)."},
		{"a chain of single values", Ordered("train MMD", []V{{"dr", 0.006}}, []V{{"obs", 0.05}}, []V{{"none", 0.2}}),
			"In train MMD, dr is below obs, which is below none: this holds (0.006, then 0.050, then 0.200)."},
		{"ties do not hold", Less("", V{"a", 0.5}, V{"b", 0.5}), "a is below b: this does NOT hold here (a at 0.500 is not below b at 0.500)."},
		{"empty tier", Ordered("x", []V{none}, nil), "In x, none is below nothing: not checked (the second group of values is empty in this run)."},
		{"within", Within(V{"obs", 0.893}, V{"the truth", 0.9}, 0.02), "obs is within 0.020 of the truth: this holds (0.893, which is 0.007 from 0.900)."},
		{"not within", Within(V{"obs", 0.85}, V{"the truth", 0.9}, 0.02), "obs is within 0.020 of the truth: this does NOT hold here (0.850, which is 0.050 from 0.900)."},
		{"equals", Within(V{"the number of fits stopped by patience", 12}, V{"the number of fits", 12}, 0),
			"the number of fits stopped by patience equals the number of fits: this holds (both are 12)."},
		{"does not equal", Within(V{"the epochs after the best", 18}, V{"the patience", 20}, 0),
			"the epochs after the best equals the patience: this does NOT hold here (18, not 20)."},
		{"closer", Closer(V{"reg", 0.22}, V{"dr", 0.3}, V{"full", 0.2}), "reg is closer to full than dr is: this holds (reg is 0.020 from it, dr 0.100)."},
		{"span", Span("test accuracies", []V{none, obs, full}, 0.2), "the test accuracies of none, obs and full lie within 0.200 of each other: this holds (from none at 0.660 to full at 0.810, 0.150 apart)."},
		{"span too wide", Span("test accuracies", []V{none, obs, full}, 0.1), "the test accuracies of none, obs and full lie within 0.100 of each other: this does NOT hold here (from none at 0.660 to full at 0.810, 0.150 apart)."},
		{"span of one", Span("x", []V{none}, 0.1), "the x of none lie within 0.100 of each other: not checked (this run has fewer than two of them)."},
		{"bare bound after", Ordered("|train MMD|", []V{{"none", 0.147}}, []V{{"", 0.05}}), "In |train MMD|, none is below 0.050: this does NOT hold here (none at 0.147 is not below 0.050)."},
		{"bare bound first", Ordered("size at n = 2000", []V{{"", 0.07}}, []V{{"obs", 0.3}, {"reg", 0.27}}),
			"In size at n = 2000, each of obs and reg is above 0.070: this holds (obs at 0.300, reg at 0.270; 0.070)."},
		{"bare bound first, one value", Less("", V{"", 0.8}, V{"power", 0.835}), "power is above 0.800: this holds (0.835 against 0.800)."},
		{"bare bound first, failing", Ordered("", []V{{"", 0.07}}, []V{{"obs", 0.3}, {"reg", 0.05}}),
			"each of obs and reg is above 0.070: this does NOT hold here (reg at 0.050 is not above 0.070)."},
		{"names with commas", Ordered("", []V{{"dr, logits", 0.1}, {"dr, features", 0.2}}, []V{none}),
			"each of dr, logits and dr, features is below none: this holds (dr, logits at 0.100, dr, features at 0.200; none at 0.660)."},
		{"numeric names", Less("", V{"P(Q = 1)", 0.2}, V{"0.1", 0.1}), "P(Q = 1) is below 0.1: this does NOT hold here (P(Q = 1) at 0.200 is not below 0.100)."},
		{"missing", Finding{Claim: "dr-po is at least 0", Evidence: "no dr-po in the quick sweep"}, "dr-po is at least 0: not checked (no dr-po in the quick sweep)."},
		{"reworded", Less("test accuracy", obs, V{"", 0.9}).As("obs does no better than 0.9"), "obs does no better than 0.9: this holds (0.780 against 0.900)."},
	} {
		if got := c.f.String(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// CheckText prints the findings under their heading and, when some fail, says how many.
func TestCheckText(t *testing.T) {
	a, b := V{"a", 1}, V{"b", 2}
	for _, c := range []struct {
		name     string
		findings []Finding
		want     string
	}{
		{"holds", []Finding{Less("x", a, b)}, "The paper's findings, on this run:\n  - In x, a is below b: this holds (1 against 2).\n"},
		{"one of one fails", []Finding{Less("x", b, a)},
			"The paper's findings, on this run:\n  - In x, b is below a: this does NOT hold here (b at 2 is not below a at 1).\n  This check fails here.\n"},
		{"one of two fails", []Finding{Less("", a, b), Less("", b, a)}, "  One of these 2 checks fails here.\n"},
		{"two of three fail", []Finding{Less("", a, b), Less("", b, a), Less("", b, a)}, "  Two of these 3 checks fail here.\n"},
		{"not checked is no failure", []Finding{Less("", a, b), Finding{Claim: "c", Evidence: "why"}}, "not checked (why).\n"},
	} {
		got := CheckText("The paper's findings, on this run", c.findings...)
		if !strings.HasSuffix(got, c.want) {
			t.Errorf("%s: CheckText =\n%s\nwant it to end with\n%s", c.name, got, c.want)
		}
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
