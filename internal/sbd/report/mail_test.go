package report

import (
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func TestAddress(t *testing.T) {
	for _, c := range []struct{ format, user, host, want string }{
		{"", "alice", "login1", "alice"},
		{"!U", "alice", "login1", "alice"},
		{"!U@example.org", "alice", "login1", "alice@example.org"},
		{"!U@!H", "alice", "login1", "alice@login1"},
		{"^U@^H.example.org", "alice", "login1", "alice@login1.example.org"},
		{"admin-!X!", "alice", "login1", "admin-!X!"},                // other characters, other ! copied
		{"!U@example.org", "bob@site.org", "login1", "bob@site.org"}, // -u with an address
		{"!", "alice", "h", "!"},
	} {
		if got := Address(c.format, c.user, c.host); got != c.want {
			t.Errorf("Address(%q, %q, %q) = %q, want %q", c.format, c.user, c.host, got, c.want)
		}
	}
}

func FuzzAddress(f *testing.F) {
	f.Add("!U@!H", "alice", "login1")
	f.Add("^", "", "")
	f.Fuzz(func(t *testing.T, format, user, host string) {
		got := Address(format, user, host)
		if !strings.Contains(user, "@") && !strings.ContainsAny(format, "!^") && got != format && format != "" {
			t.Errorf("Address(%q) = %q: a format without ! or ^ is copied", format, got)
		}
	})
}

func mailJob() *Job {
	return &Job{
		JobID: 42, JobName: "echo hi", Cluster: "c1", User: "alice", ExecUser: "alice", FromHost: "login1",
		Queue: "normal", Hosts: []*api.ExecHost{{Host: "n1", Slots: 2}, {Host: "n2", Slots: 1}}, ExecHome: "/home/alice",
		ExecCwd: "/home/alice/w", Command: "echo hi", Admin: "lsfadmin", Host: "n1",
		SubmitTime: at("2026-03-02 10:00:00"), StartTime: at("2026-03-02 10:00:05"),
		EndTime: at("2026-03-02 10:00:07"), ReportTime: at("2026-03-02 10:00:07"),
		Usage: &api.Usage{CPUTime: 0.5}, MaxProcs: 1, MaxThreads: 1,
	}
}

const mailReport = `To: alice@x.org
From: LSF <lsfadmin>
Sender: LSF System <lsfadmin@n1>
Subject: Job 42: <echo hi> in cluster <c1> Done

Job <echo hi> was submitted from host <login1> by user <alice> in cluster <c1> at Mon Mar  2 10:00:00 2026
Job was executed on host(s) <2*n1>, in queue <normal>, as user <alice> in cluster <c1> at Mon Mar  2 10:00:05 2026
                            <n2>
</home/alice> was used as the home directory.
</home/alice/w> was used as the working directory.
Started at Mon Mar  2 10:00:05 2026
Terminated at Mon Mar  2 10:00:07 2026
Results reported at Mon Mar  2 10:00:07 2026

Your job looked like:

------------------------------------------------------------
# LSBATCH: User input
echo hi
------------------------------------------------------------

Successfully completed.

Resource usage summary:

    CPU time :                                   0.50 sec.
    Max Memory :                                 -
    Average Memory :                             -
    Total Requested Memory :                     -
    Delta Memory :                               -
    Max Swap :                                   -
    Max Processes :                              1
    Max Threads :                                1
    Run time :                                   2 sec.
    Turnaround time :                            7 sec.
`

func TestFormatMail(t *testing.T) {
	for _, c := range []struct {
		name       string
		m          EndMail
		notes      []string
		head, tail string
	}{
		{"with output", EndMail{WithOutput: true}, []string{"Read file <e.1> for stderr output of this job."},
			mailReport + "\nThe output (if any) follows:\n\n", "\n\nPS:\n\nRead file <e.1> for stderr output of this job.\n\n"},
		{"output too large", EndMail{WithOutput: true, LimitKB: 10, SavedAt: "/home/alice/.lsbatch/42.out"}, nil,
			mailReport + "\nOutput is larger than limit of 10 KB set by administrator.\nOutput will be saved at /home/alice/.lsbatch/42.out.\n", ""},
		{"-N -o", EndMail{OutFile: "/home/alice/w/o.42"}, nil,
			mailReport + "\nRead file </home/alice/w/o.42> for stdout and stderr output of this job.\n", ""},
		{"-N -o -e", EndMail{OutFile: "o.42", ErrApart: true}, []string{"Read file <e.42> for stderr output of this job."},
			mailReport + "\nRead file <o.42> for stdout output of this job.\n", "\n\nPS:\n\nRead file <e.42> for stderr output of this job.\n\n"},
		{"-N -o /dev/null", EndMail{OutFile: "/dev/null"}, nil, mailReport, ""},
	} {
		j := mailJob()
		j.Notes = c.notes
		head, tail := FormatMail("alice@x.org", j, c.m)
		if string(head) != c.head {
			t.Errorf("%s: head =\n%s\nwant\n%s\ndiff at %d", c.name, head, c.head, firstDiff(string(head), c.head))
		}
		if string(tail) != c.tail {
			t.Errorf("%s: tail = %q, want %q", c.name, tail, c.tail)
		}
	}
}

func TestFormatBegin(t *testing.T) {
	want := `To: alice
From: LSF <lsfadmin>
Sender: LSF System <lsfadmin@n1>
Subject: Job 42: <echo hi> in cluster <c1> was started on host(s) <2*n1> <n2>

Job <echo hi> was submitted from host <login1> by user <alice> in cluster <c1> at Mon Mar  2 10:00:00 2026
Job was executed on host(s) <2*n1>, in queue <normal>, as user <alice> in cluster <c1> at Mon Mar  2 10:00:05 2026
                            <n2>
</home/alice> was used as the home directory.
</home/alice/w> was used as the working directory.
Started at Mon Mar  2 10:00:05 2026
Notification reported at Mon Mar  2 10:00:06 2026
`
	if got := string(FormatBegin("alice", mailJob(), at("2026-03-02 10:00:06"))); got != want {
		t.Errorf("FormatBegin =\n%s\nwant\n%s\ndiff at %d", got, want, firstDiff(got, want))
	}
}

func TestSizeKB(t *testing.T) {
	for n, want := range map[int64]int64{0: 0, 1: 1, 1024: 1, 1025: 2} {
		if got := SizeKB(n); got != want {
			t.Errorf("SizeKB(%d) = %d, want %d", n, got, want)
		}
	}
}
