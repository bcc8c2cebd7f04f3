package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/basalt-lsf/basalt/internal/testutil"
)

// TestDaemonNotServingSaysSo reproduces the tester's probe: a daemon out of
// descriptors keeps its process and its outgoing connections but cannot
// accept. Its host must not keep showing ok: a LIM that cannot accept shows
// its host unavail in lsload (its load reports still arrive over their open
// connection, so only the report's own word can change the status), an
// sbatchd that cannot accept shows unreach in bhosts (its session with
// mbatchd stays up). Both return to ok once descriptors are free again.
func TestDaemonNotServingSaysSo(t *testing.T) {
	c, err := Up(context.Background(), Options{Dir: t.TempDir(), Hosts: 2, Cluster: fmt.Sprintf("ns%d", os.Getpid()%100000)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Down(context.Background()) })
	conf, err := c.lsfConf()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		daemon, portKey string
		cmd             []string
		col             int // the status column
		want            string
	}{
		{"lim", "LSF_LIM_PORT", []string{"lsload", "host2"}, 1, "unavail"},
		{"sbatchd", "LSB_SBD_PORT", []string{"bhosts", "host2"}, 1, "unreach"},
	} {
		t.Run(tc.daemon, func(t *testing.T) {
			status := func() string {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				out, _ := c.cmdOn(ctx, "host1", tc.cmd...)
				for _, line := range strings.Split(out, "\n") {
					if f := strings.Fields(line); len(f) > tc.col && f[0] == "host2" {
						return f[tc.col]
					}
				}
				return "?"
			}
			testutil.Eventually(t, 60*time.Second, tc.cmd[0]+" says host2 ok", func() bool { return status() == "ok" })
			pid := 0
			for _, p := range c.procs {
				if p.daemon == tc.daemon && p.host == "host2" {
					pid = p.pid
				}
			}
			if pid == 0 {
				t.Fatalf("no %s on host2", tc.daemon)
			}
			addr := net.JoinHostPort(c.HostAddr(2).String(), strconv.Itoa(conf.Int(tc.portKey, 0)))
			stop := exhaust(t, pid, addr)
			testutil.Eventually(t, 60*time.Second, tc.cmd[0]+" says host2 "+tc.want+" while its "+tc.daemon+" cannot accept", func() bool {
				return status() == tc.want
			})
			stop()
			testutil.Eventually(t, 60*time.Second, tc.cmd[0]+" says host2 ok again", func() bool { return status() == "ok" })
		})
	}
}

// exhaust lowers pid's descriptor limit to what it has open and keeps
// connecting to addr, so that the daemon's accepts fail (EMFILE) for as long
// as the kernel's backlog holds a connection; stop restores the limit and
// closes the connections.
func exhaust(t *testing.T, pid int, addr string) (stop func()) {
	t.Helper()
	fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	if err != nil {
		t.Fatal(err)
	}
	var old unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &old); err != nil {
		t.Fatal(err)
	}
	// Room for a few descriptors the daemon opens and closes on its own
	// (a report, a log write), not for a connection's worth of them.
	low := unix.Rlimit{Cur: uint64(len(fds) + 2), Max: old.Max}
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &low, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			// The kernel's backlog keeps what the daemon cannot accept;
			// 200 waiting connections keep it failing for minutes.
			if n >= 200 {
				<-ctx.Done()
				return
			}
			if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	done := false
	stop = func() {
		if done {
			return
		}
		done = true
		cancel()
		wg.Wait()
		if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &old, nil); err != nil {
			t.Errorf("restoring the descriptor limit of %d: %v", pid, err)
		}
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}
	t.Cleanup(stop)
	return stop
}
