package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/invmmd/invmmd/invmmd/tmnist"

	"github.com/invmmd/invmmd/invmmd/results"
)

// TestMain lets the test binary stand in for the command: runShards starts this program
// (os.Executable) for each shard, which in tests is the test binary, with childEnv set.
//
// It registers the toy experiment first (registerToy), in this process and in every shard
// process it stands in for, so that the shards of "all" know it too, and tunes the
// backend as main does (tuneBackend), so that what the tests run in this process and
// what they run in a shard process compute the same numbers.
func TestMain(m *testing.M) {
	registerToy()
	tuneBackend()
	if os.Getenv(childEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRunShards runs a small clinical grid (on a quarter of flchain's rows) as two shard processes and checks the merged
// table holds every fit, the logs exist, and a failing shard's error quotes its log.
func TestRunShards(t *testing.T) {
	skipLong(t, "two shard processes of the clinical experiment")
	dir := t.TempDir()
	data := filepath.Join(t.TempDir(), "flchain.csv") // a quarter of the rows, for speed
	if err := os.WriteFile(data, flchainSample(t), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"clinical", "-quick", "-data", data, "-seeds", "1,2", "-methods", "none,obs", "-lambdas", "1", "-out", dir}
	var stdout, stderr strings.Builder
	if err := runShards(context.Background(), "clinical", args, 2, dir, &stdout, &stderr); err != nil {
		t.Fatalf("runShards: %v\nstderr:\n%s", err, stderr.String())
	}
	rows, err := results.ReadCSVFile(results.TablePath(filepath.Join(dir, "tables"), "clinical", 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Errorf("merged table has %d rows, want 4 (none and obs × 2 seeds)", len(rows))
	}
	for i := 1; i <= 2; i++ {
		if _, err := os.Stat(filepath.Join(dir, "logs", "clinical.shard"+string(rune('0'+i))+".log")); err != nil {
			t.Errorf("shard log: %v", err)
		}
	}
	err = runShards(context.Background(), "clinical", []string{"clinical", "-quick", "-nosuchflag", "-out", dir}, 2, dir, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "shard 1/2 failed") || !strings.Contains(err.Error(), "flag provided but not defined: -nosuchflag") {
		t.Fatalf("a failing shard: %v, want its failure and the end of its log", err)
	}
}

// TestAllJobsFlag rejects a number of jobs below 1 before any work.
func TestAllJobsFlag(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "never")
	if msg, _, _ := run(t, "all", "-quick", "-jobs", "0", "-out", fresh); !strings.Contains(msg, "-jobs 0: want at least 1") {
		t.Fatalf("all -jobs 0: %q", msg)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("all -jobs 0 created %s", fresh)
	}
}

// TestAllChecksEveryInputFirst: a missing MNIST is reported before the simulation steps
// run (at paper size, 43 minutes of work before the error), and nothing is trained.
func TestAllChecksEveryInputFirst(t *testing.T) {
	t.Setenv(tmnist.DataDirEnv, t.TempDir())
	dir := t.TempDir()
	msg, _, _ := run(t, "all", "-quick", "-jobs", "1", "-out", dir)
	if !strings.Contains(msg, "step tmnist, checked before any fit") || !strings.Contains(msg, "MNIST") {
		t.Fatalf("all without MNIST: %q, want the tmnist step's missing input", msg)
	}
	if _, err := os.Stat(filepath.Join(dir, "fits")); err == nil {
		t.Error("all trained before reporting the missing input")
	}
}

// TestAllForwardsSIGINTToItsShards runs "invmmd all -jobs 2" as its own process, sends
// SIGINT to it alone once its two shard processes run, and checks that it forwards the
// signal and waits: both shards log their interruption, and the parent exits with status
// 130 and the resume line.
func TestAllForwardsSIGINTToItsShards(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, "all", "-quick", "-jobs", "2", "-experiments", "sim", "-out", dir)
	var stderr bytes.Buffer
	cmd.Stderr, cmd.Stdout, cmd.Env = &stderr, io.Discard, append(os.Environ(), childEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := []string{filepath.Join(dir, "logs", "sim.shard1.log"), filepath.Join(dir, "logs", "sim.shard2.log")}
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, e1 := os.Stat(logs[0])
		_, e2 := os.Stat(logs[1])
		if e1 == nil && e2 == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no shard logs after 60 s; stderr:\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // the shards install their signal handlers
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(120 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("all did not stop within 120 s of SIGINT; stderr:\n%s", stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Errorf("exit: %v, want status %d", err, exitInterrupted)
	}
	if !strings.Contains(stderr.String(), "interrupted;") || !strings.Contains(stderr.String(), "invmmd all -quick -jobs 2 -experiments sim -out "+dir+" -resume") {
		t.Errorf("stderr lacks the interruption and the resume line:\n%s", stderr.String())
	}
	for _, l := range logs {
		if b, _ := os.ReadFile(l); !bytes.Contains(b, []byte("interrupted;")) {
			t.Errorf("%s: the shard was not interrupted through its handler:\n%s", l, b)
		}
	}
}

// TestAllCheck: all -check runs every chosen step's -check, prints what each says, and
// writes nothing; a step that fails its check is the error, as before a run.
func TestAllCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
		wantOut []string
	}{
		{"two steps", []string{"all", "-quick", "-check", "-experiments", "sim,variance", "-out", out},
			"", []string{"sim: 5 fits in all", "variance: 7 batch sizes", "all: 2 of the main job's steps checked; nothing was trained or written"}},
		{"with -resume and -force", []string{"all", "-quick", "-check", "-resume", "-force", "-experiments", "sim", "-out", out},
			"", []string{"sim: 5 fits in all", "all: 1 of the main job's steps checked"}},
		{"-out a file", []string{"all", "-quick", "-check", "-experiments", "sim", "-out", file}, "is a file", nil},
		{"an unknown step", []string{"all", "-quick", "-check", "-experiments", "nope", "-out", out}, `"nope": not a step`, nil},
	} {
		msg, stdout, _ := run(t, tc.args...)
		if tc.wantErr == "" && msg != "" || !strings.Contains(msg, tc.wantErr) {
			t.Errorf("%s: error %q, want %q", tc.name, msg, tc.wantErr)
		}
		for _, w := range tc.wantOut {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", tc.name, w, stdout)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: -check created %s", tc.name, out)
			os.RemoveAll(out)
		}
	}
}
