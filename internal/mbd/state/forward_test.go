package state

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
)

func fwd(id int64, key string) *api.Event {
	return &api.Event{JobForward: &api.EvJobForward{JobID: id, Cluster: "east", Queue: "recv", Key: key}}
}

func fwdUp(id int64, key string, f func(*api.EvJobFwdUpdate)) *api.Event {
	e := &api.EvJobFwdUpdate{JobID: id, Key: key}
	f(e)
	return &api.Event{JobFwdUpdate: e}
}

func forwarded(v *View) []int64 {
	var ids []int64
	v.Forwarded(func(j *Job) bool { ids = append(ids, j.ID); return true })
	return ids
}

// TestForwardLifecycle: a forwarded job leaves its queue's dispatch list,
// comes back to it (in its place) when the forward returns, and a second
// forward runs and finishes remotely; stale updates change nothing, and a
// snapshot keeps all of it.
func TestForwardLifecycle(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "send", "u"), submit(2, "send", "u"), submit(3, "send", "u"))
	l.must(fwd(2, "t:2:1"))
	if got := l.pendingOrder("send"); len(got) != 2 {
		t.Fatalf("pending list %v: the forwarded job is still in it", got)
	}
	if ids := forwarded(l.s.Latest()); !reflect.DeepEqual(ids, []int64{2}) {
		t.Fatalf("forwarded %v", ids)
	}
	if errs := l.apply(fwd(2, "t:2:x")); errs[0] == nil {
		t.Fatal("a job forwarded twice at once")
	}
	// A dispatch decided before the forward applied is refused: the job
	// runs in the other cluster only.
	if errs := l.apply(start(2, 0, "h1")); !errors.Is(errs[0], job.ErrIllegalTransition) || l.job(2, 0).State != api.StatePend {
		t.Fatalf("local dispatch of a forwarded job: %v, state %v", errs[0], l.job(2, 0).State)
	}
	l.must(fwdUp(2, "t:2:1", func(e *api.EvJobFwdUpdate) { e.RemoteID = 77 }))
	if j := l.job(2, 0); j.Fwd.RemoteID != 77 || j.State != api.StatePend {
		t.Fatalf("after acceptance: %+v %v", j.Fwd, j.State)
	}
	// Recalled: back in the queue, in its place.
	l.must(fwdUp(2, "t:2:1", func(e *api.EvJobFwdUpdate) { e.Back = true }))
	if got := l.pendingOrder("send"); len(got) != 3 || got[1] != "2" {
		t.Fatalf("pending after recall %v", got)
	}
	if errs := l.apply(fwdUp(2, "t:2:1", func(e *api.EvJobFwdUpdate) { e.State = api.StateRun })); !errors.Is(errs[0], ErrStale) {
		t.Fatalf("update of an ended forward: %v", errs[0])
	}
	// Forwarded again, runs there, then a snapshot.
	l.must(fwd(2, "t:2:2"), fwdUp(2, "t:2:2", func(e *api.EvJobFwdUpdate) {
		e.RemoteID, e.State, e.ExecHosts, e.StartTime = 78, api.StateRun, []string{"e1"}, 1234
	}))
	j := l.job(2, 0)
	if j.State != api.StateRun || j.FwdCount != 2 || j.Fwd.RemoteID != 78 || j.StartTime != 1234 || len(j.ExecHosts) != 0 {
		t.Fatalf("running remotely: %v %+v count %d start %d hosts %v", j.State, j.Fwd, j.FwdCount, j.StartTime, j.ExecHosts)
	}
	if n := l.s.Latest().Count(api.StateRun); n != 1 {
		t.Fatalf("RUN count %d", n)
	}
	snap, _ := l.s.Snapshot()
	r := New()
	if err := r.Restore(bytes.NewReader(snap), l.idx); err != nil {
		t.Fatal(err)
	}
	rj := r.Latest().Job(Key{ID: 2})
	if !reflect.DeepEqual(rj.Fwd, j.Fwd) || rj.FwdCount != 2 || !reflect.DeepEqual(forwarded(r.Latest()), []int64{2}) {
		t.Fatalf("restored %+v count %d", rj.Fwd, rj.FwdCount)
	}
	l.must(fwdUp(2, "t:2:2", func(e *api.EvJobFwdUpdate) { e.State, e.ExitStatus, e.EndTime = api.StateExit, 3<<8, 1300 }))
	j = l.job(2, 0)
	if j.State != api.StateExit || j.ExitStatus != 3<<8 || j.EndTime != l.now/sec || j.Fwd.Active || len(forwarded(l.s.Latest())) != 0 {
		t.Fatalf("finished remotely: %v %d %d %+v", j.State, j.ExitStatus, j.EndTime, j.Fwd)
	}
	// A forwarded pending job killed here leaves the forwarded set when
	// cleaned.
	l.must(fwd(3, "t:3:1"), &api.Event{JobSignal: &api.EvJobSignal{JobID: 3, Action: int32(api.ActTerminate)}})
	if l.job(3, 0).State != api.StateExit {
		t.Fatalf("killed forwarded job: %v", l.job(3, 0).State)
	}
	l.must(&api.Event{JobClean: &api.EvJobClean{JobID: 3}})
	if ids := forwarded(l.s.Latest()); len(ids) != 0 {
		t.Fatalf("forwarded after clean: %v", ids)
	}
	// A switch of a forwarded pending job does not put it back in a list.
	l.must(fwd(1, "t:1:1"), &api.Event{JobSwitch: &api.EvJobSwitch{JobID: 1, Queue: "other"}})
	if got := l.pendingOrder("other"); len(got) != 0 {
		t.Fatalf("switched forwarded job listed: %v", got)
	}
}

func stale(v *View) map[int64][]string {
	out := map[int64][]string{}
	v.StaleForwards(func(j *Job) bool {
		for _, sf := range j.FwdStale {
			out[j.ID] = append(out[j.ID], sf.Key)
		}
		return true
	})
	return out
}

// TestStaleForwards: a forward taken back, or a forwarded job killed here,
// while its cluster does not answer leaves its remote copy on the job's
// list of copies to kill, in the replicated state (a snapshot keeps it);
// StaleDone takes it off, once; a cleaned job's list goes with it.
func TestStaleForwards(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "send", "u"), submit(2, "send", "u"))
	l.must(fwd(1, "t:1:1"), fwdUp(1, "t:1:1", func(e *api.EvJobFwdUpdate) { e.RemoteID = 40 }))
	l.must(fwdUp(1, "t:1:1", func(e *api.EvJobFwdUpdate) { e.Back, e.Stale = true, true }))
	if j := l.job(1, 0); j.Fwd != nil || j.State != api.StatePend ||
		!reflect.DeepEqual(j.FwdStale, []StaleForward{{Cluster: "east", Queue: "recv", Key: "t:1:1", RemoteID: 40}}) {
		t.Fatalf("taken back: %+v %v %+v", j.Fwd, j.State, j.FwdStale)
	}
	// Forwarded again (never accepted) and killed here while unreachable.
	l.must(fwd(1, "t:1:2"), fwdUp(1, "t:1:2", func(e *api.EvJobFwdUpdate) { e.Stale = true }))
	l.must(fwd(2, "t:2:1"))
	if got := stale(l.s.Latest()); !reflect.DeepEqual(got, map[int64][]string{1: {"t:1:1", "t:1:2"}}) {
		t.Fatalf("stale %v", got)
	}
	snap, _ := l.s.Snapshot()
	r := New()
	if err := r.Restore(bytes.NewReader(snap), l.idx); err != nil {
		t.Fatal(err)
	}
	if got := stale(r.Latest()); !reflect.DeepEqual(got, map[int64][]string{1: {"t:1:1", "t:1:2"}}) {
		t.Fatalf("restored stale %v", got)
	}
	if rj := r.Latest().Job(Key{ID: 1}); !reflect.DeepEqual(rj.FwdStale, l.job(1, 0).FwdStale) {
		t.Fatalf("restored %+v, want %+v", rj.FwdStale, l.job(1, 0).FwdStale)
	}
	l.must(fwdUp(1, "t:1:1", func(e *api.EvJobFwdUpdate) { e.StaleDone = true }))
	if errs := l.apply(fwdUp(1, "t:1:1", func(e *api.EvJobFwdUpdate) { e.StaleDone = true })); !errors.Is(errs[0], ErrStale) {
		t.Fatalf("a copy killed twice: %v", errs[0])
	}
	if got := stale(l.s.Latest()); !reflect.DeepEqual(got, map[int64][]string{1: {"t:1:2"}}) {
		t.Fatalf("stale after one done %v", got)
	}
	l.must(&api.Event{JobSignal: &api.EvJobSignal{JobID: 1, Action: int32(api.ActTerminate)}}, &api.Event{JobClean: &api.EvJobClean{JobID: 1}})
	if got := stale(l.s.Latest()); len(got) != 0 {
		t.Fatalf("stale after clean %v", got)
	}
}
