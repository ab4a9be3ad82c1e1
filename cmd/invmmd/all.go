package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/invmmd/invmmd/invmmd/backend"
	"github.com/invmmd/invmmd/invmmd/experiments"
	"github.com/invmmd/invmmd/invmmd/experiments/store"
	"github.com/invmmd/invmmd/invmmd/prop1"
)

// defaultJobs is the number of shards "invmmd all" runs at once: one per CPU up to 8 on
// the pure-Go backend, which leaves cores idle within a training step (two textured-MNIST
// shards on 2 cores kept both 93% busy), and 1 on XLA, whose processes would each claim
// the accelerator's memory.
func defaultJobs() int {
	if strings.HasPrefix(backend.Config(), "xla") {
		return 1
	}
	return min(runtime.NumCPU(), 8)
}

// mainJobText says what the main job runs, in order: each step's command line, those
// left out with -quick marked.
func mainJobText() string {
	quick := studies.MainJob(true)
	var parts []string
	for _, st := range studies.MainJob(false) {
		p := strings.Join(st.Args, " ")
		if !slices.ContainsFunc(quick, func(q experiments.Step) bool { return q.Name == st.Name }) {
			p += " (not with -quick)"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// runAll runs the main job (every study's Steps) into one folder. It first checks every
// step (flags, inputs, the tables it would replace), so that a missing input is reported
// at once rather than after hours of earlier steps, and prints the steps with an estimate
// of the total (eta), then after each step the time left. Once ctx is done it stops
// (forwarding the signal to its shard processes), keeping every finished fit, and says
// how to go on.
func runAll(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("all", "[-quick] [-out DIR] [-resume] [-jobs N] [-experiments NAME,...] [-force] [-check]", stdout, stderr, func() string {
		return "Runs " + mainJobText() + ",\nin this order, with their default methods, λ and seeds.\n" +
			"Every step is checked (flags, input data, output folder) before the first fit.\n" +
			"It prints the steps and an estimate of the total first, and after each step the time elapsed and an\n" +
			"estimate of the time left: the step times recorded with each study, scaled by this run's pace.\n" +
			"With -jobs N > 1 each experiment runs as N shards (invmmd EXPERIMENT -shard i/N) in parallel processes,\n" +
			"whose output goes to OUT/logs/, and then invmmd merge assembles its tables; the results are the same."
	})
	quick := fs.Bool("quick", false, "small data and few epochs; writes to "+quickOut()+" unless -out is given")
	out := fs.String("out", "", "output folder (default figures/, or "+quickOut()+" with -quick)")
	resume := fs.Bool("resume", false, "skip fits (and variance batch sizes) whose result file exists under OUT/fits")
	jobs := new(int)
	*jobs = defaultJobs()
	fs.Var(intValue{jobs}, "jobs", "`n` shards of each experiment run at once, each in its own process (1: one process; default: one per CPU up to 8, 1 on XLA)")
	only := fs.String("experiments", "", "comma-separated steps of the main job to run, by the names their results are stored under (e.g. sim_mf075,variance); default: every step")
	force := fs.Bool("force", false, "passed to every step: replace tables of another configuration or with fits the step leaves out")
	checkOnly := fs.Bool("check", false, "run each step's -check (its flags, inputs, output folder and the configuration stored there), print what each says, then exit without training or writing anything")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *jobs < 1 {
		return fmt.Errorf("all: -jobs %d: want at least 1", *jobs)
	}
	steps, err := chooseSteps(studies.MainJob(*quick), *only)
	if err != nil {
		return err
	}
	dir, err := outFor(*out, *quick, *force)
	if err != nil {
		return err
	}
	q := []string{"-out", dir}
	if *quick {
		q = append(q, "-quick")
	}
	if *resume {
		q = append(q, "-resume")
	}
	if *force {
		q = append(q, "-force")
	}
	checkW := io.Discard
	if *checkOnly {
		checkW = stdout
	}
	for _, st := range steps {
		a := append(append(append([]string{}, st.Args...), q...), "-check")
		var msgs bytes.Buffer
		if err := dispatchContext(ctx, a, checkW, &msgs); err != nil {
			return fmt.Errorf("all: step %s, checked before any fit: %w", strings.Join(st.Args, " "), err)
		}
	}
	if *checkOnly {
		fmt.Fprintf(stdout, "all: %d of the main job's steps checked; nothing was trained or written\n", len(steps))
		return nil
	}
	if err := prepareOut(dir); err != nil {
		return err
	}
	est := newETA(steps, *quick)
	est.plan(stderr, *quick)
	start := time.Now()
	for _, st := range steps {
		c := strings.Join(st.Args, " ")
		a := append(append([]string{}, st.Args...), q...)
		t0 := time.Now()
		var err error
		if *jobs == 1 {
			err = dispatchContext(ctx, a, stdout, stderr)
		} else {
			err = runShards(ctx, st.Name, a, *jobs, dir, stdout, stderr)
		}
		var ie *interrupted
		if errors.As(err, &ie) {
			return &interrupted{kept: "every finished fit is kept under " + filepath.Join(dir, "fits") + " (stopped in step " + c + ")", resume: resumeLine("all", args)}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
		took := time.Since(t0)
		est.finish(took)
		est.progress(stderr, c, took, time.Since(start))
	}
	return nil
}

// chooseSteps returns the steps named in only (comma-separated; empty: every step), in the
// main job's order; a name that is not a step is an error listing them.
func chooseSteps(steps []experiments.Step, only string) ([]experiments.Step, error) {
	if strings.TrimSpace(only) == "" {
		return steps, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(only, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var names []string
	var chosen []experiments.Step
	for _, st := range steps {
		names = append(names, st.Name)
		if want[st.Name] {
			chosen = append(chosen, st)
			delete(want, st.Name)
		}
	}
	if len(want) > 0 {
		unknown := slices.Sorted(maps.Keys(want))
		return nil, fmt.Errorf("all: -experiments: %q: not a step of this main job (its steps: %s)", strings.Join(unknown, ","), strings.Join(names, ", "))
	}
	return chosen, nil
}

// childEnv marks a process started by runShards: the test binary, which stands in for
// the command in tests, then runs the command line instead of the tests (TestMain).
const childEnv = "INVMMD_CLI_CHILD"

// runShards runs the command line args as jobs processes of this program, shard i/jobs
// each, their output in dir/logs/NAME.shardI.log and the count of finished fits reported
// on stderr; then it merges name's tables. Once ctx is done it forwards SIGINT to every
// shard, waits for them all and returns an *interrupted error.
func runShards(ctx context.Context, name string, args []string, jobs int, dir string, stdout, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find this program to start its shards: %w (use -jobs 1)", err)
	}
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return fmt.Errorf("shard logs: %w", err)
	}
	fmt.Fprintf(stderr, "invmmd all: %s in %d shards, logs in %s\n", name, jobs, logs)
	errs := make([]error, jobs)
	var procs []*os.Process
	var wg sync.WaitGroup
	for i := range jobs {
		shard := fmt.Sprintf("%d/%d", i+1, jobs)
		logPath := filepath.Join(logs, fmt.Sprintf("%s.shard%d.log", name, i+1))
		f, err := os.Create(logPath)
		if err != nil {
			return fmt.Errorf("shard log: %w", err)
		}
		cmd := exec.Command(exe, append(append([]string{}, args...), "-shard", shard)...)
		cmd.Stdout, cmd.Stderr, cmd.Env = f, f, append(os.Environ(), childEnv+"=1")
		if err := cmd.Start(); err != nil {
			f.Close()
			return fmt.Errorf("shard %s: %w", shard, err)
		}
		procs = append(procs, cmd.Process)
		wg.Go(func() {
			defer f.Close()
			if err := cmd.Wait(); err != nil {
				errs[i] = fmt.Errorf("shard %s failed (%v); the end of %s:\n%s", shard, err, logPath, tail(logPath, 12))
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	go func() {
		select {
		case <-ctx.Done():
			for _, p := range procs {
				_ = p.Signal(os.Interrupt)
			}
		case <-done:
		}
	}()
	reportFits(name, dir, done, stderr)
	if ctx.Err() != nil {
		return &interrupted{kept: fmt.Sprintf("the %d shards of %s stopped, and every finished fit is kept under %s", jobs, name, store.Dir(dir, name)),
			resume: resumeLine(args[0], args[1:])}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return dispatch([]string{"merge", "-out", dir, "-experiments", name}, stdout, stderr)
}

// reportFits prints, every few seconds until done is closed, how many result files
// name's store holds, when that number has changed.
func reportFits(name, dir string, done <-chan struct{}, stderr io.Writer) {
	t0, last := time.Now(), -1
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		if n := store.Count(dir, name); n != last {
			last = n
			fmt.Fprintf(stderr, "invmmd all: %s: %d results written (%s)\n", name, n, time.Since(t0).Round(time.Second))
		}
	}
}

// tail returns the last n lines of the file at path (a carriage return ends a line).
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read it: %v)", err)
	}
	lines := strings.Split(string(bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))), "\n")
	lines = slices.DeleteFunc(lines, func(l string) bool { return strings.TrimSpace(l) == "" })
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// runProp1 checks Proposition 2 (package prop1; appendix D) numerically.
func runProp1(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("prop1", "[flags]", stdout, stderr, nil)
	seed, n, reps := new(uint64), new(int), new(int)
	*seed = 1
	fs.Var(uintValue{seed}, "seeds", "the `seed` of every draw (one: the check draws once)")
	fs.Var(intValue{n}, "n", "`rows` per slice and repetition (0: 2000)")
	fs.Var(intValue{reps}, "reps", "`n` repetitions per slice (0: 40)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < 0 || *reps < 0 {
		return fmt.Errorf("prop1: -n %d, -reps %d: want ≥ 0 (0: the default)", *n, *reps)
	}
	if *n > 0 && *n < 4 {
		return fmt.Errorf("prop1: -n %d: want at least 4 rows per slice (0: 2000)", *n)
	}
	if *reps == 1 {
		return fmt.Errorf("prop1: -reps 1: want at least 2 (standard errors need two; 0: 40)")
	}
	res, err := prop1.Run(ctx, prop1.Config{Seed: *seed, N: *n, Reps: *reps, Progress: stderr})
	if err != nil {
		return err
	}
	return res.Write(stdout)
}

// eta estimates how long the main job's remaining steps take: the recorded time of each
// (experiments.Step's Quick and Full), scaled by the pace of this run so far (the time its
// finished steps took over the time recorded for them).
type eta struct {
	names    []string
	expected []time.Duration // 0: no recorded time
	done     int             // steps finished
	tookRec  time.Duration   // wall time of the finished steps that have a recorded time
	recDone  time.Duration   // the recorded time of those
}

// newETA returns the estimate for the steps of the quick or paper-size main job.
func newETA(steps []experiments.Step, quick bool) *eta {
	e := &eta{}
	for _, st := range steps {
		d := st.Full
		if quick {
			d = st.Quick
		}
		e.names, e.expected = append(e.names, st.Name), append(e.expected, d)
	}
	return e
}

// finish records that the next step took d.
func (e *eta) finish(d time.Duration) {
	if e.done >= len(e.names) {
		return
	}
	if rec := e.expected[e.done]; rec > 0 {
		e.tookRec += d
		e.recDone += rec
	}
	e.done++
}

// pace is the ratio of the time the finished steps took to their recorded time (1 before
// any step with a recorded time has finished).
func (e *eta) pace() float64 {
	if e.recDone <= 0 || e.tookRec <= 0 {
		return 1
	}
	return float64(e.tookRec) / float64(e.recDone)
}

// left returns the estimated time of the steps not finished yet, and how many of them
// have no recorded time (and so are not in the estimate).
func (e *eta) left() (time.Duration, int) {
	var sum time.Duration
	unknown := 0
	for _, d := range e.expected[e.done:] {
		if d <= 0 {
			unknown++
			continue
		}
		sum += d
	}
	return time.Duration(float64(sum) * e.pace()), unknown
}

// plan writes, before the first step, the steps with their recorded times and the total.
func (e *eta) plan(w io.Writer, quick bool) {
	size := "paper-size"
	if quick {
		size = "quick"
	}
	total, unknown := e.left()
	fmt.Fprintf(w, "invmmd all: %s of the %s main job, about %s in all (%s)%s:\n",
		plural(len(e.names), "step"), size, roughly(total), experiments.StepTimesSource, unknownNote(unknown))
	width := 0
	for _, n := range e.names {
		width = max(width, len(n))
	}
	for i, n := range e.names {
		rec := "no recorded time"
		if e.expected[i] > 0 {
			rec = "about " + roughly(e.expected[i])
		}
		fmt.Fprintf(w, "  %d. %-*s  %s\n", i+1, width, n, rec)
	}
}

// progress writes, after a step, how long it took, the time elapsed since the job started
// and the estimate of the time left.
func (e *eta) progress(w io.Writer, step string, took, elapsed time.Duration) {
	line := fmt.Sprintf("invmmd all: step %d of %d, %s, done in %s; %s elapsed", e.done, len(e.names), step, took.Round(time.Second), elapsed.Round(time.Second))
	left, unknown := e.left()
	switch {
	case e.done == len(e.names):
		line += ", every step done"
	case left == 0 && unknown > 0:
		line += fmt.Sprintf("; %s left without a recorded time", plural(unknown, "step"))
	default:
		line += ", about " + roughly(left) + " left"
		if p := e.pace(); p < 0.9 || p > 1.1 {
			line += fmt.Sprintf(" (the recorded times × %.1f, this run's pace so far)", p)
		}
		line += unknownNote(unknown)
	}
	fmt.Fprintln(w, line)
}

// unknownNote is ", plus N step(s) without a recorded time" when n > 0.
func unknownNote(n int) string {
	if n == 0 {
		return ""
	}
	return ", plus " + plural(n, "step") + " without a recorded time"
}

// plural writes "1 step" or "3 steps".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// roughly writes an estimate at the precision it deserves: seconds under two minutes,
// whole minutes under two hours, hours and minutes to the quarter hour beyond.
func roughly(d time.Duration) string {
	switch {
	case d < 2*time.Minute:
		return d.Round(time.Second).String()
	case d < 2*time.Hour:
		return fmt.Sprintf("%d min", int(d.Round(time.Minute)/time.Minute))
	}
	q := d.Round(15 * time.Minute)
	h, m := int(q/time.Hour), int(q%time.Hour/time.Minute)
	if m == 0 {
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d h %d min", h, m)
}
