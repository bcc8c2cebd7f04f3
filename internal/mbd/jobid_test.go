package mbd

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/clock"
)

// shuffledLog is an applier that records each entry's job IDs in the order
// entries reach the log and commits them in a random order, as entries in
// flight may finish.
type shuffledLog struct {
	mu   sync.Mutex
	ids  []int64
	rand *rand.Rand
}

func (l *shuffledLog) Apply(cmd []byte, _ time.Duration) raft.ApplyFuture {
	var e api.LogEntry
	if err := e.UnmarshalWire(cmd); err != nil {
		panic(err)
	}
	l.mu.Lock()
	for _, ev := range e.Events {
		l.ids = append(l.ids, ev.JobNew.JobID)
	}
	delay := time.Duration(l.rand.Intn(300)) * time.Microsecond
	l.mu.Unlock()
	return &delayedFuture{at: time.Now().Add(delay), n: len(e.Events)}
}

type delayedFuture struct {
	at time.Time
	n  int
}

func (f *delayedFuture) Error() error  { time.Sleep(time.Until(f.at)); return nil }
func (f *delayedFuture) Index() uint64 { return 1 }
func (f *delayedFuture) Response() any { return applyResult{errs: make([]error, f.n)} }

// TestProposedIDsReachLogInOrder: IDs handed out by a prepare function are
// in the log in the order they were handed out, whatever the concurrency of
// the proposals and the order in which entries in flight commit; every
// proposal gets back its own events' results.
func TestProposedIDsReachLogInOrder(t *testing.T) {
	l := &shuffledLog{rand: rand.New(rand.NewSource(1))}
	p := newProposer(l, clock.Real())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.run(ctx)

	var (
		next   int64
		wg     sync.WaitGroup
		mu     sync.Mutex
		gotIDs []int64
	)
	const clients, perClient = 32, 40
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perClient; i++ {
				evs := []*api.Event{{JobNew: &api.EvJobNew{}}, {JobNew: &api.EvJobNew{}}}
				prepare := func() []error {
					// Odd requests lose their second event (as a submission
					// whose job gets no ID).
					var errs []error
					for k, ev := range evs {
						if k == 1 && i%2 == 1 {
							errs = []error{nil, fmt.Errorf("no ID")}
							continue
						}
						next++
						ev.JobNew.JobID = next
					}
					return errs
				}
				errs, err := p.ProposePrepared(ctx, prepare, evs...)
				if err != nil {
					t.Error(err)
					return
				}
				if len(errs) != 2 || errs[0] != nil || (i%2 == 1) != (errs[1] != nil) {
					t.Errorf("results %v for request %d", errs, i)
				}
				mu.Lock()
				gotIDs = append(gotIDs, evs[0].JobNew.JobID)
				if errs[1] == nil {
					gotIDs = append(gotIDs, evs[1].JobNew.JobID)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if !slices.IsSorted(l.ids) {
		t.Fatalf("job IDs reached the log out of order: %v", l.ids)
	}
	want := clients * perClient * 3 / 2
	if len(l.ids) != want || l.ids[0] != 1 || l.ids[len(l.ids)-1] != int64(want) {
		t.Fatalf("log holds %d IDs (%d..%d), want 1..%d", len(l.ids), l.ids[0], l.ids[len(l.ids)-1], want)
	}
	slices.Sort(gotIDs)
	if !slices.Equal(gotIDs, l.ids) {
		t.Fatalf("clients were told other IDs than the log holds")
	}
}

// TestJobIDsNeverGoBackwards: jobs submitted by concurrent clients get
// distinct IDs; once every job has finished and been cleaned (the highest
// included), a restarted master continues after the highest ID it handed
// out, never below it.
func TestJobIDsNeverGoBackwards(t *testing.T) {
	dir := writeCluster(t, 1, 1)
	m := startMbd(t, dir)
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		ids []int64
	)
	for c := 0; c < 16; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				s := spec("sleep 100")
				s.Hold = true
				for _, r := range m.submit("alice", s, s) {
					mu.Lock()
					ids = append(ids, r.JobID)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	slices.Sort(ids)
	if len(slices.Compact(slices.Clone(ids))) != 320 || ids[0] != 1 || ids[len(ids)-1] != 320 {
		t.Fatalf("IDs handed out: %v", ids)
	}
	c := m.client("alice")
	var r api.ControlReply
	if err := c.Call(context.Background(), api.MBatchdControl, &api.ControlRequest{Op: api.OpKill, AllJobs: true}, &r); err != nil {
		t.Fatal(err)
	}
	c.Close()
	m.waitState(320, api.StateExit)
	var clean []*api.Event
	for _, id := range ids {
		m.waitState(id, api.StateExit)
		clean = append(clean, &api.Event{JobClean: &api.EvJobClean{JobID: id}})
	}
	errs, err := m.srv.prop.Propose(context.Background(), clean...)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range errs {
		if e != nil {
			t.Fatalf("cleaning job %d: %v", ids[i], e)
		}
	}
	if r := m.jobs("alice", &api.JobsRequest{IncludeFinished: true}); len(r.Jobs) != 0 {
		t.Fatalf("%d jobs left after cleaning", len(r.Jobs))
	}
	m.stop()
	m2 := startMbd(t, dir)
	if res := m2.submit("alice", spec("true")); res[0].JobID != 321 {
		t.Fatalf("job ID after cleaning every job and restarting = %d, want 321", res[0].JobID)
	}
}
