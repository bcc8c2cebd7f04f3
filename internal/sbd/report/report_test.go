package report

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

func at(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestFormatDone(t *testing.T) {
	j := &Job{
		JobID: 6366733, JobName: "myjob", Cluster: "dcc", User: "s1", ExecUser: "s1", FromHost: "login1",
		Queue: "hpc", Hosts: []*api.ExecHost{{Host: "n-62-21-97", Slots: 1}}, ExecHome: "/zhome/s1",
		ExecCwd: "/zhome/s1/work", Command: "#!/bin/sh\n#BSUB -q hpc\npython main.py\n", Admin: "lsfadmin", Host: "n-62-21-97",
		SubmitTime: at("2020-04-27 14:16:42"), StartTime: at("2020-04-29 01:21:43"),
		EndTime: at("2020-04-29 08:06:00"), ReportTime: at("2020-04-29 08:06:00"),
		Usage:    &api.Usage{CPUTime: 24254.76, MaxMem: 5302 * 1024, AvgMem: 2766489, MaxSwap: 0},
		MaxProcs: 4, MaxThreads: 6, ReqMem: 10240 * 1024,
	}
	want := `
------------------------------------------------------------
Sender: LSF System <lsfadmin@n-62-21-97>
Subject: Job 6366733: <myjob> in cluster <dcc> Done

Job <myjob> was submitted from host <login1> by user <s1> in cluster <dcc> at Mon Apr 27 14:16:42 2020
Job was executed on host(s) <n-62-21-97>, in queue <hpc>, as user <s1> in cluster <dcc> at Wed Apr 29 01:21:43 2020
</zhome/s1> was used as the home directory.
</zhome/s1/work> was used as the working directory.
Started at Wed Apr 29 01:21:43 2020
Terminated at Wed Apr 29 08:06:00 2020
Results reported at Wed Apr 29 08:06:00 2020

Your job looked like:

------------------------------------------------------------
# LSBATCH: User input
#!/bin/sh
#BSUB -q hpc
python main.py
------------------------------------------------------------

Successfully completed.

Resource usage summary:

    CPU time :                                   24254.76 sec.
    Max Memory :                                 5302 MB
    Average Memory :                             2701.65 MB
    Total Requested Memory :                     10240.00 MB
    Delta Memory :                               4938.00 MB
    Max Swap :                                   -
    Max Processes :                              4
    Max Threads :                                6
    Run time :                                   24257 sec.
    Turnaround time :                            150558 sec.

The output (if any) is above this job summary.

`
	if got := string(Format(j)); got != want {
		t.Errorf("Format =\n%s\nwant\n%s\ndiff at %d", got, want, firstDiff(got, want))
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestFormatExited(t *testing.T) {
	j := &Job{
		JobID: 12, Index: 3, JobName: "arr[3]", Cluster: "c", User: "u", ExecUser: "u", FromHost: "h0", Queue: "q",
		Hosts: []*api.ExecHost{{Host: "hA", Slots: 4}, {Host: "hB", Slots: 1}}, Command: "sleep 120", Host: "hA",
		SubmitTime: at("2022-10-26 18:09:37"), StartTime: at("2022-10-26 18:11:57"), EndTime: at("2022-10-26 18:17:15"),
		ReportTime: at("2022-10-26 18:17:15"), WaitStatus: int32(syscall.SIGUSR2), TermReason: "TERM_RUNLIMIT",
		Usage: &api.Usage{CPUTime: 0.03}, MaxProcs: 1, MaxThreads: 1,
		Notes: []string{"Read file </tmp/e> for stderr output of this job."},
	}
	got := string(Format(j))
	for _, want := range []string{
		"Subject: Job 12[3]: <arr[3]> in cluster <c> Exited\n",
		"Job was executed on host(s) <4*hA>, in queue <q>, as user <u> in cluster <c> at Wed Oct 26 18:11:57 2022\n                            <hB>\n",
		"Execution home directory was not known.\nExecution working directory was not known.\n",
		"# LSBATCH: User input\nsleep 120\n" + Separator + "\n\n",
		"TERM_RUNLIMIT: job killed after reaching LSF run time limit.\nExited with signal termination: User defined signal 2.\n\n",
		"    Max Memory :                                 -\n",
		"    Run time :                                   318 sec.\n    Turnaround time :                            458 sec.\n",
		"The output (if any) is above this job summary.\n\n\n\nPS:\n\nRead file </tmp/e> for stderr output of this job.\n\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}

func TestOutcome(t *testing.T) {
	tests := []struct {
		ws       int32
		requeued bool
		want     string
	}{
		{0, false, "Successfully completed"},
		{3 << 8, false, "Exited with exit code 3"},
		{137 << 8, false, "Exited with exit code 137"},
		{int32(syscall.SIGKILL), false, "Exited with signal termination: Killed"},
		{int32(syscall.SIGSEGV) | 0x80, false, "Exited with signal termination: Segmentation fault, and core dumped"},
		{1 << 8, true, "Job was killed by user or admin, and will be re-queued with the same jobid"},
		{0x137f, false, "Exited with unknown status 011577"},
	}
	for _, tt := range tests {
		if got := Outcome(tt.ws, tt.requeued); got != tt.want {
			t.Errorf("Outcome(%#x) = %q, want %q", tt.ws, got, tt.want)
		}
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		reason, text string
		code         int
		info         string
	}{
		{"TERM_OWNER", "job killed by owner", 14, "SIGNAL -14 SIG_TERM_USER"},
		{"TERM_ADMIN", "job killed by root or LSF administrator", 15, "SIGNAL -14 SIG_TERM_USER"},
		{"TERM_MEMLIMIT", "job killed after reaching LSF memory usage limit", 16, "SIGNAL -25 SIG_TERM_MEMLIMIT"},
		{"TERM_RUNLIMIT", "job killed after reaching LSF run time limit", 5, "SIGNAL -18 SIG_TERM_RUNLIMIT"},
		{"TERM_CPULIMIT", "job killed after reaching LSF CPU usage limit", 12, "SIGNAL -24 SIG_TERM_CPULIMIT"},
		{"TERM_REQUEUE_OWNER", "job killed and requeued by owner", 10, "SIGNAL -23 SIG_KILL_REQUEUE"},
		{"TERM_FORCE_ADMIN", "job killed by root or LSF administrator without time for cleanup", 9, "SIGNAL -21 SIG_TERM_FORCE"},
		{"TERM_WINDOW", "job killed after queue run window closed", 2, "SIGNAL -16 SIG_TERM_WINDOW"},
		{"TERM_CWD_NOTEXIST", "current working directory is not accessible or does not exist on the execution host", 25, "SIGNAL -17 SIG_TERM_OTHER"},
		{"", "", 0, ""},
		{"TERM_BOGUS", "", 0, "SIGNAL -17 SIG_TERM_OTHER"},
	}
	for _, tt := range tests {
		if got := TermText(tt.reason); got != tt.text {
			t.Errorf("TermText(%s) = %q", tt.reason, got)
		}
		if got := TermCode(tt.reason); got != tt.code {
			t.Errorf("TermCode(%s) = %d", tt.reason, got)
		}
		if got := ExitInfo(tt.reason); got != tt.info {
			t.Errorf("ExitInfo(%s) = %q", tt.reason, got)
		}
	}
}

func TestSignals(t *testing.T) {
	for in, want := range map[string]syscall.Signal{"SIGTSTP": syscall.SIGTSTP, "tstp": syscall.SIGTSTP, "Kill": syscall.SIGKILL,
		"9": syscall.SIGKILL, "SIGUSR2": syscall.SIGUSR2, "CONT": syscall.SIGCONT} {
		if got, ok := ParseSignal(in); !ok || got != want {
			t.Errorf("ParseSignal(%q) = %v, %v", in, got, ok)
		}
	}
	for _, bad := range []string{"", "SIG", "NOPE", "0", "65", "-1"} {
		if _, ok := ParseSignal(bad); ok {
			t.Errorf("ParseSignal(%q) accepted", bad)
		}
	}
	if SignalText(syscall.SIGTERM) != "Terminated" || SignalText(35) != "Real-time signal 1" || SignalText(99) != "Unknown signal 99" {
		t.Error("SignalText")
	}
}

func BenchmarkFormat(b *testing.B) {
	j := &Job{JobID: 1, JobName: "j", Command: "sleep 1", Hosts: []*api.ExecHost{{Host: "h", Slots: 1}},
		Usage: &api.Usage{CPUTime: 1, MaxMem: 2048}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Format(j)
	}
}
