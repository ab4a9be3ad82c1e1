package scriptcheck

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeAptGet stands in for apt-get: it logs each run, and in mode "lock" fails with
// apt's own messages while another process holds $FAKE_LOCK (flock), in "missing" and
// "perm" fails at once as apt does for an unknown package and for a user who is not root.
const fakeAptGet = `#!/bin/bash
echo "ran $*" >>"$FAKE_LOG"
case "$FAKE_MODE" in
lock)
	if ! flock -n "$FAKE_LOCK" true; then
		echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process $(cat "$FAKE_LOCK.pid") (unattended-upgr)" >&2
		echo "N: Be aware that removing the lock file is not a solution and may break your system." >&2
		echo "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?" >&2
		exit 100
	fi
	echo "installed" ;;
missing)
	echo "E: Unable to locate package nosuch" >&2
	exit 100 ;;
perm)
	echo "E: Could not open lock file /var/lib/dpkg/lock-frontend - open (13: Permission denied)" >&2
	echo "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), are you root?" >&2
	exit 100 ;;
esac
`

// TestAptWaitsForTheLock runs apt_wait (scripts/lib/aptlock.sh) with a fake apt-get
// while a real process holds a lock for a while: it must wait, saying for whom, and go on
// once the lock is free; give up with a clear message once its bound has passed; and not
// wait at all for failures that are not about the lock.
func TestAptWaitsForTheLock(t *testing.T) {
	for _, tool := range []string{"bash", "flock"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	lib, err := filepath.Abs(filepath.Join("..", "..", "scripts", "lib", "aptlock.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		mode     string
		hold     time.Duration // how long the holder keeps the lock (0: no holder)
		wait     string        // INVMMD_APT_WAIT
		rc       int
		runs     func(int) bool // of the fake apt-get
		stdout   string
		stderr   []string
		noStderr string
		took     func(time.Duration) bool
	}{
		{name: "free lock", mode: "lock", wait: "10", rc: 0, runs: eq(1), stdout: "installed", noStderr: "waiting",
			took: func(d time.Duration) bool { return d < 2*time.Second }},
		{name: "lock freed after a while", mode: "lock", hold: 2500 * time.Millisecond, wait: "20", rc: 0,
			runs: func(n int) bool { return n >= 2 }, stdout: "installed",
			stderr: []string{"setup: waiting for the package manager's lock, held by process ", "(unattended-upgr): retrying \"apt-get install -y nosuch\" every 1 s, ", " s waited of at most 20 s"}, // 0 s, or 1 on a loaded machine
			took:   func(d time.Duration) bool { return d >= 2*time.Second && d < 10*time.Second }},
		{name: "lock held past the bound", mode: "lock", hold: 30 * time.Second, wait: "2", rc: 1,
			runs: func(n int) bool { return n >= 2 && n <= 4 },
			stderr: []string{"waiting for the package manager's lock", "setup: ERROR: gave up after 2 s: the package manager's lock is still held by process ",
				"(INVMMD_APT_WAIT=SECONDS waits longer)", "    E: Could not get lock /var/lib/dpkg/lock-frontend"},
			took: func(d time.Duration) bool { return d >= 2*time.Second && d < 8*time.Second }},
		{name: "unknown package: no wait", mode: "missing", wait: "10", rc: 100, runs: eq(1),
			stderr: []string{"E: Unable to locate package nosuch"}, noStderr: "waiting",
			took: func(d time.Duration) bool { return d < 2*time.Second }},
		{name: "not root: no wait", mode: "perm", hold: 5 * time.Second, wait: "10", rc: 100, runs: eq(1),
			stderr: []string{"Permission denied"}, noStderr: "waiting",
			took: func(d time.Duration) bool { return d < 2*time.Second }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			os.Mkdir(bin, 0o755)
			if err := os.WriteFile(filepath.Join(bin, "apt-get"), []byte(fakeAptGet), 0o755); err != nil {
				t.Fatal(err)
			}
			lock, log := filepath.Join(dir, "lock"), filepath.Join(dir, "runs.log")
			if c.hold > 0 {
				ready := filepath.Join(dir, "ready")
				holder := exec.Command("flock", lock, "sh", "-c", "echo $$ >\"$0.pid\"; touch \"$1\"; sleep "+seconds(c.hold), lock, ready)
				if err := holder.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
				for i := 0; ; i++ {
					if _, err := os.Stat(ready); err == nil {
						break
					}
					if i > 200 {
						t.Fatal("the lock holder did not start")
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			cmd := exec.Command("bash", "-c", `source "$0"; apt_wait apt-get install -y nosuch`, lib)
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "FAKE_MODE="+c.mode, "FAKE_LOCK="+lock, "FAKE_LOG="+log,
				"INVMMD_APT_WAIT="+c.wait, "INVMMD_APT_POLL=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			t0 := time.Now()
			err := cmd.Run()
			took := time.Since(t0)
			rc := 0
			if ee, ok := err.(*exec.ExitError); ok {
				rc = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(log)
			runs := strings.Count(string(b), "ran ")
			if rc != c.rc || !c.runs(runs) || !c.took(took) {
				t.Errorf("exit %d after %d runs of apt-get in %v, want exit %d; stderr:\n%s", rc, runs, took.Round(time.Millisecond), c.rc, stderr.String())
			}
			if !strings.Contains(stdout.String(), c.stdout) {
				t.Errorf("stdout %q, want %q", stdout.String(), c.stdout)
			}
			for _, w := range c.stderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
			if c.noStderr != "" && strings.Contains(stderr.String(), c.noStderr) {
				t.Errorf("stderr says %q:\n%s", c.noStderr, stderr.String())
			}
		})
	}
}

// eq returns a predicate that holds for n.
func eq(n int) func(int) bool { return func(m int) bool { return m == n } }

// seconds writes d for sleep(1), in seconds with a fraction.
func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
