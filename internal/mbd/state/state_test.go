package state

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
)

const sec = int64(1e9)

type logger struct {
	t   testing.TB
	s   *State
	idx uint64
	now int64
}

func newLogger(t testing.TB) *logger { return &logger{t: t, s: New(), now: 1_800_000_000 * sec} }

// apply applies events in one entry and returns their errors.
func (l *logger) apply(evs ...*api.Event) []error {
	l.idx++
	for _, e := range evs {
		l.now += sec
		if e.Time == 0 {
			e.Time = l.now
		}
	}
	return l.s.Apply(l.idx, &api.LogEntry{Events: evs})
}

func (l *logger) must(evs ...*api.Event) {
	l.t.Helper()
	for i, err := range l.apply(evs...) {
		if err != nil {
			l.t.Fatalf("event %d: %v", i, err)
		}
	}
}

func submit(id int64, queue, user string, opts ...func(*api.EvJobNew)) *api.Event {
	n := &api.EvJobNew{JobID: id, Queue: queue, JobName: fmt.Sprintf("job%d", id), Order: id << 20,
		Spec: &api.JobSpec{Command: "sleep 1", Env: []string{"PATH=/bin", "HOME=/home/" + user}}}
	for _, o := range opts {
		o(n)
	}
	return &api.Event{User: user, UID: 1000, JobNew: n}
}

func start(id int64, idx int32, hosts ...string) *api.Event {
	e := &api.EvJobStart{JobID: id, Index: idx}
	for _, h := range hosts {
		e.ExecHosts = append(e.ExecHosts, &api.ExecHost{Host: h, Slots: 1})
	}
	return &api.Event{JobStart: e}
}

func status(id int64, idx int32, st api.JobState) *api.Event {
	return &api.Event{JobStatus: &api.EvJobStatus{JobID: id, Index: idx, State: st}}
}

func (l *logger) job(id int64, idx int32) *Job {
	var j *Job
	l.s.View(func(v *View) { j = v.Job(Key{id, idx}) })
	return j
}

func (l *logger) pendingOrder(queue string) []string {
	var out []string
	l.s.View(func(v *View) {
		v.Pending(queue, func(j *Job) bool { out = append(out, j.Key.String()); return true })
	})
	return out
}

func TestLifecycle(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "normal", "alice"))
	j := l.job(1, 0)
	if j.State != api.StatePend || j.User != "alice" || j.Queue != "normal" || j.SubmitTime == 0 {
		t.Fatalf("after submit: %+v", j)
	}
	l.must(start(1, 0, "host1"))
	if old := j; old.State != api.StatePend {
		t.Fatalf("a record seen before the start changed: %s", job.Name(old.State))
	}
	j = l.job(1, 0)
	if j.State != api.StateRun || j.RunCount != 1 || len(l.pendingOrder("normal")) != 0 {
		t.Fatalf("after start: state %s run %d pending %v", job.Name(j.State), j.RunCount, l.pendingOrder("normal"))
	}
	l.must(&api.Event{JobExecute: &api.EvJobExecute{JobID: 1, PID: 4242, PGID: 4242, ExecCwd: "/tmp", ExecUser: "alice"}})
	l.must(status(1, 0, api.StateUSusp))
	l.must(status(1, 0, api.StateSSusp)) // bresume: USUSP -> SSUSP
	l.must(status(1, 0, api.StateRun))
	var onHost []Key
	l.s.View(func(v *View) { v.OnHost("host1", func(j *Job) bool { onHost = append(onHost, j.Key); return true }) })
	j = l.job(1, 0)
	if len(onHost) != 1 || j.PID != 4242 {
		t.Fatalf("host index %v pid %d", onHost, j.PID)
	}
	l.must(&api.Event{JobStatus: &api.EvJobStatus{JobID: 1, State: api.StateDone, RunCount: 1, Usage: &api.Usage{CPUTime: 1.5}}})
	j = l.job(1, 0)
	if j.State != api.StateDone || j.EndTime == 0 || j.Usage.CPUTime != 1.5 {
		t.Fatalf("after done: %+v", j)
	}
	l.s.View(func(v *View) {
		if len(v.StartedHosts()) != 0 || v.Count(api.StateDone) != 1 || v.Finished() != 1 {
			t.Fatalf("hosts %v done %d finished %d", v.StartedHosts(), v.Count(api.StateDone), v.Finished())
		}
	})
	l.must(&api.Event{JobClean: &api.EvJobClean{JobID: 1}})
	if l.job(1, 0) != nil {
		t.Fatal("job still present after clean")
	}
}

func TestIllegalAndStaleEvents(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "normal", "alice"))
	errs := l.apply(
		status(1, 0, api.StateSSusp),                    // a pending job cannot be system-suspended
		submit(1, "normal", "bob"),                      // duplicate ID
		start(2, 0, "host1"),                            // unknown job
		&api.Event{JobClean: &api.EvJobClean{JobID: 1}}, // unfinished
		&api.Event{},
	)
	want := []error{job.ErrIllegalTransition, ErrJobExists, ErrNoSuchJob, job.ErrIllegalTransition, ErrNoEvent}
	for i, w := range want {
		if !errors.Is(errs[i], w) {
			t.Errorf("event %d: err = %v, want %v", i, errs[i], w)
		}
	}
	// A report about an earlier run is ignored.
	l.must(start(1, 0, "host1"))
	l.must(&api.Event{JobRequeue: &api.EvJobRequeue{JobID: 1}})
	l.must(start(1, 0, "host2"))
	errs = l.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: 1, State: api.StateDone, RunCount: 1}})
	if !errors.Is(errs[0], ErrStale) || l.job(1, 0).State != api.StateRun {
		t.Fatalf("stale report: %v, state %s", errs[0], job.Name(l.job(1, 0).State))
	}
}

func TestArrays(t *testing.T) {
	l := newLogger(t)
	l.must(submit(5, "normal", "alice", func(n *api.EvJobNew) {
		n.ArrayIndices = []int32{1, 3, 5}
		n.ArraySpec = "1-5:2"
		n.ArrayLimit = 2
	}))
	if got := l.pendingOrder("normal"); fmt.Sprint(got) != "[5[1] 5[3] 5[5]]" {
		t.Fatalf("pending = %v", got)
	}
	e := l.job(5, 3)
	if e.Array == nil || e.Array.Limit != 2 || e.DisplayName() != "job5[3]" || e.Spec != l.job(5, 1).Spec {
		t.Fatalf("element: %+v", e)
	}
	l.must(start(5, 1, "host1"), start(5, 3, "host2"))
	l.must(status(5, 1, api.StateDone), status(5, 3, api.StateExit))
	l.must(&api.Event{JobSignal: &api.EvJobSignal{JobID: 5, Index: 5, Action: int32(api.ActTerminate), TermReason: "TERM_OWNER"}})
	if st := l.job(5, 5).State; st != api.StateExit {
		t.Fatalf("killed pending element: %s", job.Name(st))
	}
	for _, i := range []int32{1, 3, 5} {
		l.must(&api.Event{JobClean: &api.EvJobClean{JobID: 5, Index: i}})
	}
	l.s.View(func(v *View) {
		if v.Array(5) != nil || v.NumJobs() != 0 || len(l.s.specs) != 0 || len(l.s.envs.byRef) != 0 {
			t.Fatalf("array not fully cleaned: %d jobs, %d specs, %d envs", v.NumJobs(), len(l.s.specs), len(l.s.envs.byRef))
		}
	})
}

// TestModifyWholeArray: a JOB_MODIFY of index 0 changes every unfinished
// element of the array; with SetArrayLimit and no spec, only the array's
// running element limit; an array with no unfinished element refuses it.
func TestModifyWholeArray(t *testing.T) {
	l := newLogger(t)
	l.must(submit(5, "normal", "alice", func(n *api.EvJobNew) {
		n.ArrayIndices, n.ArraySpec, n.ArrayLimit = []int32{1, 2, 3}, "1-3", 2
	}))
	l.must(start(5, 1, "host1"), status(5, 1, api.StateDone))
	spec := &api.JobSpec{Command: "sleep 2", Env: []string{"PATH=/bin"}}
	l.must(&api.Event{JobModify: &api.EvJobModify{JobID: 5, Spec: spec, Queue: "short"}})
	for i, want := range map[int32]string{1: "normal", 2: "short", 3: "short"} {
		if q := l.job(5, i).Queue; q != want {
			t.Errorf("element %d in queue %s, want %s", i, q, want)
		}
	}
	if l.job(5, 2).Spec.Command != "sleep 2" || l.job(5, 1).Spec.Command == "sleep 2" {
		t.Errorf("the modified submission: finished %q, pending %q", l.job(5, 1).Spec.Command, l.job(5, 2).Spec.Command)
	}
	before := l.job(5, 2).Spec
	l.must(&api.Event{JobModify: &api.EvJobModify{JobID: 5, SetArrayLimit: true, ArrayLimit: 3}})
	if a := l.job(5, 3).Array; a.Limit != 3 || l.job(5, 2).Spec != before {
		t.Errorf("after the limit change: limit %d, submission changed %v", a.Limit, l.job(5, 2).Spec != before)
	}
	l.must(status(5, 2, api.StateExit), status(5, 3, api.StateExit))
	if errs := l.apply(&api.Event{JobModify: &api.EvJobModify{JobID: 5, SetArrayLimit: true, ArrayLimit: 1}}); errs[0] == nil {
		t.Error("a finished array's limit changed")
	}
}

// TestModifyPendingOnly: a change only a pending job may have (bmod -q,
// checked by mbatchd against the pending job) is refused for a job
// dispatched since, and leaves an array's started elements as they are.
func TestModifyPendingOnly(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "normal", "alice"), start(1, 0, "host1"))
	spec := &api.JobSpec{Command: "sleep 2", Env: []string{"PATH=/bin"}}
	errs := l.apply(&api.Event{JobModify: &api.EvJobModify{JobID: 1, Spec: spec, Queue: "short", PendingOnly: true}})
	if !errors.Is(errs[0], ErrStartedSince) || l.job(1, 0).Queue != "normal" {
		t.Fatalf("a started job changed queue: %v, queue %s", errs[0], l.job(1, 0).Queue)
	}
	l.must(&api.Event{JobModify: &api.EvJobModify{JobID: 1, Spec: spec}}) // -W, -M...: a running job's options
	l.must(submit(5, "normal", "alice", func(n *api.EvJobNew) { n.ArrayIndices, n.ArraySpec = []int32{1, 2}, "1-2" }))
	l.must(start(5, 1, "host1"))
	l.must(&api.Event{JobModify: &api.EvJobModify{JobID: 5, Spec: spec, Queue: "short", PendingOnly: true}})
	if l.job(5, 1).Queue != "normal" || l.job(5, 2).Queue != "short" {
		t.Errorf("array: running element in %s, pending one in %s", l.job(5, 1).Queue, l.job(5, 2).Queue)
	}
	l.must(start(5, 2, "host1"))
	errs = l.apply(&api.Event{JobModify: &api.EvJobModify{JobID: 5, Spec: spec, Queue: "night", PendingOnly: true}})
	if !errors.Is(errs[0], ErrStartedSince) {
		t.Errorf("an array with every element started: %v", errs[0])
	}
}

func TestQueueOrderTopBottomSwitch(t *testing.T) {
	l := newLogger(t)
	for id := int64(1); id <= 5; id++ {
		l.must(submit(id, "normal", "alice"))
	}
	move := func(id int64, pos int32, bottom bool) {
		l.must(&api.Event{JobMove: &api.EvJobMove{JobID: id, Position: pos, Bottom: bottom}})
	}
	move(4, 1, false)
	move(1, 1, true)
	move(5, 2, false)
	if got := fmt.Sprint(l.pendingOrder("normal")); got != "[4 5 2 3 1]" {
		t.Fatalf("order = %s", got)
	}
	// Many moves into the same gap force a renumbering; order stays exact.
	for i := 0; i < 40; i++ {
		move(3, 2, false)
		move(2, 2, false)
	}
	if got := fmt.Sprint(l.pendingOrder("normal")); got != "[4 2 3 5 1]" {
		t.Fatalf("after repeated moves = %s", got)
	}
	l.must(&api.Event{JobSwitch: &api.EvJobSwitch{JobID: 2, Queue: "short", Order: 99 << 20}})
	if got := fmt.Sprint(l.pendingOrder("normal"), l.pendingOrder("short")); got != "[4 3 5 1] [2]" {
		t.Fatalf("after switch = %s", got)
	}
	// Higher user priority (-sp) goes first.
	l.must(submit(6, "normal", "bob", func(n *api.EvJobNew) { n.UserPriority = 10 }))
	if got := fmt.Sprint(l.pendingOrder("normal")); got != "[6 4 3 5 1]" {
		t.Fatalf("with -sp = %s", got)
	}
	var pos int
	l.s.View(func(v *View) { pos = v.Position(l.job(5, 0)) })
	if pos != 4 {
		t.Fatalf("position of 5 = %d", pos)
	}
}

// TestPendingStamp: a queue's pending stamp changes with every change of
// what its list holds (jobs in or out, their order, their submissions) and
// stays through events that change none of it.
func TestPendingStamp(t *testing.T) {
	l := newLogger(t)
	stamp := func(q string) (s PendingStamp) {
		l.s.View(func(v *View) { s = v.PendingStamp(q) })
		return s
	}
	if stamp("normal") != (PendingStamp{}) {
		t.Fatal("a queue without a pending list has a non-zero stamp")
	}
	l.must(submit(1, "normal", "alice"), submit(2, "normal", "alice"), submit(3, "normal", "bob"),
		submit(4, "normal", "bob"), submit(5, "normal", "bob"), start(5, 0, "host1"))
	step := func(name string, changed []string, same []string, evs ...*api.Event) {
		t.Helper()
		before := map[string]PendingStamp{}
		for _, q := range append(append([]string{}, changed...), same...) {
			before[q] = stamp(q)
		}
		l.must(evs...)
		for _, q := range changed {
			if stamp(q) == before[q] {
				t.Fatalf("%s: the stamp of %s did not change", name, q)
			}
		}
		for _, q := range same {
			if stamp(q) != before[q] {
				t.Fatalf("%s: the stamp of %s changed", name, q)
			}
		}
	}
	step("submit", []string{"normal"}, []string{"short"}, submit(6, "normal", "alice"))
	step("submit elsewhere", []string{"short"}, []string{"normal"}, submit(7, "short", "alice"))
	step("start", []string{"normal"}, nil, start(6, 0, "host1"))
	step("running job done", nil, []string{"normal", "short"}, status(5, 0, api.StateDone))
	spec := &api.JobSpec{Command: "sleep 2", ResReq: []string{"select[mem>100]"}, MinProcs: 2}
	step("bmod", []string{"normal"}, []string{"short"}, &api.Event{JobModify: &api.EvJobModify{JobID: 1, Spec: spec}})
	step("bswitch", []string{"normal", "short"}, nil, &api.Event{JobSwitch: &api.EvJobSwitch{JobID: 2, Queue: "short"}})
	// Moves into the same gap: most find room between two keys, some
	// renumber the list; each changes the stamp.
	for i := 0; i < 40; i++ {
		step("btop", []string{"normal"}, nil, &api.Event{JobMove: &api.EvJobMove{JobID: 3 + int64(i%2), Position: 2}})
	}
	step("bbot", []string{"normal"}, nil, &api.Event{JobMove: &api.EvJobMove{JobID: 1, Position: 1, Bottom: true}})
	step("requeue", []string{"normal"}, nil,
		&api.Event{JobStatus: &api.EvJobStatus{JobID: 6, State: api.StatePend, RunCount: 1}})
	step("bkill of a pending job", []string{"normal"}, nil,
		&api.Event{JobSignal: &api.EvJobSignal{JobID: 3, Action: int32(api.ActTerminate), TermReason: "TERM_OWNER"}})
	// A restored state has lists of its own: no stamp of the old one
	// matches.
	old := stamp("normal")
	r, _ := restored(t, l.s)
	var now PendingStamp
	r.View(func(v *View) { now = v.PendingStamp("normal") })
	if now == old {
		t.Fatal("a restored state's stamp equals the old state's")
	}
}

func TestHoldStopResumeKillPending(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "normal", "alice", func(n *api.EvJobNew) { n.Hold = true }))
	if l.job(1, 0).State != api.StatePSusp {
		t.Fatal("-H job not PSUSP")
	}
	l.must(&api.Event{JobSignal: &api.EvJobSignal{JobID: 1, Action: int32(api.ActResume)}})
	if l.job(1, 0).State != api.StatePend {
		t.Fatal("bresume of PSUSP did not make it PEND")
	}
	l.must(&api.Event{JobSignal: &api.EvJobSignal{JobID: 1, Action: int32(api.ActSuspend)}})
	if l.job(1, 0).State != api.StatePSusp || len(l.pendingOrder("normal")) != 1 {
		t.Fatal("bstop of PEND did not make it PSUSP (still listed as pending)")
	}
	l.must(&api.Event{JobSignal: &api.EvJobSignal{JobID: 1, Action: int32(api.ActTerminate), TermReason: "TERM_OWNER"}})
	j := l.job(1, 0)
	if j.State != api.StateExit || j.TermReason != "TERM_OWNER" || len(l.pendingOrder("normal")) != 0 {
		t.Fatalf("bkill of pending: %s %s", job.Name(j.State), j.TermReason)
	}
}

// TestStateIndex: a job records the log entry that last changed its state,
// which the event log uses to tell a signal that changed a waiting job's
// state from one that did not (bstop of a held job, even in the second it
// was held).
func TestStateIndex(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "normal", "alice", func(n *api.EvJobNew) { n.Hold = true }))
	if got := l.job(1, 0).StateIndex; got != 1 {
		t.Fatalf("after the submission: StateIndex %d, want 1", got)
	}
	l.must(&api.Event{JobSignal: &api.EvJobSignal{JobID: 1, Action: int32(api.ActSuspend)}}) // held already
	if got := l.job(1, 0).StateIndex; got != 1 {
		t.Fatalf("bstop of a held job changed nothing, yet StateIndex is %d", got)
	}
	l.must(&api.Event{JobSignal: &api.EvJobSignal{JobID: 1, Action: int32(api.ActResume)}})
	if got := l.job(1, 0).StateIndex; got != 3 {
		t.Fatalf("bresume: StateIndex %d, want 3", got)
	}
	l.must(start(1, 0, "hostA"))
	l.must(&api.Event{JobSignal: &api.EvJobSignal{JobID: 1, Action: int32(api.ActTerminate)}}) // sbatchd acts
	if got := l.job(1, 0).StateIndex; got != 4 {
		t.Fatalf("a running job's kill request changed its state: StateIndex %d, want 4", got)
	}
}

func TestRequeueWithExclusion(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "normal", "alice"), start(1, 0, "host1"))
	l.must(&api.Event{JobStatus: &api.EvJobStatus{JobID: 1, State: api.StatePend, PendReason: 6, ExcludeHost: "host1", RunCount: 1}})
	j := l.job(1, 0)
	if j.State != api.StatePend || j.PendReason != 6 || fmt.Sprint(j.ExcludedHosts) != "[host1]" || len(j.ExecHosts) != 0 {
		t.Fatalf("requeued: %+v", j)
	}
	l.s.View(func(v *View) {
		if len(v.StartedHosts()) != 0 {
			t.Fatal("requeued job still on its host")
		}
	})
}

func TestEnvInterning(t *testing.T) {
	l := newLogger(t)
	for id := int64(1); id <= 100; id++ {
		l.must(submit(id, "normal", "alice"))
	}
	if n := len(l.s.envs.byRef); n != 1 {
		t.Fatalf("%d environments stored for 100 identical ones", n)
	}
	a, b := l.job(1, 0).Spec.Env, l.job(100, 0).Spec.Env
	if &a[0] != &b[0] {
		t.Fatal("environments not shared")
	}
}

// TestSpecBases: jobs submitted alike share one base and keep their own
// command, name, output and error files and working directory; a
// different option makes another base; bmod, clean and snapshots keep the
// sharing and the counts exact.
func TestSpecBases(t *testing.T) {
	l := newLogger(t)
	like := func(i int) func(*api.EvJobNew) {
		return func(n *api.EvJobNew) {
			n.Spec.Command = fmt.Sprintf("bwa mem ref.fa s%d.fq", i)
			n.Spec.JobName, n.Spec.OutFile, n.Spec.ErrFile, n.Spec.Cwd = fmt.Sprintf("align%d", i), fmt.Sprintf("o%d", i), fmt.Sprintf("e%d", i), fmt.Sprintf("/w/%d", i)
			n.Spec.ResReq = []string{"rusage[mem=4000]"}
		}
	}
	for i := 1; i <= 3; i++ {
		l.must(submit(int64(i), "normal", "alice", like(i)))
	}
	l.must(submit(4, "normal", "alice", like(4), func(n *api.EvJobNew) { n.Spec.ResReq = []string{"rusage[mem=8000]"} }))
	j1, j2, j4 := l.job(1, 0), l.job(2, 0), l.job(4, 0)
	if j1.Spec.sharedSpec != j2.Spec.sharedSpec || j1.Spec.sharedSpec == j4.Spec.sharedSpec {
		t.Fatalf("bases: jobs 1 and 2 share %v, jobs 1 and 4 share %v", j1.Spec.sharedSpec == j2.Spec.sharedSpec, j1.Spec.sharedSpec == j4.Spec.sharedSpec)
	}
	if n := len(l.s.bases.byKey); n != 2 {
		t.Fatalf("%d bases for two kinds of submission", n)
	}
	f := j2.Spec.Full()
	if j2.Spec.Command != "bwa mem ref.fa s2.fq" || f.Command != j2.Spec.Command || f.JobName != "align2" || f.OutFile != "o2" ||
		f.ErrFile != "e2" || f.Cwd != "/w/2" || fmt.Sprint(f.ResReq) != "[rusage[mem=4000]]" || len(f.Env) != 2 {
		t.Fatalf("job 2's spec: %q, full %+v", j2.Spec.Command, f)
	}
	if j1.Spec.sharedSpec.Command != "" || j1.Spec.sharedSpec.OutFile != "" {
		t.Fatalf("base holds a job's own fields: %+v", j1.Spec.sharedSpec)
	}
	// bmod: job 1 moves to job 4's base, with its own command kept.
	mod := j1.Spec.Full()
	mod.ResReq = []string{"rusage[mem=8000]"}
	l.must(&api.Event{JobModify: &api.EvJobModify{JobID: 1, Spec: mod}})
	if j1 := l.job(1, 0); j1.Spec.sharedSpec != j4.Spec.sharedSpec || j1.Spec.Command != "bwa mem ref.fa s1.fq" {
		t.Fatalf("modified job 1: base shared with job 4 %v, command %q", j1.Spec.sharedSpec == j4.Spec.sharedSpec, j1.Spec.Command)
	}
	checkInvariants(t, l.s)
	s2, _ := restored(t, l.s)
	l2 := &logger{t: t, s: s2}
	if len(s2.bases.byKey) != 2 || l2.job(3, 0).Spec.Command != "bwa mem ref.fa s3.fq" || l2.job(1, 0).Spec.sharedSpec != l2.job(4, 0).Spec.sharedSpec {
		t.Fatalf("restored: %d bases, job 3's command %q", len(s2.bases.byKey), l2.job(3, 0).Spec.Command)
	}
	for id := int64(1); id <= 4; id++ {
		l.must(&api.Event{JobSignal: &api.EvJobSignal{JobID: id, Action: int32(api.ActTerminate)}})
		l.must(&api.Event{JobClean: &api.EvJobClean{JobID: id}})
	}
	if len(l.s.specs) != 0 || len(l.s.bases.byKey) != 0 || len(l.s.envs.byRef) != 0 {
		t.Fatalf("after cleaning every job: %d specs, %d bases, %d environments", len(l.s.specs), len(l.s.bases.byKey), len(l.s.envs.byRef))
	}
}

// randomEvents applies a random but plausible event stream and checks the
// state's indexes against a recount after each entry.
func TestRandomStreamInvariants(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	l := newLogger(t)
	hosts := []string{"host1", "host2", "host3"}
	queues := []string{"normal", "short"}
	var next int64 = 1
	for step := 0; step < 3000; step++ {
		var ev *api.Event
		var id int64
		if next > 1 {
			id = 1 + r.Int63n(next-1)
		}
		switch k := r.Intn(12); {
		case k < 3 || next == 1:
			ev = submit(next, queues[r.Intn(2)], []string{"alice", "bob"}[r.Intn(2)], func(n *api.EvJobNew) {
				if r.Intn(5) == 0 {
					n.ArrayIndices = []int32{1, 2, 3}
				}
				n.Hold = r.Intn(10) == 0
				n.Spec.Command = fmt.Sprintf("step %d", next)
				if r.Intn(3) == 0 {
					n.Spec.ResReq = []string{"select[mem>1000]"}
				}
			})
			next++
		case k < 5:
			ev = start(id, 0, hosts[r.Intn(3)])
		case k < 7:
			ev = status(id, 0, []api.JobState{api.StateDone, api.StateExit, api.StateSSusp, api.StateUSusp, api.StateRun, api.StatePend}[r.Intn(6)])
		case k < 8:
			ev = &api.Event{JobRequeue: &api.EvJobRequeue{JobID: id, Hold: r.Intn(2) == 0}}
		case k < 9:
			ev = &api.Event{JobClean: &api.EvJobClean{JobID: id}}
		case k < 10:
			ev = &api.Event{JobMove: &api.EvJobMove{JobID: id, Position: int32(1 + r.Intn(4)), Bottom: r.Intn(2) == 0}}
		case k < 11:
			ev = &api.Event{JobSwitch: &api.EvJobSwitch{JobID: id, Queue: queues[r.Intn(2)]}}
		default:
			ev = &api.Event{JobSignal: &api.EvJobSignal{JobID: id, Action: int32(1 + r.Intn(3))}}
		}
		l.apply(ev)
		checkInvariants(t, l.s)
	}
	// And the final state survives a snapshot round trip exactly.
	s2, snap := restored(t, l.s)
	snap2, _ := s2.Snapshot()
	if !bytes.Equal(snap, snap2) {
		t.Fatal("snapshot of the restored state differs")
	}
	for _, q := range queues {
		a := (&logger{s: l.s}).pendingOrder(q)
		b := (&logger{s: s2}).pendingOrder(q)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("queue %s order differs after restore:\n%v\n%v", q, a, b)
		}
	}
}

// restored is s restored from its snapshot (returned too), its indexes
// checked.
func restored(t *testing.T, s *State) (*State, []byte) {
	t.Helper()
	snap, idx := s.Snapshot()
	s2 := New()
	if err := s2.Restore(bytes.NewReader(snap), idx); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, s2)
	return s2, snap
}

func checkInvariants(t *testing.T, s *State) {
	t.Helper()
	specUses := map[*Spec]int{}
	s.jobs.each(func(_ Key, j *Job) bool {
		specUses[j.Spec]++
		return true
	})
	baseUses := map[*specBase]int{}
	for sp, n := range s.specs {
		if n != specUses[sp] {
			t.Fatalf("spec of %q counts %d jobs, recount %d", sp.Command, n, specUses[sp])
		}
		if s.bases.byKey[sp.key] != sp.specBase {
			t.Fatalf("spec of %q: base not interned", sp.Command)
		}
		baseUses[sp.specBase]++
	}
	for _, b := range s.bases.byKey {
		if b.refs != baseUses[b] {
			t.Fatalf("base counts %d specs, recount %d", b.refs, baseUses[b])
		}
	}
	counts := map[api.JobState]int{}
	onHost := map[string]int{}
	pendingInQueue := map[string]int{}
	names := map[nameKey][]Key{}
	var keys []Key
	s.jobs.each(func(k Key, j *Job) bool {
		keys = append(keys, k)
		return true
	})
	if len(keys) != s.jobs.n {
		t.Fatalf("jobs map counts %d, holds %d", s.jobs.n, len(keys))
	}
	sortKeys(keys)
	for _, k := range keys {
		j, _ := s.jobs.get(k)
		if j.Key != k {
			t.Fatalf("job %v stored under %v", j.Key, k)
		}
		if j.Name != "" {
			names[nameKey{j.User, j.Name}] = append(names[nameKey{j.User, j.Name}], k)
		}
		counts[j.State]++
		if job.Started(j.State) {
			for _, h := range j.ExecHosts {
				onHost[h.Host]++
				ks, _ := s.onHost.get(h.Host)
				if ks.jobs[k] != j {
					t.Fatalf("started job %v missing from host %s index", k, h.Host)
				}
			}
		}
		if job.Pending(j.State) {
			pendingInQueue[j.Queue]++
			if !j.listed {
				t.Fatalf("pending job %v not in its queue's list", k)
			}
		} else if j.listed {
			t.Fatalf("%s job %v still in a pending list", job.Name(j.State), k)
		}
	}
	for st, n := range counts {
		if s.counts.m[st] != n {
			t.Fatalf("count[%s] = %d, recount %d", job.Name(st), s.counts.m[st], n)
		}
	}
	if len(counts) != len(s.counts.m) {
		t.Fatalf("counts %v, recount %v", s.counts.m, counts)
	}
	s.onHost.each(func(h string, ks *hostJobs) bool {
		if len(ks.jobs) != onHost[h] {
			t.Fatalf("host %s index has %d jobs, recount %d", h, len(ks.jobs), onHost[h])
		}
		return true
	})
	// The started index holds each job of the host index once, the same
	// record.
	inHosts := map[Key]*Job{}
	s.onHost.each(func(_ string, ks *hostJobs) bool {
		for k, j := range ks.jobs {
			inHosts[k] = j
		}
		return true
	})
	nStarted := 0
	s.started.each(func(k Key, j *Job) bool {
		nStarted++
		if inHosts[k] != j {
			t.Fatalf("started index holds job %v (%p), host index %p", k, j, inHosts[k])
		}
		return true
	})
	if nStarted != len(inHosts) || s.started.n != nStarted {
		t.Fatalf("started index holds %d jobs (counts %d), host index %d", nStarted, s.started.n, len(inHosts))
	}
	s.byName.each(func(nk nameKey, l *nameList) bool {
		if fmt.Sprint(l.keys) != fmt.Sprint(names[nk]) {
			t.Fatalf("name %v lists %v, recount %v", nk, l.keys, names[nk])
		}
		delete(names, nk)
		return true
	})
	if len(names) != 0 {
		t.Fatalf("names missing from the index: %v", names)
	}
	for q, p := range s.pending.m {
		n, entries, dead := 0, 0, 0
		for _, c := range p.chunks {
			if len(c.es) == 0 {
				t.Fatalf("queue %s has an empty chunk", q)
			}
			for _, e := range c.es {
				entries++
				if e.dead {
					dead++
				}
			}
		}
		if entries != p.n || dead != p.dead {
			t.Fatalf("queue %s counts %d entries (%d dead), holds %d (%d dead)", q, p.n, p.dead, entries, dead)
		}
		p.each(func(j *Job) bool {
			n++
			if cur, _ := s.jobs.get(j.Key); cur != j {
				t.Fatalf("queue %s lists an old record of %v", q, j.Key)
			}
			if j.Queue != q {
				t.Fatalf("queue %s lists %v of queue %s", q, j.Key, j.Queue)
			}
			return true
		})
		if n != pendingInQueue[q] {
			t.Fatalf("queue %s lists %d pending, recount %d", q, n, pendingInQueue[q])
		}
		var prev *Job
		p.each(func(j *Job) bool {
			if prev != nil && less(j, prev) {
				t.Fatalf("queue %s out of order: %v before %v", q, prev.Key, j.Key)
			}
			prev = j
			return true
		})
	}
}

func TestRestoreRejectsCorruptSnapshots(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "normal", "alice"))
	snap, idx := l.s.Snapshot()
	for cut := 1; cut < len(snap); cut += 7 {
		if err := New().Restore(bytes.NewReader(snap[:cut]), idx); err == nil {
			t.Fatalf("truncated snapshot (%d of %d bytes) restored", cut, len(snap))
		}
	}
	if err := New().Restore(bytes.NewReader(nil), 0); err == nil {
		t.Fatal("empty snapshot restored")
	}
}

// BenchmarkMemoryPerPendingJob reports heap bytes per pending job for
// submissions that share an environment, as a workflow's jobs do.
func BenchmarkMemoryPerPendingJob(b *testing.B) {
	const n = 100_000
	env := make([]string, 0, 40)
	for i := 0; i < 40; i++ {
		env = append(env, fmt.Sprintf("VAR%d=/some/typical/value/%d", i, i))
	}
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := New()
		for id := int64(1); id <= n; id++ {
			e := &api.Event{Time: id * sec, User: "alice", UID: 1000, JobNew: &api.EvJobNew{JobID: id, Queue: "normal",
				JobName: "align_sample", Order: id << 20, Project: "default",
				Spec: &api.JobSpec{Command: fmt.Sprintf("bwa mem ref.fa sample_%d.fq > out_%d.sam", id, id),
					Queues: []string{"normal"}, ResReq: []string{"rusage[mem=4000]"}, SubCwd: "/home/alice/project",
					OutFile: "logs/%J.out", Env: append([]string(nil), env...)}}}
			s.Apply(uint64(id), &api.LogEntry{Events: []*api.Event{e}})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/job")
		runtime.KeepAlive(s)
	}
}

// TestMoveBeyondTheList: bbot and btop to a position past the list's
// length put the job at the far end (bbot past the top panicked).
func TestMoveBeyondTheList(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "normal", "alice"), submit(2, "normal", "alice"))
	l.must(&api.Event{JobMove: &api.EvJobMove{JobID: 1, Position: 5, Bottom: true}})
	if got := fmt.Sprint(l.pendingOrder("normal")); got != "[1 2]" {
		t.Fatalf("bbot past the top: %s", got)
	}
	l.must(&api.Event{JobMove: &api.EvJobMove{JobID: 1, Position: 5}})
	if got := fmt.Sprint(l.pendingOrder("normal")); got != "[2 1]" {
		t.Fatalf("btop past the bottom: %s", got)
	}
	checkInvariants(t, l.s)
}
