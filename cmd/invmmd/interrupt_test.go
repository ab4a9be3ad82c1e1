package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInterruptWaitsForTheWork cancels the context of a running sweep (as SIGINT does in
// main) once it has started fitting, and checks that the command returns promptly with the
// interruption and its resume line, and that nothing runs on after it has returned: the
// result folder does not change any more.
func TestInterruptWaitsForTheWork(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	args := []string{"sim", "-quick", "-seeds", "1", "-methods", "none,dr", "-lambdas", "1", "-out", dir}
	done := make(chan error, 1)
	go func() {
		var out, errb strings.Builder
		done <- dispatchContext(ctx, args, &out, &errb)
	}()
	started := filepath.Join(dir, "fits", "sim", "data_seed1.json") // written once the seed's data is built, before any fit
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the sweep ended before it was interrupted: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the sweep did not start fitting within 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t0 := time.Now()
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the sweep did not stop within a minute of its interruption")
	}
	var ie *interrupted
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "invmmd sim -quick -seeds 1 -methods none,dr -lambdas 1 -out "+dir+" -resume") {
		t.Fatalf("error %v, want the interruption with its resume line", err)
	}
	t.Logf("stopped %v after the interruption", time.Since(t0).Round(time.Millisecond))
	before := listFiles(t, dir)
	time.Sleep(2 * time.Second)
	if after := listFiles(t, dir); after != before {
		t.Errorf("the result folder changed after the command returned:\nbefore %s\nafter  %s", before, after)
	}
}

// listFiles lists the files under dir with their sizes, one per line.
func listFiles(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() {
			b.WriteString(p + " " + info.ModTime().String() + "\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
