package cli_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lim/limclient"
	"github.com/basalt-lsf/basalt/internal/lim/limtest"
	"github.com/basalt-lsf/basalt/internal/testutil"
	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands for LIM clusters:
//
//	lim-cluster N          write $WORK/conf/lsf.conf (free LIM port, dirs under
//	                       $WORK) and hosts for host1..hostN; lsf.shared and
//	                       lsf.cluster.test come from the archive's conf/ when
//	                       present, else limtest's defaults; $WORK/override/hostN
//	                       files become the hosts' load override files;
//	                       $WORK/lsf.conf.extra lines are appended to lsf.conf.
//	                       Sets LSF_ENVDIR.
//	lim-start host...      start those hosts' LIMs (BASALT_HOST=host) and wait
//	                       until each answers
//	lim-stop host...       SIGTERM them and wait for them to exit
//	lim-wait-master host   wait until every running LIM names host as master
//	lim-wait-status host status
//	                       wait until the master shows host with that status
func init() {
	scriptCmds["lim-cluster"] = scriptLimCluster
	scriptCmds["lim-start"] = scriptLimStart
	scriptCmds["lim-stop"] = scriptLimStop
	scriptCmds["lim-wait-master"] = scriptLimWaitMaster
	scriptCmds["lim-wait-status"] = scriptLimWaitStatus
}

var (
	scriptLimsMu sync.Mutex
	scriptLims   = map[*testscript.TestScript]map[string]*exec.Cmd{}
)

func scriptLimCluster(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lim-cluster N")
	}
	var n int
	if _, err := fmt.Sscan(args[0], &n); err != nil || n < 1 {
		ts.Fatalf("lim-cluster: bad host count %q", args[0])
	}
	work := ts.Getenv("WORK")
	conf := filepath.Join(work, "conf")
	// limtest writes every file; the archive's own lsf.shared and
	// lsf.cluster.test then replace its defaults.
	keep := map[string][]byte{}
	for _, f := range []string{"lsf.shared", "lsf.cluster.test"} {
		if b, err := os.ReadFile(filepath.Join(conf, f)); err == nil {
			keep[f] = b
		}
	}
	var extra []string
	if b, err := os.ReadFile(filepath.Join(work, "lsf.conf.extra")); err == nil {
		extra = strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	l, err := limtest.Write(limtest.Options{Dir: work, Hosts: n, Conf: extra})
	ts.Check(err)
	for f, b := range keep {
		ts.Check(os.WriteFile(filepath.Join(conf, f), b, 0o644))
	}
	for _, h := range l.Hosts {
		if b, err := os.ReadFile(filepath.Join(work, "override", h)); err == nil {
			ts.Check(l.WriteOverride(h, string(b)))
		}
	}
	ts.Setenv("LSF_ENVDIR", l.EnvDir)
	// Commands run on host1: under LSF_AUTH=eauth a daemon serves only
	// the hosts of the cluster.
	ts.Setenv("BASALT_HOST", "host1")
	ts.Defer(func() { scriptStopAll(ts) })
}

func scriptClient(ts *testscript.TestScript) (*limclient.Client, *config.Base) {
	b, err := config.LoadBase(context.Background(), config.Options{EnvDir: ts.Getenv("LSF_ENVDIR"), LocalHost: "host1"})
	ts.Check(err)
	return limclient.New(b, limclient.Options{LocalHost: "host1", Timeout: 2 * time.Second}), b
}

func scriptLimStart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: lim-start host...")
	}
	c, _ := scriptClient(ts)
	defer c.Close()
	for _, h := range args {
		path, err := exec.LookPath("lim")
		if p := ts.Getenv("PATH"); p != "" {
			for _, dir := range filepath.SplitList(p) {
				if fi, err2 := os.Stat(filepath.Join(dir, "lim")); err2 == nil && !fi.IsDir() {
					path, err = filepath.Join(dir, "lim"), nil
					break
				}
			}
		}
		ts.Check(err)
		cmd := exec.Command(path)
		cmd.Env = append(os.Environ(), "LSF_ENVDIR="+ts.Getenv("LSF_ENVDIR"), "BASALT_HOST="+h, "PATH="+ts.Getenv("PATH"))
		ts.Check(cmd.Start())
		scriptLimsMu.Lock()
		if scriptLims[ts] == nil {
			scriptLims[ts] = map[string]*exec.Cmd{}
		}
		scriptLims[ts][h] = cmd
		scriptLimsMu.Unlock()
		scriptPoll(ts, 15*time.Second, "LIM "+h+" to answer", func() bool {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_, err := c.Ping(ctx, h)
			return err == nil
		})
	}
}

func scriptLimStop(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: lim-stop host...")
	}
	for _, h := range args {
		scriptLimsMu.Lock()
		cmd := scriptLims[ts][h]
		delete(scriptLims[ts], h)
		scriptLimsMu.Unlock()
		if cmd == nil {
			ts.Fatalf("lim-stop: no LIM started for %s", h)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}
}

func scriptStopAll(ts *testscript.TestScript) {
	// LIMs started by lsadmin limstartup are not ours to signal: ask every
	// LIM of this script's cluster (its own port) to shut down.
	if c, b := scriptClient(ts); c != nil {
		for _, h := range b.Cluster.ServerHosts() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			c.Control(ctx, h, &api.LimControlRequest{Op: api.LimOpShutdown})
			cancel()
		}
		c.Close()
	}
	scriptLimsMu.Lock()
	cmds := scriptLims[ts]
	delete(scriptLims, ts)
	scriptLimsMu.Unlock()
	for _, cmd := range cmds {
		cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, cmd := range cmds {
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
}

// scriptPoll waits for state held by other processes (no event to wait
// on), polling up to d.
func scriptPoll(ts *testscript.TestScript, d time.Duration, what string, cond func() bool) {
	if !testutil.Poll(d, cond) {
		ts.Fatalf("timed out after %v waiting for %s", d, what)
	}
}

func scriptLimWaitMaster(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lim-wait-master host")
	}
	c, _ := scriptClient(ts)
	defer c.Close()
	t0 := time.Now()
	scriptPoll(ts, 20*time.Second, "master "+args[0], func() bool {
		scriptLimsMu.Lock()
		var hosts []string
		for h := range scriptLims[ts] {
			hosts = append(hosts, h)
		}
		scriptLimsMu.Unlock()
		for _, h := range hosts {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			r, err := c.Ping(ctx, h)
			cancel()
			if err != nil || r.Master != args[0] {
				return false
			}
		}
		return true
	})
	ts.Logf("master %s after %v", args[0], time.Since(t0).Round(time.Millisecond))
}

func scriptLimWaitStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: lim-wait-status host status")
	}
	c, _ := scriptClient(ts)
	defer c.Close()
	scriptPoll(ts, 20*time.Second, args[0]+" "+args[1], func() bool {
		cl, err := c.Cluster(context.Background())
		if err != nil {
			return false
		}
		h := cl.Host(args[0])
		return h != nil && limclient.StatusString(h.Status) == args[1]
	})
}
