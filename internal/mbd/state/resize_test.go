package state

import (
	"errors"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func resize(id int64, action int32, hosts ...*api.ExecHost) *api.Event {
	return &api.Event{JobResize: &api.EvJobResize{JobID: id, Action: action, Hosts: hosts}}
}

func onHost(s *State, host string) []Key {
	var ks []Key
	s.View(func(v *View) {
		v.OnHost(host, func(j *Job) bool { ks = append(ks, j.Key); return true })
	})
	return ks
}

func TestResizeGrowReleaseRequestCancel(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "normal", "u1", func(n *api.EvJobNew) {
		n.NumProcs, n.MaxProcs = 1, 4
		n.Spec.AutoResizable = true
		n.Spec.ResizeNotifyCmd = "/bin/notify"
	}), start(1, 0, "h1"), status(1, 0, api.StateRun))
	j := l.job(1, 0)
	if lo, hi := j.PendingResize(); lo != 1 || hi != 3 {
		t.Fatalf("autoresizable 1,4 on 1 slot: pending %d,%d, want 1,3", lo, hi)
	}
	old := j.ExecHosts
	l.must(resize(1, api.ResizeOpGrow, &api.ExecHost{Host: "h2", Slots: 2}, &api.ExecHost{Host: "h1", Slots: 1}))
	j = l.job(1, 0)
	if j.Slots() != 4 || len(j.ExecHosts) != 2 || j.ExecHosts[0].Slots != 2 || j.ExecHosts[1].Host != "h2" {
		t.Fatalf("after grow: %v", j.ExecHosts)
	}
	if old[0].Slots != 1 {
		t.Fatalf("grow changed the old view's allocation: %v", old)
	}
	if lo, hi := j.PendingResize(); hi != 0 {
		t.Fatalf("at max: pending %d,%d", lo, hi)
	}
	if ks := onHost(l.s, "h2"); len(ks) != 1 || ks[0] != (Key{1, 0}) {
		t.Fatalf("h2 holds %v", ks)
	}
	// The first execution host keeps a slot; unknown hosts are refused.
	if errs := l.apply(resize(1, api.ResizeOpRelease, &api.ExecHost{Host: "h1", Slots: 2})); !errors.Is(errs[0], ErrResize) {
		t.Fatalf("releasing every slot of the first host: %v", errs[0])
	}
	if errs := l.apply(resize(1, api.ResizeOpRelease, &api.ExecHost{Host: "h9", Slots: 1})); !errors.Is(errs[0], ErrResize) {
		t.Fatalf("releasing a host not held: %v", errs[0])
	}
	l.must(resize(1, api.ResizeOpRelease, &api.ExecHost{Host: "h2", Slots: 2}, &api.ExecHost{Host: "h1", Slots: 1}))
	j = l.job(1, 0)
	if j.Slots() != 1 || len(j.ExecHosts) != 1 || len(onHost(l.s, "h2")) != 0 {
		t.Fatalf("after release: %v, h2 holds %v", j.ExecHosts, onHost(l.s, "h2"))
	}
	// A manual request replaces the automatic one for the rest of the run.
	l.must(&api.Event{JobResize: &api.EvJobResize{JobID: 1, Action: api.ResizeOpRequest, Min: 2, Max: 2,
		SetNotify: true}})
	j = l.job(1, 0)
	if lo, hi := j.PendingResize(); lo != 2 || hi != 2 || j.NotifyCmd() != "" {
		t.Fatalf("request 2,2 -rncn: pending %d,%d, command %q", lo, hi, j.NotifyCmd())
	}
	// Snapshots keep the request and the flags.
	s2, _ := restored(t, l.s)
	var r *Job
	s2.View(func(v *View) { r = v.Job(Key{1, 0}) })
	if lo, hi := r.PendingResize(); lo != 2 || hi != 2 || !r.ResizeNoAuto || r.NotifyCmd() != "" || !r.Resized || r.ResizeTime() != j.ResizeTime() || j.ResizeTime() == 0 {
		t.Fatalf("restored: pending %d,%d, %+v", lo, hi, r)
	}
	l.must(resize(1, api.ResizeOpCancel))
	if lo, hi := l.job(1, 0).PendingResize(); hi != 0 {
		t.Fatalf("cancelled: pending %d,%d", lo, hi)
	}
	// A requeued job starts again from its original request (bresize
	// -rncn changed its command for good, as bmod -rncn would).
	l.must(&api.Event{JobStatus: &api.EvJobStatus{JobID: 1, State: api.StatePend}}, start(1, 0, "h3"))
	if lo, hi := l.job(1, 0).PendingResize(); lo != 1 || hi != 3 || l.job(1, 0).NotifyCmd() != "" || l.job(1, 0).Resized {
		t.Fatalf("new run: pending %d,%d, command %q", lo, hi, l.job(1, 0).NotifyCmd())
	}

	// Not started: refused.
	l.must(submit(2, "normal", "u1"))
	if errs := l.apply(resize(2, api.ResizeOpCancel)); !errors.Is(errs[0], ErrResize) {
		t.Fatalf("resize of a pending job: %v", errs[0])
	}
}
