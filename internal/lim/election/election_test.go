package election

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// net is an in-memory cluster of LIMs: each host's Election, and whether
// its LIM is up.
type net struct {
	mu    sync.Mutex
	up    map[string]bool
	elect map[string]*Election
	// elig is every candidate's eligibility when the hosts were made by
	// newEligibleNet.
	elig map[string]bool
	// probes counts the probes answered or refused.
	probes int
}

func (n *net) Probe(_ context.Context, host string) (View, error) {
	n.mu.Lock()
	up, e := n.up[host], n.elect[host]
	n.probes++
	n.mu.Unlock()
	if !up || e == nil {
		return View{}, errors.New("connection refused")
	}
	return View{Host: host, Master: e.Master(), IsMaster: e.IsMaster(), Ineligible: e.Ineligible()}, nil
}

func (n *net) setUp(h string, up bool) {
	n.mu.Lock()
	n.up[h] = up
	n.mu.Unlock()
}

func newNet(hosts, candidates []string, interval time.Duration) *net {
	n := &net{up: map[string]bool{}, elect: map[string]*Election{}}
	for _, h := range hosts {
		n.up[h] = true
		n.elect[h] = New(Config{Self: h, Candidates: candidates, Interval: interval, Prober: n})
	}
	return n
}

// round runs one Decide on every live host, in the given order.
func (n *net) round(order ...string) {
	for _, h := range order {
		if n.up[h] {
			e := n.elect[h]
			e.set(e.Decide(context.Background()))
		}
	}
}

func (n *net) masters(hosts ...string) []string {
	var out []string
	for _, h := range hosts {
		out = append(out, n.elect[h].Master())
	}
	return out
}

func eq(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDecide(t *testing.T) {
	hosts := []string{"h1", "h2", "h3", "h4"}
	cands := []string{"h1", "h2", "h3"} // h4 is not a candidate
	n := newNet(hosts, cands, time.Second)

	steps := []struct {
		name  string
		do    func()
		order []string
		live  []string
		want  []string
	}{
		{"all up: first candidate", nil, []string{"h4", "h3", "h2", "h1"}, hosts, []string{"h1", "h1", "h1", "h1"}},
		{"master fails: next candidate", func() { n.setUp("h1", false) }, []string{"h4", "h3", "h2"},
			[]string{"h2", "h3", "h4"}, []string{"h2", "h2", "h2"}},
		// h4 probed before h2 took over (h2 still named h1, which is
		// down): the first live candidate is taken all the same.
		{"stable", nil, []string{"h4"}, []string{"h2", "h3", "h4"}, []string{"h2", "h2", "h2"}},
		{"two down: third", func() { n.setUp("h2", false) }, []string{"h3", "h4"}, []string{"h3", "h4"}, []string{"h3", "h3"}},
		{"first returns: back to it", func() { n.setUp("h1", true) }, []string{"h1", "h3", "h4"},
			[]string{"h1", "h3", "h4"}, []string{"h1", "h1", "h1"}},
		{"no candidate up: unknown", func() { n.setUp("h1", false); n.setUp("h3", false) }, []string{"h4"},
			[]string{"h4"}, []string{""}},
	}
	for _, s := range steps {
		if s.do != nil {
			s.do()
		}
		n.round(s.order...)
		if got := n.masters(s.live...); !eq(got, s.want) {
			t.Fatalf("%s: masters of %v = %q, want %q", s.name, s.live, got, s.want)
		}
	}
}

func TestNoMasterListCandidate(t *testing.T) {
	// A host outside the candidate list never becomes master, even alone.
	n := newNet([]string{"h9"}, []string{"h1"}, time.Second)
	n.round("h9")
	if m := n.elect["h9"].Master(); m != "" {
		t.Fatalf("non-candidate chose %q", m)
	}
}

// TestFailoverTime runs the election loops in virtual time (synctest) and
// measures how long the cluster is without an agreed master after the
// master's LIM dies, and how long it takes to return to it.
func TestFailoverTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = 15 * time.Second
		hosts := []string{"h1", "h2", "h3"}
		n := newNet(hosts, hosts, interval)
		ctx, cancel := context.WithCancel(context.Background())
		cancels := map[string]context.CancelFunc{}
		var wg sync.WaitGroup
		start := func(h string) {
			c, cl := context.WithCancel(ctx)
			cancels[h] = cl
			wg.Add(1)
			go func() { defer wg.Done(); n.elect[h].Run(c) }()
		}
		for _, h := range hosts {
			start(h)
		}
		synctest.Wait()
		if got := n.masters(hosts...); !eq(got, []string{"h1", "h1", "h1"}) {
			t.Fatalf("initial masters %q", got)
		}

		t0 := time.Now()
		n.setUp("h1", false)
		cancels["h1"]()
		agreed := func(m string, hs ...string) bool {
			for _, h := range hs {
				if n.elect[h].Master() != m {
					return false
				}
			}
			return true
		}
		for !agreed("h2", "h2", "h3") {
			time.Sleep(100 * time.Millisecond)
			synctest.Wait()
		}
		if d := time.Since(t0); d > interval {
			t.Errorf("failover took %v, bound is one interval (%v)", d, interval)
		} else {
			t.Logf("failover: %v (interval %v)", d, interval)
		}

		t1 := time.Now()
		n.elect["h1"] = New(Config{Self: "h1", Candidates: hosts, Interval: interval, Prober: n})
		n.setUp("h1", true)
		start("h1")
		for !agreed("h1", "h1", "h2", "h3") {
			time.Sleep(100 * time.Millisecond)
			synctest.Wait()
		}
		if d := time.Since(t1); d > interval {
			t.Errorf("return to h1 took %v, bound is one interval", d)
		} else {
			t.Logf("return: %v", d)
		}
		cancel()
		wg.Wait()
	})
}

func TestPokeAndChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hosts := []string{"h1", "h2"}
		n := newNet(hosts, hosts, time.Hour)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go n.elect["h1"].Run(ctx)
		go n.elect["h2"].Run(ctx)
		synctest.Wait()
		ch := n.elect["h2"].Changed()
		n.setUp("h1", false)
		n.elect["h2"].Poke() // e.g. its load report to h1 failed
		<-ch
		if m, ep := n.elect["h2"].State(); m != "h2" || ep != 2 {
			t.Errorf("after poke: master %q epoch %d", m, ep)
		}
	})
}

// newEligibleNet is newNet whose candidates are eligible as n.elig says
// (none at first).
func newEligibleNet(hosts, candidates []string, interval time.Duration) *net {
	n := &net{up: map[string]bool{}, elect: map[string]*Election{}, elig: map[string]bool{}}
	for _, h := range hosts {
		n.up[h] = true
		n.elect[h] = New(Config{Self: h, Candidates: candidates, Interval: interval, Prober: n,
			Eligible: func() bool { n.mu.Lock(); defer n.mu.Unlock(); return n.elig[h] }})
	}
	return n
}

// setEligible makes exactly the given hosts eligible.
func (n *net) setEligible(hosts ...string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	clear(n.elig)
	for _, h := range hosts {
		n.elig[h] = true
	}
}

// TestDecideEligible: the master is the first candidate that is alive and
// eligible; an ineligible candidate is passed over as if it were down,
// even while it still calls itself master; with none eligible there is
// no master.
func TestDecideEligible(t *testing.T) {
	hosts := []string{"h1", "h2", "h3", "h4"}
	cands := []string{"h1", "h2", "h3"} // h4 is not a candidate
	n := newEligibleNet(hosts, cands, time.Second)
	all := []string{"h4", "h3", "h2", "h1"}
	steps := []struct {
		name  string
		elig  []string
		down  []string
		order []string
		live  []string
		want  string
	}{
		{"none eligible: no master", nil, nil, all, hosts, ""},
		{"second eligible: earlier candidate passed over", []string{"h2"}, nil, all, hosts, "h2"},
		{"third eligible", []string{"h3"}, nil, []string{"h3", "h1", "h2", "h4"}, hosts, "h3"},
		{"first eligible: back to it", []string{"h1"}, nil, []string{"h1", "h2", "h3", "h4"}, hosts, "h1"},
		// h1 still calls itself master when h4 probes (it has not had a
		// round since): it is not taken, nor when h2 names it.
		{"ineligible master is not taken", []string{"h2"}, nil, []string{"h4", "h3", "h2", "h1"}, hosts, "h2"},
		{"eligible candidate down: no master", []string{"h2"}, []string{"h2"}, all, []string{"h1", "h3", "h4"}, ""},
		{"two eligible: the first wins", []string{"h2", "h3"}, nil, all, hosts, "h2"},
	}
	for _, s := range steps {
		n.setEligible(s.elig...)
		for _, h := range hosts {
			n.setUp(h, true)
		}
		for _, h := range s.down {
			n.setUp(h, false)
		}
		n.round(s.order...)
		for _, h := range s.live {
			if got := n.elect[h].Master(); got != s.want {
				t.Errorf("%s: master of %s = %q, want %q", s.name, h, got, s.want)
			}
		}
	}
}

// TestIneligibleSelfNeverMaster: a candidate alone, not eligible, never
// makes itself master however long it runs, and says Ineligible.
func TestIneligibleSelfNeverMaster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newEligibleNet([]string{"h1"}, []string{"h1"}, time.Second)
		e := n.elect["h1"]
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { e.Run(ctx); close(done) }()
		for range 30 {
			time.Sleep(time.Second)
			synctest.Wait()
			if m := e.Master(); m != "" {
				t.Fatalf("ineligible h1 chose %q", m)
			}
		}
		if !e.Ineligible() {
			t.Error("h1 does not say Ineligible")
		}
		n.setEligible("h1")
		e.Reconsider()
		synctest.Wait()
		if m := e.Master(); m != "h1" || e.Ineligible() {
			t.Errorf("eligible h1: master %q, ineligible %v", m, e.Ineligible())
		}
		cancel()
		<-done
	})
}

// TestEligibilityMovesMaster runs the loops in virtual time: when
// eligibility moves from h1 to h2 and both Reconsider, both agree on h2 at
// once (no Retry wait); a non-candidate whose report failed (Poke) follows
// within Retry, the rest within one interval.
func TestEligibilityMovesMaster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = 15 * time.Second
		hosts := []string{"h1", "h2", "h3", "h4", "h5"}
		cands := []string{"h1", "h2", "h3"}
		n := newEligibleNet(hosts, cands, interval)
		n.setEligible("h1")
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for _, h := range hosts {
			wg.Go(func() { n.elect[h].Run(ctx) })
		}
		synctest.Wait()
		if got := n.masters(hosts...); !eq(got, []string{"h1", "h1", "h1", "h1", "h1"}) {
			t.Fatalf("initial masters %q", got)
		}

		t0 := time.Now()
		n.setEligible("h2")
		n.elect["h1"].Reconsider()
		n.elect["h2"].Reconsider()
		synctest.Wait()
		if got := n.masters("h1", "h2"); !eq(got, []string{"h2", "h2"}) || time.Since(t0) != 0 {
			t.Fatalf("after Reconsider: masters of h1, h2 = %q after %v; want h2 at once", got, time.Since(t0))
		}
		n.elect["h4"].Poke()
		time.Sleep(time.Second) // Retry
		synctest.Wait()
		if m := n.elect["h4"].Master(); m != "h2" {
			t.Errorf("h4 after Poke and Retry: master %q, want h2", m)
		}
		time.Sleep(interval - time.Second)
		synctest.Wait()
		if got := n.masters(hosts...); !eq(got, []string{"h2", "h2", "h2", "h2", "h2"}) {
			t.Errorf("one interval after the change: masters %q", got)
		}

		// No candidate eligible (no quorum): no master anywhere.
		n.setEligible()
		for _, h := range hosts {
			n.elect[h].Reconsider()
		}
		synctest.Wait()
		if got := n.masters(hosts...); !eq(got, []string{"", "", "", "", ""}) {
			t.Errorf("none eligible: masters %q", got)
		}
		cancel()
		wg.Wait()
	})
}

func (n *net) probeCount() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.probes
}

// TestHeard runs the loops in virtual time with an interval of an hour,
// so only Reconsider and Heard bring rounds forward: when eligibility
// moves from h2 to h3, the hosts that hear h3 claim mastership or h2 deny
// it follow at once; a claim that agrees with a host's view costs no
// round; false claims (a non-candidate, an ineligible candidate) move
// nobody, and a peer repeating one gets at most one round per HintGap.
func TestHeard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hosts := []string{"h1", "h2", "h3", "h4"}
		cands := []string{"h1", "h2", "h3"}
		n := newEligibleNet(hosts, cands, time.Hour)
		n.setEligible("h2")
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for _, h := range hosts {
			wg.Go(func() { n.elect[h].Run(ctx) })
		}
		synctest.Wait()
		if got := n.masters(hosts...); !eq(got, []string{"h2", "h2", "h2", "h2"}) {
			t.Fatalf("initial masters %q", got)
		}

		t0 := time.Now()
		n.setEligible("h3")
		n.elect["h2"].Reconsider()
		n.elect["h3"].Reconsider()
		synctest.Wait()
		if got := n.masters(hosts...); !eq(got, []string{"h2", "h3", "h3", "h2"}) {
			t.Fatalf("after Reconsider on h2, h3: masters %q", got)
		}
		n.elect["h1"].Heard("h2", "h3") // h2 steps down
		n.elect["h4"].Heard("h3", "h3") // h3 announces itself
		synctest.Wait()
		if got := n.masters(hosts...); !eq(got, []string{"h3", "h3", "h3", "h3"}) || time.Since(t0) != 0 {
			t.Fatalf("after Heard: masters %q after %v; want h3 everywhere at once", got, time.Since(t0))
		}

		p0 := n.probeCount()
		n.elect["h1"].Heard("h3", "h3") // agrees
		n.elect["h4"].Heard("h1", "h3") // h1 does not claim, h4 does not name it
		synctest.Wait()
		if p := n.probeCount() - p0; p != 0 {
			t.Errorf("agreeing words made %d probes", p)
		}

		// h4 (no candidate) and h2 (ineligible) claim mastership over
		// and over for a second.
		p0 = n.probeCount()
		for range 100 {
			n.elect["h1"].Heard("h4", "h4")
			n.elect["h4"].Heard("h2", "h2")
			time.Sleep(10 * time.Millisecond)
			synctest.Wait()
		}
		if got := n.masters(hosts...); !eq(got, []string{"h3", "h3", "h3", "h3"}) {
			t.Errorf("after false claims: masters %q", got)
		}
		// A round of h1 or h4 probes up to 3 candidates; 1 s of claims
		// allows 1 + 1s/HintGap rounds on each.
		rounds := 1 + int(time.Second/DefaultHintGap)
		if p := n.probeCount() - p0; p < 2 || p > 2*3*rounds {
			t.Errorf("a second of false claims made %d probes; want at least one round each and at most %d rounds each", p, rounds)
		} else {
			t.Logf("a second of 200 false claims made %d probes", p)
		}
		cancel()
		wg.Wait()
	})
}
