package settings

import (
	"slices"
	"testing"
)

// TestDiffNamesEachLeafThatDiffers checks Diff's paths and order, equal documents giving
// nil, and DiffValues comparing the JSON forms of two values.
func TestDiffNamesEachLeafThatDiffers(t *testing.T) {
	got := Diff([]byte(`{"b":{"y":1,"x":[1,2]},"a":"s","c":true}`), []byte(`{"a":"s","b":{"x":[1,3],"y":1},"d":0}`))
	want := []string{"b.x: [1,2] → [1,3]", "c: true → null", "d: null → 0"}
	if !slices.Equal(got, want) {
		t.Errorf("Diff = %q, want %q", got, want)
	}
	if d := Diff([]byte(`{"a":[1,{"b":2}]}`), []byte(` { "a" : [1, {"b": 2}] } `)); d != nil {
		t.Errorf("equal documents: Diff = %q, want nil", d)
	}
	type s struct{ N int }
	if d := DiffValues(s{1}, s{2}); !slices.Equal(d, []string{"N: 1 → 2"}) {
		t.Errorf("DiffValues = %q", d)
	}
	if d := Diff([]byte(`{`), []byte(`{}`)); len(d) != 1 {
		t.Errorf("unreadable stored document: Diff = %q, want one line saying so", d)
	}
}
