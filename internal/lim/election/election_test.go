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
}

func (n *net) Probe(_ context.Context, host string) (View, error) {
	n.mu.Lock()
	up, e := n.up[host], n.elect[host]
	n.mu.Unlock()
	if !up || e == nil {
		return View{}, errors.New("connection refused")
	}
	return View{Host: host, Master: e.Master(), IsMaster: e.IsMaster()}, nil
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
