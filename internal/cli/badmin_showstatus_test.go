package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

// ibmShowStatus is the reply of IBM's example ("Viewing LSF cluster
// information"); testdata/showstatus/ibm.txt is its output.
func ibmShowStatus(t *testing.T) *api.ShowStatusReply {
	t.Helper()
	at := func(s string) int64 {
		tm, err := time.ParseInLocation(showStatusDate, s, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Unix()
	}
	c := func(n, p int32) *api.ShowStatusCounts { return &api.ShowStatusCounts{Current: n, Peak: p} }
	return &api.ShowStatusReply{
		Clients: c(0, 0), Servers: c(8, 8), CPUs: c(14, 14), Cores: c(50, 50), Slots: c(50, 50),
		NumServers: 8, Ok: 8,
		NumJobs: 7, Finished: 7,
		NumUsers: 4, NumUserGroups: 1,
		Start: at("Thu Nov 22 21:17:01 2012"), PID: 26283, Reconfig: at("Thu Nov 22 21:18:06 2012"),
	}
}

func TestRenderShowStatusIBM(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "showstatus", "ibm.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	renderShowStatus(&b, ibmShowStatus(t), time.UTC)
	if got := b.String(); got != string(want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestRenderShowStatusColumns: every value starts at the 37th column, each
// count of its own line, as LSF prints them; a missing pair reads 0/0.
func TestRenderShowStatusColumns(t *testing.T) {
	r := &api.ShowStatusReply{Servers: &api.ShowStatusCounts{Current: 123, Peak: 4567}, NumServers: 4567, Closed: 3,
		Unreachable: 1, Unavailable: 2, NumJobs: 10, Running: 1, Suspended: 2, Pending: 3, Finished: 4,
		NumUsers: 5, ActiveUsers: 1, Start: 1, PID: 99, Reconfig: 2}
	var b bytes.Buffer
	renderShowStatus(&b, r, time.UTC)
	want := map[string]string{
		"    Clients:": "0/0", "    Servers:": "123/4567", "    CPUs:": "0/0",
		" Number of servers:": "4567", "    Closed:": "3", "    Unreachable:": "1", "    Unavailable:": "2",
		" Number of jobs:": "10", "    Running:": "1", "    Suspended:": "2", "    Pending:": "3", "    Finished:": "4",
		" Number of users:": "5", " Number of user groups:": "0", " Number of active users:": "1",
		" Latest mbatchd start:": "Thu Jan  1 00:00:01 1970", " Active mbatchd PID:": "99",
		" Latest mbatchd reconfig:": "Thu Jan  1 00:00:02 1970",
	}
	seen := 0
	for _, l := range strings.Split(b.String(), "\n") {
		if len(l) <= 36 || !strings.HasSuffix(strings.TrimSpace(l[:36]), ":") {
			continue
		}
		label, value := strings.TrimRight(l[:36], " "), l[36:]
		if l[35] != ' ' || value[0] == ' ' {
			t.Errorf("%q: value not at column 37", l)
		}
		if w, ok := want[label]; ok {
			seen++
			if value != w {
				t.Errorf("%s %q, want %q", label, value, w)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d of %d labels found in\n%s", seen, len(want), b.String())
	}
}

// TestShowStatusStartParses reads the start time as a public uptime script
// does: the line matching "Latest mbatchd start", its text after the first
// ':' stripped, parsed as a date.
func TestShowStatusStartParses(t *testing.T) {
	start := time.Date(2026, 3, 2, 7, 5, 9, 0, time.UTC)
	r := &api.ShowStatusReply{Start: start.Unix(), Reconfig: start.Unix() + 60}
	var b bytes.Buffer
	renderShowStatus(&b, r, time.UTC)
	var found int
	for _, l := range strings.Split(b.String(), "\n") {
		if !strings.Contains(l, "Latest mbatchd start") {
			continue
		}
		found++
		_, v, _ := strings.Cut(l, ":")
		v = strings.TrimSpace(v)
		if v != "Mon Mar  2 07:05:09 2026" {
			t.Errorf("start %q", v)
		}
		got, err := time.ParseInLocation(showStatusDate, v, time.UTC)
		if err != nil || !got.Equal(start) {
			t.Errorf("start %q parses as %v, %v; want %v", v, got, err, start)
		}
	}
	if found != 1 {
		t.Errorf("%d start lines", found)
	}
}
