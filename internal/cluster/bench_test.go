package cluster_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/cluster"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
	_ "github.com/basalt-lsf/basalt/internal/daemon"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

var (
	throughputJobs = flag.Int("cluster.jobs", 10000, "jobs in BenchmarkThroughput")
	latencyJobs    = flag.Int("cluster.latencyjobs", 200, "jobs in BenchmarkSubmitToStart")
	stateJobs      = flag.Int("cluster.statejobs", 100000, "jobs in the system in BenchmarkBigState")
)

// TestMain makes the test binary the basalt binary when started under a
// command name: the clusters below run it as their daemons.
func TestMain(m *testing.M) {
	if name := filepath.Base(os.Args[0]); name != "cluster.test" {
		if _, ok := cli.Lookup(name); ok || name == "basalt" || name == "basaltd" {
			os.Exit(cli.Main(context.Background(), os.Args, cli.OSEnv))
		}
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var clusterSeq atomic.Int32

func up(tb testing.TB, hosts, slots int, conf ...string) *cluster.Cluster {
	tb.Helper()
	return upNamed(tb, fmt.Sprintf("b%d-%d", os.Getpid()%100000, clusterSeq.Add(1)), hosts, slots, conf...)
}

// upNamed is up with the cluster's name given.
func upNamed(tb testing.TB, name string, hosts, slots int, conf ...string) *cluster.Cluster {
	tb.Helper()
	c, err := cluster.Up(context.Background(), cluster.Options{Dir: tb.TempDir(), Hosts: hosts, Slots: slots, Conf: conf,
		Cluster: name, Has: func(n string) bool { _, ok := cli.Lookup(n); return ok }})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Down(context.Background()) })
	return c
}

func mbdClient(tb testing.TB, c *cluster.Cluster) *rpc.Client {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(c.EnvDir, "lsf.conf"))
	if err != nil {
		tb.Fatal(err)
	}
	port := 0
	for _, line := range splitLines(string(b)) {
		if v, ok := cutPrefix(line, "LSB_MBD_PORT="); ok {
			port, _ = strconv.Atoi(v)
		}
	}
	conf, _ := lsfconf.Parse("lsf.conf", b)
	hello, err := authsetup.Client(conf, c.EnvDir, c.Host(1), auth.KindUser).Hello(context.Background(), auth.KindMbatchd, c.Host(1))
	if err != nil {
		tb.Fatal(err)
	}
	// From the first host (its network namespace in a namespace cluster).
	var cl *rpc.Client
	err = c.InHost(c.Host(1), func() (err error) {
		cl, err = rpc.Dial(context.Background(), fmt.Sprintf("%s:%d", c.HostAddr(1), port), hello)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cl.Close() })
	return cl
}

// startupProg is a program the start-up benchmarks run as a process
// against a cluster: a floor, bsub or bjobs.
type startupProg struct {
	name, pkg string
	args      []string // argv, argv[0] the command name
	want      string   // in the output
	exe       string
	spent     time.Duration
}

// startupProgs are the programs of the start-up benchmarks: floor-hello, a
// Go program that prints a line; floor-submit, a minimal Go program that
// reads lsf.conf and the hosts file, connects to mbatchd and submits one job
// (testdata/floor); bsub; and bjobs of one job, as scripts poll a job's
// state. Each is built once.
func startupProgs(b *testing.B, c *cluster.Cluster) []*startupProg {
	var held api.SubmitReply
	if err := mbdClient(b, c).Call(context.Background(), api.MBatchdSubmit, &api.SubmitRequest{Jobs: []*api.JobSpec{{Command: "true", FromHost: "host1", SubCwd: "/tmp", OutFile: "/dev/null", Hold: true}}}, &held); err != nil {
		b.Fatal(err)
	}
	heldID := strconv.FormatInt(int64(held.Results[0].JobID), 10)
	const floors = "github.com/basalt-lsf/basalt/internal/cluster/testdata/floor/"
	const basalt = "github.com/basalt-lsf/basalt/cmd/basalt"
	progs := []*startupProg{
		{name: "floor-hello", pkg: floors + "hello", args: []string{"hello"}, want: "hello"},
		{name: "floor-submit", pkg: floors + "submit", args: []string{"submit"}, want: "is submitted"},
		{name: "bsub", pkg: basalt, args: []string{"bsub", "-o", "/dev/null", "-H", "true"}, want: "is submitted"},
		{name: "bjobs-id", pkg: basalt, args: []string{"bjobs", heldID}, want: "PSUSP"},
	}
	for _, p := range progs {
		p.exe = buildBinary(b, p.pkg)
	}
	return progs
}

// run runs the program once with env and adds its wall time to spent.
func (p *startupProg) run(b *testing.B, env []string) {
	cmd := exec.Command(p.exe, p.args[1:]...)
	cmd.Args[0] = p.args[0]
	cmd.Env = env
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	p.spent += time.Since(t0)
	if err != nil || !bytes.Contains(out, []byte(p.want)) {
		b.Fatalf("%s: %v: %s", p.args[0], err, out)
	}
}

// BenchmarkSequentialBsub runs bsub processes one after another against a
// real cluster, as a shell loop or a workflow manager does, and the other
// start-up programs (startupProgs) the same way beside it, so that the
// figure reads against what the machine allows.
//
//	go test -run '^$' -bench SequentialBsub -benchtime 200x ./internal/cluster/
func BenchmarkSequentialBsub(b *testing.B) {
	c := up(b, 1, 4)
	env := append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST=host1")
	for _, p := range startupProgs(b, c) {
		b.Run(p.name, func(b *testing.B) {
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				p.run(b, env)
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "procs/s")
		})
	}
}

// BenchmarkInterleavedBsub runs the programs of BenchmarkSequentialBsub in
// turn, one of each per iteration, and reports each one's rate from its own
// summed wall time: on a loaded machine every program then meets the same
// conditions, and the ratios hold where the sequential figures drift.
//
//	go test -run '^$' -bench InterleavedBsub -benchtime 300x ./internal/cluster/
func BenchmarkInterleavedBsub(b *testing.B) {
	c := up(b, 1, 4)
	env := append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST=host1")
	progs := startupProgs(b, c)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range progs {
			p.run(b, env)
		}
	}
	for _, p := range progs {
		b.ReportMetric(float64(b.N)/p.spent.Seconds(), p.name+"/s")
	}
}

// BenchmarkInterleavedAuth measures what authentication costs a command:
// bjobs of one job and bsub, run as processes in turn against two clusters
// of the same run, one with LSF_AUTH=eauth (the default) and one with
// LSF_AUTH=ident, as root (which seals its credential itself) and, when
// the benchmark runs as root, as the user basalt1 (whose command asks the
// host LIM's signing agent). Each rate is from the program's own summed
// wall time.
//
//	go test -run '^$' -bench InterleavedAuth -benchtime 100x ./internal/cluster/
func BenchmarkInterleavedAuth(b *testing.B) {
	type variant struct {
		name string
		c    *cluster.Cluster
		cred *syscall.Credential
	}
	eauthC := up(b, 1, 4)
	identC := up(b, 1, 4, "LSF_AUTH=ident")
	vars := []*variant{{name: "eauth-root", c: eauthC}, {name: "ident-root", c: identC}}
	if os.Geteuid() == 0 {
		if u, err := user.Lookup("basalt1"); err == nil {
			uid, _ := strconv.Atoi(u.Uid)
			gid, _ := strconv.Atoi(u.Gid)
			cr := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
			vars = append(vars, &variant{name: "eauth-user", c: eauthC, cred: cr}, &variant{name: "ident-user", c: identC, cred: cr})
			for _, c := range []*cluster.Cluster{eauthC, identC} {
				os.Chmod(c.Opts.Dir, 0o755)
				os.Chmod(filepath.Dir(c.Opts.Dir), 0o755)
			}
		}
	}
	exe := commandBinary(b)
	// Other users run the binary from a directory they can read.
	os.Chmod(filepath.Dir(exe), 0o755)
	type prog struct {
		v     *variant
		name  string
		args  []string
		want  string
		spent time.Duration
	}
	var progs []*prog
	for _, v := range vars {
		var held api.SubmitReply
		if err := mbdClient(b, v.c).Call(context.Background(), api.MBatchdSubmit, &api.SubmitRequest{Jobs: []*api.JobSpec{{Command: "true", FromHost: "host1", SubCwd: "/tmp", OutFile: "/dev/null", Hold: true}}}, &held); err != nil {
			b.Fatal(err)
		}
		id := strconv.FormatInt(int64(held.Results[0].JobID), 10)
		progs = append(progs, &prog{v: v, name: "bjobs-" + v.name, args: []string{"bjobs", "-u", "all", id}, want: id},
			&prog{v: v, name: "bsub-" + v.name, args: []string{"bsub", "-o", "/dev/null", "-H", "true"}, want: "is submitted"})
	}
	run := func(p *prog) {
		cmd := exec.Command(exe, p.args[1:]...)
		cmd.Args[0] = p.args[0]
		cmd.Env = append(os.Environ(), "LSF_ENVDIR="+p.v.c.EnvDir, "BASALT_HOST=host1")
		cmd.Dir = "/tmp"
		if p.v.cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.v.cred}
		}
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		p.spent += time.Since(t0)
		if err != nil || !bytes.Contains(out, []byte(p.want)) {
			b.Fatalf("%s: %v: %s", p.name, err, out)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Each program takes every place in the order in turn.
		for k := range progs {
			run(progs[(i+k)%len(progs)])
		}
	}
	for _, p := range progs {
		b.ReportMetric(float64(p.spent.Microseconds())/float64(b.N), p.name+"-µs")
	}
}

// BenchmarkSubmitToStart measures the time from a submission's
// acknowledgement to the job running, one job at a time on an idle cluster.
//
//	go test -run '^$' -bench SubmitToStart -benchtime 1x ./internal/cluster/
func BenchmarkSubmitToStart(b *testing.B) {
	c := up(b, 2, 4)
	cl := mbdClient(b, c)
	for i := 0; i < b.N; i++ {
		var lat []time.Duration
		for n := 0; n < *latencyJobs; n++ {
			var reply api.SubmitReply
			t0 := time.Now()
			if err := cl.Call(context.Background(), api.MBatchdSubmit, &api.SubmitRequest{Jobs: []*api.JobSpec{{Command: "/bin/true", FromHost: "host1", SubCwd: "/tmp", OutFile: "/dev/null"}}}, &reply); err != nil {
				b.Fatal(err)
			}
			id := reply.Results[0].JobID
			st, err := cl.Stream(context.Background(), api.MBatchdWaitJob, &api.JobRef{JobID: id})
			if err != nil {
				b.Fatal(err)
			}
			started := false
			for {
				var r api.JobRecord
				if err := st.Recv(&r); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
				if !started && r.State != api.StatePend {
					lat = append(lat, time.Since(t0))
					started = true
				}
			}
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
		b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "p90-ms")
	}
}

// BenchmarkThroughput puts -cluster.jobs trivial jobs through a 4-host
// cluster with 8 slots per host and reports the time until all are DONE.
//
//	go test -run '^$' -bench Throughput -benchtime 1x ./internal/cluster/
func BenchmarkThroughput(b *testing.B) {
	for i := 0; i < b.N; i++ {
		c := up(b, 4, 8)
		cl := mbdClient(b, c)
		start := time.Now()
		spec := &api.JobSpec{Command: "/bin/true", FromHost: "host1", SubCwd: "/tmp", OutFile: "/dev/null"}
		for left := *throughputJobs; left > 0; {
			n := min(left, 1000)
			req := &api.SubmitRequest{}
			for k := 0; k < n; k++ {
				req.Jobs = append(req.Jobs, spec)
			}
			var reply api.SubmitReply
			if err := cl.Call(context.Background(), api.MBatchdSubmit, req, &reply); err != nil {
				b.Fatal(err)
			}
			left -= n
		}
		submitted := time.Since(start)
		// Wait on the queues' job counts: listing every unfinished job on
		// each poll would itself load mbatchd.
		for {
			var qs api.QueuesReply
			if err := cl.Call(context.Background(), api.MBatchdQueues, &api.QueuesRequest{}, &qs); err != nil {
				b.Fatal(err)
			}
			unfinished := int32(0)
			for _, q := range qs.Queues {
				unfinished += q.NJobs
			}
			if unfinished == 0 {
				break
			}
			if time.Since(start) > 10*time.Minute {
				b.Fatalf("%d jobs still unfinished after 10 minutes", unfinished)
			}
			time.Sleep(200 * time.Millisecond)
		}
		el := time.Since(start)
		b.ReportMetric(el.Seconds(), "s-total")
		b.ReportMetric(submitted.Seconds(), "s-submit")
		b.ReportMetric(float64(*throughputJobs)/el.Seconds(), "jobs/s")
	}
}

// BenchmarkBigState fills a cluster whose hosts run no sbatchd with
// -cluster.statejobs pending jobs, then measures what users and operators
// see: the bjobs processes, mbatchd's resident memory per pending job, and
// restarts (SIGKILL and SIGTERM) until mbatchd serves again.
//
//	go test -run '^$' -bench BigState -benchtime 1x ./internal/cluster/
func BenchmarkBigState(b *testing.B) {
	for i := 0; i < b.N; i++ {
		c, err := cluster.Up(context.Background(), cluster.Options{Dir: b.TempDir(), Hosts: 4, Slots: 8, NoSBD: true,
			Cluster: fmt.Sprintf("s%d", os.Getpid()%100000), Has: func(n string) bool { _, ok := cli.Lookup(n); return ok }})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Down(context.Background()) })
		cl := mbdClient(b, c)
		rss0 := mbdRSS(b, c)
		t0 := time.Now()
		spec := &api.JobSpec{Command: "sleep 100", FromHost: "host1", SubCwd: "/tmp", OutFile: "/dev/null",
			Env: []string{"PATH=/usr/bin:/bin", "HOME=/root", "USER=root", "SHELL=/bin/bash", "LANG=C.UTF-8"}}
		var last int64
		for left := *stateJobs; left > 0; {
			n := min(left, 1000)
			req := &api.SubmitRequest{}
			for k := 0; k < n; k++ {
				req.Jobs = append(req.Jobs, spec)
			}
			var reply api.SubmitReply
			if err := cl.Call(context.Background(), api.MBatchdSubmit, req, &reply); err != nil {
				b.Fatal(err)
			}
			last = reply.Results[n-1].JobID
			left -= n
		}
		b.ReportMetric(time.Since(t0).Seconds(), "s-submit")
		b.ReportMetric(float64(mbdRSS(b, c)-rss0)/float64(*stateJobs), "rss-B/job")

		exe := commandBinary(b)
		env := append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST=host1")
		run := func(args ...string) (time.Duration, int) {
			cmd := exec.Command(exe, args[1:]...)
			cmd.Args[0] = args[0]
			cmd.Env = env
			start := time.Now()
			out, err := cmd.Output()
			el := time.Since(start)
			if err != nil {
				b.Fatalf("%v: %v", args, err)
			}
			return el, bytes.Count(out, []byte("\n"))
		}
		all, lines := medianOf(5, func() (time.Duration, int) { return run("bjobs", "-a", "-u", "all") })
		if lines != *stateJobs+1 {
			b.Fatalf("bjobs -a -u all printed %d lines, want %d", lines, *stateJobs+1)
		}
		b.ReportMetric(float64(all.Microseconds())/1000, "ms-bjobs-all")
		one, _ := medianOf(21, func() (time.Duration, int) { return run("bjobs", strconv.FormatInt(last, 10)) })
		b.ReportMetric(float64(one.Microseconds())/1000, "ms-bjobs-id")

		for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
			start := time.Now()
			if err := c.Restart(context.Background(), "mbatchd", "host1", sig); err != nil {
				logTails(b, c)
				b.Fatal(err)
			}
			b.ReportMetric(time.Since(start).Seconds(), "s-restart-"+map[syscall.Signal]string{syscall.SIGKILL: "kill", syscall.SIGTERM: "term"}[sig])
		}
		b.ReportMetric(float64(mbdRSS(b, c))/float64(*stateJobs), "rss-after-restart-B/job")
		if _, lines := run("bjobs", "-a", "-u", "all"); lines != *stateJobs+1 {
			b.Fatalf("after restarts bjobs -a -u all printed %d lines, want %d", lines, *stateJobs+1)
		}
	}
}

var (
	binMu  sync.Mutex
	binDir string
	bins   = map[string]string{} // package path to built binary
)

// commandBinary is the basalt binary built as `make build` builds it, for
// the benchmarks that time command processes: the test binary would serve,
// but it starts about 7 ms slower (the testing package and every test's
// dependencies), which is not what users run.
func commandBinary(b *testing.B) string {
	return buildBinary(b, "github.com/basalt-lsf/basalt/cmd/basalt")
}

// buildBinary builds the main package pkg once per test process, as
// `make build` builds basalt.
func buildBinary(b *testing.B, pkg string) string {
	b.Helper()
	binMu.Lock()
	defer binMu.Unlock()
	if exe, ok := bins[pkg]; ok {
		return exe
	}
	if binDir == "" {
		dir, err := os.MkdirTemp("", "basalt-bench-bin")
		if err != nil {
			b.Fatal(err)
		}
		binDir = dir
	}
	exe := filepath.Join(binDir, strconv.Itoa(len(bins))+"-"+filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", exe, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v: %s", pkg, err, out)
	}
	bins[pkg] = exe
	return exe
}

// logTails logs the end of every daemon log of the cluster.
func logTails(tb testing.TB, c *cluster.Cluster) {
	files, _ := filepath.Glob(filepath.Join(c.Opts.Dir, "log", "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if len(b) > 3000 {
			b = b[len(b)-3000:]
		}
		tb.Logf("%s:\n%s", f, b)
	}
}

// medianOf runs f n times and returns the median duration and the last count.
func medianOf(n int, f func() (time.Duration, int)) (time.Duration, int) {
	var ds []time.Duration
	var count int
	for i := 0; i < n; i++ {
		var d time.Duration
		d, count = f()
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[n/2], count
}

// mbdRSS is mbatchd's resident set size in bytes.
func mbdRSS(tb testing.TB, c *cluster.Cluster) int64 {
	tb.Helper()
	pid := c.MbatchdPID("host1")
	if pid == 0 {
		tb.Fatal("no mbatchd on host1")
	}
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range splitLines(string(st)) {
		if v, ok := cutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return kb * 1024
		}
	}
	tb.Fatal("no VmRSS in /proc/<mbatchd>/status")
	return 0
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return "", false
}
