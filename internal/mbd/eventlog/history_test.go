package eventlog

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// feed renders events through Render and folds them into a History, as
// ReadHistory does with files.
type feed struct {
	t    *testing.T
	h    *History
	jobs map[int64]*Job
}

func newFeed(t *testing.T, f Filter) *feed {
	return &feed{t: t, h: NewHistory(f), jobs: map[int64]*Job{}}
}

func (f *feed) ev(sec int64, ev *api.Event) {
	f.t.Helper()
	ev.Time = (t0 + sec) * 1e9
	var job *Job
	if s := ev.JobStatus; s != nil {
		job = f.jobs[s.JobID]
		if job != nil && (s.State == api.StateDone || s.State == api.StateExit) && !s.PostDone && !s.PostFailed {
			job.EndTime = t0 + sec // what the state does when a run ends
		}
	}
	recs, _ := Render(ev, job)
	for _, r := range recs {
		back, err := ParseRecord(r.Format())
		if err != nil {
			f.t.Fatalf("ParseRecord: %v", err)
		}
		f.h.Add(back, false)
	}
}

func (f *feed) submit(sec, id int64, user, queue, project, name string) {
	spec := &api.JobSpec{Command: "cmd" + fmt.Sprint(id), JobName: name, Project: project, Queues: []string{queue}}
	f.jobs[id] = &Job{ID: id, User: user, Queue: queue, Spec: spec, SubmitTime: t0 + sec}
	f.ev(sec, &api.Event{User: user, UID: 1, JobNew: &api.EvJobNew{JobID: id, Spec: spec, Queue: queue, Project: project, JobName: name}})
}

func (f *feed) start(sec, id int64, idx int32, hosts ...string) {
	var eh []*api.ExecHost
	for _, h := range hosts {
		eh = append(eh, &api.ExecHost{Host: h, Slots: 1})
	}
	f.ev(sec, &api.Event{JobStart: &api.EvJobStart{JobID: id, Index: idx, ExecHosts: eh}})
}

func (f *feed) status(sec, id int64, idx int32, st api.JobState) {
	f.ev(sec, &api.Event{JobStatus: &api.EvJobStatus{JobID: id, Index: idx, State: st, Usage: &api.Usage{CPUTime: 1}}})
}

func keys(hs []*api.JobHistory) string {
	var out []string
	for _, h := range hs {
		k := fmt.Sprint(h.Job.JobID)
		if h.Job.Index > 0 {
			k += fmt.Sprintf("[%d]", h.Job.Index)
		}
		out = append(out, k)
	}
	return strings.Join(out, " ")
}

func TestHistoryFilters(t *testing.T) {
	build := func(f Filter) string {
		fd := newFeed(t, f)
		fd.submit(0, 1, "alice", "normal", "p1", "align")
		fd.submit(1, 2, "alice", "short", "p2", "")
		fd.submit(2, 3, "bob", "normal", "p1", "assemble")
		fd.submit(3, 4, "bob", "normal", "p2", "other")
		fd.start(10, 1, 0, "h1")
		fd.start(20, 3, 0, "h2", "h3")
		fd.status(30, 1, 0, api.StateDone)
		fd.status(40, 3, 0, api.StateSSusp)
		fd.start(50, 4, 0, "h1")
		fd.status(60, 4, 0, api.StateExit)
		return keys(fd.h.Result())
	}
	tests := []struct {
		name string
		f    Filter
		want string
	}{
		{"default: unfinished", Filter{}, "2 3"},
		{"-a", Filter{States: AllStates}, "1 2 3 4"},
		{"-d", Filter{States: uint32(api.StateDone | api.StateExit)}, "1 4"},
		{"-p", Filter{States: uint32(api.StatePend | api.StatePSusp)}, "2"},
		{"-s", Filter{States: uint32(api.StateSSusp | api.StateUSusp | api.StatePSusp)}, "3"},
		{"-r", Filter{States: uint32(api.StateRun)}, ""},
		{"explicit jobs in any state", Filter{Jobs: []*api.JobRef{{JobID: 1}, {JobID: 4}}}, "1 4"},
		{"explicit job and state", Filter{Jobs: []*api.JobRef{{JobID: 1}, {JobID: 2}}, States: uint32(api.StatePend)}, "2"},
		{"-u", Filter{Users: []string{"bob"}, States: AllStates}, "3 4"},
		{"-u all", Filter{Users: []string{"all"}, States: AllStates}, "1 2 3 4"},
		{"-q", Filter{Queues: []string{"short"}, States: AllStates}, "2"},
		{"-m", Filter{Hosts: []string{"h1"}, States: AllStates}, "1 4"},
		{"-m second host", Filter{Hosts: []string{"h3"}, States: AllStates}, "3"},
		{"-P", Filter{Projects: []string{"p2"}, States: AllStates}, "2 4"},
		{"-J wildcard", Filter{JobName: "a*", States: AllStates}, "1 3"},
		{"-J command of a job without -J", Filter{JobName: "cmd2", States: AllStates}, "2"},
		{"-S", Filter{Submitted: Window{t0 + 1, t0 + 2}, States: AllStates}, "2 3"},
		{"-D", Filter{Dispatched: Window{From: t0 + 15}, States: AllStates}, "3 4"},
		{"-C", Filter{Completed: Window{To: t0 + 45}, States: AllStates}, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := build(tt.f); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHistoryEvents(t *testing.T) {
	fd := newFeed(t, Filter{States: AllStates})
	fd.submit(0, 7, "alice", "normal", "p", "j")
	fd.ev(1, &api.Event{User: "alice", UID: 1, JobSwitch: &api.EvJobSwitch{JobID: 7, Queue: "long"}})
	fd.ev(2, &api.Event{User: "admin", JobMove: &api.EvJobMove{JobID: 7, Position: 3}})
	fd.ev(3, &api.Event{User: "admin", JobForce: &api.EvJobForce{JobID: 7, Hosts: []string{"h5"}}})
	fd.start(3, 7, 0, "h5")
	fd.ev(4, &api.Event{JobExecute: &api.EvJobExecute{JobID: 7, PID: 99, PGID: 99, ExecCwd: "/w", ExecHome: "/home/a", ExecUser: "alice"}})
	fd.ev(10, &api.Event{User: "alice", UID: 1, JobSignal: &api.EvJobSignal{JobID: 7, Signal: "STOP"}})
	fd.ev(10, &api.Event{JobStatus: &api.EvJobStatus{JobID: 7, State: api.StateUSusp, SuspReasons: 2}})
	fd.ev(20, &api.Event{JobRequeue: &api.EvJobRequeue{JobID: 7}})
	fd.start(25, 7, 0, "h6")
	fd.ev(40, &api.Event{JobStatus: &api.EvJobStatus{JobID: 7, State: api.StateExit, ExitStatus: 256, TermReason: "TERM_OWNER",
		Usage: &api.Usage{CPUTime: 3.5, UTime: 3, STime: 0.5, MaxMem: 2048, AvgMem: 1024}}})
	fd.ev(41, &api.Event{JobStatus: &api.EvJobStatus{JobID: 7, State: api.StateExit, PostFailed: true}})
	fd.ev(100, &api.Event{JobClean: &api.EvJobClean{JobID: 7}})
	res := fd.h.Result()
	if len(res) != 1 {
		t.Fatalf("%d histories", len(res))
	}
	var got []string
	for _, e := range res[0].Events {
		s := fmt.Sprintf("%d %s", e.Time-t0, e.Kind)
		if e.State != 0 {
			s += fmt.Sprintf(" state=%#x", uint32(e.State))
		}
		if e.User != "" {
			s += " user=" + e.User
		}
		if e.Queue != "" {
			s += " queue=" + e.Queue
		}
		for _, h := range e.Hosts {
			s += fmt.Sprintf(" host=%s*%d", h.Host, h.Slots)
		}
		if e.PID != 0 {
			s += fmt.Sprintf(" pid=%d", e.PID)
		}
		if e.Signal != "" {
			s += " signal=" + e.Signal
		}
		if e.Reason != 0 {
			s += fmt.Sprintf(" reason=%d", e.Reason)
		}
		if e.ExitStatus != 0 {
			s += fmt.Sprintf(" exit=%d", e.ExitStatus)
		}
		if e.Text != "" {
			s += " text=" + e.Text
		}
		if e.Usage != nil {
			s += fmt.Sprintf(" cpu=%g maxmem=%d", e.Usage.CPUTime, e.Usage.MaxMem)
		}
		got = append(got, s)
	}
	want := []string{
		"0 JOB_NEW state=0x1 user=alice queue=normal",
		"1 JOB_SWITCH user=alice queue=long",
		"2 JOB_MOVE user=admin reason=3 text=Job moved to position 3 relative to <top> by user or administrator <admin>;",
		"3 JOB_FORCE user=admin host=h5*1",
		"3 JOB_START state=0x4 host=h5*1",
		"4 JOB_START_ACCEPT pid=99",
		"4 JOB_EXECUTE user=alice pid=99 text=/w",
		"10 JOB_SIGNAL user=alice signal=STOP",
		"10 JOB_STATUS state=0x10 user=alice reason=2", // the STOP's sender
		"20 JOB_REQUEUE state=0x1 reason=23",
		"25 JOB_START state=0x4 host=h6*1",
		"40 JOB_STATUS state=0x20 exit=256 cpu=3.5 maxmem=2048",
		"41 POST_ERR",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	j := res[0].Job
	if j.State != api.StateExit || j.Queue != "long" || j.RunCount != 2 || j.ExecHosts[0].Host != "h6" ||
		j.JobPID != 99 || j.ExitStatus != 256 || j.TermReason != "TERM_OWNER" || j.EndTime != t0+40 ||
		j.StartTime != t0+25 || !j.Forced || j.ExecHome != "/home/a" || j.ExecUser != "alice" {
		t.Errorf("job %+v", j)
	}
	times := TimeInStates(res[0], t0+1000)
	if want := (StateTimes{Pend: 3 + 5, Run: 7 + 15, USusp: 10, Total: 40}); times != want {
		t.Errorf("TimeInStates = %+v, want %+v", times, want)
	}
}

// TestHistoryRequeueAndResume: a job status record taking a run back to
// PEND (brequeue, an exit value that requeues) is a requeue in the history;
// one taking a PSUSP job to PEND (bresume of a held job) is a resumption.
func TestHistoryRequeueAndResume(t *testing.T) {
	fd := newFeed(t, Filter{States: AllStates})
	fd.submit(0, 1, "alice", "normal", "p", "j")
	fd.start(1, 1, 0, "h1")
	fd.ev(2, &api.Event{User: "alice", UID: 1, JobSignal: &api.EvJobSignal{JobID: 1, Signal: "KILL", Action: int32(api.ActRequeue)}})
	fd.ev(3, &api.Event{JobStatus: &api.EvJobStatus{JobID: 1, State: api.StatePend, PendReason: 23, RunCount: 1}})
	fd.ev(4, &api.Event{User: "alice", UID: 1, JobSignal: &api.EvJobSignal{JobID: 1, Signal: "STOP", Action: int32(api.ActSuspend)}})
	fd.ev(4, &api.Event{JobStatus: &api.EvJobStatus{JobID: 1, State: api.StatePSusp}})
	fd.ev(5, &api.Event{JobStatus: &api.EvJobStatus{JobID: 1, State: api.StatePend}})
	fd.start(6, 1, 0, "h2")
	fd.ev(9, &api.Event{JobStatus: &api.EvJobStatus{JobID: 1, State: api.StateExit, ExitStatus: 30 << 8}})
	fd.ev(9, &api.Event{JobStatus: &api.EvJobStatus{JobID: 1, State: api.StatePend, PendReason: 23, RunCount: 2}})
	res := fd.h.Result()
	if len(res) != 1 {
		t.Fatalf("%d histories", len(res))
	}
	var got []string
	for _, e := range res[0].Events {
		got = append(got, fmt.Sprintf("%d %s %#x", e.Time-t0, e.Kind, uint32(e.State)))
	}
	want := "0 JOB_NEW 0x1|1 JOB_START 0x4|2 JOB_SIGNAL 0x0|3 JOB_REQUEUE 0x1|4 JOB_SIGNAL 0x0|4 JOB_STATUS 0x2|" +
		"5 JOB_STATUS 0x1|6 JOB_START 0x4|9 JOB_STATUS 0x20|9 JOB_REQUEUE 0x1"
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("events:\n%s\nwant\n%s", g, want)
	}
}

func TestTimeInStatesOfUnfinishedJob(t *testing.T) {
	h := &api.JobHistory{Events: []*api.HistoryEvent{
		{Time: 100, Kind: TypeJobNew, State: api.StatePSusp},
		{Time: 110, Kind: TypeJobSignal},
		{Time: 130, Kind: TypeJobStatus, State: api.StatePend},
		{Time: 150, Kind: TypeJobStart, State: api.StateRun},
		{Time: 160, Kind: TypeJobStatus, State: api.StateSSusp},
		{Time: 170, Kind: TypeJobStatus, State: api.StateUnkwn},
	}}
	if got, want := TimeInStates(h, 200), (StateTimes{PSusp: 30, Pend: 20, Run: 10, SSusp: 10, Unkwn: 30, Total: 100}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestHistoryArrays(t *testing.T) {
	build := func(f Filter) *History {
		fd := newFeed(t, f)
		spec := &api.JobSpec{Command: "work", JobName: "arr[1-3]"}
		fd.ev(0, &api.Event{User: "alice", JobNew: &api.EvJobNew{JobID: 50, Spec: spec, Queue: "normal",
			JobName: "arr", ArrayIndices: []int32{1, 2, 3}, ArraySpec: "1-3"}})
		fd.start(5, 50, 2, "h1")
		// bkill of the whole array: idx 0 reaches every element.
		fd.ev(6, &api.Event{User: "alice", JobSignal: &api.EvJobSignal{JobID: 50, Signal: "KILL"}})
		// bmod of one element.
		spec3 := *spec
		spec3.OutFile = "/o3"
		fd.ev(7, &api.Event{User: "alice", JobModify: &api.EvJobModify{JobID: 50, Index: 3, Spec: &spec3, Queue: "long", JobName: "arr"}})
		fd.status(8, 50, 2, api.StateExit)
		// A record of an unknown job is dropped.
		fd.status(9, 51, 0, api.StateDone)
		return fd.h
	}
	res := build(Filter{States: AllStates}).Result()
	if got := keys(res); got != "50[1] 50[2] 50[3]" {
		t.Fatalf("histories %s", got)
	}
	for _, h := range res {
		if !strings.Contains(fmt.Sprint(kinds(h)), "JOB_SIGNAL") {
			t.Errorf("%s lacks the array-wide signal: %v", h.Job.JobName, kinds(h))
		}
		if h.Job.ArraySpec != "[1-3]" || h.Job.JobName != fmt.Sprintf("arr[%d]", h.Job.Index) {
			t.Errorf("element %+v", h.Job)
		}
	}
	if res[2].Job.Spec.OutFile != "/o3" || res[2].Job.Queue != "long" || res[0].Job.Spec.OutFile != "" || res[0].Job.Queue != "normal" {
		t.Errorf("bmod of element 3 leaked: 1=%+v 3=%+v", res[0].Job.Spec, res[2].Job.Spec)
	}
	if res[1].Job.State != api.StateExit || res[0].Job.State != api.StatePend {
		t.Errorf("states %v %v", res[0].Job.State, res[1].Job.State)
	}
	if got := keys(build(Filter{Jobs: []*api.JobRef{{JobID: 50}}}).Result()); got != "50[1] 50[2] 50[3]" {
		t.Errorf("job 50: %s", got)
	}
	if got := keys(build(Filter{Jobs: []*api.JobRef{{JobID: 50, Index: 2}}}).Result()); got != "50[2]" {
		t.Errorf("job 50[2]: %s", got)
	}
	if got := keys(build(Filter{JobName: "arr", States: AllStates}).Result()); got != "50[1] 50[2] 50[3]" {
		t.Errorf("-J arr: %s", got)
	}
}

func kinds(h *api.JobHistory) []string {
	var k []string
	for _, e := range h.Events {
		k = append(k, e.Kind)
	}
	return k
}

// An array too large to expand gets element histories from its records.
func TestHistoryHugeArray(t *testing.T) {
	for _, name := range []string{
		"big[1-2000000]",
		"big[1-60000,1-60000,1-60000]%5", // repeats count: job.ParseName iterates them
	} {
		h := NewHistory(Filter{States: AllStates})
		for _, l := range []string{
			line(`"JOB_NEW" "10.1" 1 9 500 1 1 1 0 0 0 0 0 "u"`, minus11,
				`"" 1.00 0 "q" "" "h" "" "" "" "" "" "" "1.9" 0 "" "" "`+name+`" "c" 0 "" "" 1 "" "" "" "" 0 0 "" "" "" 0`),
			`"JOB_START" "10.1" 2 9 4 0 0 1.0 1 "h" "" "" 0 "" 777 "" 0 0`,
		} {
			r, err := ParseRecord(l)
			if err != nil {
				t.Fatal(err)
			}
			h.Add(r, false)
		}
		if got := keys(h.Result()); got != "9[777]" {
			t.Errorf("%s: histories %q", name, got)
		}
	}
}

func TestIndexListSize(t *testing.T) {
	tests := []struct {
		spec string
		n    int64
		ok   bool
	}{
		{"1-10", 10, true}, {"1-10:2", 5, true}, {"1,3,5-6", 4, true}, {"7", 1, true},
		{"1-10,1-10", 20, true}, {"1-99999999", 101, true}, {"5-1", 0, false}, {"x", 0, false},
		{"1-10:0", 0, false}, {"", 0, false},
	}
	for _, tt := range tests {
		n, ok := indexListSize(tt.spec, 100)
		if n != tt.n || ok != tt.ok {
			t.Errorf("indexListSize(%q) = %d, %v; want %d, %v", tt.spec, n, ok, tt.n, tt.ok)
		}
	}
}

// Records above lsb.events' seek position only introduce jobs not seen in
// an earlier file.
func TestHistoryRelogged(t *testing.T) {
	h := NewHistory(Filter{States: AllStates})
	add := func(relogged bool, ev *api.Event) {
		recs, _ := Render(ev, nil)
		for _, r := range recs {
			h.Add(r, relogged)
		}
	}
	spec := &api.JobSpec{Command: "c"}
	add(false, &api.Event{Time: 1e9, User: "a", JobNew: &api.EvJobNew{JobID: 1, Spec: spec, Queue: "q"}})
	add(false, &api.Event{Time: 2e9, JobStart: &api.EvJobStart{JobID: 1, ExecHosts: []*api.ExecHost{{Host: "h", Slots: 1}}}})
	// The next file's state block: job 1 again (already known), job 2 new.
	add(true, &api.Event{Time: 1e9, User: "a", JobNew: &api.EvJobNew{JobID: 1, Spec: spec, Queue: "q"}})
	add(true, &api.Event{Time: 2e9, JobStart: &api.EvJobStart{JobID: 1, ExecHosts: []*api.ExecHost{{Host: "h", Slots: 1}}}})
	add(true, &api.Event{Time: 3e9, User: "b", JobNew: &api.EvJobNew{JobID: 2, Spec: spec, Queue: "q"}})
	add(true, &api.Event{Time: 4e9, JobStart: &api.EvJobStart{JobID: 2, ExecHosts: []*api.ExecHost{{Host: "h", Slots: 1}}}})
	// A block record for a job whose JOB_NEW is not in the block is ignored.
	add(true, &api.Event{Time: 4e9, JobStart: &api.EvJobStart{JobID: 3, ExecHosts: []*api.ExecHost{{Host: "h", Slots: 1}}}})
	res := h.Result()
	if keys(res) != "1 2" {
		t.Fatalf("histories %s", keys(res))
	}
	if k := kinds(res[0]); !reflect.DeepEqual(k, []string{"JOB_NEW", "JOB_START"}) {
		t.Errorf("job 1 events %v", k)
	}
	if k := kinds(res[1]); !reflect.DeepEqual(k, []string{"JOB_NEW", "JOB_START"}) {
		t.Errorf("job 2 events %v", k)
	}
}

func TestFilterFromRequest(t *testing.T) {
	r := &api.JobsRequest{Jobs: []*api.JobRef{{JobID: 3}}, User: "", Queue: "q", Host: "h", JobName: "n*",
		Project: "p", StateMask: uint32(api.StateDone), Since: 10, Until: 20, DispatchedFrom: 30, DispatchedTo: 40,
		CompletedFrom: 50}
	f := FilterFromRequest(r, "alice")
	want := Filter{Jobs: r.Jobs, Users: []string{"alice"}, Queues: []string{"q"}, Hosts: []string{"h"},
		Projects: []string{"p"}, JobName: "n*", States: uint32(api.StateDone), Submitted: Window{10, 20},
		Dispatched: Window{30, 40}, Completed: Window{50, 0}}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("got %+v\nwant %+v", f, want)
	}
	f = FilterFromRequest(&api.JobsRequest{User: "all", IncludeFinished: true}, "alice")
	if f.Users != nil || f.States != AllStates {
		t.Errorf("-u all -a: %+v", f)
	}
}
