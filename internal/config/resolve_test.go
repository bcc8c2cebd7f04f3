package config

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config/hostsfile"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

func queuesFile(qs ...string) string {
	var b strings.Builder
	for _, q := range qs {
		b.WriteString("Begin Queue\n" + strings.TrimSpace(q) + "\nEnd Queue\n")
	}
	return b.String()
}

func prefs(ps []QueuePref) string {
	var out []string
	for _, p := range ps {
		if p.Pref > 0 {
			out = append(out, fmt.Sprintf("%s+%d", p.Queue, p.Pref))
		} else {
			out = append(out, p.Queue)
		}
	}
	return strings.Join(out, " ")
}

// TestPreemptionRelations follows the reference's example (§4.1) and the
// seed's rules: a preemptive queue preempts every lower-priority queue, a
// preemptable queue is preempted by every higher-priority queue, and a queue
// that is neither cannot preempt one that is neither.
func TestPreemptionRelations(t *testing.T) {
	c := loadFixture(t, map[string]string{"lsb.queues": queuesFile(
		"QUEUE_NAME=high\nPREEMPTION=PREEMPTIVE\nPRIORITY=99",
		"QUEUE_NAME=medium\nPREEMPTION=PREEMPTIVE[normal low+1]\nPRIORITY=10",
		"QUEUE_NAME=normal\nPREEMPTION=PREEMPTIVE[low] PREEMPTABLE[high medium]\nPRIORITY=5",
		"QUEUE_NAME=low\nPRIORITY=1",
		"QUEUE_NAME=A\nPRIORITY=20",
		"QUEUE_NAME=C\nPRIORITY=2",
		"QUEUE_NAME=loose\nPRIORITY=3\nPREEMPTION=PREEMPTABLE",
		"QUEUE_NAME=same\nPRIORITY=10\nPREEMPTION=PREEMPTABLE",
		"QUEUE_NAME=normal\nPRIORITY=7",
	)})
	want := map[string]string{
		// No list: every lower-priority queue, lowest priority first.
		"high": "low C loose normal medium same A",
		// Preference first (+1), then the others by priority.
		"medium": "low+1 loose normal",
		"normal": "low loose",
		"low":    "",
		// Neither preemptive nor a preemptable target: A preempts only the
		// queues that declare themselves PREEMPTABLE.
		"A":     "loose same",
		"C":     "",
		"loose": "",
		"same":  "loose",
	}
	for name, w := range want {
		if got := prefs(c.Queue(name).Preempts); got != w {
			t.Errorf("%s preempts %q, want %q", name, got, w)
		}
	}
	if !strings.Contains(c.Warnings.String(), "Queue <normal> is defined twice") {
		t.Errorf("warnings: %s", c.Warnings)
	}
}

// TestPools follows the seed's example: queues in two pools ordered by
// priority, a queue outside any pool among them.
func TestPools(t *testing.T) {
	c := loadFixture(t, map[string]string{"lsb.queues": queuesFile(
		"QUEUE_NAME=queue3\nPRIORITY=30\nSLOT_POOL=pool1\nSLOT_SHARE=20",
		"QUEUE_NAME=queue1\nPRIORITY=50\nSLOT_POOL=pool1\nSLOT_SHARE=50\nMAX_SLOTS_IN_POOL=12\nUSE_PRIORITY_IN_POOL=Y",
		"QUEUE_NAME=queue2\nPRIORITY=40\nSLOT_POOL=pool1\nSLOT_SHARE=30",
		"QUEUE_NAME=queue4\nPRIORITY=25",
		"QUEUE_NAME=queue6\nPRIORITY=20\nSLOT_POOL=pool2\nSLOT_SHARE=60",
		"QUEUE_NAME=queue7\nPRIORITY=15\nSLOT_POOL=pool2\nSLOT_SHARE=40",
	)})
	// MAX_SLOTS_IN_POOL is read from the pool's first queue in lsb.queues.
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].Msg, "read from the pool's first queue <queue3>") {
		t.Fatal(c.Warnings)
	}
	if len(c.Pools) != 2 {
		t.Fatalf("pools = %+v", c.Pools)
	}
	p1 := c.Pool("pool1")
	var got []string
	for _, qs := range p1.Queues {
		got = append(got, fmt.Sprintf("%s:%d", qs.Queue, qs.Share))
	}
	if strings.Join(got, " ") != "queue1:50 queue2:30 queue3:20" || p1.MaxSlots != 0 || p1.UsePriority {
		t.Errorf("pool1 = %v max %d prio %v", got, p1.MaxSlots, p1.UsePriority)
	}
	if c.Pool("pool2").Queues[0].Queue != "queue6" || c.Queue("queue4").SlotPool != "" {
		t.Error("pool2 / queue4")
	}
	c2 := loadFixture(t, map[string]string{"lsb.queues": queuesFile(
		"QUEUE_NAME=a\nPRIORITY=50\nSLOT_POOL=p\nSLOT_SHARE=50\nMAX_SLOTS_IN_POOL=12\nUSE_PRIORITY_IN_POOL=Y",
		"QUEUE_NAME=b\nPRIORITY=60\nSLOT_POOL=p\nSLOT_SHARE=50",
	)})
	if p := c2.Pool("p"); p.MaxSlots != 12 || !p.UsePriority || p.Queues[0].Queue != "b" {
		t.Errorf("pool p = %+v", p)
	}
}

func hostPrefs(hs []HostPref) string {
	if hs == nil {
		return "<all>"
	}
	var out []string
	for _, h := range hs {
		if h.Pref > 0 {
			out = append(out, fmt.Sprintf("%s+%d", h.Host, h.Pref))
		} else {
			out = append(out, h.Host)
		}
	}
	return strings.Join(out, " ")
}

func TestQueueHosts(t *testing.T) {
	hostsFile := "Begin HostGroup\nGROUP_MEMBER GROUP_NAME\n(h1 h3) g13\nEnd HostGroup\n"
	hostsFile = strings.Replace(hostsFile, "GROUP_MEMBER GROUP_NAME", "GROUP_NAME GROUP_MEMBER", 1)
	hostsFile = strings.Replace(hostsFile, "(h1 h3) g13", "g13 (h1 h3)", 1)
	tests := []struct{ spec, want string }{
		{"", "<all>"},
		{"HOSTS = all", "h1 h2 h3"},
		{"HOSTS = h3 h1", "h1 h3"},
		{"HOSTS = h1+2 others", "h1+2 h2 h3"},
		{"HOSTS = g13+3 others+1", "h1+3 h2+1 h3+3"},
		{"HOSTS = all ~h2", "h1 h3"},
		{"HOSTS = all ~g13", "h2"},
		{"HOSTS = ~h1", "h2 h3"},
		{"HOSTS = h[1-2]", "h1 h2"},
		{"HOSTS = h*", "h1 h2 h3"},
		{"HOSTS = h1+ h2", "h1+1 h2"},
		{"HOSTS = none", ""},
		{"HOSTS = H1", "h1"},
	}
	for _, tt := range tests {
		c := loadFixture(t, map[string]string{"lsb.hosts": hostsFile, "lsb.queues": queuesFile("QUEUE_NAME=q\n" + tt.spec)})
		if len(c.Warnings) != 0 {
			t.Errorf("%s: %s", tt.spec, c.Warnings)
		}
		if got := hostPrefs(c.Queue("q").Hosts); got != tt.want {
			t.Errorf("%q: hosts %q, want %q", tt.spec, got, tt.want)
		}
	}
}

func TestHostGroupMembers(t *testing.T) {
	lsbHosts := `Begin HostGroup
GROUP_NAME GROUP_MEMBER
rest       (others ~h3)
g1         (h1)
all_but    (all ~g1)
ranged     (h[2-3])
wild       (h?)
nested     (g1 ranged ~h3)
ext        (! h1)
End HostGroup
`
	opts := fixtureOptions(fixture(map[string]string{"lsb.hosts": lsbHosts}))
	opts.EGroup = func(_ context.Context, flag, group string) ([]string, error) {
		if flag != "-m" || group != "ext" {
			return nil, errors.New("unexpected call")
		}
		return []string{"h3"}, nil
	}
	c, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 {
		t.Fatal(c.Warnings)
	}
	want := map[string]string{
		"rest": "", "g1": "h1", "all_but": "h2 h3", "ranged": "h2 h3", "wild": "h1 h2 h3",
		"nested": "h1 h2", "ext": "h1 h3",
	}
	for g, w := range want {
		if got := strings.Join(c.HostGroup(g).Members, " "); got != w {
			t.Errorf("%s = %q, want %q", g, got, w)
		}
	}
	if !c.HostGroup("ext").External {
		t.Error("ext is external")
	}
	// others: the hosts in no other group.
	c2 := loadFixture(t, map[string]string{"lsb.hosts": "Begin HostGroup\nGROUP_NAME GROUP_MEMBER\nrest (others ~h3)\ng1 (h1)\nEnd HostGroup\n"})
	if got := strings.Join(c2.HostGroup("rest").Members, " "); got != "h2" {
		t.Errorf("rest = %q", got)
	}
}

// TestBatchHostRows checks lsb.hosts' precedence: a host's own row, then its
// group's, its model's, its type's, then default.
func TestBatchHostRows(t *testing.T) {
	lsbHosts := `Begin Host
HOST_NAME  MXJ  JL/U  r1m       MIG
h1         1    ()    ()        ()
LINUX      3    ()    ()        ()
M2         2    1     0.5/1.5   5
default    !    ()    ()        ()
End Host
`
	c := loadFixture(t, map[string]string{"lsb.hosts": lsbHosts})
	if len(c.Warnings) != 0 {
		t.Fatal(c.Warnings)
	}
	want := map[string]string{
		"h1": "row=h1 mxj=1 jlu=0 mig=-1",
		"h3": "row=M2 mxj=2 jlu=1 mig=5 r1m=0.5/1.5",
		"h2": "row=default mxj=! jlu=0 mig=-1",
	}
	for _, h := range c.BatchHosts {
		mxj := fmt.Sprint(h.MXJ)
		if h.MXJCPUs {
			mxj = "!"
		}
		got := fmt.Sprintf("row=%s mxj=%s jlu=%d mig=%d", h.Row, mxj, h.JLU, h.Mig)
		for _, th := range h.Thresholds {
			got += " " + th.String()
		}
		if got != want[h.Name] {
			t.Errorf("%s: %s, want %s", h.Name, got, want[h.Name])
		}
	}
	if c.BatchHost("c1") != nil || c.BatchHost("H2") == nil {
		t.Error("client hosts are not batch hosts; names are case-insensitive")
	}
	// A type row applies when the model has none; without a Host section
	// every server host is a batch host with no limit.
	c2 := loadFixture(t, map[string]string{"lsb.hosts": "Begin Host\nHOST_NAME MXJ\nLINUX 3\nEnd Host\n"})
	if h := c2.BatchHost("h3"); h.Row != "LINUX" || h.MXJ != 3 {
		t.Errorf("type row: %+v", h)
	}
	if h := c2.BatchHost("h2"); h.Row != "" || h.MXJ != -1 {
		t.Errorf("no row: %+v", h)
	}
	// A host group row.
	c3 := loadFixture(t, map[string]string{"lsb.hosts": "Begin Host\nHOST_NAME MXJ\ng 7\nEnd Host\nBegin HostGroup\nGROUP_NAME GROUP_MEMBER\ng (h2)\nEnd HostGroup\n"})
	if h := c3.BatchHost("h2"); h.Row != "g" || h.MXJ != 7 || len(c3.Warnings) != 0 {
		t.Errorf("group row: %+v %s", h, c3.Warnings)
	}
}

func TestUserGroupsAndShareTree(t *testing.T) {
	users := `Begin UserGroup
GROUP_NAME GROUP_MEMBER          USER_SHARES
leaf       (u1 u2)               ()
mid        (leaf u3)             ([leaf, 2] [u3, 1])
top        (mid u4 ext)          ([mid, 5] [default, 1])
ext        (!)                   ()
everyone   (all)                 ()
End UserGroup
`
	var calls []string
	m := fixture(map[string]string{"lsb.users": users, "lsb.queues": queuesFile(
		"QUEUE_NAME=q\nFAIRSHARE=USER_SHARES[[top, 3] [leaf@, 2] [u9, 1] [others, 1]]")})
	opts := fixtureOptions(m)
	opts.EGroup = func(ctx context.Context, flag, group string) ([]string, error) {
		calls = append(calls, flag+" "+group)
		return []string{"x1", "x2"}, nil
	}
	c, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	members := map[string]string{
		"leaf": "u1 u2", "mid": "u1 u2 u3", "top": "u1 u2 u3 u4", "ext": "x1 x2", "everyone": "",
	}
	for g, w := range members {
		if got := strings.Join(c.UserGroup(g).Members, " "); got != w {
			t.Errorf("%s members %q, want %q", g, got, w)
		}
	}
	if !c.UserGroup("everyone").All {
		t.Error("(all) group")
	}
	// "ext" is a plain member name of top (defined after top): a user.
	if strings.Join(calls, ",") != "-u ext" {
		t.Errorf("egroup calls = %v", calls)
	}
	var b strings.Builder
	dumpShares(&b, c.ShareTree(c.Queue("q").Fairshare), 0)
	want := `- group top 3
  - group mid 5
    - group leaf 2 members=u1,u2
    - user u3 1
  - default default 1
- user u1 2
- user u2 2
- user u9 1
- others others 1
`
	if b.String() != want {
		t.Errorf("share tree:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestResourceTable(t *testing.T) {
	c := loadExample(t)
	tab := c.ResourceTable()
	check := func(name string, typ resreq.ValueType, shared, dynamic bool) {
		t.Helper()
		i, ok := tab.Index(name)
		if !ok {
			t.Fatalf("%s not in the table", name)
		}
		d := tab.Def(i)
		if d.Type != typ || d.Shared != shared || d.Dynamic() != dynamic || d.Builtin {
			t.Errorf("%s = %+v", name, d)
		}
	}
	check("matlab", resreq.Numeric, true, false)
	check("scratch", resreq.Numeric, true, true)
	check("nio", resreq.Numeric, false, true)
	check("gpu", resreq.Boolean, false, false)
	check("os_version", resreq.String, true, false)
	if i, ok := tab.Index("swap"); !ok || tab.Name(i) != "swp" || !tab.Def(i).Builtin {
		t.Error("built-in aliases must resolve")
	}
	if tab.Len() != resreq.NumBuiltin+len(c.Shared.Resources) {
		t.Errorf("table has %d entries", tab.Len())
	}
	if def, _ := tab.Index("nio"); !tab.Def(def).Increasing || tab.Def(def).Consumable {
		t.Error("nio: increasing, not consumable")
	}
}

func TestTimeBlocksFollowTheClock(t *testing.T) {
	for _, tt := range []struct {
		at   time.Time
		want int
		next string
	}{
		{wednesdayNoon, 2, "2024-01-10T18:00:00Z"},
		{time.Date(2024, 1, 10, 20, 0, 0, 0, time.UTC), 0, "2024-01-11T08:00:00Z"},
		{time.Date(2024, 1, 13, 12, 0, 0, 0, time.UTC), 0, "2024-01-13T18:00:00Z"}, // Saturday
	} {
		opts := exampleOptions()
		opts.Clock = clock.NewFake(tt.at)
		c, err := Load(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if c.Params.JobAcceptInterval != tt.want || c.NextChange.Format(time.RFC3339) != tt.next {
			t.Errorf("at %s: JOB_ACCEPT_INTERVAL=%d next=%s, want %d %s", tt.at, c.Params.JobAcceptInterval, c.NextChange.Format(time.RFC3339), tt.want, tt.next)
		}
	}
}

func TestDefaultQueueAndParams(t *testing.T) {
	c := loadFixture(t, map[string]string{"lsb.queues": "", "lsb.params": ""})
	if len(c.Queues) != 1 || c.Queues[0].Name != "default" || strings.Join(c.DefaultQueues(), " ") != "default" {
		t.Errorf("queues = %v", c.Queues)
	}
	if len(c.Warnings) != 2 {
		t.Errorf("warnings: %s", c.Warnings)
	}
	p := c.Params
	want := DefaultParams()
	want.Path = p.Path
	if p.MBDSleepTime != 60*time.Second || p.SBDSleepTime != 30*time.Second || p.JobAcceptInterval != 1 ||
		p.MaxJobNum != 1000 || p.MaxJobID != 999999 || p.CleanPeriod != time.Hour || p.MaxSBDFail != 3 ||
		p.JobTerminateInterval != 10*time.Second || p.MaxJobArraySize != 1000 || p.PGSuspIT != 180*time.Second ||
		p.CPUTimeFactor != 0.7 || p.RunTimeFactor != 0.7 || p.RunJobFactor != 3 || p.HistHours != 5 ||
		p.DefaultProject != "default" || p.JobSchedulingInterval != 0 {
		t.Errorf("defaults = %+v", p)
	}
	q := c.Queues[0]
	if q.Priority != 1 || !q.Users.All || q.Hosts != nil || q.Mig != -1 || q.NewJobSchedDelay != 10*time.Second {
		t.Errorf("default queue = %+v", q)
	}
	if got := strings.Join(loadExample(t).Admins(), " "); got != "lsfadmin alice" {
		t.Errorf("admins = %s", got)
	}
	if got := strings.Join(c.Admins(), " "); got != "root" {
		t.Errorf("admins without ClusterAdmins = %s", got)
	}
}

func TestQueueValues(t *testing.T) {
	tests := []struct {
		line  string
		check func(q *Queue) bool
	}{
		{"CPULIMIT = 2:30/M1", func(q *Queue) bool {
			return q.Limits.CPU.Max == 150*time.Minute && q.Limits.CPU.MaxSpec == "M1" && q.Limits.CPU.Default == 0
		}},
		{"RUNLIMIT = 10 1:00", func(q *Queue) bool { return q.Limits.Run.Default == 10*time.Minute && q.Limits.Run.Max == time.Hour }},
		{"MEMLIMIT = 2G", func(q *Queue) bool { return q.Limits.Mem.Max == 2<<20 }},
		{"MEMLIMIT = 100", func(q *Queue) bool { return q.Limits.Mem.Max == 100 }}, // KB: no LSF_UNIT_FOR_LIMITS
		{"SWAPLIMIT = 3MB", func(q *Queue) bool { return q.Limits.Swap.Max == 3072 }},
		{"PROCESSLIMIT = 4 8", func(q *Queue) bool { return q.Limits.Process.Default == 4 && q.Limits.Process.Max == 8 }},
		{"PROCLIMIT = 4", func(q *Queue) bool { return q.Limits.Proc == ProcLimit{Max: 4} }},
		{"PROCLIMIT = 2 4", func(q *Queue) bool { return q.Limits.Proc == ProcLimit{Min: 2, Max: 4} }},
		{"TASKLIMIT = 1 2 4", func(q *Queue) bool { return q.Limits.Proc == ProcLimit{Min: 1, Default: 2, Max: 4} }},
		{"JOB_CONTROLS = SUSPEND[CHKPNT] RESUME[kill -CONT $LSB_JOBPGIDS] TERMINATE[KILL]", func(q *Queue) bool {
			jc := q.JobControls
			return jc.Suspend.Kind == ActionChkpnt && jc.Resume.Kind == ActionCommand && jc.Resume.Command == "kill -CONT $LSB_JOBPGIDS" &&
				jc.Terminate.Kind == ActionSignal && jc.Terminate.Signal == "SIGKILL"
		}},
		{"REQUEUE_EXIT_VALUES = 30 EXCLUDE(20 21)", func(q *Queue) bool {
			r1, e1 := q.RequeueExitValues.Requeue(30)
			r2, e2 := q.RequeueExitValues.Requeue(21)
			r3, _ := q.RequeueExitValues.Requeue(0)
			return r1 && !e1 && r2 && e2 && !r3
		}},
		{"INTERACTIVE = ONLY", func(q *Queue) bool { return q.Interactive == InteractiveOnly }},
		{"INTERACTIVE = y", func(q *Queue) bool { return q.Interactive == InteractiveBoth }},
		{"USERS = all ~guest", func(q *Queue) bool { return q.Users.All && q.Users.Except[0] == "guest" }},
		{"USERS = ~guest", func(q *Queue) bool { return q.Users.All && len(q.Users.Except) == 1 }},
		{"CHKPNT = /ck", func(q *Queue) bool { return q.Chkpnt.Dir == "/ck" && q.Chkpnt.Period == 0 }},
		{"r1m = -/3", func(q *Queue) bool {
			th, ok := q.Threshold("r1m")
			return ok && !th.HasSched && th.HasStop && th.Stop == 3
		}},
		{"cpu = 1", func(q *Queue) bool { th, ok := q.Threshold("r1m"); return ok && th.Sched == 1 && !th.HasStop }},
		{"DESCRIPTION = " + strings.Repeat("x", 600), func(q *Queue) bool { return len(q.Description) == 512 }},
		{"PREEMPTION = PREEMPTABLE PREEMPTIVE[a+3 b]", func(q *Queue) bool {
			p := q.Preemption
			return p.Preemptable && p.Preemptive && len(p.PreemptableBy) == 0 && prefs(p.PreemptiveQueues) == "a+3 b"
		}},
	}
	for _, tt := range tests {
		m := fixture(map[string]string{"lsb.queues": queuesFile("QUEUE_NAME=q\n" + tt.line)})
		var d Diagnostics
		f := must(lexParse(batchDir+"lsb.queues", m, &d))
		qs := parseQueues(f, "KB", &d)
		if len(qs) != 1 || !tt.check(qs[0]) {
			t.Errorf("%q: %+v (%s)", tt.line, qs, d)
		}
	}
}

func TestSizesAndRanges(t *testing.T) {
	sizes := []struct {
		in, unit string
		want     int64
		ok       bool
	}{
		{"10", "KB", 10, true}, {"10", "MB", 10240, true}, {"1G", "KB", 1 << 20, true}, {"1gb", "", 0, false},
		{"5", "", 5, true}, {"x", "KB", 0, false}, {"1ZB", "KB", 0, false}, {"9999999999EB", "KB", 0, false},
	}
	for _, s := range sizes {
		got, ok := parseSize(s.in, s.unit)
		if got != s.want || ok != s.ok {
			t.Errorf("parseSize(%q, %q) = %d %v", s.in, s.unit, got, ok)
		}
	}
	ranges := map[string]string{
		"node[1-3]":    "node1 node2 node3",
		"n[08-10].x":   "n08 n09 n10.x",
		"n[3-1]":       "",
		"plain":        "",
		"n[a-b]":       "",
		"rack[1-2]-n1": "rack1-n1 rack2-n1",
	}
	for in, want := range ranges {
		got, _ := memberRange(in)
		if in == "n[08-10].x" {
			want = "n08.x n09.x n10.x"
		}
		if strings.Join(got, " ") != want {
			t.Errorf("memberRange(%q) = %v, want %s", in, got, want)
		}
	}
}

func TestStore(t *testing.T) {
	m := fixture(nil)
	opts := fixtureOptions(m)
	load := func(ctx context.Context) (*Config, error) { return Load(ctx, opts) }
	s, err := NewStore(context.Background(), load)
	if err != nil {
		t.Fatal(err)
	}
	first := s.Current()
	if s.Generation() != 1 || first.Queue("normal") == nil {
		t.Fatal("first load")
	}
	m[batchDir+"lsb.queues"] = queuesFile("QUEUE_NAME=new")
	if err := s.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s.Current() == first || s.Current().Queue("new") == nil || s.Generation() != 2 {
		t.Fatal("reload did not swap")
	}
	// A bad configuration keeps the previous one in force.
	good := s.Current()
	m["/c/lsf.cluster.t"] = "Begin Host\nHOSTNAME\nEnd Host\n"
	err = s.Reload(context.Background())
	var el *ErrorList
	if err == nil || !errors.As(err, &el) || !strings.Contains(err.Error(), "no valid host defined") {
		t.Fatalf("Reload error = %v", err)
	}
	if s.Current() != good || s.Generation() != 2 {
		t.Fatal("a failed reload must keep the old snapshot")
	}
	if _, err := NewStore(context.Background(), load); err == nil {
		t.Fatal("NewStore must fail on a bad configuration")
	}
	// The first configuration's own data is untouched (immutability).
	if first.Queue("normal") == nil || first.Queue("new") != nil {
		t.Fatal("old snapshot changed")
	}
}

func TestLoadEntryPoints(t *testing.T) {
	m := fixture(nil)
	opts := fixtureOptions(m)
	b, err := LoadBase(context.Background(), opts)
	if err != nil || b.ClusterName() != "t" || b.ResourceTable() == nil || len(b.Cluster.Hosts) != 4 {
		t.Fatalf("LoadBase = %v %v", b, err)
	}
	c, err := LoadBatch(context.Background(), b, opts)
	if err != nil || c.Base != b || c.BatchDir != "/c/lsbatch/t/configdir" {
		t.Fatalf("LoadBatch = %v %v", c, err)
	}
	m["/c/lsf.shared"] = "Begin Cluster\nClusterName\nEnd Cluster\n"
	if _, err := LoadBase(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "no cluster defined") {
		t.Fatalf("LoadBase on bad lsf.shared: %v", err)
	}
	if _, err := Load(context.Background(), opts); err == nil {
		t.Fatal("Load must fail")
	}
	conf, _, err := LoadConf(opts)
	if err != nil || conf.ConfDir() != "/c" {
		t.Fatalf("LoadConf = %v", err)
	}
	if LSFConfPath("") != "/etc/lsf.conf" {
		t.Error("default LSF_ENVDIR")
	}
}

func TestChooseCluster(t *testing.T) {
	shared := strings.Replace(baseFiles["/c/lsf.shared"], "ClusterName\nt\n", "ClusterName\nother\nt\nthird\n", 1)
	otherCluster := "Begin Host\nHOSTNAME model type server\nx1 ! ! 1\nEnd Host\n"
	m := fixture(map[string]string{"/c/lsf.shared": shared, "/c/lsf.cluster.other": otherCluster})
	opts := fixtureOptions(m)
	opts.LocalHost = "h2"
	b, err := LoadBase(context.Background(), opts)
	if err != nil || b.ClusterName() != "t" {
		t.Fatalf("local host h2: %v %v", b, err)
	}
	opts.LocalHost = "x1"
	if b, _ := LoadBase(context.Background(), opts); b.ClusterName() != "other" {
		t.Errorf("local host x1: %s", b.ClusterName())
	}
	opts.LocalHost = "elsewhere"
	if b, _ := LoadBase(context.Background(), opts); b.ClusterName() != "other" {
		t.Errorf("no match: the first existing file, got %s", b.ClusterName())
	}
	opts.LocalHost = ""
	opts.Getenv = func(k string) string {
		if k == "BASALT_HOST" {
			return "h1"
		}
		return ""
	}
	if b, _ := LoadBase(context.Background(), opts); b.ClusterName() != "t" {
		t.Errorf("BASALT_HOST=h1: %s", b.ClusterName())
	}
	delete(m, "/c/lsf.cluster.other")
	delete(m, "/c/lsf.cluster.t")
	d := Check(context.Background(), opts, true)
	if !d.HasErrors() || !strings.Contains(d.String(), "no lsf.cluster.<name> file in /c for any cluster of lsf.shared (other t third)") {
		t.Errorf("no cluster file: %s", d)
	}
}

func TestResolver(t *testing.T) {
	hf, _ := hostsfile.Parse("hosts", []byte("127.0.1.1 host1\n127.0.1.2 host2 h2\n"))
	var asked []string
	r := &Resolver{Hosts: hf, Lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
		asked = append(asked, host)
		switch host {
		case "ext":
			return []netip.Addr{netip.MustParseAddr("::2"), netip.MustParseAddr("::ffff:10.0.0.1")}, nil
		case "v6only":
			return []netip.Addr{netip.MustParseAddr("::3")}, nil
		}
		return nil, errors.New("no such host")
	}}
	for _, c := range [][2]string{{"host1", "127.0.1.1"}, {"H2", "127.0.1.2"}, {"ext", "10.0.0.1"}, {"v6only", "::3"}} {
		a, err := r.Resolve(context.Background(), c[0])
		if err != nil || a.String() != c[1] {
			t.Errorf("Resolve(%s) = %v %v, want %s", c[0], a, err, c[1])
		}
	}
	if strings.Join(asked, " ") != "ext v6only" {
		t.Errorf("the hosts file must be consulted first; system lookups: %v", asked)
	}
	if _, err := r.Resolve(context.Background(), "nowhere"); !errors.Is(err, ErrUnknownHost) {
		t.Errorf("unknown host error = %v", err)
	}
	if n, ok := r.Name(netip.MustParseAddr("127.0.1.2")); !ok || n != "host2" {
		t.Errorf("Name = %s", n)
	}
	if loadExample(t).Resolver().Hosts == nil {
		t.Error("the example cluster has a hosts file")
	}
}

func TestLocalHostName(t *testing.T) {
	conf := lsfconf.New("lsf.conf", lsfconf.Param{Name: "LSF_STRIP_DOMAIN", Value: ".example.com"})
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "BASALT_HOST" {
				return v
			}
			return ""
		}
	}
	hostname := func() (string, error) { return "node7.example.com", nil }
	if n, _ := LocalHostName(conf, env("host3"), hostname); n != "host3" {
		t.Errorf("BASALT_HOST: %s", n)
	}
	if n, _ := LocalHostName(conf, env(""), hostname); n != "node7" {
		t.Errorf("hostname with LSF_STRIP_DOMAIN: %s", n)
	}
	if n, _ := LocalHostName(conf, env("h.example.com"), hostname); n != "h" {
		t.Errorf("BASALT_HOST is stripped too: %s", n)
	}
	if _, err := LocalHostName(conf, env(""), func() (string, error) { return "", errors.New("boom") }); err == nil {
		t.Error("hostname error must be returned")
	}
}

func TestExecEGroup(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\ncase \"$1 $2\" in\n\"-u staff\") echo 'ann  bob'; echo carl ;;\n\"-m racks\") echo hostA hostB ;;\n*) echo \"unknown group $2\" >&2; exit 3 ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(dir, "egroup"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	eg := ExecEGroup(dir, time.Minute)
	if got, err := eg(context.Background(), "-u", "staff"); err != nil || strings.Join(got, ",") != "ann,bob,carl" {
		t.Errorf("-u staff = %v %v", got, err)
	}
	if got, err := eg(context.Background(), "-m", "racks"); err != nil || strings.Join(got, ",") != "hostA,hostB" {
		t.Errorf("-m racks = %v %v", got, err)
	}
	if _, err := eg(context.Background(), "-u", "nope"); err == nil || !strings.Contains(err.Error(), "unknown group nope") {
		t.Errorf("failing egroup = %v", err)
	}
	if _, err := ExecEGroup(t.TempDir(), 0)(context.Background(), "-u", "x"); !errors.Is(err, ErrNoEGroup) {
		t.Errorf("missing egroup = %v", err)
	}
	if _, err := ExecEGroup("", 0)(context.Background(), "-u", "x"); !errors.Is(err, ErrNoEGroup) {
		t.Errorf("no LSF_SERVERDIR = %v", err)
	}
	slow := filepath.Join(t.TempDir(), "egroup")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ExecEGroup(filepath.Dir(slow), 50*time.Millisecond)(context.Background(), "-u", "x"); err == nil {
		t.Error("a hanging egroup must time out")
	}
}

// TestStoreConcurrent reads the snapshot from several goroutines while
// reloads swap it (run with -race).
func TestStoreConcurrent(t *testing.T) {
	opts := fixtureOptions(fixture(nil))
	s, err := NewStore(context.Background(), func(ctx context.Context) (*Config, error) { return Load(ctx, opts) })
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if c := s.Current(); c.Queue("normal") == nil || len(c.BatchHosts) != 3 {
					errs <- errors.New("inconsistent snapshot")
					return
				}
			}
		}()
	}
	for i := 0; i < 20; i++ {
		if err := s.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for i := 0; i < 4; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if s.Generation() != 21 {
		t.Errorf("generation %d", s.Generation())
	}
}

func TestHostRangeMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		match         bool
	}{
		{"node[1-20]", "node7", true}, {"node[1-20]", "NODE20", true}, {"node[1-20]", "node21", false},
		{"node[1-20]", "node07", false}, {"node[01-20]", "node07", true}, {"node[01-20]", "node7", false},
		{"rack[1-2]-n1", "rack2-n1", true}, {"rack[1-2]-n1", "rack2-n2", false}, {"n[0-99999999]", "n12345", true},
		{"n[1-3]", "n+1", false}, {"n[1-3]", "n", false},
	}
	for _, tt := range tests {
		r, ok := parseRange(tt.pattern)
		if !ok || r.match(tt.name) != tt.match {
			t.Errorf("%s matches %s: %v, want %v", tt.pattern, tt.name, !tt.match, tt.match)
		}
	}
	if _, ok := parseRange("n[1-2-3]"); ok {
		t.Error("bad range accepted")
	}
}
