package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/sim"
)

func init() {
	Register(&Command{Name: "sim", Sub: true, Summary: "replay a workload (SWF trace) through the scheduler under a virtual clock", Run: runSim})
}

const simUsage = `Usage: basalt sim [options] WORKLOAD
  WORKLOAD is a trace in the Standard Workload Format (.swf or .swf.gz), or
  LSF's lsb.acct (a name starting with lsb.acct, or --acct): its jobs'
  submit times, slots, run times, -W, users and queues.
  --acct             WORKLOAD is an lsb.acct file
  --envdir DIR       the configuration to replay under (an LSF_ENVDIR); default: the
                     embedded default configuration of --hosts hosts of --slots slots
  --hosts N          hosts of the default configuration (default: the trace's MaxNodes)
  --slots N          slots per host (default: MaxProcs/MaxNodes, else 1)
  --policy P         the default queue of the default configuration: firstfit (as
                     installed), fcfs (SLOT_RESERVE), backfill (and BACKFILL=Y),
                     fairshare (and user FAIRSHARE); default firstfit
  --queue Q          the queue of every job (default: the configuration's default queue)
  --runlimits R      where run limits (bsub -W) come from: requested (the trace's
                     requested times, default), exact (the recorded run times), none
  --jobs N           replay only the first N jobs of the trace
  --interval S       least virtual seconds between scheduling passes (default:
                     JOB_SCHEDULING_INTERVAL, else a pass at every event)
  --every-pass       also run the passes that cannot start a job (no slot free)
  --vs-envdir DIR, --vs-policy P
                     what-if: replay again under this configuration and compare
  --top N            what-if: list the N jobs whose start moved most (default 10)
  --by queue|user    add a summary per queue or per user
  --json             print the summary as one JSON object
  --swf FILE         write the jobs with their simulated waits as SWF
  --csv FILE         write one CSV line per job
  --strict           refuse to run when a trace line cannot be replayed
  --progress         show progress on standard error (default: when it is a terminal)`

type simFlags struct {
	envdir, policy, queue, vsEnvdir, vsPolicy, by, swf, csv, runLimits string
	hosts, slots, top, interval, jobs                                  int
	acct, everyPass, json, strict, progress, noProgress                bool
}

func runSim(ctx context.Context, env *Env, args []string) int {
	var f simFlags
	fs := flag.NewFlagSet("basalt sim", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.envdir, "envdir", "", "")
	fs.StringVar(&f.policy, "policy", "firstfit", "")
	fs.StringVar(&f.queue, "queue", "", "")
	fs.StringVar(&f.vsEnvdir, "vs-envdir", "", "")
	fs.StringVar(&f.vsPolicy, "vs-policy", "", "")
	fs.StringVar(&f.by, "by", "", "")
	fs.StringVar(&f.swf, "swf", "", "")
	fs.StringVar(&f.csv, "csv", "", "")
	fs.IntVar(&f.hosts, "hosts", 0, "")
	fs.IntVar(&f.slots, "slots", 0, "")
	fs.IntVar(&f.top, "top", 10, "")
	fs.StringVar(&f.runLimits, "runlimits", "requested", "")
	fs.IntVar(&f.interval, "interval", 0, "")
	fs.IntVar(&f.jobs, "jobs", 0, "")
	fs.BoolVar(&f.everyPass, "every-pass", false, "")
	fs.BoolVar(&f.acct, "acct", false, "")
	fs.BoolVar(&f.json, "json", false, "")
	fs.BoolVar(&f.strict, "strict", false, "")
	fs.BoolVar(&f.progress, "progress", false, "")
	fs.BoolVar(&f.noProgress, "no-progress", false, "")
	ops, err := parseInterspersed(fs, args)
	if err == flag.ErrHelp {
		fmt.Fprintln(env.Stdout, simUsage)
		return 0
	}
	if err != nil || len(ops) != 1 || (f.by != "" && f.by != "queue" && f.by != "user") {
		if err != nil {
			fmt.Fprintf(env.Stderr, "basalt sim: %v\n", err)
		}
		fmt.Fprintln(env.Stderr, simUsage)
		return 2
	}
	if _, ok := sim.Policies[f.policy]; !ok {
		fmt.Fprintf(env.Stderr, "basalt sim: --policy %q: firstfit, fcfs, backfill or fairshare\n", f.policy)
		return 2
	}
	if _, ok := sim.Policies[f.vsPolicy]; f.vsPolicy != "" && !ok {
		fmt.Fprintf(env.Stderr, "basalt sim: --vs-policy %q: firstfit, fcfs, backfill or fairshare\n", f.vsPolicy)
		return 2
	}
	abs := func(p string) string {
		if wd, err := env.Getwd(); err == nil && p != "" && !filepath.IsAbs(p) {
			return filepath.Join(wd, p)
		}
		return p
	}
	path := abs(ops[0])
	f.swf, f.csv = abs(f.swf), abs(f.csv)
	w, err := readWorkload(ctx, path, f.acct || strings.HasPrefix(filepath.Base(path), "lsb.acct"))
	if err != nil {
		fmt.Fprintf(env.Stderr, "basalt sim: %v\n", err)
		return 1
	}
	if len(w.Problems) > 0 {
		if reportProblems(env, path, w.Problems, f.strict) {
			return 1
		}
	}
	if f.jobs > 0 && f.jobs < len(w.Jobs) {
		w.Jobs = w.Jobs[:f.jobs]
	}
	if len(w.Jobs) == 0 {
		fmt.Fprintf(env.Stderr, "basalt sim: %s: no job to replay\n", path)
		return 1
	}
	hosts, slots := f.hosts, f.slots
	if hosts <= 0 {
		hosts = w.MaxNodes
		if hosts <= 0 {
			hosts = w.MaxProcs
		}
	}
	if slots <= 0 {
		slots = 1
		if w.MaxNodes > 0 && w.MaxProcs > w.MaxNodes && w.MaxProcs%w.MaxNodes == 0 && f.hosts <= 0 {
			slots = w.MaxProcs / w.MaxNodes
		}
	}
	if hosts <= 0 {
		for _, j := range w.Jobs {
			hosts = max(hosts, (j.Procs+slots-1)/slots)
		}
	}
	tmp, err := os.MkdirTemp("", "basalt-sim-")
	if err != nil {
		fmt.Fprintf(env.Stderr, "basalt sim: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)

	run := func(label, envdir, policy, sub string) (*sim.Result, bool) {
		start := time.Unix(w.UnixStart, 0).UTC()
		if w.UnixStart == 0 {
			start = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		if envdir == "" {
			if envdir, err = sim.WriteDefault(tmp+"/"+sub, hosts, slots, policy); err != nil {
				fmt.Fprintf(env.Stderr, "basalt sim: %v\n", err)
				return nil, false
			}
		}
		cfg, err := sim.LoadConfig(ctx, envdir, start)
		if err != nil {
			fmt.Fprintf(env.Stderr, "basalt sim: configuration %s: %v\n", envdir, err)
			return nil, false
		}
		opts := sim.Options{Config: cfg, Slots: slots, RunLimits: f.runLimits, Start: start,
			Interval: time.Duration(f.interval) * time.Second, EveryPass: f.everyPass}
		if f.queue != "" {
			q := f.queue
			opts.Queue = func(*sim.Job) string { return q }
		}
		if p := newSimProgress(env, label, f.progress, f.noProgress); p != nil {
			opts.Progress, opts.ProgressEvery = p.report, 200
			defer p.end()
		}
		res, err := sim.Run(ctx, w, opts)
		if err != nil {
			fmt.Fprintf(env.Stderr, "basalt sim: %v\n", err)
			return nil, false
		}
		return res, true
	}
	resA, ok := run("A", f.envdir, f.policy, "a")
	if !ok {
		return 1
	}
	if len(resA.Problems) > 0 && reportProblems(env, path, resA.Problems, f.strict) {
		return 1
	}
	if f.swf != "" {
		if err := writeFileWith(f.swf, func(out io.Writer) error { return sim.WriteSWF(out, w.Header, resA) }); err != nil {
			fmt.Fprintf(env.Stderr, "basalt sim: %v\n", err)
			return 1
		}
	}
	if f.csv != "" {
		if err := writeFileWith(f.csv, func(out io.Writer) error { return sim.WriteCSV(out, resA) }); err != nil {
			fmt.Fprintf(env.Stderr, "basalt sim: %v\n", err)
			return 1
		}
	}
	sumA := sim.Summarize(resA, f.by)
	if f.vsEnvdir == "" && f.vsPolicy == "" {
		if f.json {
			if err := sumA.JSON(env.Stdout); err != nil {
				fmt.Fprintf(env.Stderr, "basalt sim: %v\n", err)
				return 1
			}
			return 0
		}
		sumA.Text(env.Stdout)
		return 0
	}
	vsPolicy := f.vsPolicy
	if vsPolicy == "" {
		vsPolicy = f.policy
	}
	resB, ok := run("B", f.vsEnvdir, vsPolicy, "b")
	if !ok {
		return 1
	}
	if len(resB.Problems) > 0 {
		reportProblems(env, path, resB.Problems, false)
	}
	cmp := sim.Compare(resA, resB, f.by, f.top)
	if f.json {
		if err := cmp.JSON(env.Stdout); err != nil {
			fmt.Fprintf(env.Stderr, "basalt sim: %v\n", err)
			return 1
		}
		return 0
	}
	nameA, nameB := simConfigName(f.envdir, f.policy), simConfigName(f.vsEnvdir, vsPolicy)
	cmp.Text(env.Stdout, nameA, nameB)
	return 0
}

func simConfigName(envdir, policy string) string {
	if envdir != "" {
		return envdir
	}
	return "default/" + policy
}

func readWorkload(ctx context.Context, path string, acct bool) (*sim.Workload, error) {
	if acct {
		return sim.ReadAcct(ctx, path)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	w, err := sim.ReadSWF(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}

// reportProblems prints the lines that cannot be replayed (the first 20);
// it reports whether the run is refused (strict).
func reportProblems(env *Env, path string, probs []error, strict bool) bool {
	for i, p := range probs {
		if i == 20 {
			fmt.Fprintf(env.Stderr, "basalt sim: %s: and %d more\n", path, len(probs)-20)
			break
		}
		fmt.Fprintf(env.Stderr, "basalt sim: %s: %v\n", path, p)
	}
	if strict {
		fmt.Fprintf(env.Stderr, "basalt sim: %d job(s) cannot be replayed; not run (--strict)\n", len(probs))
		return true
	}
	fmt.Fprintf(env.Stderr, "basalt sim: %d job(s) left out; the rest replayed\n", len(probs))
	return false
}

func writeFileWith(path string, fn func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(fh); err != nil {
		fh.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return fh.Close()
}

// simProgress shows a run's progress on a terminal, at most twice a
// second of wall time (the simulation itself never reads the clock).
type simProgress struct {
	env   *Env
	label string
	began time.Time
	last  time.Time
	shown bool
}

func newSimProgress(env *Env, label string, force, never bool) *simProgress {
	if never {
		return nil
	}
	if !force {
		fh, ok := env.Stderr.(*os.File)
		if !ok {
			return nil
		}
		fi, err := fh.Stat()
		if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			return nil
		}
	}
	now := env.Clock.Now()
	return &simProgress{env: env, label: label, began: now}
}

func (p *simProgress) report(pr sim.Progress) {
	now := p.env.Clock.Now()
	if now.Sub(p.last) < 500*time.Millisecond && pr.Done < pr.Total {
		return
	}
	p.last = now
	wall := now.Sub(p.began)
	speed := ""
	if wall > 0 {
		speed = fmt.Sprintf(", %.0fx real time", pr.Simulated.Seconds()/wall.Seconds())
	}
	d := int64(pr.Simulated / time.Second)
	fmt.Fprintf(p.env.Stderr, "\r%s: %d/%d jobs done, simulated %dd %02d:%02d%s   ", p.label, pr.Done, pr.Total,
		d/86400, d/3600%24, d/60%60, speed)
	p.shown = true
}

func (p *simProgress) end() {
	if p.shown {
		fmt.Fprintln(p.env.Stderr)
	}
}
