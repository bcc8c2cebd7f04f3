package clock

import (
	"sort"
	"sync"
	"time"
)

// Clock is the source of time for daemon logic.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that fires once after d.
	NewTimer(d time.Duration) Timer
	// NewTicker returns a ticker that fires every d.
	NewTicker(d time.Duration) Ticker
}

// Timer is the subset of *time.Timer that daemon logic uses.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
	Reset(d time.Duration) bool
}

// Ticker is the subset of *time.Ticker that daemon logic uses.
type Ticker interface {
	C() <-chan time.Time
	Stop()
	Reset(d time.Duration)
}

// Real returns the wall clock.
func Real() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

func (realClock) NewTicker(d time.Duration) Ticker { return realTicker{time.NewTicker(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time        { return r.t.C }
func (r realTimer) Stop() bool                 { return r.t.Stop() }
func (r realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }

type realTicker struct{ t *time.Ticker }

func (r realTicker) C() <-chan time.Time   { return r.t.C }
func (r realTicker) Stop()                 { r.t.Stop() }
func (r realTicker) Reset(d time.Duration) { r.t.Reset(d) }

// Fake is a manually advanced clock for deterministic tests. Timers and
// tickers fire, in deadline order, when Advance moves time past them. Their
// channels have a buffer of one, like the runtime's, so a slow reader misses
// ticks rather than blocking Advance.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []*fakeWaiter
}

// NewFake returns a fake clock set to start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

// Now returns the fake current time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the clock forward by d, firing every timer and ticker whose
// deadline is reached, in order.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	target := f.now.Add(d)
	for {
		w := f.nextDue(target)
		if w == nil {
			break
		}
		f.now = w.when
		select {
		case w.ch <- w.when:
		default:
		}
		if w.period > 0 {
			w.when = w.when.Add(w.period)
		} else {
			f.remove(w)
		}
	}
	f.now = target
	f.mu.Unlock()
}

// Set moves the clock to t (which must not be before Now) firing timers.
func (f *Fake) Set(t time.Time) { f.Advance(t.Sub(f.Now())) }

// Pending reports how many timers and tickers are active.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}

func (f *Fake) nextDue(target time.Time) *fakeWaiter {
	sort.SliceStable(f.waiters, func(i, j int) bool { return f.waiters[i].when.Before(f.waiters[j].when) })
	if len(f.waiters) == 0 || f.waiters[0].when.After(target) {
		return nil
	}
	return f.waiters[0]
}

func (f *Fake) remove(w *fakeWaiter) bool {
	for i, x := range f.waiters {
		if x == w {
			f.waiters = append(f.waiters[:i], f.waiters[i+1:]...)
			return true
		}
	}
	return false
}

func (f *Fake) add(d, period time.Duration) *fakeWaiter {
	w := &fakeWaiter{f: f, when: f.now.Add(d), period: period, ch: make(chan time.Time, 1)}
	f.waiters = append(f.waiters, w)
	return w
}

// NewTimer implements Clock.
func (f *Fake) NewTimer(d time.Duration) Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.add(d, 0)
}

// NewTicker implements Clock.
func (f *Fake) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic("clock: non-positive ticker period")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return fakeTicker{f.add(d, d)}
}

type fakeWaiter struct {
	f      *Fake
	when   time.Time
	period time.Duration
	ch     chan time.Time
}

func (w *fakeWaiter) C() <-chan time.Time { return w.ch }

func (w *fakeWaiter) Stop() bool {
	w.f.mu.Lock()
	defer w.f.mu.Unlock()
	return w.f.remove(w)
}

func (w *fakeWaiter) Reset(d time.Duration) bool {
	w.f.mu.Lock()
	defer w.f.mu.Unlock()
	active := w.f.remove(w)
	w.when = w.f.now.Add(d)
	if w.period > 0 {
		w.period = d
	}
	w.f.waiters = append(w.f.waiters, w)
	return active
}

// fakeTicker adapts the waiter to the Ticker interface.
type fakeTicker struct{ w *fakeWaiter }

func (t fakeTicker) C() <-chan time.Time   { return t.w.ch }
func (t fakeTicker) Stop()                 { t.w.Stop() }
func (t fakeTicker) Reset(d time.Duration) { t.w.Reset(d) }

var (
	_ Timer  = (*fakeWaiter)(nil)
	_ Clock  = (*Fake)(nil)
	_ Clock  = realClock{}
	_ Ticker = realTicker{}
	_ Ticker = fakeTicker{}
)
