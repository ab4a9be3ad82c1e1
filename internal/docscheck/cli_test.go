package docscheck

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// helpCommand matches a command of invmmd -help's list ("  sim       Experiment 1: …").
var helpCommand = regexp.MustCompile(`^  ([a-z][a-z0-9]*)\s`)

// helpFlag matches a flag of a command's -help ("  -name type" or "  -v\tdoc").
var helpFlag = regexp.MustCompile(`^  -([A-Za-z0-9][A-Za-z0-9-]*)`)

// commands returns the commands invmmd -help lists.
func commands(help string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(help, "\n") {
		switch {
		case strings.HasPrefix(l, "commands:"):
			in = true
		case in && strings.TrimSpace(l) == "":
			if len(out) > 0 {
				return out
			}
		case in:
			if m := helpCommand.FindStringSubmatch(l); m != nil {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// flags returns the flags a command's -help lists, in its order.
func flags(help string) []string {
	var out []string
	for _, l := range strings.Split(help, "\n") {
		if m := helpFlag.FindStringSubmatch(l); m != nil && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// manualSections returns, for each command, the text of the manual's sections whose heading
// names it as a code span (`invmmd CMD`), each up to the next heading of any level. A
// heading may name several commands: its text is then each one's.
func manualSections(manual string) map[string]string {
	out := map[string]string{}
	var names []string
	var body strings.Builder
	flush := func() {
		for _, n := range names {
			out[n] += body.String()
		}
		body.Reset()
	}
	named := regexp.MustCompile("`invmmd ([a-z][a-z0-9]*)`")
	for _, l := range strings.Split(manual, "\n") {
		if strings.HasPrefix(l, "#") {
			flush()
			names = nil
			for _, m := range named.FindAllStringSubmatch(l, -1) {
				names = append(names, m[1])
			}
		}
		body.WriteString(l + "\n")
	}
	flush()
	return out
}

// mentions reports whether text names flag as a code span: `-flag` or `-flag VALUE`.
func mentions(text, flag string) bool {
	return strings.Contains(text, "`-"+flag+"`") || strings.Contains(text, "`-"+flag+" ")
}

// TestCLIManual builds invmmd, reads its command list and each command's -help, and checks
// that docs/cli.md has a section for every command and names every flag of a command in a
// section of that command: a command or flag added, renamed or removed without the manual
// fails here.
func TestCLIManual(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build invmmd with")
	}
	bin := filepath.Join(t.TempDir(), "invmmd")
	build := exec.Command("go", "build", "-o", bin, "./cmd/invmmd")
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/invmmd: %v\n%s", err, out)
	}
	help := func(args ...string) string {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("invmmd %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	cmds := commands(help("-help"))
	if len(cmds) < 10 {
		t.Fatalf("invmmd -help lists %d commands: %v", len(cmds), cmds)
	}
	sections := manualSections(readDoc(t, cliMD))
	checked := 0
	for _, c := range cmds {
		text, ok := sections[c]
		if !ok {
			t.Errorf("docs/cli.md has no section whose heading names `invmmd %s`", c)
			continue
		}
		for _, f := range flags(help(c, "-help")) {
			checked++
			if !mentions(text, f) {
				t.Errorf("docs/cli.md's section of invmmd %s does not name its flag `-%s` (invmmd %s -help lists it)", c, f, c)
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d flags checked: the -help parser may have missed them", checked)
	}
}

// TestCLIManualParsers runs the parsers of TestCLIManual on made-up text: the command list
// ends at its blank line, flags are read from their lines, and a heading naming two commands
// gives its text to both.
func TestCLIManualParsers(t *testing.T) {
	help := "usage: invmmd <command>\n\ncommands:\n  sim       one\n  calibration two\n\nRun \"invmmd help\"\n  notacommand x\n"
	if got := commands(help); !slices.Equal(got, []string{"sim", "calibration"}) {
		t.Errorf("commands = %q", got)
	}
	flagHelp := "flags:\n  -batch int\n    \trows\n  -v\tverbose\n  -z-kind string\n    \tkind\n    -notaflag\n"
	if got := flags(flagHelp); !slices.Equal(got, []string{"batch", "v", "z-kind"}) {
		t.Errorf("flags = %q", got)
	}
	manual := "# title\n## `invmmd a`, `invmmd b`\nshared `-x`\n### `invmmd b`\n`-y N` only\n## other\n`-z`\n"
	s := manualSections(manual)
	if !mentions(s["a"], "x") || mentions(s["a"], "y") || !mentions(s["b"], "x") || !mentions(s["b"], "y") || mentions(s["b"], "z") {
		t.Errorf("manualSections = %q", s)
	}
	if mentions("`-yy`", "y") || !mentions("`-y N`", "y") {
		t.Error("mentions matches a longer flag or misses a flag with a value")
	}
}
