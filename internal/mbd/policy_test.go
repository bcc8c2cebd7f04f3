package mbd

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/sched"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// suspSbd is a fake sbatchd that, unlike fakeSbd, acts on job control as
// sbatchd does for the system: a suspension with system reasons makes the
// job SSUSP with those reasons, a resumption makes it RUN.
type suspSbd struct {
	t       *testing.T
	st      *rpc.ClientStream
	c       *rpc.Client
	mu      sync.Mutex
	running map[int64]*api.JobLaunch
	signals []*api.JobSignal
	seq     uint64
}

func connectSuspSbd(t *testing.T, m *testMbd, host string) *suspSbd {
	t.Helper()
	f := &suspSbd{t: t, c: m.sbdClient(host), running: map[int64]*api.JobLaunch{}}
	st, err := f.c.Bidi(context.Background(), api.MBatchdSbdSession, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.st = st
	if err := st.Send(&api.SbdMessage{Hello: &api.SbdHello{Host: host}}); err != nil {
		t.Fatal(err)
	}
	var w api.MbdMessage
	if err := st.Recv(&w); err != nil || w.Welcome == nil {
		t.Fatalf("no welcome: %v", err)
	}
	go f.loop()
	t.Cleanup(func() { f.c.Close() })
	return f
}

func (f *suspSbd) loop() {
	for {
		var m api.MbdMessage
		if err := f.st.Recv(&m); err != nil {
			return
		}
		switch {
		case m.Launch != nil:
			f.mu.Lock()
			f.running[m.Launch.JobID] = m.Launch
			f.mu.Unlock()
			f.st.Send(&api.SbdMessage{Ack: &api.Ack{Seq: m.Seq, PID: 4242}})
			f.report(&api.JobStatusReport{JobID: m.Launch.JobID, State: api.StateRun, PID: 4242, PGID: 4242, RunCount: m.Launch.RunCount})
		case m.Signal != nil:
			f.mu.Lock()
			f.signals = append(f.signals, m.Signal)
			l := f.running[m.Signal.JobID]
			f.mu.Unlock()
			f.st.Send(&api.SbdMessage{Ack: &api.Ack{Seq: m.Seq}})
			if l == nil {
				continue
			}
			switch m.Signal.Action {
			case api.ActSuspend:
				f.report(&api.JobStatusReport{JobID: l.JobID, State: api.StateSSusp, SuspReasons: m.Signal.SuspReasons, RunCount: l.RunCount})
			case api.ActResume:
				f.report(&api.JobStatusReport{JobID: l.JobID, State: api.StateRun, RunCount: l.RunCount})
			case api.ActTerminate:
				f.report(&api.JobStatusReport{JobID: l.JobID, State: api.StateExit, ExitStatus: 9, TermReason: m.Signal.TermReason, RunCount: l.RunCount, Final: true})
			}
		}
	}
}

func (f *suspSbd) report(r *api.JobStatusReport) {
	f.mu.Lock()
	f.seq++
	r.Seq = f.seq
	f.mu.Unlock()
	f.st.Send(&api.SbdMessage{Status: r})
}

// finish reports job id DONE once its launch has arrived: mbatchd shows a
// job RUN from its dispatch, before the launch reaches this sbatchd.
func (f *suspSbd) finish(id int64) {
	var l *api.JobLaunch
	if !testutil.Poll(10*time.Second, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		l = f.running[id]
		delete(f.running, id)
		return l != nil
	}) {
		panic(fmt.Sprintf("job %d was never launched", id))
	}
	f.report(&api.JobStatusReport{JobID: id, State: api.StateDone, RunCount: l.RunCount, Final: true, Usage: &api.Usage{CPUTime: 1}})
}

func (f *suspSbd) signalsFor(id int64) []*api.JobSignal {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*api.JobSignal
	for _, s := range f.signals {
		if s.JobID == id {
			out = append(out, s)
		}
	}
	return out
}

// TestPreemptionEndToEnd: the default cluster's "priority" queue is
// PREEMPTIVE. A job there suspends a "normal" job holding the only slot
// (JOB_SIGNAL recorded with its preemption count, SUSPEND sent with
// SUSP_RESCHED_PREEMPT), starts, and when it finishes the preempted job is
// resumed by mbatchd.
func TestPreemptionEndToEnd(t *testing.T) {
	m := startMbd(t, writeCluster(t, 1, 1))
	sbd := connectSuspSbd(t, m, "host1")
	low := spec("sleep 100")
	m.submit("alice", low)
	m.waitState(1, api.StateRun)
	hi := spec("sleep 10")
	hi.Queues = []string{"priority"}
	m.submit("bob", hi)
	j := m.waitState(1, api.StateSSusp)
	if j.SuspReasons&sched.SuspReschedPreempt == 0 {
		t.Fatalf("preempted job's suspend reasons %#x", j.SuspReasons)
	}
	m.waitState(2, api.StateRun)
	sigs := sbd.signalsFor(1)
	if len(sigs) != 1 || sigs[0].Action != api.ActSuspend || sigs[0].SuspReasons != sched.SuspReschedPreempt {
		t.Fatalf("signals to the preempted job: %+v", sigs)
	}
	sbd.finish(2)
	m.waitState(1, api.StateRun)
	if sigs := sbd.signalsFor(1); len(sigs) != 2 || sigs[1].Action != api.ActResume {
		t.Fatalf("no resumption: %+v", sigs)
	}
	// The preemption is counted in the state (MAX_JOB_PREEMPT survives
	// restarts through the log).
	var count int32
	m.srv.st.View(func(v *state.View) { count = v.Job(state.Key{ID: 1}).PreemptCount })
	if count != 1 {
		t.Fatalf("preempt count %d", count)
	}
	if m.srv.sched.Published() == nil {
		t.Fatal("nothing published")
	}
}
