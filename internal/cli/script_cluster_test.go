package cli_test

import (
	"context"
	"fmt"
	"github.com/basalt-lsf/basalt/internal/cli"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cluster"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/testutil"
	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands for batch clusters:
//
//	cluster-up [--hosts N] [--slots N] [--no-sbd] [--user NAME] [--netns]
//	                      start a local cluster in $WORK/cluster (unique
//	                      cluster name) and wait until it accepts jobs. Files
//	                      in $WORK/cluster-conf/ replace the generated
//	                      configuration (lsb.* go to the batch directory);
//	                      $WORK/cluster-conf/lsf.conf.extra lines are appended
//	                      to lsf.conf. Sets LSF_ENVDIR, BASALT_HOST and
//	                      CLUSTER (the cluster's name); the
//	                      cluster stops when the script ends. --user runs
//	                      every daemon as that unprivileged user ($WORK is
//	                      opened to it; run its commands with
//	                      runuser -u NAME -- $WORK/cluster/bin/CMD).
//	job-wait ID STATE [SECONDS]
//	                      wait until bjobs shows job ID in STATE
//	on HOST COMMAND [ARG...]
//	                      run COMMAND as exec does, on HOST: in its
//	                      network namespace (cluster-up --netns) with
//	                      BASALT_HOST=HOST
func init() {
	scriptCmds["cluster-up"] = scriptClusterUp
	scriptCmds["job-wait"] = scriptJobWait
	scriptCmds["mask"] = scriptMask
	scriptCmds["on"] = scriptOn
}

// scriptClusters holds each script's cluster by $WORK: a namespace
// cluster's hosts are reached from inside their namespaces.
var scriptClusters sync.Map

// inHost runs fn in host's network namespace when the script's cluster is
// a namespace cluster (directly otherwise).
func inHost(ts *testscript.TestScript, host string, fn func() error) error {
	if v, ok := scriptClusters.Load(ts.Getenv("WORK")); ok {
		return v.(*cluster.Cluster).InHost(host, fn)
	}
	return fn()
}

func scriptOn(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: on HOST COMMAND [ARG...]")
	}
	prev := ts.Getenv("BASALT_HOST")
	ts.Setenv("BASALT_HOST", args[0])
	defer ts.Setenv("BASALT_HOST", prev)
	err := inHost(ts, args[0], func() error { return ts.Exec(args[1], args[2:]...) })
	if neg {
		if err == nil {
			ts.Fatalf("unexpected command success")
		}
		return
	}
	if err != nil {
		ts.Fatalf("%v", err)
	}
}

func scriptClusterUp(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! cluster-up")
	}
	work := ts.Getenv("WORK")
	o := cluster.Options{Dir: filepath.Join(work, "cluster"), Has: func(n string) bool { _, ok := cli.Lookup(n); return ok },
		Cluster: fmt.Sprintf("t%d", rand.New(rand.NewSource(time.Now().UnixNano())).Intn(1e9)), Timeout: 60 * time.Second,
		Files: map[string][]byte{}}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--hosts", "--slots":
			if i+1 >= len(args) {
				ts.Fatalf("cluster-up: %s needs a value", args[i])
			}
			n, err := strconv.Atoi(args[i+1])
			ts.Check(err)
			if args[i] == "--hosts" {
				o.Hosts = n
			} else {
				o.Slots = n
			}
			i++
		case "--no-sbd":
			o.NoSBD = true
		case "--netns":
			o.Netns = true
		case "--user":
			if i+1 >= len(args) {
				ts.Fatalf("cluster-up: --user needs a value")
			}
			o.User = args[i+1]
			i++
			// The user reaches $WORK (and writes its jobs' files there).
			ts.Check(os.Chmod(filepath.Dir(work), 0o711))
			ts.Check(os.Chmod(work, 0o777))
		default:
			ts.Fatalf("cluster-up: unknown argument %q", args[i])
		}
	}
	if entries, err := os.ReadDir(filepath.Join(work, "cluster-conf")); err == nil {
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(work, "cluster-conf", e.Name()))
			ts.Check(err)
			if e.Name() == "lsf.conf.extra" {
				o.Conf = strings.Split(strings.TrimSpace(string(b)), "\n")
				continue
			}
			o.Files[e.Name()] = b
		}
	}
	raceDir := filepath.Join(work, "race")
	if testutil.Race {
		// The daemons are this race-enabled test binary: their reports
		// go to files the script checks once the cluster is down.
		ts.Check(os.MkdirAll(raceDir, 0o777))
		o.Env = append(o.Env, "GORACE=log_path="+filepath.Join(raceDir, "daemon"))
	}
	c, err := cluster.Up(context.Background(), o)
	if err != nil {
		ts.Fatalf("cluster-up: %v", err)
	}
	if o.Netns {
		scriptClusters.Store(work, c)
	}
	ts.Defer(func() {
		scriptClusters.Delete(work)
		if err := c.Down(context.Background()); err != nil {
			ts.Logf("cluster down: %v", err)
		}
		if reports := daemonRaces(raceDir); reports != "" {
			ts.Value(scriptTKey{}).(testscript.T).Fatal("data race in a daemon:\n" + reports)
		}
	})
	ts.Setenv("LSF_ENVDIR", c.EnvDir)
	ts.Setenv("BASALT_HOST", "host1")
	ts.Setenv("CLUSTER", c.Opts.Cluster)
}

// daemonRaces returns the race detector's reports the daemons wrote in
// dir (GORACE log_path, one file per process), "" when there are none.
func daemonRaces(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "daemon.*"))
	var b strings.Builder
	for _, f := range files {
		if r, err := os.ReadFile(f); err == nil && len(r) > 0 {
			fmt.Fprintf(&b, "%s:\n%s\n", filepath.Base(f), r)
		}
	}
	return b.String()
}

func scriptJobWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: job-wait ID STATE [SECONDS]")
	}
	refs, err := cli.ParseJobIDs(args[:1])
	if err != nil || len(refs) != 1 {
		ts.Fatalf("job-wait: bad job ID %q", args[0])
	}
	timeout := 30 * time.Second
	if len(args) == 3 {
		s, err := strconv.Atoi(args[2])
		ts.Check(err)
		timeout = time.Duration(s) * time.Second
	}
	env := &cli.Env{Getenv: ts.Getenv, Environ: os.Environ, Stderr: os.Stderr, Stdout: os.Stdout}
	last := "not found"
	if testutil.Poll(timeout, func() bool {
		var c *rpc.Client
		err := inHost(ts, ts.Getenv("BASALT_HOST"), func() (err error) {
			c, err = cli.DialMbd(context.Background(), env)
			return err
		})
		if err != nil {
			return false
		}
		defer c.Close()
		st, err := c.Stream(context.Background(), api.MBatchdJobs, &api.JobsRequest{Jobs: refs})
		if err != nil {
			return false
		}
		var r api.JobsReply
		if st.Recv(&r) == nil && len(r.Jobs) > 0 {
			last = statName(r.Jobs[0].State)
		}
		return last == args[1]
	}) {
		return
	}
	ts.Fatalf("job-wait: job %s is %s after %v, want %s", args[0], last, timeout, args[1])
}

func statName(s api.JobState) string {
	switch s {
	case api.StatePend:
		return "PEND"
	case api.StatePSusp:
		return "PSUSP"
	case api.StateRun:
		return "RUN"
	case api.StateSSusp:
		return "SSUSP"
	case api.StateUSusp:
		return "USUSP"
	case api.StateDone:
		return "DONE"
	case api.StateExit:
		return "EXIT"
	case api.StateUnkwn:
		return "UNKWN"
	case api.StateZombi:
		return "ZOMBI"
	}
	return strconv.Itoa(int(s))
}

var (
	// Dates as LSF prints them: "Mon Nov 22 15:20:01 2026" (ctime),
	// "Mon Nov 22 15:20:01" (bjobs -l, bhist -l), "Nov 22 15:20" (bjobs).
	maskDateRE = regexp.MustCompile(`((Mon|Tue|Wed|Thu|Fri|Sat|Sun) )?(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 0-9]\d \d\d:\d\d(:\d\d)?( \d{4})?`)
	maskNumRE  = regexp.MustCompile(`\d+(\.\d+)?`)
)

// scriptMask prints FILE (stdout: the last command's output) with dates
// replaced by DATE and $WORK by $WORK; with -n, also every number in the
// lines matching each following regular expression by N; with -d, the
// lines matching the regular expression are left out; with -u, lines
// wrapped as bjobs -l and bhist -l wrap them (continuations indented by 21
// blanks) joined first.
//
//	mask [-u] [-n REGEXP]... [-d REGEXP]... FILE
func scriptMask(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: mask [-u] [-n REGEXP]... [-d REGEXP]... FILE")
	}
	var numLines []*regexp.Regexp
	unwrap := false
	if len(args) > 1 && args[0] == "-u" {
		unwrap, args = true, args[1:]
	}
	var drop []*regexp.Regexp
	for len(args) > 2 && (args[0] == "-n" || args[0] == "-d") {
		re, err := regexp.Compile(args[1])
		ts.Check(err)
		if args[0] == "-n" {
			numLines = append(numLines, re)
		} else {
			drop = append(drop, re)
		}
		args = args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: mask [-u] [-n REGEXP]... [-d REGEXP]... FILE")
	}
	text := ts.ReadFile(args[0])
	if unwrap {
		text = unwrapLines(text)
	}
	var b strings.Builder
lines:
	for _, line := range strings.SplitAfter(text, "\n") {
		for _, re := range drop {
			if re.MatchString(line) {
				continue lines
			}
		}
		line = maskDateRE.ReplaceAllString(line, "DATE")
		line = strings.ReplaceAll(line, ts.Getenv("WORK"), "$WORK")
		for _, re := range numLines {
			if re.MatchString(line) {
				line = maskNumRE.ReplaceAllString(line, "N")
				break
			}
		}
		b.WriteString(line)
	}
	fmt.Fprint(ts.Stdout(), b.String())
}

// unwrapLines joins continuation lines (21 leading blanks, the indentation
// LSF's wrapping uses; more are the text's own) to the line before.
func unwrapLines(text string) string {
	const indent = "                     "
	lines := strings.Split(text, "\n")
	var out []string
	for _, l := range lines {
		if len(out) > 0 && strings.TrimSpace(out[len(out)-1]) != "" && strings.HasPrefix(l, indent) && strings.TrimSpace(l) != "" {
			out[len(out)-1] += l[len(indent):]
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
