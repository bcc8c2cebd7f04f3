package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands for sbatchd and job tests:
//
//	job-report FILE      print FILE with the job report's variable parts
//	                     replaced: dates by DATE, the cluster name by
//	                     CLUSTER, the numbers of the resource usage summary
//	                     by N (compare with cmpenv)
//	sbd-kill HOST        SIGKILL the sbatchd of HOST in the script's cluster
//	sbd-start HOST       start sbatchd on HOST again (stopped at the end)
//	file-wait FILE [SECONDS]
//	                     wait until FILE exists and is not empty
func init() {
	scriptCmds["job-report"] = scriptJobReport
	scriptCmds["sbd-kill"] = scriptSbdKill
	scriptCmds["sbd-start"] = scriptSbdStart
	scriptCmds["file-wait"] = scriptFileWait
}

var (
	ctimeRE   = regexp.MustCompile(`(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 0-9]\d \d\d:\d\d:\d\d \d{4}`)
	clusterRE = regexp.MustCompile(`cluster <[^>]*>`)
	digitsRE  = regexp.MustCompile(`\d+`)
)

func scriptJobReport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: job-report FILE")
	}
	text := ts.ReadFile(args[0])
	var b strings.Builder
	inUsage := false
	for _, line := range strings.SplitAfter(text, "\n") {
		switch {
		case strings.HasPrefix(line, "Resource usage summary:"):
			inUsage = true
		case strings.HasPrefix(line, "The output (if any)"):
			inUsage = false
		}
		line = ctimeRE.ReplaceAllString(line, "DATE")
		line = clusterRE.ReplaceAllString(line, "cluster <CLUSTER>")
		if inUsage && len(line) > 49 && strings.HasPrefix(line, "    ") {
			line = line[:49] + digitsRE.ReplaceAllString(line[49:], "N")
		}
		b.WriteString(line)
	}
	fmt.Fprint(ts.Stdout(), b.String())
}

// clusterPid finds a daemon's PID in the cluster's cluster.pids.
func clusterPid(ts *testscript.TestScript, daemon, host string) int {
	b := ts.ReadFile(filepath.Join(ts.Getenv("WORK"), "cluster", "cluster.pids"))
	for _, line := range strings.Split(b, "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[1] == daemon && f[2] == host {
			pid, _ := strconv.Atoi(f[0])
			return pid
		}
	}
	ts.Fatalf("no %s on %s in cluster.pids", daemon, host)
	return 0
}

// restarted are the sbatchds sbd-start started, by host.
var restarted = map[string]*exec.Cmd{}

func scriptSbdKill(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sbd-kill HOST")
	}
	if c := restarted[args[0]]; c != nil && c.ProcessState == nil {
		c.Process.Kill()
		c.Wait()
		delete(restarted, args[0])
		return
	}
	pid := clusterPid(ts, "sbatchd", args[0])
	ts.Check(syscall.Kill(pid, syscall.SIGKILL))
	for syscall.Kill(pid, 0) == nil {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func scriptSbdStart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sbd-start HOST")
	}
	exe, err := os.Executable()
	ts.Check(err)
	logf, err := os.OpenFile(filepath.Join(ts.Getenv("WORK"), "cluster", "log", "sbatchd-"+args[0]+".restart.out"),
		os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	ts.Check(err)
	defer logf.Close()
	cmd := exec.Command(exe)
	cmd.Args = []string{"sbatchd"}
	cmd.Env = append(os.Environ(), "LSF_ENVDIR="+ts.Getenv("LSF_ENVDIR"), "BASALT_HOST="+args[0])
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	ts.Check(cmd.Start())
	restarted[args[0]] = cmd
	ts.Defer(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
	})
}

func scriptFileWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: file-wait FILE [SECONDS]")
	}
	timeout := 30 * time.Second
	if len(args) == 2 {
		s, err := strconv.Atoi(args[1])
		ts.Check(err)
		timeout = time.Duration(s) * time.Second
	}
	p := ts.MkAbs(args[0])
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if st, err := os.Stat(p); err == nil && st.Size() > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("file-wait: %s still missing or empty after %v", args[0], timeout)
}
