package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionText: the version, commit and modified flag come from the build information,
// with "(devel)" and "unknown" for what it does not record.
func TestVersionText(t *testing.T) {
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want []string
	}{
		{"no build information", nil, false, []string{"invmmd (devel)\n", "commit   unknown\n", "modified unknown\n", "go       unknown\n"}},
		{"a work tree build without VCS", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/invmmd/invmmd", Version: "(devel)"}},
			true, []string{"invmmd (devel)\n", "module   github.com/invmmd/invmmd\n", "commit   unknown\n", "modified unknown\n", "go       go1.26.8\n"}},
		{"a clean commit", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261127120000-7d2c196a1b2c"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "7d2c196a1b2c3d4e"}, {Key: "vcs.modified", Value: "false"}}},
			true, []string{"invmmd v0.0.0-20261127120000-7d2c196a1b2c\n", "commit   7d2c196a1b2c3d4e\n", "modified false\n"}},
		{"uncommitted changes", &debug.BuildInfo{Main: debug.Module{Version: ""}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}},
			true, []string{"invmmd (devel)\n", "commit   abc\n", "modified true\n"}},
	} {
		got := versionText(tc.bi, tc.ok)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: no %q in\n%s", tc.name, w, got)
			}
		}
	}
}

// TestVersionCommand: invmmd version prints the version to stdout, and refuses arguments.
func TestVersionCommand(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		msg, first string
	}{
		{[]string{"version"}, "", "invmmd "},
		{[]string{"version", "extra"}, `version: unexpected argument "extra"`, ""},
		{[]string{"version", "-v"}, "flag provided but not defined: -v", ""},
	} {
		msg, stdout, _ := run(t, tc.args...)
		if tc.msg == "" && msg != "" || !strings.Contains(msg, tc.msg) {
			t.Errorf("%q: error %q, want %q", tc.args, msg, tc.msg)
		}
		if tc.msg == "" && (!strings.HasPrefix(stdout, tc.first) || !strings.Contains(stdout, "\ncommit   ")) {
			t.Errorf("%q: stdout %q", tc.args, stdout)
		}
	}
}
