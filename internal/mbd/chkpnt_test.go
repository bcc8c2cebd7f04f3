package mbd

import (
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// chkpntJob applies evs to a new state and returns job 1 as it is then.
func chkpntStateJob(t *testing.T, spec *api.JobSpec, evs ...*api.Event) *state.Job {
	t.Helper()
	st := state.New()
	all := append([]*api.Event{{Time: 1000e9, JobNew: &api.EvJobNew{JobID: 1, Spec: spec, Queue: "q"}}}, evs...)
	for i, err := range st.Apply(1, &api.LogEntry{Events: all}) {
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	var j *state.Job
	st.View(func(v *state.View) { j = v.Job(state.Key{ID: 1}) })
	return j
}

// The job's -k is over its application profile's CHKPNT_* over its
// queue's CHKPNT; bchkpnt -p is over them all.
func TestEffectiveChkpnt(t *testing.T) {
	cfg := &config.Config{
		Queues: []*config.Queue{{Name: "q", Chkpnt: &config.Chkpnt{Dir: "/qdir", Period: 30 * time.Minute}}},
		Applications: []*config.Application{{Name: "app", Raw: []config.KV{
			{Key: "CHKPNT_DIR", Value: "/adir"}, {Key: "CHKPNT_PERIOD", Value: "20"}, {Key: "CHKPNT_METHOD", Value: "criu"}}}},
	}
	for _, tt := range []struct {
		name string
		spec *api.JobSpec
		evs  []*api.Event
		want chkpntSpec
	}{
		{"queue", &api.JobSpec{}, nil, chkpntSpec{dir: "/qdir", period: 1800}},
		{"profile", &api.JobSpec{App: "app"}, nil, chkpntSpec{dir: "/adir", period: 1200, method: "criu"}},
		{"job dir, profile period", &api.JobSpec{App: "app", ChkpntDir: "/jdir"}, nil, chkpntSpec{dir: "/jdir", period: 1200, method: "criu"}},
		{"job", &api.JobSpec{App: "app", ChkpntDir: "/jdir", ChkpntPeriod: 60, ChkpntMethod: "m"}, nil, chkpntSpec{dir: "/jdir", period: 60, method: "m"}},
		{"bchkpnt -p 0", &api.JobSpec{ChkpntDir: "/jdir", ChkpntPeriod: 60},
			[]*api.Event{{JobChkpnt: &api.EvJobChkpnt{JobID: 1, SetPeriod: true}}}, chkpntSpec{dir: "/jdir"}},
	} {
		j := chkpntStateJob(t, tt.spec, tt.evs...)
		if got := effectiveChkpnt(cfg, j); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if got := effectiveChkpnt(&config.Config{}, chkpntStateJob(t, &api.JobSpec{})); got.dir != "" {
		t.Errorf("a job of a queue without CHKPNT is checkpointable: %+v", got)
	}
}

// A run after a successful checkpoint, and a job brestart submitted, run
// erestart with the job's own command kept in LSB_ERESTART_USRCMD.
func TestFoldChkpntRestart(t *testing.T) {
	cfg := &config.Config{}
	spec := &api.JobSpec{Command: "./count.sh", ChkpntDir: "/ck", ChkpntMethod: "m"}
	launch := func(j *state.Job) *api.JobLaunch {
		l := &api.JobLaunch{Spec: j.Spec.Full()}
		foldChkpnt(cfg, l, j)
		return l
	}
	first := chkpntStateJob(t, spec, &api.Event{JobStart: &api.EvJobStart{JobID: 1, ExecHosts: []*api.ExecHost{{Host: "h1", Slots: 1}}}})
	if l := launch(first); l.Spec.Command != "./count.sh" || l.Spec.ChkpntMethod != "m" {
		t.Errorf("first run: %q %q", l.Spec.Command, l.Spec.ChkpntMethod)
	}
	again := chkpntStateJob(t, spec,
		&api.Event{JobStart: &api.EvJobStart{JobID: 1, ExecHosts: []*api.ExecHost{{Host: "h1", Slots: 1}}}},
		&api.Event{Time: 1010e9, JobChkpnt: &api.EvJobChkpnt{JobID: 1, Phase: api.ChkpntSucceeded, RunCount: 1}},
		&api.Event{JobStatus: &api.EvJobStatus{JobID: 1, State: api.StatePend, PendReason: 23, RunCount: 1}},
		&api.Event{JobStart: &api.EvJobStart{JobID: 1, ExecHosts: []*api.ExecHost{{Host: "h2", Slots: 1}}}})
	if again.Chkpnts != 1 || again.ChkpntTime != 1010 || again.RunCount != 2 {
		t.Fatalf("state: %d checkpoints at %d, run %d", again.Chkpnts, again.ChkpntTime, again.RunCount)
	}
	l := launch(again)
	if want := `exec "$LSF_SERVERDIR/erestart" '/ck/1'`; l.Spec.Command != want {
		t.Errorf("restart command %q, want %q", l.Spec.Command, want)
	}
	if n := len(l.Spec.Env); n == 0 || l.Spec.Env[n-1] != "LSB_ERESTART_USRCMD=./count.sh" {
		t.Errorf("environment %q", l.Spec.Env)
	}
	if j := again; j.Spec.Command != "./count.sh" {
		t.Errorf("the launch changed the state's command: %q", j.Spec.Command)
	}
	br := chkpntStateJob(t, &api.JobSpec{Command: "x", ChkpntDir: "/ck", RestartDir: "/ck/7", RestartForce: true})
	if l := launch(br); !strings.HasSuffix(l.Spec.Command, `erestart" -f '/ck/7'`) {
		t.Errorf("brestart's job runs %q", l.Spec.Command)
	}
}

func TestChkpntDue(t *testing.T) {
	j := &state.Job{State: api.StateRun, StartTime: 1000}
	c := chkpntSpec{dir: "/ck", period: 60}
	for _, tt := range []struct {
		now, tried, last int64
		period           int64
		state            api.JobState
		want             bool
	}{
		{now: 1059, period: 60, state: api.StateRun, want: false},
		{now: 1060, period: 60, state: api.StateRun, want: true},
		{now: 1100, last: 1050, period: 60, state: api.StateRun, want: false},
		{now: 1100, tried: 1070, period: 60, state: api.StateRun, want: false},
		{now: 1200, period: 0, state: api.StateRun, want: false},
		{now: 1200, period: 60, state: api.StateSSusp, want: false},
	} {
		j.State, j.ChkpntTime, c.period = tt.state, tt.last, tt.period
		if got := chkpntDue(j, c, tt.now, tt.tried); got != tt.want {
			t.Errorf("%+v: due %v", tt, got)
		}
	}
}

// MIG: the lower of the queue's and the execution host's threshold, for
// jobs the system suspended.
func TestMigThreshold(t *testing.T) {
	cfg := &config.Config{
		Queues:     []*config.Queue{{Name: "q", Mig: 10}},
		BatchHosts: []*config.BatchHost{{Name: "h1", Mig: 5}, {Name: "h2", Mig: -1}},
	}
	j := chkpntStateJob(t, &api.JobSpec{}, &api.Event{JobStart: &api.EvJobStart{JobID: 1, ExecHosts: []*api.ExecHost{{Host: "h1", Slots: 1}}}})
	if m := effectiveMig(cfg, j); m != 5 {
		t.Errorf("MIG on h1 = %d, want 5", m)
	}
	j2 := chkpntStateJob(t, &api.JobSpec{}, &api.Event{JobStart: &api.EvJobStart{JobID: 1, ExecHosts: []*api.ExecHost{{Host: "h2", Slots: 1}}}})
	if m := effectiveMig(cfg, j2); m != 10 {
		t.Errorf("MIG on h2 = %d, want the queue's 10", m)
	}
	if m := effectiveMig(&config.Config{Queues: []*config.Queue{{Name: "q", Mig: -1}}}, j2); m != -1 {
		t.Errorf("no MIG anywhere = %d", m)
	}
	s := &state.Job{State: api.StateSSusp, StateTime: 1000}
	for _, tt := range []struct {
		st   api.JobState
		mig  int
		now  int64
		want bool
	}{
		{api.StateSSusp, 5, 1299, false}, {api.StateSSusp, 5, 1300, true}, {api.StateSSusp, 0, 1000, true},
		{api.StateSSusp, -1, 9999, false}, {api.StateUSusp, 0, 9999, false}, {api.StateRun, 0, 9999, false},
	} {
		s.State = tt.st
		if got := migDue(s, tt.mig, tt.now); got != tt.want {
			t.Errorf("%+v: due %v", tt, got)
		}
	}
}
