package mbdkeeper

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/lim/limclient"
)

type fakeProc struct {
	failed  atomic.Bool
	done    chan struct{}
	stopped atomic.Bool
	once    sync.Once
}

func (p *fakeProc) Stop()                 { p.stopped.Store(true); p.exit() }
func (p *fakeProc) Done() <-chan struct{} { return p.done }
func (p *fakeProc) exit()                 { p.once.Do(func() { close(p.done) }) }
func (p *fakeProc) Failed() bool          { return p.failed.Load() }
func (p *fakeProc) fail()                 { p.failed.Store(true); p.exit() }

// keeperRig runs a Keeper for host1 inside a synctest bubble.
type keeperRig struct {
	mu      sync.Mutex // guards started, alive, failing
	ev      chan limclient.MasterEvent
	started []*fakeProc
	alive   bool
	failing bool
	cancel  context.CancelFunc
	done    chan struct{}
}

func startKeeper(t *testing.T) *keeperRig {
	r := &keeperRig{ev: make(chan limclient.MasterEvent), done: make(chan struct{})}
	k := &Keeper{Host: "host1", Clock: clock.Real(), Master: r.ev,
		Alive: func(context.Context) bool { r.mu.Lock(); defer r.mu.Unlock(); return r.alive },
		Start: func() (Process, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.failing {
				return nil, errors.New("no")
			}
			p := &fakeProc{done: make(chan struct{})}
			r.started = append(r.started, p)
			return p, nil
		},
		Log: slog.New(slog.NewTextHandler(t.Output(), nil)), Grace: 3 * time.Second, Retry: 5 * time.Second}
	ctx, cancel := context.WithCancel(t.Context())
	r.cancel = cancel
	go func() { k.Run(ctx); close(r.done) }()
	return r
}

func (r *keeperRig) master(h string) { r.ev <- limclient.MasterEvent{Master: h}; synctest.Wait() }

func (r *keeperRig) after(d time.Duration) { time.Sleep(d); synctest.Wait() }

// n is the number of mbatchds started; proc(i) the i-th.
func (r *keeperRig) n() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.started) }

func (r *keeperRig) proc(i int) *fakeProc { r.mu.Lock(); defer r.mu.Unlock(); return r.started[i] }

func (r *keeperRig) set(alive, failing bool) {
	r.mu.Lock()
	r.alive, r.failing = alive, failing
	r.mu.Unlock()
}

// TestKeeperStartsOnMaster: mbatchd is started once this host has been
// master for the grace period, started again after it dies, stopped when
// another host becomes master and when the keeper ends.
func TestKeeperStartsOnMaster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := startKeeper(t)
		r.master("host2")
		r.after(10 * time.Second)
		if r.n() != 0 {
			t.Fatal("started while another host is master")
		}
		r.master("HOST1")
		r.after(2 * time.Second)
		if r.n() != 0 {
			t.Fatal("started before the grace period")
		}
		r.after(time.Second + time.Millisecond)
		if r.n() != 1 {
			t.Fatalf("%d mbatchds started, want 1", r.n())
		}
		r.master("") // the local LIM stops answering: mbatchd is left alone
		r.after(20 * time.Second)
		if r.n() != 1 || r.proc(0).stopped.Load() {
			t.Fatalf("LIM silence changed mbatchd: %d started, stopped %v", r.n(), r.proc(0).stopped.Load())
		}
		r.proc(0).exit() // it leaves (another LIM names another master)
		r.after(time.Minute)
		if r.n() != 1 {
			t.Fatal("mbatchd started while this host's LIM is silent")
		}
		r.master("host1") // the LIM is back and says host1
		r.after(3 * time.Second)
		if r.n() != 2 {
			t.Fatalf("not started when the LIM named this host again: %d", r.n())
		}
		r.proc(1).exit() // killed
		synctest.Wait()
		if r.n() != 3 {
			t.Fatalf("killed mbatchd not started again at once: %d started", r.n())
		}
		r.master("host2")
		if !r.proc(2).stopped.Load() {
			t.Fatal("mbatchd not stopped when host2 became master")
		}
		r.after(time.Minute)
		if r.n() != 3 {
			t.Fatal("started again while host2 is master")
		}
		r.master("host1")
		r.after(3 * time.Second)
		if r.n() != 4 {
			t.Fatalf("not started when host1 came back as master: %d", r.n())
		}
		r.cancel()
		<-r.done
		if !r.proc(3).stopped.Load() {
			t.Error("mbatchd not stopped when the keeper ended")
		}
	})
}

// TestKeeperLeavesAnAnsweringMbatchd: an mbatchd already answering on the
// host (started by an administrator) is left alone; a brief mastership
// shorter than the grace period starts nothing; a failed start is retried.
func TestKeeperLeavesAnAnsweringMbatchd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := startKeeper(t)
		r.set(true, false)
		r.master("host1")
		r.after(time.Minute)
		if r.n() != 0 {
			t.Fatal("started although an mbatchd answers")
		}
		r.set(false, false)
		r.master("host2")
		r.master("host1")
		r.after(time.Second)
		r.master("host2")
		r.after(time.Minute)
		if r.n() != 0 {
			t.Fatal("started after a mastership shorter than the grace period")
		}
		r.set(false, true)
		r.master("host1")
		r.after(3 * time.Second)
		r.set(false, false)
		r.after(5 * time.Second)
		if r.n() != 1 {
			t.Fatalf("failed start not retried: %d started", r.n())
		}
		r.cancel()
		<-r.done
	})
}

// TestFollower: the mbatchd of host1 leaves once another host has been
// master for the grace period, through its own LIM or, when that LIM is
// silent, through the other LIMs; never while no LIM answers.
func TestFollower(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := make(chan limclient.MasterEvent)
		var mu sync.Mutex
		var asked string
		var askErr error = limclient.ErrLIMDown
		f := &Follower{Host: "host1", Clock: clock.Real(), Master: ev, Grace: 3 * time.Second, Poll: 5 * time.Second,
			Ask: func(context.Context) (string, error) { mu.Lock(); defer mu.Unlock(); return asked, askErr }}
		var got string
		var err error
		returned := make(chan struct{})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go func() { got, err = f.Run(ctx); close(returned) }()
		send := func(m string) { ev <- limclient.MasterEvent{Master: m}; synctest.Wait() }
		isDone := func() bool {
			select {
			case <-returned:
				return true
			default:
				return false
			}
		}
		send("host1")
		send("host2")
		time.Sleep(2 * time.Second)
		send("host1") // back within the grace period
		time.Sleep(time.Minute)
		synctest.Wait()
		if isDone() {
			t.Fatal("returned after a brief change of master")
		}
		send("") // the local LIM dies; no LIM answers at all
		time.Sleep(time.Minute)
		synctest.Wait()
		if isDone() {
			t.Fatal("returned while no LIM answers")
		}
		mu.Lock()
		asked, askErr = "host2", nil // another LIM names host2
		mu.Unlock()
		time.Sleep(5*time.Second + 3*time.Second + time.Millisecond)
		synctest.Wait()
		if !isDone() || got != "host2" || err != nil {
			t.Fatalf("Run = %q, %v (returned %v), want host2", got, err, isDone())
		}
	})
}

// TestFollowerEndsWithContext: Run returns ctx's error when ctx ends.
func TestFollowerEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		f := &Follower{Host: "host1", Clock: clock.Real(), Master: make(chan limclient.MasterEvent)}
		go cancel()
		if m, err := f.Run(ctx); m != "" || !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %q, %v", m, err)
		}
	})
}

// TestKeeperStartupAndRestart: an sbatchd starting on the master host
// starts mbatchd at once; a killed mbatchd is started again at once, one
// that failed after Retry.
func TestKeeperStartupAndRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := startKeeper(t)
		r.master("") // the LIM is not up yet
		r.master("host1")
		if r.n() != 1 {
			t.Fatalf("%d mbatchds started at start-up, want 1 at once", r.n())
		}
		r.after(time.Hour)
		r.proc(0).exit()
		synctest.Wait()
		if r.n() != 2 {
			t.Fatalf("a killed mbatchd was not started again at once: %d", r.n())
		}
		r.proc(1).fail() // cannot start: the next try waits for Retry
		r.after(4 * time.Second)
		if r.n() != 2 {
			t.Fatal("a failed mbatchd was started again before Retry")
		}
		r.after(time.Second)
		if r.n() != 3 {
			t.Fatalf("not retried after Retry: %d", r.n())
		}
		r.cancel()
		<-r.done
	})
}
