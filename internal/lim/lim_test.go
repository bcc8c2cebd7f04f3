package lim

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lim/limclient"
	"github.com/basalt-lsf/basalt/internal/lim/limtest"
	"github.com/basalt-lsf/basalt/internal/lim/load"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

type fixedSampler struct {
	mu sync.Mutex
	v  load.Values
	st load.Static
}

func (f *fixedSampler) Sample() (load.Values, load.Static, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.v, f.st, nil
}

func sampler(r1m float64) *fixedSampler {
	return &fixedSampler{v: load.Values{load.R1m: r1m, load.Ut: 0.1, load.Tmp: 1000, load.Swp: 2000, load.Mem: 3000, load.It: 5},
		st: load.Static{NCPUs: 2, NProcs: 1, NCores: 2, NThreads: 1, NDisks: 1, MaxMem: 4000, MaxSwp: 2048, MaxTmp: 9000, Type: "X86_64", Model: "x86_64"}}
}

type harness struct {
	t     *testing.T
	l     *limtest.Layout
	stops map[string]func()
	base  *config.Base
}

func newHarness(t *testing.T, o limtest.Options) *harness {
	o.Dir = t.TempDir()
	l, err := limtest.Write(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := config.LoadBase(context.Background(), config.Options{EnvDir: l.EnvDir, LocalHost: "host1"})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, l: l, stops: map[string]func(){}, base: b}
	t.Cleanup(func() {
		for _, s := range h.stops {
			s()
		}
	})
	return h
}

func (h *harness) start(host string, s Sampler) {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{EnvDir: h.l.EnvDir, Host: host, Sampler: s, Ready: ready,
			Getenv: func(k string) string {
				if k == "BASALT_HOST" {
					return host
				}
				return os.Getenv(k)
			}})
	}()
	select {
	case <-ready:
	case err := <-done:
		h.t.Fatalf("LIM %s: %v", host, err)
	}
	h.stops[host] = func() { cancel(); <-done }
}

func (h *harness) stop(host string) {
	h.stops[host]()
	delete(h.stops, host)
}

func (h *harness) client(local string) *limclient.Client {
	c := limclient.New(h.base, limclient.Options{LocalHost: local})
	h.t.Cleanup(func() { c.Close() })
	return c
}

// eventually polls cond (state held by other daemons has no event to
// wait on) up to d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, d, what, cond)
}

func statusOf(c *limclient.Cluster) map[string]string {
	out := map[string]string{}
	for _, h := range c.Hosts {
		out[h.Name] = limclient.StatusString(h.Status)
	}
	return out
}

func allOK(c *limclient.Client, hosts ...string) func() bool {
	return func() bool {
		cl, err := c.Cluster(context.Background())
		if err != nil {
			return false
		}
		st := statusOf(cl)
		for _, h := range hosts {
			if st[h] != "ok" {
				return false
			}
		}
		return true
	}
}

// waitMaster waits on a LIM's master watch for want and returns how long
// it took.
func waitMaster(t *testing.T, ch <-chan limclient.MasterEvent, want string, bound time.Duration) time.Duration {
	t.Helper()
	t0 := time.Now()
	deadline := time.After(bound)
	for {
		select {
		case ev := <-ch:
			if ev.Master == want {
				return time.Since(t0)
			}
		case <-deadline:
			t.Fatalf("master did not become %q within %v", want, bound)
		}
	}
}

func TestElectionFailoverAndReturn(t *testing.T) {
	h := newHarness(t, limtest.Options{Hosts: 3, ExInterval: 1})
	for i, host := range []string{"host1", "host2", "host3"} {
		h.start(host, sampler(float64(i)))
	}
	c := h.client("host3")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := c.WatchMaster(ctx)
	waitMaster(t, watch, "host1", 10*time.Second)
	eventually(t, 10*time.Second, "all hosts ok", allOK(c, "host1", "host2", "host3"))

	h.stop("host1")
	d := waitMaster(t, watch, "host2", 10*time.Second)
	t.Logf("failover host1 -> host2 with EXINTERVAL=1s: %v", d)
	if d > 3*time.Second {
		t.Errorf("failover took %v, want at most EXINTERVAL + retry (2s) + margin", d)
	}
	eventually(t, 10*time.Second, "host1 unavail on the new master", func() bool {
		cl, err := c.Cluster(context.Background())
		return err == nil && cl.Master == "host2" && statusOf(cl)["host1"] == "unavail" && statusOf(cl)["host3"] == "ok"
	})

	h.start("host1", sampler(0))
	d = waitMaster(t, watch, "host1", 10*time.Second)
	t.Logf("return to host1: %v", d)
	eventually(t, 10*time.Second, "all ok under host1", allOK(c, "host1", "host2", "host3"))
}

func TestMasterListAndLock(t *testing.T) {
	h := newHarness(t, limtest.Options{Hosts: 3, MasterList: []string{"host2", "host3"},
		HostColumns: "HOSTNAME model type server r1m RESOURCES",
		HostRows:    []string{"host1 ! ! 1 0.5 (fs)", "host2 ! ! 1 () ()", "host3 ! ! 1 () (!bigmem)"}})
	h.start("host1", sampler(3)) // r1m 3 on 2 CPUs: effective 1.5 > 0.5
	h.start("host2", sampler(0))
	h.start("host3", sampler(0))
	c := h.client("host1")
	eventually(t, 10*time.Second, "master host2", func() bool {
		m, _, err := c.Master(context.Background())
		return err == nil && m == "host2"
	})
	eventually(t, 10*time.Second, "host1 busy", func() bool {
		cl, err := c.Cluster(context.Background())
		return err == nil && statusOf(cl)["host1"] == "busy" && statusOf(cl)["host3"] == "ok"
	})
	cl, _ := c.Cluster(context.Background())
	if b := cl.Host("host1").Busy; len(b) != 1 || b[0] != "r1m" {
		t.Errorf("busy indices %v, want [r1m]", b)
	}
	if r := cl.Host("host3").Resources; len(r) != 1 || r[0] != "!bigmem" {
		t.Errorf("host3 resources %v", r)
	}

	if _, err := c.Control(context.Background(), "host3", &api.LimControlRequest{Op: api.LimOpLock}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "host3 lockU", func() bool {
		cl, err := c.Cluster(context.Background())
		return err == nil && statusOf(cl)["host3"] == "lockU"
	})
	if _, err := c.Control(context.Background(), "host3", &api.LimControlRequest{Op: api.LimOpUnlock}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "host3 ok again", allOK(c, "host3"))

	// reconfig on every LIM while the cluster is being read.
	for _, host := range []string{"host1", "host2", "host3"} {
		go c.Cluster(context.Background())
		if _, err := c.Control(context.Background(), host, &api.LimControlRequest{Op: api.LimOpReconfig}); err != nil {
			t.Fatalf("reconfig %s: %v", host, err)
		}
	}
	eventually(t, 10*time.Second, "host3 ok after reconfig", allOK(c, "host3"))

	// limshutdown: the LIM leaves and the master shows it unavail at once.
	if _, err := c.Control(context.Background(), "host3", &api.LimControlRequest{Op: api.LimOpShutdown}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "host3 unavail", func() bool {
		cl, err := c.Cluster(context.Background())
		return err == nil && statusOf(cl)["host3"] == "unavail"
	})
}

func TestElimsOnCluster(t *testing.T) {
	h := newHarness(t, limtest.Options{Hosts: 3,
		Resources: []string{
			"usr_tmp  Numeric 5 N (space in /usr/tmp)",
			"lic      Numeric 5 N (floating licenses)",
			"mytmp    Numeric 5 N (tmp override)",
		},
		ResourceMap: []string{"usr_tmp [default]", "lic ([host1 host2] [host3])", "mytmp [default]"},
	})
	// One elim reports host-based usr_tmp everywhere; elim.lic reports
	// the license count only where LSF_RESOURCES asks for it; elim.tmp
	// overrides the built-in tmp index; elim.bad is malformed and
	// elim.abort never runs anywhere.
	must(t, h.l.WriteElim("elim.usr", `echo "1 usr_tmp 50"; exec sleep 1000`+"\n"))
	must(t, h.l.WriteElim("elim.lic", `case " $LSF_RESOURCES " in *" lic "*) ;; *) exit $ELIM_ABORT_VALUE;; esac
echo "1 lic 7"; exec sleep 1000
`))
	must(t, h.l.WriteElim("elim.tmp", "echo '1 tmp 20'; exec sleep 1000\n"))
	must(t, h.l.WriteElim("elim.bad", "echo 'two words'; exec sleep 1000\n"))
	must(t, h.l.WriteElim("elim.abort", "exit $ELIM_ABORT_VALUE\n"))
	for _, host := range []string{"host1", "host2", "host3"} {
		h.start(host, sampler(0))
	}
	c := h.client("host1")
	eventually(t, 15*time.Second, "elim values everywhere", func() bool {
		cl, err := c.Cluster(context.Background())
		if err != nil {
			return false
		}
		for _, host := range []string{"host1", "host2", "host3"} {
			v, ok := cl.Value("usr_tmp", host)
			tmp, _ := cl.Value("tmp", host)
			lic, lok := cl.Value("lic", host)
			if !ok || v != 50 || tmp != 20 || !lok || lic != 7 {
				return false
			}
		}
		return true
	})
	cl, _ := c.Cluster(context.Background())
	var lic *api.SharedResource
	for _, s := range cl.Shared {
		if s.Name == "lic" {
			lic = s
		}
	}
	if lic == nil || len(lic.Instances) != 2 || lic.Instances[0].Reporter != "host1" || lic.Instances[1].Reporter != "host3" {
		t.Fatalf("lic instances %+v", lic)
	}
	// The host set's reporter fails over to host2, and back.
	h.stop("host1")
	eventually(t, 15*time.Second, "lic reported by host2", func() bool {
		cl, err := c.Cluster(context.Background())
		if err != nil {
			return false
		}
		for _, s := range cl.Shared {
			if s.Name == "lic" {
				return s.Instances[0].Reporter == "host2" && s.Instances[0].Value == "7"
			}
		}
		return false
	})
	log, _ := os.ReadFile(filepath.Join(h.l.LogDir, "melim.log.host2"))
	if !strings.Contains(string(log), "elim elim.bad: bad load update string") || !strings.Contains(string(log), "elim elim.abort: exited with ELIM_ABORT_VALUE") {
		t.Errorf("melim.log.host2:\n%s", log)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestClientConcurrentUse uses limclient.Clients from several goroutines at
// once, as sbatchd does (its master watch dials the local LIM while its
// sessions look the master up): run under -race, it caught Master
// recording the master's address in a map that Addr read without the lock.
func TestClientConcurrentUse(t *testing.T) {
	h := newHarness(t, limtest.Options{Hosts: 2})
	h.start("host1", sampler(0))
	h.start("host2", sampler(0))
	eventually(t, 10*time.Second, "master host1", func() bool {
		m, _, err := h.client("host2").Master(context.Background())
		return err == nil && m == "host1"
	})
	for range 10 {
		c := h.client("host2")
		ctx, cancel := context.WithCancel(context.Background())
		reading := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				_, err := c.Addr(ctx, "host1")
				if i == 0 {
					close(reading)
				}
				if err != nil && ctx.Err() == nil {
					t.Errorf("Addr host1: %v", err)
					break
				}
			}
		})
		<-reading
		m, addr, err := c.Master(ctx)
		if err != nil || m != "host1" || addr == "" {
			t.Errorf("Master = %q, %q, %v; want host1 with its address", m, addr, err)
		}
		cancel()
		wg.Wait()
	}
}
