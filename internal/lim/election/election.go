package election

import (
	"context"
	"sync"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
)

// Elector is what the rest of Basalt needs from master election.
type Elector interface {
	// Master returns the current master host, "" while unknown.
	Master() string
	// Changed returns a channel closed at the next change of master.
	Changed() <-chan struct{}
}

// View is a LIM's answer to a probe.
type View struct {
	Host     string
	Master   string
	IsMaster bool
	// Ineligible: the host is a candidate that may not be master now
	// (Config.Eligible is false there); probers pass over it as if it
	// were down.
	Ineligible bool
}

// Prober asks the LIM of host for its view; an error means it is down.
type Prober interface {
	Probe(ctx context.Context, host string) (View, error)
}

// Config configures an Election.
type Config struct {
	Self         string
	Candidates   []string // master candidates, in order
	Interval     time.Duration
	ProbeTimeout time.Duration
	// Retry is the wait before the next round while the master is unknown
	// or after Poke (one second when 0).
	Retry  time.Duration
	Clock  clock.Clock
	Prober Prober
	// OnChange, when set, is called from Run's goroutine after each change.
	OnChange func(old, new string)
	// Eligible, when set, tells whether this candidate may be master now
	// (with mbatchd replicated: whether this host's mbatchd leads). A
	// candidate makes itself master only while it is true, and answers
	// probes as Ineligible while it is false. Call Reconsider when its
	// value changes. nil: always eligible.
	Eligible func() bool
	// HintGap is the least time between two rounds brought forward by
	// Heard (DefaultHintGap when 0): a peer repeating a false claim makes
	// at most one round per HintGap.
	HintGap time.Duration
}

// DefaultHintGap is Config.HintGap's default.
const DefaultHintGap = 250 * time.Millisecond

// Election runs master election for one LIM.
type Election struct {
	cfg  Config
	poke chan struct{}
	now  chan struct{} // Reconsider: a round at once
	hint chan struct{} // Heard: a round at once, at most one per HintGap

	mu      sync.Mutex // guards the published result; written by Run only
	master  string
	epoch   uint64
	changed chan struct{}
}

var _ Elector = (*Election)(nil)

// New returns an Election; call Run to start it.
func New(cfg Config) *Election {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.Retry == 0 {
		cfg.Retry = time.Second
	}
	if cfg.ProbeTimeout == 0 {
		cfg.ProbeTimeout = 2 * time.Second
	}
	if cfg.HintGap == 0 {
		cfg.HintGap = DefaultHintGap
	}
	return &Election{cfg: cfg, poke: make(chan struct{}, 1), now: make(chan struct{}, 1), hint: make(chan struct{}, 1),
		changed: make(chan struct{})}
}

// Master implements Elector.
func (e *Election) Master() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.master
}

// State returns the master and the number of changes seen.
func (e *Election) State() (string, uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.master, e.epoch
}

// IsMaster reports whether this LIM is the master.
func (e *Election) IsMaster() bool { return e.Master() == e.cfg.Self && e.cfg.Self != "" }

// Changed implements Elector.
func (e *Election) Changed() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.changed
}

// Poke asks for a new round soon (after Retry).
func (e *Election) Poke() {
	select {
	case e.poke <- struct{}{}:
	default:
	}
}

// Reconsider asks for a new round at once, without Poke's wait: this
// host's eligibility changed, or a LIM said the master moved.
func (e *Election) Reconsider() {
	select {
	case e.now <- struct{}{}:
	default:
	}
}

// Heard takes what the LIM of host from says its master is (a probe or
// an announcement from it). When that disagrees with this LIM's view of
// from itself (from claims mastership this LIM does not give it, or denies
// the mastership this LIM names), a round runs at once, but rounds run for
// Heard at most once per HintGap. The claim is not believed: the round
// probes the candidates as any round does.
func (e *Election) Heard(from, master string) {
	if from == "" || from == e.cfg.Self || (master == from) == (e.Master() == from) {
		return
	}
	select {
	case e.hint <- struct{}{}:
	default:
	}
}

// Ineligible reports whether this LIM is a candidate that may not be
// master now (its probe answer's Ineligible).
func (e *Election) Ineligible() bool {
	return e.cfg.Eligible != nil && e.Candidate(e.cfg.Self) && !e.cfg.Eligible()
}

// Candidate reports whether host is a master candidate.
func (e *Election) Candidate(host string) bool { return index(e.cfg.Candidates, host) >= 0 }

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func (e *Election) set(m string) {
	e.mu.Lock()
	old := e.master
	if old == m {
		e.mu.Unlock()
		return
	}
	e.master = m
	e.epoch++
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
	if e.cfg.OnChange != nil {
		e.cfg.OnChange(old, m)
	}
}

// Run decides at once, then every Interval, until ctx ends.
func (e *Election) Run(ctx context.Context) error {
	var hinted time.Time // when the last round brought forward by Heard ran
	for {
		m := e.Decide(ctx)
		if ctx.Err() != nil {
			return nil
		}
		e.set(m)
		wait := e.cfg.Interval
		if m == "" {
			wait = e.cfg.Retry
		}
		if !e.wait(ctx, wait, &hinted) {
			return nil
		}
	}
}

// wait blocks until the next round is due: d from now, at once after
// Reconsider, Retry after Poke (unless a hint is due sooner), or at once
// after Heard's hint but no sooner than HintGap after the last round a
// hint brought forward (*hinted, updated). False when ctx ends.
func (e *Election) wait(ctx context.Context, d time.Duration, hinted *time.Time) bool {
	clk := e.cfg.Clock
	deadline := clk.Now().Add(d)
	poke, byHint := e.poke, false
	for {
		t := clk.NewTimer(deadline.Sub(clk.Now()))
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-e.now:
			t.Stop()
			return true
		case <-t.C():
			if byHint {
				*hinted = clk.Now()
			}
			return true
		case <-poke:
			poke = nil
			if !byHint {
				deadline = clk.Now().Add(e.cfg.Retry)
			}
		case <-e.hint:
			due := hinted.Add(e.cfg.HintGap)
			if now := clk.Now(); due.Before(now) {
				due = now
			}
			if due.Before(deadline) {
				deadline, byHint = due, true
			}
		}
		t.Stop()
	}
}

// Decide runs one round of probes and returns the master it finds.
func (e *Election) Decide(ctx context.Context) string {
	self := e.cfg.Self
	me := index(e.cfg.Candidates, self)
	for i, c := range e.cfg.Candidates {
		if i == me {
			if e.cfg.Eligible == nil || e.cfg.Eligible() {
				return self
			}
			// Not eligible: look further, as a host that is not a
			// candidate does.
			continue
		}
		v, err := e.probe(ctx, c)
		if err != nil || v.Ineligible {
			continue
		}
		if v.IsMaster {
			return c
		}
		if v.Master != "" && v.Master != c && v.Master != self {
			if w, err := e.probe(ctx, v.Master); err == nil && w.IsMaster && !w.Ineligible {
				return v.Master
			}
		}
		// The first eligible candidate alive is, or is about to
		// become, master.
		return c
	}
	return ""
}

func (e *Election) probe(ctx context.Context, host string) (View, error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.ProbeTimeout)
	defer cancel()
	return e.cfg.Prober.Probe(ctx, host)
}
