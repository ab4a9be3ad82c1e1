package method

import (
	"slices"
	"strings"
	"testing"
)

// TestTable checks every method's row against its name and needs, written out here as the
// estimators use them, and that the table is in Method order.
func TestTable(t *testing.T) {
	for i, r := range table {
		if r.Method != Method(i) {
			t.Fatalf("table[%d] is %v, want Method(%d): the table must follow the constants' order", i, r.Method, i)
		}
		if r.Name == "" || r.Help == "" {
			t.Errorf("%v: a name and a help line are required", r.Method)
		}
		if r.Method != None && r.TestAssumes == "" {
			t.Errorf("%v: TestAssumes is empty; every penalised method's test assumes something", r.Method)
		}
		// The methods whose test is valid with fitted nuisances: the doubly robust ones, the
		// complete-data one, and those given the true G.
		valid := r.Family == FamilyDR || r.Family == FamilyDRPO || r.Family == FamilyFull || r.NeedsTrueG || r.Method == None
		if valid != (r.TestCaveat == "") {
			t.Errorf("%v: TestCaveat %q; want a caveat exactly for obs, reg and ip", r.Method, r.TestCaveat)
		}
	}
	for _, tc := range []struct {
		m                            Method
		name                         string
		family                       Family
		paper, g, trueG, mm, missing bool
	}{
		{None, "none", FamilyNone, true, false, false, false, false},
		{Obs, "obs", FamilyObs, true, false, false, false, false},
		{Full, "full", FamilyFull, true, false, false, false, true},
		{DR, "dr", FamilyDR, true, true, false, true, false},
		{DRPlus, "dr+", FamilyDR, true, false, true, true, false},
		{Reg, "reg", FamilyReg, true, false, false, true, false},
		{IP, "ip", FamilyIP, true, true, false, false, false},
		{IPPlus, "ip+", FamilyIP, true, false, true, false, false},
		{DRPO, "dr-po", FamilyDRPO, false, true, false, true, false},
		{DRPOPlus, "dr-po+", FamilyDRPO, false, false, true, true, false},
		{Method(-1), "Method(-1)", FamilyNone, false, false, false, false, false},
		{Method(len(table)), "Method(10)", FamilyNone, false, false, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			if got := m.String(); got != tc.name {
				t.Errorf("String() = %q, want %q", got, tc.name)
			}
			if m.Family() != tc.family {
				t.Errorf("Family() = %v, want %v", m.Family(), tc.family)
			}
			got := []bool{m.InPaper(), m.NeedsG(), m.NeedsTrueG(), m.NeedsM(), m.UsesMissingZ()}
			want := []bool{tc.paper, tc.g, tc.trueG, tc.mm, tc.missing}
			if !slices.Equal(got, want) {
				t.Errorf("InPaper, NeedsG, NeedsTrueG, NeedsM, UsesMissingZ = %v, want %v", got, want)
			}
			if !m.Valid() {
				if m.Info().Help != "" {
					t.Errorf("Info().Help of an invalid method = %q, want \"\"", m.Info().Help)
				}
				return
			}
			if p, err := Parse(strings.ToUpper(tc.name)); err != nil || p != m {
				t.Errorf("Parse(%q) = %v, %v; want %v", strings.ToUpper(tc.name), p, err, m)
			}
		})
	}
}

// TestLists: Paper, Extensions and All partition the table in order, and each call returns
// a new slice (a caller's change cannot reach the table).
func TestLists(t *testing.T) {
	all := append(Paper(), Extensions()...)
	if !slices.Equal(all, All()) {
		t.Fatalf("Paper + Extensions = %v, All = %v", all, All())
	}
	p := Paper()
	p[0] = DRPOPlus
	if Paper()[0] != None {
		t.Error("changing the slice Paper returned changed the table")
	}
	if got := List([]Method{DR, IPPlus}); got != "dr,ip+" {
		t.Errorf("List = %q", got)
	}
}

func TestParseList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Method
		err  bool
	}{
		{"all", Paper(), false},
		{"ext", Extensions(), false},
		{"dr, ipplus,,reg", []Method{DR, IPPlus, Reg}, false},
		{"", nil, true},
		{",", nil, true},
		{"dr,foo", nil, true},
	} {
		got, err := ParseList(tc.in)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("ParseList(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}
