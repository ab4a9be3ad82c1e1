package main

import (
	"strings"
	"testing"
)

// TestOneClassLabelMessage: a label column with one value, named positive or not, is
// refused by every command that reads a label, saying the label has one class (its value
// as written on every row) and that there is nothing to compare, where it used to say
// "has only the value 1" of the 0/1 it was read as.
func TestOneClassLabelMessage(t *testing.T) {
	data := writeFile(t, "one.csv", "y,z,x,h\nhigh,1,0.1,0.2\nhigh,0,0.2,0.4\nhigh,1,0.3,0.1\nhigh,,0.4,0.3\n")
	own := []string{"-data", data, "-y", "y", "-z", "z"}
	want := `column "y" (-y) has one class ("high" on every row): nothing to compare`
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"estimate -y-positive high", append([]string{"estimate", "-y-positive", "high", "-outputs", "h", "-x", "x"}, own...)},
		{"test -y-positive high", append([]string{"test", "-y-positive", "high", "-outputs", "h", "-x", "x"}, own...)},
		{"fit -y-positive high", append([]string{"fit", "-y-positive", "high", "-x", "x", "-out", t.TempDir() + "/o"}, own...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, _, _ := run(t, tc.args...)
			if !strings.Contains(msg, want) || strings.Contains(msg, "only the value") {
				t.Errorf("invmmd %s:\nerror %q\nwant one containing %q", strings.Join(tc.args, " "), msg, want)
			}
		})
	}
}
