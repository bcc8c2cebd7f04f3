package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/internal/testutil"
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
//	daemon-kill [-TERM] DAEMON HOST
//	                     SIGKILL (SIGTERM) a daemon (lim, sbatchd, or the
//	                     mbatchd its sbatchd keeps) of HOST
//	                     and wait until it has exited
//	daemon-start DAEMON HOST
//	                     start the daemon on HOST again (stopped at the end)
//	file-wait FILE [SECONDS]
//	                     wait until FILE exists and is not empty
//	exec-until RE COMMAND [ARG...]
//	                     run COMMAND (as exec does) until its standard
//	                     output matches RE, for at most 30 s (a pending
//	                     reason the next scheduling pass sets); that output
//	                     is then the script's stdout
//	log-wait LOG RE [SECONDS]
//	                     wait until a line of the cluster's log file LOG
//	                     (in LSF_LOGDIR) matches RE
func init() {
	scriptCmds["job-report"] = scriptJobReport
	scriptCmds["sbd-kill"] = scriptSbdKill
	scriptCmds["sbd-start"] = scriptSbdStart
	scriptCmds["daemon-kill"] = scriptDaemonKill
	scriptCmds["daemon-start"] = scriptDaemonStart
	scriptCmds["file-wait"] = scriptFileWait
	scriptCmds["log-wait"] = scriptLogWait
	scriptCmds["exec-until"] = scriptExecUntil
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
	if daemon == "mbatchd" {
		// One the host's sbatchd keeps.
		if b, err := os.ReadFile(filepath.Join(ts.Getenv("WORK"), "cluster", "state", host, "sbatchd", "mbatchd.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
	}
	ts.Fatalf("no %s on %s in cluster.pids", daemon, host)
	return 0
}

// restarted are the daemons daemon-start started, by "$WORK daemon@host"
// (scripts run in parallel).
var (
	restartedMu sync.Mutex
	restarted   = map[string]*exec.Cmd{}
)

func scriptSbdKill(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sbd-kill HOST")
	}
	killDaemon(ts, "sbatchd", args[0], syscall.SIGKILL)
}

func scriptSbdStart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sbd-start HOST")
	}
	startDaemon(ts, "sbatchd", args[0])
}

func scriptDaemonKill(ts *testscript.TestScript, neg bool, args []string) {
	sig := syscall.SIGKILL
	if len(args) > 0 && args[0] == "-TERM" {
		sig, args = syscall.SIGTERM, args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: daemon-kill [-TERM] DAEMON HOST")
	}
	killDaemon(ts, args[0], args[1], sig)
}

func scriptDaemonStart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: daemon-start DAEMON HOST")
	}
	startDaemon(ts, args[0], args[1])
}

// killDaemon signals a daemon of the script's cluster (the one
// daemon-start started, if any) and waits until it has exited.
func killDaemon(ts *testscript.TestScript, daemon, host string, sig syscall.Signal) {
	key := ts.Getenv("WORK") + " " + daemon + "@" + host
	restartedMu.Lock()
	c := restarted[key]
	delete(restarted, key)
	restartedMu.Unlock()
	if c != nil && c.ProcessState == nil {
		c.Process.Signal(sig)
		c.Wait()
		return
	}
	pid := clusterPid(ts, daemon, host)
	ts.Check(syscall.Kill(pid, sig))
	scriptPoll(ts, 30*time.Second, fmt.Sprintf("%s of %s (pid %d) to die", daemon, host, pid), func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return syscall.Kill(pid, 0) != nil || err != nil || strings.Contains(string(b), ") Z ")
	})
}

// startDaemon starts daemon on host with the cluster's environment; it is
// stopped when the script ends.
func startDaemon(ts *testscript.TestScript, daemon, host string) {
	exe, err := os.Executable()
	ts.Check(err)
	logf, err := os.OpenFile(filepath.Join(ts.Getenv("WORK"), "cluster", "log", daemon+"-"+host+".restart.out"),
		os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	ts.Check(err)
	defer logf.Close()
	cmd := exec.Command(exe)
	cmd.Args = []string{daemon}
	cmd.Env = append(os.Environ(), "LSF_ENVDIR="+ts.Getenv("LSF_ENVDIR"), "BASALT_HOST="+host)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	ts.Check(inHost(ts, host, cmd.Start))
	restartedMu.Lock()
	restarted[ts.Getenv("WORK")+" "+daemon+"@"+host] = cmd
	restartedMu.Unlock()
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
	if testutil.Poll(timeout, func() bool { st, err := os.Stat(p); return err == nil && st.Size() > 0 }) {
		return
	}
	ts.Fatalf("file-wait: %s still missing or empty after %v", args[0], timeout)
}

func scriptExecUntil(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exec-until RE COMMAND [ARG...]")
	}
	re, err := regexp.Compile("(?m)" + args[0])
	ts.Check(err)
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := ts.Exec(args[1], args[2:]...)
		if err == nil && re.MatchString(ts.ReadFile("stdout")) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("exec-until: the output of %s did not match %q in 30 s (last error %v)", args[1], args[0], err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func scriptLogWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: log-wait LOG RE [SECONDS]")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	timeout := 30 * time.Second
	if len(args) == 3 {
		s, err := strconv.Atoi(args[2])
		ts.Check(err)
		timeout = time.Duration(s) * time.Second
	}
	p := filepath.Join(ts.Getenv("WORK"), "cluster", "log", args[0])
	if testutil.Poll(timeout, func() bool { b, err := os.ReadFile(p); return err == nil && re.Match(b) }) {
		return
	}
	ts.Fatalf("log-wait: no line of %s matches %q after %v", args[0], args[1], timeout)
}
