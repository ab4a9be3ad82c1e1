package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invmmd/invmmd/invmmd/results"
)

// TestMain lets the test binary stand in for the command: runShards starts this program
// (os.Executable) for each shard, which in tests is the test binary, with childEnv set.
//
// It registers the toy experiment first (registerToy), in this process and in every shard
// process it stands in for, so that the shards of "all" know it too.
func TestMain(m *testing.M) {
	registerToy()
	if os.Getenv(childEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRunShards runs a small clinical grid as two shard processes and checks the merged
// table holds every fit, the logs exist, and a failing shard's error quotes its log.
func TestRunShards(t *testing.T) {
	dir := t.TempDir()
	args := []string{"clinical", "-quick", "-seeds", "1,2", "-methods", "none,obs", "-lambdas", "1", "-out", dir}
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
