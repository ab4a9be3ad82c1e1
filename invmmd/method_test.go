package invmmd

import (
	"slices"
	"strings"
	"testing"
)

// TestMethodTable checks every method's row against its name and needs, written out here
// as the estimators use them, and that the table is in Method order.
func TestMethodTable(t *testing.T) {
	for i, r := range methodTable {
		if r.method != Method(i) {
			t.Fatalf("methodTable[%d] is %v, want Method(%d): the table must follow the constants' order", i, r.method, i)
		}
	}
	for _, tc := range []struct {
		m                            Method
		name                         string
		paper, g, trueG, mm, missing bool
	}{
		{None, "none", true, false, false, false, false},
		{Obs, "obs", true, false, false, false, false},
		{Full, "full", true, false, false, false, true},
		{DR, "dr", true, true, false, true, false},
		{DRPlus, "dr+", true, false, true, true, false},
		{Reg, "reg", true, false, false, true, false},
		{IP, "ip", true, true, false, false, false},
		{IPPlus, "ip+", true, false, true, false, false},
		{DRPO, "dr-po", false, true, false, true, false},
		{DRPOPlus, "dr-po+", false, false, true, true, false},
		{Method(-1), "Method(-1)", false, false, false, false, false},
		{Method(len(methodTable)), "Method(10)", false, false, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			if got := m.String(); got != tc.name {
				t.Errorf("String() = %q, want %q", got, tc.name)
			}
			got := []bool{m.InPaper(), m.NeedsG(), m.NeedsTrueG(), m.NeedsM(), m.UsesMissingZ()}
			want := []bool{tc.paper, tc.g, tc.trueG, tc.mm, tc.missing}
			if !slices.Equal(got, want) {
				t.Errorf("InPaper, NeedsG, NeedsTrueG, NeedsM, UsesMissingZ = %v, want %v", got, want)
			}
			if !m.Valid() {
				if m.Describe() != "" {
					t.Errorf("Describe() of an invalid method = %q, want \"\"", m.Describe())
				}
				return
			}
			if m.Describe() == "" {
				t.Error("Describe() is empty")
			}
			if p, err := ParseMethod(strings.ToUpper(tc.name)); err != nil || p != m {
				t.Errorf("ParseMethod(%q) = %v, %v; want %v", strings.ToUpper(tc.name), p, err, m)
			}
		})
	}
}

func TestMethodLists(t *testing.T) {
	want := map[string][]Method{
		"Methods":    {None, Obs, Full, DR, DRPlus, Reg, IP, IPPlus},
		"Extensions": {DRPO, DRPOPlus},
		"AllMethods": {None, Obs, Full, DR, DRPlus, Reg, IP, IPPlus, DRPO, DRPOPlus},
	}
	for name, got := range map[string][]Method{"Methods": Methods, "Extensions": Extensions, "AllMethods": AllMethods} {
		if !slices.Equal(got, want[name]) {
			t.Errorf("%s = %v, want %v", name, got, want[name])
		}
	}
	if _, err := ParseMethod("drpo"); err == nil || !strings.Contains(err.Error(), "none, obs, full, dr, dr+, reg, ip, ip+, dr-po, dr-po+") {
		t.Errorf("ParseMethod(drpo) error %v, want it to list every method", err)
	}
	if m, err := ParseMethod(" DRplus "); err != nil || m != DRPlus {
		t.Errorf("ParseMethod(\" DRplus \") = %v, %v; want dr+", m, err)
	}
}

func TestMethodHelp(t *testing.T) {
	help := MethodHelp()
	lines := strings.Split(strings.TrimSuffix(help, "\n"), "\n")
	if len(lines) != len(AllMethods) {
		t.Fatalf("MethodHelp has %d lines, want one per method (%d):\n%s", len(lines), len(AllMethods), help)
	}
	for i, m := range AllMethods {
		f := strings.Fields(lines[i])
		if len(f) == 0 || f[0] != m.String() || !strings.Contains(lines[i], m.Describe()) {
			t.Errorf("line %d of MethodHelp = %q, want %s and its description", i+1, lines[i], m)
		}
		if ext := strings.Contains(lines[i], "extension"); ext == m.InPaper() {
			t.Errorf("line %d of MethodHelp = %q: marked as an extension %v, want %v", i+1, lines[i], ext, !m.InPaper())
		}
	}
}
