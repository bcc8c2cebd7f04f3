package shepherd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
	"github.com/basalt-lsf/basalt/internal/sbd/spool"
	"github.com/basalt-lsf/basalt/internal/timerslack"
)

func TestDoneWithOutputFileAndReport(t *testing.T) {
	j := newJob(t, `echo "hello $LSB_JOBID $LSB_JOBINDEX [$LSB_MCPU_HOSTS] $FROM_SUBMITTER"; echo oops >&2`)
	out := filepath.Join(j.launch.Spec.SubCwd, "out.%J")
	j.launch.Spec.OutFile = out
	st := j.start(t).final()
	if st.State != api.StateDone || st.ExitStatus != 0 || st.TermReason != "" {
		t.Fatalf("final %+v, want DONE", st)
	}
	if st.ExecCwd != j.launch.Spec.SubCwd || st.PID == 0 || st.PGID != st.PID || st.RunCount != 1 {
		t.Errorf("exec details %+v", st)
	}
	if st.Usage == nil || st.Usage.CPUTime < 0 {
		t.Errorf("usage %+v", st.Usage)
	}
	text := readFile(t, strings.ReplaceAll(out, "%J", strconv.FormatInt(j.launch.JobID, 10)))
	id := strconv.FormatInt(j.launch.JobID, 10)
	mustContain(t, "output file", text,
		"hello "+id+" 0 [hostA 1 ] yes\noops\n\n------------------------------------------------------------\nSender: LSF System <lsfadmin@hostA>\n",
		"Subject: Job "+id+": <testjob> in cluster <testcluster> Done\n",
		"Job was executed on host(s) <hostA>, in queue <normal>, as user <tester> in cluster <testcluster> at ",
		"<"+j.launch.Spec.SubCwd+"> was used as the working directory.\n",
		"# LSBATCH: User input\necho \"hello",
		"\nSuccessfully completed.\n\nResource usage summary:\n\n    CPU time :",
		"The output (if any) is above this job summary.\n")
}

func TestExitStatuses(t *testing.T) {
	tests := []struct {
		name, cmd  string
		state      api.JobState
		exit       int
		reportLine string
	}{
		{"exit value", "exit 3", api.StateExit, 3, "Exited with exit code 3."},
		{"missing executable", "/nonexistent/program arg", api.StateExit, 127, "Exited with exit code 127."},
		{"killed by a signal", "kill -SEGV $$", api.StateExit, -1, "Exited with signal termination: Segmentation fault"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newJob(t, tt.cmd)
			j.launch.Spec.OutFile = filepath.Join(j.launch.Spec.SubCwd, "out")
			st := j.start(t).final()
			ws := syscall.WaitStatus(st.ExitStatus)
			if st.State != tt.state {
				t.Errorf("state %#x, want %#x", st.State, tt.state)
			}
			if tt.exit >= 0 && (!ws.Exited() || ws.ExitStatus() != tt.exit) {
				t.Errorf("wait status %#x, want exit %d", st.ExitStatus, tt.exit)
			}
			if tt.exit < 0 {
				if !ws.Signaled() || ws.Signal() != syscall.SIGSEGV || st.TermReason != "TERM_EXTERNAL_SIGNAL" {
					t.Errorf("wait status %#x reason %q, want SIGSEGV, TERM_EXTERNAL_SIGNAL", st.ExitStatus, st.TermReason)
				}
			}
			mustContain(t, "report", readFile(t, j.launch.Spec.OutFile), tt.reportLine)
		})
	}
}

func TestNoOutputFileKeepsOutputInSpool(t *testing.T) {
	j := newJob(t, "echo to-spool; echo err-to-spool >&2")
	r := j.start(t)
	st := r.final()
	if st.State != api.StateDone {
		t.Fatalf("final %+v", st)
	}
	mustContain(t, "spool output", readFile(t, r.dir.User().Output()), "to-spool\nerr-to-spool\n", "Successfully completed.")
}

func TestErrorFileSeparate(t *testing.T) {
	j := newJob(t, "echo out; echo err >&2")
	sub := j.launch.Spec.SubCwd
	j.launch.Spec.OutFile, j.launch.Spec.ErrFile = "o.%J", filepath.Join(sub, "e.%J")
	st := j.start(t).final()
	id := strconv.FormatInt(j.launch.JobID, 10)
	o := readFile(t, filepath.Join(sub, "o."+id))
	e := readFile(t, filepath.Join(sub, "e."+id))
	if e != "err\n" {
		t.Errorf("error file %q: the report never goes to -e", e)
	}
	mustContain(t, "output", o, "out\n", "Successfully completed.", "PS:\n\nRead file <"+filepath.Join(sub, "e."+id)+"> for stderr output of this job.")
	if st.State != api.StateDone {
		t.Errorf("state %#x", st.State)
	}
}

func TestNonexistentCwdRunsInTmp(t *testing.T) {
	j := newJob(t, "pwd")
	j.launch.Spec.SubCwd = "/nonexistent/dir"
	j.launch.Spec.OutFile = "/tmp/" + fmt.Sprintf("basalt-cwd-test-%d", os.Getpid())
	defer os.Remove(j.launch.Spec.OutFile)
	st := j.start(t).final()
	if st.ExecCwd != "/tmp" || st.State != api.StateDone {
		t.Errorf("final %+v, want DONE in /tmp", st)
	}
	mustContain(t, "output", readFile(t, j.launch.Spec.OutFile), "/tmp\n", "</tmp> was used as the working directory.")
}

func TestRunsAsJobUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	j := newJob(t, `id -un; id -gn; umask; touch made-here`)
	j.user = "basalt1"
	j.launch.Spec.Umask = 0o027
	j.launch.Spec.OutFile = "out"
	sub := j.launch.Spec.SubCwd
	st := j.start(t).final()
	if st.State != api.StateDone || st.ExecUser != "basalt1" {
		t.Fatalf("final %+v", st)
	}
	mustContain(t, "output", readFile(t, filepath.Join(sub, "out")), "basalt1\nbasalt1\n0027\n")
	for _, f := range []string{"out", "made-here"} {
		fi, err := os.Stat(filepath.Join(sub, f))
		if err != nil {
			t.Fatal(err)
		}
		acct, _ := LookupAccount("basalt1")
		if uid := fi.Sys().(*syscall.Stat_t).Uid; uid != uint32(acct.UID) {
			t.Errorf("%s owned by uid %d, want basalt1", f, uid)
		}
	}
}

func TestPreExec(t *testing.T) {
	tests := []struct {
		name       string
		queuePre   string
		jobPre     string
		state      api.JobState
		pendReason int32
		abort      bool
	}{
		{"queue pre-exec fails", "exit 1", "", api.StatePend, PendQueuePreExec, false},
		{"job pre-exec fails", "true", "exit 2", api.StatePend, PendJobPreExec, false},
		{"pre-exec aborts", "exit $LSB_EXIT_PRE_ABORT", "", api.StateExit, 0, true},
		{"both succeed", "test -n \"$LSB_JOBID\"", "true", api.StateDone, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newJob(t, "echo ran > ran")
			j.launch.Queue.PreExec = tt.queuePre
			j.launch.Spec.PreExec = tt.jobPre
			st := j.start(t).final()
			if st.State != tt.state || st.PendReason != tt.pendReason || st.Abort != tt.abort {
				t.Errorf("final state %#x pend %d abort %v, want %#x %d %v", st.State, st.PendReason, st.Abort, tt.state, tt.pendReason, tt.abort)
			}
			_, err := os.Stat(filepath.Join(j.launch.Spec.SubCwd, "ran"))
			if ran := err == nil; ran != (tt.state == api.StateDone) {
				t.Errorf("job ran: %v", ran)
			}
		})
	}
}

func TestPostExecAndJobStarter(t *testing.T) {
	j := newJob(t, "exit 5")
	sub := j.launch.Spec.SubCwd
	j.launch.Queue.JobStarter = `/bin/sh -c "echo started-by-starter > ` + sub + `/starter; %USRCMD"`
	j.launch.Spec.PostExec = "echo job:$LSB_JOBEXIT_STAT > " + sub + "/jobpost"
	j.launch.Queue.PostExec = "echo queue:$LSB_JOBEXIT_STAT:$PATH > " + sub + "/queuepost; exit 1"
	r := j.start(t)
	// The end of the job is reported before the post-execution commands.
	ended := r.until("EXIT", func(st *api.JobStatusReport) bool { return st.State == api.StateExit })
	if ended.Final {
		t.Errorf("EXIT report is final before post-exec ran")
	}
	st := r.final()
	if st.State != api.StateExit || !st.PostFailed || st.PostDone {
		t.Errorf("final %+v, want EXIT with post-exec failed", st)
	}
	status := strconv.Itoa(5 << 8)
	if got := readFile(t, filepath.Join(sub, "jobpost")); got != "job:"+status+"\n" {
		t.Errorf("job post-exec saw %q", got)
	}
	if got := readFile(t, filepath.Join(sub, "queuepost")); got != "queue:"+status+":/bin:/usr/bin:/sbin:/usr/sbin\n" {
		t.Errorf("queue post-exec saw %q", got)
	}
	if got := readFile(t, filepath.Join(sub, "starter")); got != "started-by-starter\n" {
		t.Errorf("job starter wrote %q", got)
	}
}

func TestRequeueExitValues(t *testing.T) {
	tests := []struct {
		cmd              string
		requeue, exclude bool
	}{
		{"exit 30", true, false},
		{"exit 20", true, true},
		{"exit 31", false, false},
		{"kill -TERM $$", false, false}, // killed by a signal: never requeued
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			j := newJob(t, tt.cmd)
			j.launch.Queue.RequeueExitValues = []int32{30, 15}
			j.launch.Queue.ExcludeExitValues = []int32{20}
			st := j.start(t).final()
			if st.State != api.StateExit || st.Requeue != tt.requeue || st.ExcludeHost != tt.exclude {
				t.Errorf("final %+v, want requeue %v exclude %v", st, tt.requeue, tt.exclude)
			}
		})
	}
}

func TestTerminateEscalates(t *testing.T) {
	for _, cg := range []bool{false, true} {
		t.Run(fmt.Sprintf("cgroup=%v", cg), func(t *testing.T) {
			// The job ignores SIGINT and SIGTERM: only the final SIGKILL,
			// two intervals later, ends it.
			j := newJob(t, `trap "echo got-INT" INT; trap "echo got-TERM" TERM; touch trapping; while :; do sleep 0.05; done`)
			j.cgroup = cg
			j.launch.Spec.OutFile = "out"
			r := j.start(t)
			r.running()
			waitFor(t, "the traps", func() bool {
				_, err := os.Stat(filepath.Join(j.launch.Spec.SubCwd, "trapping"))
				return err == nil
			})
			r.send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_OWNER"})
			st := r.final()
			if st.State != api.StateExit || st.TermReason != "TERM_OWNER" {
				t.Fatalf("final %+v, want EXIT TERM_OWNER", st)
			}
			if ws := syscall.WaitStatus(st.ExitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Errorf("wait status %#x, want SIGKILL", st.ExitStatus)
			}
			mustContain(t, "output", readFile(t, filepath.Join(j.launch.Spec.SubCwd, "out")), "got-INT", "got-TERM",
				"TERM_OWNER: job killed by owner.\nExited with signal termination: Killed.\n")
		})
	}
}

// TestDaemonIsKilled: a job that double-forks a setsid daemon leaves
// nothing behind when it is killed, with or without cgroups (without, the
// shepherd is the daemon's subreaper).
func TestDaemonIsKilled(t *testing.T) {
	for _, cg := range []bool{false, true} {
		t.Run(fmt.Sprintf("cgroup=%v", cg), func(t *testing.T) {
			j := newJob(t, `setsid sh -c '(sleep 300 & echo $! > daemon.pid) &' ; while [ ! -s daemon.pid ]; do sleep 0.05; done; sleep 300`)
			j.cgroup = cg
			r := j.start(t)
			r.running()
			pidFile := filepath.Join(j.launch.Spec.SubCwd, "daemon.pid")
			var pid int
			waitFor(t, "the daemon's pid", func() bool {
				b, _ := os.ReadFile(pidFile)
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return pid > 0
			})
			r.send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_ADMIN"})
			st := r.final()
			if st.TermReason != "TERM_ADMIN" {
				t.Errorf("final %+v", st)
			}
			// The final state comes once every process of the job is gone.
			if s := procState(pid); s != 0 && s != 'Z' {
				t.Errorf("daemon %d survived the job (state %c)", pid, s)
			}
		})
	}
}

func TestSuspendResume(t *testing.T) {
	j := newJob(t, "sleep 300")
	j.cgroup = true
	r := j.start(t)
	run := r.running()
	pid := int(run.PID)
	r.send(&sbdwire.Command{Op: sbdwire.OpSuspend, SuspReasons: SuspUserStop, User: true})
	st := r.until("USUSP", func(st *api.JobStatusReport) bool { return st.State == api.StateUSusp })
	if st.SuspReasons != SuspUserStop {
		t.Errorf("reasons %#x", st.SuspReasons)
	}
	waitFor(t, "job stopped", func() bool { return jobStopped(pid) })
	// bresume of a USUSP job makes it SSUSP, still stopped.
	r.send(&sbdwire.Command{Op: sbdwire.OpUserResume})
	st = r.until("SSUSP", func(st *api.JobStatusReport) bool { return st.State == api.StateSSusp })
	if st.SuspReasons != SuspUserResume || !jobStopped(pid) {
		t.Errorf("after user resume: %+v, stopped %v", st, jobStopped(pid))
	}
	r.send(&sbdwire.Command{Op: sbdwire.OpResume})
	r.until("RUN", func(st *api.JobStatusReport) bool { return st.State == api.StateRun && st.SuspReasons == 0 })
	waitFor(t, "job running", func() bool { return !jobStopped(pid) })
	// A suspended job is killed at once: it is resumed before the signals.
	r.send(&sbdwire.Command{Op: sbdwire.OpSuspend, SuspReasons: 0x40, SuspSubreason: 1})
	r.until("SSUSP", func(st *api.JobStatusReport) bool { return st.State == api.StateSSusp })
	r.send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_OWNER"})
	if st := r.final(); st.State != api.StateExit || st.TermReason != "TERM_OWNER" {
		t.Errorf("final %+v", st)
	}
}

func TestJobControlsCommands(t *testing.T) {
	j := newJob(t, "sleep 300")
	sub := j.launch.Spec.SubCwd
	j.launch.Queue.SuspendAction = "echo $LSB_SUSP_REASONS:$LSB_JOBPIDS > " + sub + "/suspended; kill -STOP $LSB_JOBPIDS"
	j.launch.Queue.TerminateAction = "SIGTERM"
	r := j.start(t)
	run := r.running()
	r.send(&sbdwire.Command{Op: sbdwire.OpSuspend, SuspReasons: 0x40})
	r.until("SSUSP", func(st *api.JobStatusReport) bool { return st.State == api.StateSSusp })
	waitFor(t, "the SUSPEND command", func() bool {
		b, _ := os.ReadFile(filepath.Join(sub, "suspended"))
		return strings.HasPrefix(string(b), "64:") && strings.Contains(string(b), strconv.Itoa(int(run.PID)))
	})
	r.send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_OWNER"})
	st := r.final()
	if ws := syscall.WaitStatus(st.ExitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("TERMINATE[SIGTERM]: wait status %#x", st.ExitStatus)
	}
}

func TestSignalAndRequeue(t *testing.T) {
	t.Run("bkill -s", func(t *testing.T) {
		j := newJob(t, "sleep 300")
		r := j.start(t)
		r.running()
		r.send(&sbdwire.Command{Op: sbdwire.OpSignal, Signal: int32(syscall.SIGUSR1), TermReason: "TERM_OWNER"})
		st := r.final()
		if ws := syscall.WaitStatus(st.ExitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGUSR1 || st.TermReason != "TERM_OWNER" {
			t.Errorf("final %+v", st)
		}
	})
	t.Run("brequeue", func(t *testing.T) {
		j := newJob(t, "sleep 300")
		j.launch.Spec.OutFile = "out"
		r := j.start(t)
		r.running()
		r.send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_REQUEUE_OWNER", Requeue: true})
		st := r.final()
		if st.State != api.StateExit || !st.Requeue || st.TermReason != "TERM_REQUEUE_OWNER" {
			t.Errorf("final %+v", st)
		}
	})
	t.Run("finished job", func(t *testing.T) {
		j := newJob(t, "true")
		j.launch.Spec.PostExec = "sleep 0.5"
		r := j.start(t)
		r.until("DONE", func(st *api.JobStatusReport) bool { return st.State == api.StateDone })
		r.send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_OWNER"})
		for ev := range r.events {
			if ev.Ack != nil {
				if ev.Ack.Err != ErrFinished.Error() {
					t.Errorf("ack %+v, want %q", ev.Ack, ErrFinished)
				}
				break
			}
		}
		if st := r.final(); st.State != api.StateDone || !st.PostDone {
			t.Errorf("final %+v", st)
		}
	})
}

func TestLimits(t *testing.T) {
	tests := []struct {
		name   string
		cmd    string
		limits *api.Limits
		reason string
		sig    syscall.Signal // the signal that ends the job
	}{
		{"run limit", "sleep 300", &api.Limits{Run: 1}, "TERM_RUNLIMIT", syscall.SIGUSR2},
		{"memory limit", "head -c 200000000 /dev/zero | tail", &api.Limits{Mem: 20 * 1024}, "TERM_MEMLIMIT", syscall.SIGINT},
		{"CPU limit", "while :; do :; done", &api.Limits{CPU: 1}, "TERM_CPULIMIT", syscall.SIGXCPU},
		{"process limit", "sleep 300 & sleep 300 & sleep 300 & wait", &api.Limits{Process: 2}, "TERM_PROCESSLIMIT", syscall.SIGQUIT},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newJob(t, tt.cmd)
			j.launch.Limits = tt.limits
			j.params.JobCPULimit = 1 // the CPU limit is LSF's, per job, not the kernel's
			st := j.start(t).final()
			if st.State != api.StateExit || st.TermReason != tt.reason {
				t.Fatalf("final %+v, want EXIT %s", st, tt.reason)
			}
			ws := syscall.WaitStatus(st.ExitStatus)
			// The job file's shell reports 128+signal when its command is
			// killed, or dies of the signal itself.
			if !(ws.Signaled() && ws.Signal() == tt.sig) && !(ws.Exited() && ws.ExitStatus() == 128+int(tt.sig)) {
				t.Errorf("wait status %#x, want death by %v", st.ExitStatus, tt.sig)
			}
		})
	}
}

func TestDiskFullOutput(t *testing.T) {
	j := newJob(t, "echo lost; echo 'still ran' >&2; exit 0")
	j.launch.Spec.OutFile = "/dev/full"
	j.launch.Spec.ErrFile = "err"
	r := j.start(t)
	st := r.final()
	if st.State != api.StateDone {
		t.Errorf("final %+v", st)
	}
	if got := readFile(t, filepath.Join(j.launch.Spec.SubCwd, "err")); !strings.Contains(got, "still ran") {
		t.Errorf("error file %q", got)
	}
	mustContain(t, "spool output", readFile(t, r.dir.User().Output()),
		"Unable to append this report to the output file </dev/full>", "Successfully completed.")
}

func TestReconnectAndPersist(t *testing.T) {
	j := newJob(t, "sleep 300")
	r := j.start(t)
	run := r.running()
	r.c.Close()
	r.connect()
	// A new connection first gets the current state, the launch and the
	// parameters.
	first := <-r.events
	if first.Status == nil || first.Status.Seq != run.Seq || first.Status.State != api.StateRun {
		t.Fatalf("first event %+v", first)
	}
	if ev := <-r.events; ev.Launch == nil || ev.Launch.JobID != j.launch.JobID {
		t.Fatalf("second event %+v, want the launch", ev)
	}
	if ev := <-r.events; ev.Params == nil || ev.Params.Host != "hostA" {
		t.Fatalf("third event %+v, want the params", ev)
	}
	// The spool is lost; the shepherd writes it again.
	os.Remove(r.dir.State())
	os.Remove(r.dir.Launch())
	r.send(&sbdwire.Command{Op: sbdwire.OpPersist})
	waitFor(t, "spool rewritten", func() bool {
		_, err1 := r.dir.ReadState()
		_, err2 := r.dir.ReadLaunch()
		return err1 == nil && err2 == nil
	})
	r.send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_OWNER"})
	r.final()
}

func TestEexec(t *testing.T) {
	j := newJob(t, "echo job-ran")
	serverDir := filepath.Join(filepath.Dir(j.params.SpoolDir), "serverdir")
	os.Mkdir(serverDir, 0o755)
	sub := j.launch.Spec.SubCwd
	os.WriteFile(filepath.Join(serverDir, "eexec"), []byte("#!/bin/sh\necho \"$LS_EXEC_T $(cat)\" >> "+sub+"/eexec.log\n"), 0o755)
	j.params.ServerDir = serverDir
	j.launch.Spec.EsubOutput = []byte("from-esub")
	st := j.start(t).final()
	if st.State != api.StateDone {
		t.Fatalf("final %+v", st)
	}
	if got := readFile(t, filepath.Join(sub, "eexec.log")); got != "START from-esub\nEND \n" {
		t.Errorf("eexec log %q", got)
	}
}

func TestKillBeforeStart(t *testing.T) {
	j := newJob(t, "echo ran > ran")
	j.launch.Queue.PreExec = "sleep 300"
	r := j.start(t)
	r.send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_OWNER"})
	st := r.final()
	if st.State != api.StateExit || st.TermReason != "TERM_OWNER" {
		t.Errorf("final %+v", st)
	}
	if _, err := os.Stat(filepath.Join(j.launch.Spec.SubCwd, "ran")); err == nil {
		t.Error("the job ran")
	}
}

// TestSuspendBeforeStart: a job stopped before it executes (bstop right
// after dispatch) is stopped as soon as it starts, and reported USUSP;
// killed before it starts, it ends EXIT with the reason.
func TestSuspendBeforeStart(t *testing.T) {
	j := newJob(t, "sleep 300")
	j.cgroup = true
	j.launch.Queue.PreExec = "sleep 0.3"
	r := j.start(t)
	r.send(&sbdwire.Command{Op: sbdwire.OpSuspend, SuspReasons: SuspUserStop, User: true})
	st := r.until("USUSP", func(st *api.JobStatusReport) bool { return st.State == api.StateUSusp })
	waitFor(t, "job stopped", func() bool { return jobStopped(int(st.PID)) })
	r.send(&sbdwire.Command{Op: sbdwire.OpResume})
	r.until("RUN", func(st *api.JobStatusReport) bool { return st.State == api.StateRun })
	r.send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_OWNER"})
	r.final()

	j2 := newJob(t, "sleep 300")
	r2 := j2.start(t)
	r2.send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_ADMIN"})
	if fin := r2.final(); fin.State != api.StateExit || fin.TermReason != "TERM_ADMIN" {
		t.Errorf("killed at once: %+v", fin)
	}
}

// TestDevNullOutputDiscardsReport: with -o /dev/null the output and the
// job report are discarded (LSF: no file, no mail), not kept in the spool.
func TestDevNullOutputDiscardsReport(t *testing.T) {
	j := newJob(t, "echo discarded")
	j.launch.Spec.OutFile = "/dev/null"
	r := j.start(t)
	if st := r.final(); st.State != api.StateDone {
		t.Fatalf("final %+v", st)
	}
	if b, err := os.ReadFile(r.dir.User().Output()); err == nil {
		t.Errorf("spool output written: %q", b)
	}
}

// TestGateHoldsTheJob: the shepherd forks the job's first process itself,
// and it waits at the gate (the job gate, or the job file's when there is
// none) until it is in every cgroup of the job and under its limits and
// priority: a process the job forks at once (its first command) is
// entirely in the job's groups, with its rlimits, nice value and umask;
// LS_JOBPID and LSB_JOBPIDS are the job's PID.
// TestJobTimerSlack: the processes started for a job (the queue's
// pre-exec, the job) have the slack the daemon was started with
// (timerslack.EnvJob), not the daemon's own.
func TestJobTimerSlack(t *testing.T) {
	for _, shellGate := range []bool{false, true} {
		t.Run(fmt.Sprintf("shellGate=%v", shellGate), func(t *testing.T) {
			j := newJob(t, "cat /proc/self/timerslack_ns > slack")
			j.shellGate = shellGate
			sub := j.launch.Spec.SubCwd
			j.launch.Queue.PreExec = "cat /proc/self/timerslack_ns > " + filepath.Join(sub, "preslack")
			j.env = []string{timerslack.EnvJob + "=123457"}
			if st := j.start(t).final(); st.State != api.StateDone {
				t.Fatalf("final %+v", st)
			}
			for _, f := range []string{"slack", "preslack"} {
				if got := strings.TrimSpace(readFile(t, filepath.Join(sub, f))); got != "123457" {
					t.Errorf("%s: timer slack %s, want 123457", f, got)
				}
			}
		})
	}
}

func TestGateHoldsTheJob(t *testing.T) {
	for _, shellGate := range []bool{false, true} {
		t.Run(fmt.Sprintf("shellGate=%v", shellGate), func(t *testing.T) { testGateHoldsTheJob(t, shellGate) })
	}
}

func testGateHoldsTheJob(t *testing.T, shellGate bool) {
	j := newJob(t, `cat /proc/self/cgroup > cg; cat /proc/self/limits > limits; cut -d" " -f19 /proc/self/stat > nice; echo "$LS_JOBPID $$ $LSB_JOBPIDS" > pids; umask > mask`)
	j.cgroup = true
	j.shellGate = shellGate
	j.launch.Limits = &api.Limits{File: 1024, Stack: 4096, Core: 1}
	j.launch.Queue.Nice = 5
	j.launch.Spec.Umask = 0o027
	r := j.start(t)
	st := r.final()
	if st.State != api.StateDone {
		t.Fatalf("final %+v", st)
	}
	if _, err := processGate(); err == nil {
		if jf := readFile(t, r.dir.User().JobFile()); strings.Contains(jf, "LSB_GATE") != shellGate {
			t.Errorf("the job file has the shell gate: %v, want %v:\n%s", !shellGate, shellGate, jf)
		}
	}
	sub := j.launch.Spec.SubCwd
	group := "/" + j.params.CgroupParent + "/" + j.params.CgroupName
	cg := readFile(t, filepath.Join(sub, "cg"))
	h, _ := cgroup.Detect()
	var want []string
	for c := range h.V1 {
		want = append(want, c)
	}
	if h.Unified != "" {
		want = append(want, "") // the unified hierarchy's line is "0::<path>"
	}
	for _, line := range strings.Split(strings.TrimSpace(cg), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for i, c := range want {
			if c == "" && parts[0] == "0" && parts[1] == "" || c != "" && strings.Contains(","+parts[1]+",", ","+c+",") {
				if parts[2] != group {
					t.Errorf("hierarchy %q: the job's first child is in %s, want %s", parts[1], parts[2], group)
				}
				want = append(want[:i], want[i+1:]...)
				break
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("no line for hierarchies %q in\n%s", want, cg)
	}
	limits := readFile(t, filepath.Join(sub, "limits"))
	for _, l := range []string{"Max file size             1048576              1048576", "Max stack size            4194304              4194304", "Max core file size        1024                 1024"} {
		if !strings.Contains(limits, l) {
			t.Errorf("limits lack %q:\n%s", l, limits)
		}
	}
	if got := strings.TrimSpace(readFile(t, filepath.Join(sub, "nice"))); got != "5" {
		t.Errorf("nice %q, want 5", got)
	}
	pid := strconv.Itoa(int(st.PID))
	if got := strings.TrimSpace(readFile(t, filepath.Join(sub, "pids"))); got != pid+" "+pid+" "+pid {
		t.Errorf("LS_JOBPID, $$, LSB_JOBPIDS = %q, want the job's PID %s", got, pid)
	}
	if got := strings.TrimSpace(readFile(t, filepath.Join(sub, "mask"))); got != "0027" {
		t.Errorf("umask %q", got)
	}
}

// TestLoginShellUsesTheHelper: bsub -L runs the job through the login shell
// (which reads the user's profile before anything else), so it is started
// by the exec helper, already in its cgroup, with an ungated job file.
func TestLoginShellUsesTheHelper(t *testing.T) {
	j := newJob(t, `echo "$LS_JOBPID" > pid; cat /proc/self/cgroup > cg`)
	j.launch.Spec.LoginShell = "/bin/sh"
	j.cgroup = true
	r := j.start(t)
	st := r.final()
	if st.State != api.StateDone {
		t.Fatalf("final %+v", st)
	}
	if jf := readFile(t, r.dir.User().JobFile()); strings.Contains(jf, "LSB_GATE") {
		t.Errorf("job file for the helper has the gate:\n%s", jf)
	}
	if got := strings.TrimSpace(readFile(t, filepath.Join(j.launch.Spec.SubCwd, "pid"))); got != strconv.Itoa(int(st.PID)) {
		t.Errorf("LS_JOBPID %q, job PID %d", got, st.PID)
	}
	group := "/" + j.params.CgroupParent + "/" + j.params.CgroupName
	if cg := readFile(t, filepath.Join(j.launch.Spec.SubCwd, "cg")); !strings.Contains(cg, group+"\n") {
		t.Errorf("not in %s:\n%s", group, cg)
	}
}

// TestPlainCommand: the job gate runs a plain command without the job
// file's shell (the command is the job process, LS_JOBPID its PID); a
// command line that needs the shell runs under it; either way a command
// that kills itself ends the job as the shell reports it, 128 plus the
// signal, while a signal LSF sends stays a signal.
func TestPlainCommand(t *testing.T) {
	if _, err := processGate(); err != nil {
		t.Skipf("no job gate here: %v", err)
	}
	script := func(t *testing.T, dir, name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, cmd string
		bare      bool // the command is the job process
		exit      int
		report    string
	}{
		{"plain", "./show a", true, 0, "Successfully completed."},
		{"found on PATH", "show-on-path a", true, 0, "Successfully completed."},
		{"needs the shell", "./show a; true", false, 0, "Successfully completed."},
		{"plain, kills itself", "./selfkill", true, 128 + int(syscall.SIGSEGV), "Exited with exit code 139."},
		{"shell, kills itself", "./selfkill; exit $?", false, 128 + int(syscall.SIGSEGV), "Exited with exit code 139."},
		{"plain, not executable", "./notexec", true, 126, "Exited with exit code 126."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newJob(t, tt.cmd)
			sub := j.launch.Spec.SubCwd
			script(t, sub, "show", `echo "$$ $LS_JOBPID $LSB_JOBPIDS $0 $1" > pids`)
			script(t, sub, "selfkill", `kill -SEGV $$`)
			if err := os.WriteFile(filepath.Join(sub, "notexec"), []byte("#!/bin/sh\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(sub, "bin")
			os.Mkdir(bin, 0o755)
			script(t, bin, "show-on-path", `echo "$$ $LS_JOBPID $LSB_JOBPIDS $(basename $0) $1" > pids`)
			j.launch.Spec.Env = append(j.launch.Spec.Env, "PATH="+bin+":/usr/bin:/bin")
			j.launch.Spec.OutFile = "out"
			st := j.start(t).final()
			if ws := syscall.WaitStatus(st.ExitStatus); !ws.Exited() || ws.ExitStatus() != tt.exit || st.TermReason != "" {
				t.Errorf("wait status %#x, reason %q; want exit %d", st.ExitStatus, st.TermReason, tt.exit)
			}
			mustContain(t, "report", readFile(t, filepath.Join(sub, "out")), tt.report)
			if tt.exit != 0 || tt.report != "Successfully completed." {
				return
			}
			f := strings.Fields(readFile(t, filepath.Join(sub, "pids")))
			pid := strconv.Itoa(int(st.PID))
			if len(f) != 5 || f[1] != pid || f[2] != pid || !strings.HasSuffix(f[3], "show") && f[3] != "show-on-path" || f[4] != "a" {
				t.Fatalf("$$ LS_JOBPID LSB_JOBPIDS $0 $1 = %q, job PID %s", f, pid)
			}
			if bare := f[0] == pid; bare != tt.bare {
				t.Errorf("the command is the job process: %v, want %v ($$ %s, job PID %s)", bare, tt.bare, f[0], pid)
			}
		})
	}
}

// TestGateFailure: only an execution failure of the gate itself turns the
// gate off (and returns the job to pending); other fork errors are the
// job's.
func TestGateFailure(t *testing.T) {
	for err, want := range map[error]bool{
		syscall.EACCES:                      true,
		syscall.ENOEXEC:                     true,
		syscall.ETXTBSY:                     true,
		fmt.Errorf("x: %w", syscall.ENOENT): true,
		syscall.EAGAIN:                      false,
		syscall.EPERM:                       false,
		errors.New("other"):                 false,
	} {
		if got := gateFailure(err); got != want {
			t.Errorf("gateFailure(%v) = %v, want %v", err, got, want)
		}
	}
}

// TestReusedUserDir: a job/ the spool pool kept is reused only when it is
// still the job user's, and then nothing its owner left in it makes the
// shepherd write outside it: a link is replaced, not followed; a file with
// a second name is made anew; what the last job left is removed. Another
// user's job/ is made anew.
func TestReusedUserDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	for _, tc := range []struct {
		name, owner string
		hardLink    bool // hostfile is a second name of a file outside
		reused      bool
	}{
		{name: "same user", owner: "basalt1", reused: true},
		{name: "hard link", owner: "basalt1", hardLink: true, reused: true},
		{name: "other user", owner: "basalt2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := newJob(t, `ls -a "$(dirname "$LSB_DJOB_HOSTFILE")"; cat "$LSB_DJOB_HOSTFILE"`)
			j.user = "basalt1"
			j.launch.Spec.OutFile = "out"
			owner, err := LookupAccount(tc.owner)
			if err != nil {
				t.Skipf("test user: %v", err)
			}
			root := filepath.Dir(j.params.SpoolDir)
			ud := string(spool.Dir(j.params.SpoolDir).User())
			if err := os.MkdirAll(ud, 0o755); err != nil {
				t.Fatal(err)
			}
			// Files outside job/, the owner's: the shepherd must not write
			// them through a link.
			outside := filepath.Join(root, "outside")
			os.WriteFile(outside, []byte("outside\n"), 0o600)
			linked := filepath.Join(root, "linked")
			os.WriteFile(linked, []byte("linked\n"), 0o600)
			os.Symlink(outside, filepath.Join(ud, "jobfile"))
			hostFile := filepath.Join(ud, "hostfile")
			if tc.hardLink {
				os.Link(linked, hostFile)
			} else {
				os.WriteFile(hostFile, []byte("old hosts\n"), 0o644)
			}
			os.WriteFile(filepath.Join(ud, "leftover"), nil, 0o600)
			for _, p := range []string{ud, outside, linked, hostFile, filepath.Join(ud, "leftover")} {
				os.Lchown(p, int(owner.UID), int(owner.GID))
			}
			// Held open, so that a new file cannot get their inode numbers.
			oldDir, oldFile := openStat(t, ud), openStat(t, hostFile)

			st := j.start(t).final()
			if st.State != api.StateDone {
				t.Fatalf("final %+v", st)
			}
			out := readFile(t, filepath.Join(j.launch.Spec.SubCwd, "out"))
			mustContain(t, "output", out, ".\n..\nhostfile\njobfile\nhostA\n")
			if strings.Contains(out, "leftover") {
				t.Errorf("the last job's file was not removed:\n%s", out)
			}
			if got := readFile(t, outside); got != "outside\n" {
				t.Errorf("a file written through a link: %q", got)
			}
			if got := readFile(t, linked); got != "linked\n" {
				t.Errorf("a file with a second name written: %q", got)
			}
			if fi, err := os.Lstat(filepath.Join(ud, "jobfile")); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("jobfile: %v, %v", fi, err)
			}
			fi, err := os.Stat(ud)
			if err != nil {
				t.Fatal(err)
			}
			acct, _ := LookupAccount("basalt1")
			if sys := fi.Sys().(*syscall.Stat_t); sys.Uid != uint32(acct.UID) || fi.Mode().Perm() != 0o700 {
				t.Errorf("job/ owned by %d, mode %v", sys.Uid, fi.Mode())
			}
			if got := os.SameFile(oldDir, fi); got != tc.reused {
				t.Errorf("job/ reused: %v, want %v", got, tc.reused)
			}
			inPlace := tc.reused && !tc.hardLink
			nfi, err := os.Stat(hostFile)
			if err != nil {
				t.Fatal(err)
			}
			if got := os.SameFile(oldFile, nfi); got != inPlace {
				t.Errorf("hostfile rewritten in place: %v, want %v", got, inPlace)
			}
		})
	}
}

// openStat opens path until the test ends and returns its file's stat.
func openStat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// TestAwaitGateKeepsTheStackLimit: a stack limit set right after the fork
// returns is lost to the rest of the child's execve (most of the time on
// this kind of machine), unless awaitGate waited for it to end.
func TestAwaitGateKeepsTheStackLimit(t *testing.T) {
	const n = 40
	for i := 0; i < n; i++ {
		cmd := exec.Command("/bin/sh", "-c", "read x")
		w, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		if !awaitGate(clock.Real(), pid) {
			t.Errorf("start %d: awaitGate timed out", i)
		}
		lim := syscall.Rlimit{Cur: 4 << 20, Max: 4 << 20}
		if err := prlimit(pid, syscall.RLIMIT_STACK, &lim); err != nil {
			t.Fatal(err)
		}
		// Once the shell waits for its input, the limit is what it keeps.
		if !awaitGate(clock.Real(), pid) {
			t.Fatalf("start %d: the shell does not wait for its input", i)
		}
		var got syscall.Rlimit
		if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_STACK, 0, uintptr(unsafe.Pointer(&got)), 0, 0); e != 0 {
			t.Fatal(e)
		}
		w.Close()
		cmd.Wait()
		if got != lim {
			t.Fatalf("start %d: stack limit %+v, want %+v", i, got, lim)
		}
	}
}

// TestCgroupLimits: with LSB_RESOURCE_ENFORCE="memory" the job's cgroup
// holds it at -M, and when the kernel kills one of its processes there the
// whole job ends TERM_MEMLIMIT (it lived on without the killed process);
// -T sets the cgroup's pids.max, so a job cannot start more tasks; -p N
// sets it at 64 tasks per process and a watch ends the job past N processes
// within 100 ms, whatever the sampling period.
func TestCgroupLimits(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		j := newJob(t, "{ head -c 200000000 /dev/zero; sleep 300; } | tail")
		j.cgroup = true
		j.launch.Limits = &api.Limits{Mem: 20 * 1024}
		j.params.MemLimitEnforce = true
		st := j.start(t).final()
		if st.State != api.StateExit || st.TermReason != "TERM_MEMLIMIT" {
			t.Fatalf("final %+v, want EXIT TERM_MEMLIMIT", st)
		}
		if st.Usage != nil && st.Usage.MaxMem > 25*1024 {
			t.Errorf("the job reached %d KB under a 20 MB cgroup limit", st.Usage.MaxMem)
		}
	})
	t.Run("processes", func(t *testing.T) {
		// Sampling is an hour apart here: only the process watch can end
		// the job, and the cgroup's pids.max bounds its tasks meanwhile.
		j := newJob(t, `{ cat "/sys/fs/cgroup/pids$(grep :pids: /proc/self/cgroup | cut -d: -f3)/pids.max" || cat "/sys/fs/cgroup$(grep ^0:: /proc/self/cgroup | cut -d: -f3)/pids.max"; } 2>/dev/null; for i in 1 2 3 4 5 6; do sleep 300 & done; wait`)
		j.cgroup = true
		j.launch.Limits = &api.Limits{Process: 3}
		j.launch.Spec.OutFile = "out"
		j.params.SampleInterval = int64(time.Hour)
		began := time.Now()
		st := j.start(t).final()
		if st.State != api.StateExit || st.TermReason != "TERM_PROCESSLIMIT" {
			t.Fatalf("final %+v, want EXIT TERM_PROCESSLIMIT", st)
		}
		if d := time.Since(began); d > time.Minute {
			t.Errorf("the job ended %v after it started: the watch did not see it", d)
		}
		out, _, _ := strings.Cut(readFile(t, filepath.Join(j.launch.Spec.SubCwd, "out")), "\n")
		if out != "192" { // 3 processes x 64 tasks
			t.Errorf("pids.max under -p 3 = %q, want 192", out)
		}
	})
	t.Run("threads", func(t *testing.T) {
		j := newJob(t, "for i in 1 2 3 4 5 6 7 8; do sleep 30 & done; echo all started")
		j.cgroup = true
		j.launch.Limits = &api.Limits{Thread: 4}
		j.launch.Spec.OutFile = "out"
		st := j.start(t).final()
		out, _, _ := strings.Cut(readFile(t, filepath.Join(j.launch.Spec.SubCwd, "out")), "\n---") // the job's own output
		if st.State != api.StateExit || strings.Contains(out, "all started") || !strings.Contains(strings.ToLower(out), "fork") {
			t.Errorf("8 background tasks under -T 4: final state %v, output %q; want the shell unable to fork", st.State, out)
		}
	})
}
