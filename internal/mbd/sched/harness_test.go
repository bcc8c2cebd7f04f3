package sched

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// harness is a scheduler with a real configuration (written as LSF files
// and loaded by package config), a real state fed with events, and hosts.
type harness struct {
	t     *testing.T
	cfg   *config.Config
	st    *state.State
	hosts []*Host
	now   time.Time
	s     *Scheduler
	next  int64
	idx   uint64
}

type clusterSpec struct {
	hosts  int    // host1..hostN
	mxj    int    // per host; 0 = unlimited
	ncpus  int    // per host (default 4)
	queues string // lsb.queues body; empty = one queue "normal"
	params string // extra lsb.params lines
	lhosts string // extra lsb.hosts rows (after the header)
	groups string // lsb.hosts HostGroup rows
	types  []string
	// Whole files or sections (written as given when not empty).
	users     string   // lsb.users
	resources string   // lsb.resources
	hostsTail string   // sections appended to lsb.hosts (HostPartition...)
	shared    string   // extra lsf.shared Resource rows
	resmap    string   // lsf.cluster ResourceMap rows
	hostCols  []string // extra lsb.hosts Host columns (thresholds, DISPATCH_WINDOW)
}

func newHarness(t *testing.T, cs clusterSpec) *harness {
	t.Helper()
	dir := t.TempDir()
	if cs.ncpus == 0 {
		cs.ncpus = 4
	}
	if cs.queues == "" {
		cs.queues = "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n"
	}
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lsf.conf", fmt.Sprintf("LSF_CONFDIR=%s\nLSB_CONFDIR=%s/lsbatch\nLSB_SHAREDIR=%s/work\nLSF_MASTER_LIST=\"host1\"\n", dir, dir, dir))
	write("lsf.shared", `Begin Cluster
ClusterName
test
End Cluster
Begin HostType
TYPENAME
LINUX
X86_64
End HostType
Begin HostModel
MODELNAME  CPUFACTOR  ARCHITECTURE
PC         10         ()
End HostModel
Begin Resource
RESOURCENAME  TYPE     INTERVAL  INCREASING  DESCRIPTION
bigmem        Boolean  ()        ()          (big memory)
fs            Boolean  ()        ()          (file server)
`+cs.shared+`End Resource
`)
	var hb strings.Builder
	hb.WriteString("Begin Host\nHOSTNAME model type server r1m RESOURCES\n")
	for i := 1; i <= cs.hosts; i++ {
		typ := "LINUX"
		if i-1 < len(cs.types) {
			typ = cs.types[i-1]
		}
		res := "()"
		if i == cs.hosts && cs.hosts > 2 {
			res = "(fs)"
		}
		fmt.Fprintf(&hb, "host%d PC %s 1 () %s\n", i, typ, res)
	}
	hb.WriteString("End Host\n")
	if cs.resmap != "" {
		hb.WriteString("Begin ResourceMap\nRESOURCENAME LOCATION\n" + cs.resmap + "End ResourceMap\n")
	}
	write("lsf.cluster.test", hb.String())
	if cs.users != "" {
		write("lsbatch/test/configdir/lsb.users", cs.users)
	}
	if cs.resources != "" {
		write("lsbatch/test/configdir/lsb.resources", cs.resources)
	}
	write("lsbatch/test/configdir/lsb.params", "Begin Parameters\nDEFAULT_QUEUE = normal\nJOB_ACCEPT_INTERVAL = 0\nMBD_SLEEP_TIME = 10\n"+cs.params+"End Parameters\n")
	write("lsbatch/test/configdir/lsb.queues", cs.queues)
	mxj := "()"
	if cs.mxj > 0 {
		mxj = fmt.Sprint(cs.mxj)
	}
	cols, defs := "", ""
	for _, c := range cs.hostCols {
		cols += " " + c
		defs += " ()"
	}
	lh := "Begin Host\nHOST_NAME MXJ JL/U" + cols + "\n" + cs.lhosts + "default " + mxj + " ()" + defs + "\nEnd Host\n"
	if cs.groups != "" {
		lh += "Begin HostGroup\nGROUP_NAME GROUP_MEMBER\n" + cs.groups + "End HostGroup\n"
	}
	lh += cs.hostsTail
	write("lsbatch/test/configdir/lsb.hosts", lh)
	cfg, err := config.Load(context.Background(), config.Options{EnvDir: dir, LocalHost: "host1"})
	if err != nil {
		t.Fatalf("loading test configuration: %v", err)
	}
	for _, w := range cfg.Warnings {
		t.Logf("configuration warning: %v", w)
	}
	h := &harness{t: t, cfg: cfg, st: state.New(), now: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC), s: New()}
	tab := cfg.ResourceTable()
	for _, bh := range cfg.BatchHosts {
		vals := &resreq.Host{Num: make([]float64, tab.Len()), Str: make([]string, tab.Len())}
		for i := range vals.Num {
			if !tab.Def(i).Builtin {
				vals.Num[i] = math.NaN()
			}
		}
		set := func(name string, v float64) {
			if i, ok := tab.Index(name); ok {
				vals.Num[i] = v
			}
		}
		setS := func(name, v string) {
			if i, ok := tab.Index(name); ok {
				vals.Str[i] = v
			}
		}
		set("ncpus", float64(cs.ncpus))
		set("maxmem", 8000)
		set("mem", 6000)
		set("server", 1)
		set("cpuf", 10)
		setS("type", bh.Type)
		setS("model", bh.Model)
		setS("hname", bh.Name)
		setS("status", "ok")
		if ch := cfg.Cluster.Host(bh.Name); ch != nil {
			for _, r := range ch.Resources {
				set(r.Name, 1)
			}
		}
		max := bh.MXJ
		if bh.MXJCPUs {
			max = cs.ncpus
		}
		h.hosts = append(h.hosts, &Host{Name: bh.Name, Cfg: bh, Status: "ok", NCPUs: cs.ncpus, Type: bh.Type, Model: bh.Model, MaxSlots: max, Values: vals})
	}
	return h
}

func (h *harness) host(name string) *Host {
	for _, x := range h.hosts {
		if x.Name == name {
			return x
		}
	}
	h.t.Fatalf("no host %s", name)
	return nil
}

func (h *harness) apply(evs ...*api.Event) {
	h.t.Helper()
	h.idx++
	for _, e := range evs {
		if e.Time == 0 {
			e.Time = h.now.UnixNano()
		}
	}
	for i, err := range h.st.Apply(h.idx, &api.LogEntry{Events: evs}) {
		if err != nil {
			h.t.Fatalf("event %d: %v", i, err)
		}
	}
}

// submit adds a job; opts edit the submission.
func (h *harness) submit(user, queue string, opts ...func(*api.EvJobNew)) int64 {
	h.next++
	n := &api.EvJobNew{JobID: h.next, Queue: queue, JobName: fmt.Sprintf("j%d", h.next), Order: h.next << 20, NumProcs: 1,
		Spec: &api.JobSpec{Command: "true", FromHost: "host1"}}
	for _, o := range opts {
		o(n)
	}
	h.apply(&api.Event{User: user, UID: 1000, JobNew: n})
	return h.next
}

func slots(n int32) func(*api.EvJobNew) {
	return func(e *api.EvJobNew) { e.NumProcs = n; e.Spec.MinProcs = n }
}
func resReq(r ...string) func(*api.EvJobNew) {
	return func(e *api.EvJobNew) { e.Spec.ResReq = r }
}
func asked(hs ...string) func(*api.EvJobNew) {
	return func(e *api.EvJobNew) { e.Spec.AskedHosts = hs }
}

// run schedules once and applies the dispatches; it returns the plan.
func (h *harness) run() *Plan {
	h.t.Helper()
	var plan *Plan
	h.st.View(func(v *state.View) {
		plan = h.s.Schedule(&Input{Now: h.now, Config: h.cfg, Table: h.cfg.ResourceTable(), Hosts: h.hosts, View: v})
	})
	for _, d := range plan.Dispatches {
		h.apply(&api.Event{JobStart: &api.EvJobStart{JobID: d.Key.ID, Index: d.Key.Index, ExecHosts: d.Hosts,
			BackfillLimit: int64(d.RunLimit / time.Second)}})
	}
	return plan
}

// dispatches renders a plan's dispatches as "id@host:n,host:n ...".
func dispatches(p *Plan) string {
	var out []string
	for _, d := range p.Dispatches {
		var hs []string
		for _, eh := range d.Hosts {
			hs = append(hs, fmt.Sprintf("%s:%d", eh.Host, eh.Slots))
		}
		out = append(out, d.Key.String()+"@"+strings.Join(hs, ","))
	}
	return strings.Join(out, " ")
}

// reasons renders one job's pending reasons as "code:hosts ...".
func reasons(p *Plan, id int64) string {
	var out []string
	for _, r := range p.Reasons.Get(state.Key{ID: id}) {
		out = append(out, fmt.Sprintf("%d:%d", r.Code, r.NumHosts))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func (h *harness) finish(id int64) {
	h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: id, State: api.StateDone}})
}
