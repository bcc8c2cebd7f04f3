package lim

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/lim/limtest"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// fakeMbds plays every host's mbatchd replica, answering MBatchd.Leader
// only: the replica of the host named by leader leads. Each authenticates
// as a real mbatchd of its host would (eauth, daemon kind mbatchd).
type fakeMbds struct {
	t      *testing.T
	h      *harness
	port   int
	leader atomic.Value // string
	mu     sync.Mutex
	calls  map[string]int // MBatchd.Leader calls answered, by host
	conns  map[string]int // connections authenticated, by host
	stops  map[string]func()
}

func newFakeMbds(t *testing.T, h *harness, port int) *fakeMbds {
	f := &fakeMbds{t: t, h: h, port: port, calls: map[string]int{}, conns: map[string]int{}, stops: map[string]func(){}}
	f.leader.Store("")
	t.Cleanup(func() {
		for _, s := range f.stops {
			s()
		}
	})
	return f
}

func (f *fakeMbds) setLeader(host string) { f.leader.Store(host) }

// start serves host's fake mbatchd at its address and LSB_MBD_PORT; lead,
// when set, overrides the leader flag for this host.
func (f *fakeMbds) start(n int, lead func() bool) {
	f.t.Helper()
	host := fmt.Sprintf("host%d", n)
	d, err := authsetup.Server(f.h.base, host, auth.KindMbatchd, f.t.TempDir(), nil)
	if err != nil {
		f.t.Fatal(err)
	}
	srv := rpc.NewServer(countingAuth{d.Auth, func() { f.mu.Lock(); f.conns[host]++; f.mu.Unlock() }})
	rpc.HandleUnary(srv, api.MBatchdLeader, func(_ context.Context, id auth.Identity, _ *api.LeaderRequest) (*api.LeaderReply, error) {
		if !id.IsDaemon(auth.KindLIM, host) {
			f.t.Errorf("mbatchd of %s asked by %+v, want the LIM of %s", host, id, host)
			return nil, rpc.Errorf(rpc.PermissionDenied, "not this host's LIM")
		}
		f.mu.Lock()
		f.calls[host]++
		f.mu.Unlock()
		l := f.leader.Load().(string)
		leads := l == host
		if lead != nil {
			leads = lead()
		}
		return &api.LeaderReply{Host: host, Leader: l, IsLeader: leads}, nil
	})
	ln, err := net.Listen("tcp", net.JoinHostPort(limtest.Addr(n), strconv.Itoa(f.port)))
	if err != nil {
		f.t.Fatal(err)
	}
	go srv.Serve(ln)
	f.stops[host] = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		srv.Shutdown(ctx)
		cancel()
		d.Close()
	}
}

func (f *fakeMbds) stop(host string) {
	f.stops[host]()
	delete(f.stops, host)
}

func (f *fakeMbds) callsOf(host string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[host]
}

func (f *fakeMbds) connsOf(host string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conns[host]
}

// countingAuth counts the connections it authenticates.
type countingAuth struct {
	auth.Authenticator
	count func()
}

func (a countingAuth) Authenticate(ctx context.Context, conn net.Conn, hello *api.ConnHello) (auth.Identity, error) {
	a.count()
	return a.Authenticator.Authenticate(ctx, conn, hello)
}

// TestMasterFollowsRaftLeader: with mbatchd replicated on host1..host3
// (BASALT_MASTER_REPLICAS=3 of a four-host LSF_MASTER_LIST), every LIM
// names as master the host whose mbatchd leads, wherever it is in the
// list; none while no replica leads (host4, a candidate without a
// replica, never takes over); and a replica host's LIM redials its
// mbatchd after it restarts.
func TestMasterFollowsRaftLeader(t *testing.T) {
	port, err := limtest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, limtest.Options{Hosts: 5, MasterList: []string{"host1", "host2", "host3", "host4"},
		Conf: []string{"BASALT_MASTER_REPLICAS=3", fmt.Sprintf("LSB_MBD_PORT=%d", port)}})
	if !h.base.Conf.Replicated() {
		t.Fatal("configuration is not replicated")
	}
	f := newFakeMbds(t, h, port)
	f.setLeader("host2")
	for n := 1; n <= 3; n++ {
		f.start(n, nil)
	}
	f.start(4, func() bool { return true }) // never asked: host4 is no replica
	hosts := []string{"host1", "host2", "host3", "host4", "host5"}
	started := time.Now()
	for _, host := range hosts {
		h.start(host, sampler(0))
	}
	c := h.client("host5")
	ctx := context.Background()
	// follows waits until every LIM names want as master, and only want
	// (a candidate) calls itself master while others say Ineligible.
	follows := func(want string) {
		t.Helper()
		t0 := time.Now()
		eventually(t, 15*time.Second, "every LIM names master "+strconv.Quote(want), func() bool {
			for _, host := range hosts {
				r, err := c.Ping(ctx, host)
				if err != nil || r.Master != want || r.IsMaster != (host == want) {
					return false
				}
				cand := host != "host5"
				if r.Ineligible != (cand && host != want) {
					return false
				}
			}
			return true
		})
		t.Logf("master %q on every LIM after %v", want, time.Since(t0))
	}
	follows("host2") // host1 is first in the list but does not lead
	eventually(t, 10*time.Second, "host2 ok on the master", allOK(c, "host1", "host2", "host3", "host4", "host5"))

	f.setLeader("host3")
	follows("host3")
	f.setLeader("") // no quorum: no master LIM
	follows("")
	f.setLeader("host1")
	follows("host1")
	eventually(t, 10*time.Second, "all ok under host1", allOK(c, "host1", "host2", "host3", "host4", "host5"))

	// The leader's mbatchd goes away (its LIM loses the connection), then
	// comes back: the LIM redials and is master again.
	f.stop("host1")
	follows("")
	f.start(1, nil)
	follows("host1")

	if n := f.callsOf("host4"); n != 0 {
		t.Errorf("host4's mbatchd was asked %d times; host4 runs no replica", n)
	}
	// host2's LIM polled its mbatchd every 250 ms over one connection
	// (at least every 500 ms, on a loaded machine).
	want := int(time.Since(started) / (2 * DefaultLeaderPoll))
	if calls, conns := f.callsOf("host2"), f.connsOf("host2"); calls < want || conns != 1 {
		t.Errorf("host2's mbatchd answered %d calls over %d connections; want at least %d over one", calls, conns, want)
	} else {
		t.Logf("host2's mbatchd answered %d calls over one connection", calls)
	}
}

// TestEveryLIMFollowsAtOnce: with EXINTERVAL = 30 s (so neither a round
// nor a load report can pass for it), when raft leadership moves, a LIM
// that becomes or stops being master tells the others, and every LIM (a
// non-leading replica, a candidate without a replica, a non-candidate)
// names the new master within a few seconds, not an EXINTERVAL; a LIM
// that claims mastership falsely, over and over, moves nobody.
func TestEveryLIMFollowsAtOnce(t *testing.T) {
	port, err := limtest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, limtest.Options{Hosts: 5, ExInterval: 30, MasterList: []string{"host1", "host2", "host3", "host4"},
		Conf: []string{"BASALT_MASTER_REPLICAS=3", fmt.Sprintf("LSB_MBD_PORT=%d", port)}})
	f := newFakeMbds(t, h, port)
	f.setLeader("host2")
	for n := 1; n <= 3; n++ {
		f.start(n, nil)
	}
	hosts := []string{"host1", "host2", "host3", "host4", "host5"}
	for _, host := range hosts {
		h.start(host, sampler(0))
	}
	c := h.client("host5")
	ctx := context.Background()
	masters := func() (map[string]string, map[string]uint64) {
		m, ep := map[string]string{}, map[string]uint64{}
		for _, host := range hosts {
			if r, err := c.Ping(ctx, host); err == nil {
				m[host], ep[host] = r.Master, r.Epoch
			}
		}
		return m, ep
	}
	all := func(want string) bool {
		m, _ := masters()
		for _, host := range hosts {
			if v, ok := m[host]; !ok || v != want {
				return false
			}
		}
		return true
	}
	eventually(t, 15*time.Second, "every LIM names host2", func() bool { return all("host2") })

	// Each move: the LIMs of the old and new leaders see it within a
	// leader poll (250 ms) and tell the others; 5 s is far below the
	// 30 s EXINTERVAL.
	const bound = 5 * time.Second
	for _, leader := range []string{"host3", "", "host1"} {
		t0 := time.Now()
		f.setLeader(leader)
		eventually(t, bound, "every LIM names "+strconv.Quote(leader), func() bool { return all(leader) })
		t.Logf("leader %q: every LIM follows after %v", leader, time.Since(t0))
	}

	// host5 (no candidate) and host2 (a replica that does not lead) claim
	// mastership to every LIM 50 times each: the LIMs look, find host1,
	// and nobody's master changes.
	_, before := masters()
	for _, liar := range []string{"host5", "host2"} {
		d, err := authsetup.Server(h.base, liar, auth.KindLIM, t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		p := newPeerPool(h.base, liar, d.Creds)
		for range 50 {
			for _, host := range hosts {
				if host == liar {
					continue
				}
				var r api.PingReply
				if err := p.call(ctx, host, api.LIMPing, &api.PingRequest{From: liar, Master: liar}, &r); err != nil {
					t.Fatalf("%s's false claim to %s: %v", liar, host, err)
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		p.close()
		d.Close()
	}
	time.Sleep(500 * time.Millisecond) // let the last rounds finish
	m, after := masters()
	for _, host := range hosts {
		if m[host] != "host1" || after[host] != before[host] {
			t.Errorf("%s after false claims: master %q, epoch %d -> %d; want host1, unchanged", host, m[host], before[host], after[host])
		}
	}
}
