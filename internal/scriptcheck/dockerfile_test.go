package scriptcheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDockerfileCopiesWhatSetupSources checks that docker/Dockerfile copies, before the
// layer that runs scripts/setup.sh, every file that set-up sources, directly or through
// its data scripts. The image copies only those files into that layer so that it is
// reused across source changes; a sourced file left out breaks the image build (and CI's
// docker test) with "No such file or directory", as scripts/lib/aptlock.sh once did.
func TestDockerfileCopiesWhatSetupSources(t *testing.T) {
	root := filepath.Join("..", "..")
	docker, err := os.ReadFile(filepath.Join(root, "docker", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	// The COPY sources that come before the RUN of setup.sh.
	var copied []string
	for _, line := range strings.Split(string(docker), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == "RUN" && strings.Contains(line, "scripts/setup.sh") {
			break
		}
		if f[0] == "COPY" && len(f) >= 3 {
			copied = append(copied, f[1:len(f)-1]...)
		}
	}
	if len(copied) == 0 {
		t.Fatal("docker/Dockerfile: no COPY before the RUN of scripts/setup.sh")
	}
	isCopied := func(path string) bool {
		for _, c := range copied {
			if c == path || (strings.HasSuffix(c, "/") && strings.HasPrefix(path, c)) {
				return true
			}
		}
		return false
	}
	source := regexp.MustCompile(`(?m)^\s*(?:source|\.)\s+"?\$root/([^"\s]+)"?`)
	scripts := []string{"scripts/setup.sh"}
	data, _ := filepath.Glob(filepath.Join(root, "scripts", "data", "*.sh"))
	for _, d := range data {
		rel, _ := filepath.Rel(root, d)
		scripts = append(scripts, filepath.ToSlash(rel))
	}
	checked := 0
	for _, s := range scripts {
		if !isCopied(s) {
			t.Errorf("docker/Dockerfile does not copy %s before running scripts/setup.sh", s)
		}
		text, err := os.ReadFile(filepath.Join(root, s))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range source.FindAllStringSubmatch(string(text), -1) {
			checked++
			if !isCopied(m[1]) {
				t.Errorf("%s sources %s, which docker/Dockerfile does not copy before running scripts/setup.sh", s, m[1])
			}
		}
	}
	if checked == 0 {
		t.Fatal("found no sourced file in the set-up scripts; the pattern no longer matches them")
	}
}
