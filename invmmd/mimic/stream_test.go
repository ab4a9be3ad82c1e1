package mimic_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/invmmd/invmmd/invmmd/mimic"
	"github.com/invmmd/invmmd/invmmd/mimic/mimictest"
)

// TestStreamingMemory generates a CHARTEVENTS of a few hundred MB and checks that the
// builder's heap stays far below the file size while it streams through it (the real
// CHARTEVENTS is ~33 GB). The heap is sampled with runtime.ReadMemStats every 10 ms.
func TestStreamingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a ~300 MB file")
	}
	const heapBound = 64 << 20
	dir := t.TempDir()
	start := time.Now()
	if err := mimictest.WriteFixture(dir, 11, mimictest.FixtureOptions{Patients: 2000, ChartRowsPerStay: 1400, LabRowsPerStay: 10, Compression: "none"}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "CHARTEVENTS.csv"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("CHARTEVENTS.csv: %s written in %s", mimic.HumanBytes(st.Size()), time.Since(start).Round(time.Millisecond))
	if st.Size() < 200<<20 {
		t.Fatalf("CHARTEVENTS.csv is only %s; the test wants a few hundred MB", mimic.HumanBytes(st.Size()))
	}

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	start = time.Now()
	var prog strings.Builder
	c, rep, err := mimic.Extract(mimic.Config{Dir: dir, Progress: &prog, ProgressEvery: 50 * time.Millisecond})
	el := time.Since(start)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	var chart mimic.FileReport
	for _, f := range rep.Files {
		if f.Table == "CHARTEVENTS" {
			chart = f
		}
	}
	t.Logf("cohort %d stays; CHARTEVENTS %d rows read in %s (%.0f MB/s); whole extraction %s; peak heap %s (baseline %s)",
		len(c.Stays), chart.Rows, chart.Elapsed.Round(time.Millisecond), float64(st.Size())/1e6/chart.Elapsed.Seconds(),
		el.Round(time.Millisecond), mimic.HumanBytes(int64(peak)), mimic.HumanBytes(int64(base)))
	if !strings.Contains(prog.String(), "mimic: CHARTEVENTS.csv: ") || !strings.Contains(prog.String(), "% of "+mimic.HumanBytes(st.Size())) {
		t.Errorf("no periodic progress line for CHARTEVENTS on the progress writer:\n%s", prog.String())
	}
	if chart.Rows < 2_000_000 {
		t.Errorf("only %d CHARTEVENTS rows read", chart.Rows)
	}
	if peak > heapBound {
		t.Errorf("peak heap %s while streaming a %s file, want below %s", mimic.HumanBytes(int64(peak)), mimic.HumanBytes(st.Size()), mimic.HumanBytes(heapBound))
	}
}
