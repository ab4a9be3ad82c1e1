package progress

import (
	"bytes"
	"strings"
	"testing"
)

func TestBarWritesLinesOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, 3, "runs")
	b.Add(1, "first")
	b.Add(2, "last")
	b.Finish()
	out := buf.String()
	if !strings.Contains(out, "runs [") || !strings.Contains(out, "3/3") || !strings.Contains(out, "last") {
		t.Fatalf("progress output %q lacks the label, the count or the status", out)
	}
	var nilBar *Bar
	nilBar.Add(1, "quiet") // a nil bar is silent and must not panic
	nilBar.Finish()
	if New(nil, 3, "x") != nil {
		t.Fatal("New(nil, ...) must return the silent nil bar")
	}
}
