package cluster

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/config/defaults"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// TestNetnsRESRefusals: a host's RES refuses a machine outside the
// cluster (whatever host it claims) and serves the cluster's hosts; a
// client that drops its connection mid-task leaves no process of the task
// behind, and the RES serves on.
func TestNetnsRESRefusals(t *testing.T) {
	if err := NetnsSupport(context.Background()); err != nil {
		t.Skip(err)
	}
	c, err := Up(context.Background(), Options{Dir: t.TempDir(), Hosts: 2, Netns: true, Cluster: fmt.Sprintf("q%d", os.Getpid()%100000)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down(context.Background())

	rogue := addRogue(t, c, 98)
	conf, _ := lsfconf.Parse("", mustRead(t, filepath.Join(c.EnvDir, "lsf.conf")))
	resPort, _, _, _ := defaults.Ports(c.portBase())
	res := net.JoinHostPort(c.HostAddr(2).String(), strconv.Itoa(resPort))
	dial := func(ns, claim string) (*rpc.Client, error) {
		hello, err := authsetup.Client(conf, c.EnvDir, claim, auth.KindUser).Hello(context.Background(), auth.KindRES, "host2")
		if err != nil {
			return nil, err
		}
		var cl *rpc.Client
		err = InNetns(ns, func() (err error) { cl, err = rpc.Dial(context.Background(), res, hello); return err })
		return cl, err
	}
	// run starts `sh -c script` and returns its first output and the
	// stream, or the call's error.
	run := func(cl *rpc.Client, script string) (int, *rpc.ClientStream, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		st, err := cl.Bidi(context.Background(), api.RESRun, nil)
		if err != nil {
			return 0, nil, err
		}
		if err := st.Send(&api.TaskInput{Spec: &api.TaskSpec{Argv: []string{"/bin/sh", "-c", script}, NoStdin: true}}); err != nil {
			return 0, nil, err
		}
		for ctx.Err() == nil {
			var m api.TaskOutput
			if err := st.Recv(&m); err != nil {
				return 0, nil, err
			}
			if m.Started != nil {
				return int(m.Started.PID), st, nil
			}
		}
		return 0, nil, ctx.Err()
	}
	marker := filepath.Join(t.TempDir(), "ran")
	for _, claim := range []string{"host1", "host2", "rogue"} {
		cl, err := dial(rogue, claim)
		if err == nil {
			_, _, err = run(cl, "touch "+marker)
			cl.Close()
		}
		if rpc.CodeOf(err) != rpc.Unauthenticated {
			t.Errorf("a machine outside the cluster claiming %s: %v, want Unauthenticated", claim, err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a refused request ran its task")
	}

	// From host1: served. The client then drops the connection while the
	// task (and a child in a session of its own) runs: all of it goes.
	cl, err := dial(c.net.hosts[0].ns, "host1")
	if err != nil {
		t.Fatal(err)
	}
	sid, st, err := run(cl, "setsid sh -c 'echo escaped $$; exec sleep 300' & sleep 300")
	if err != nil {
		t.Fatalf("host1 refused: %v", err)
	}
	var out []byte
	escaped := 0
	for escaped == 0 {
		var m api.TaskOutput
		if err := st.Recv(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m.Stdout...)
		fmt.Sscanf(string(out), "escaped %d", &escaped)
	}
	time.Sleep(50 * time.Millisecond) // the shell starts its sleep
	cl.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := sessionAlive(sid, escaped)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the dropped task left: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cl, err = dial(c.net.hosts[0].ns, "host1")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, st, err := run(cl, "exit 0"); err != nil {
		t.Fatalf("after a dropped client: %v", err)
	} else {
		for {
			var m api.TaskOutput
			if err := st.Recv(&m); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("after a dropped client: %v", err)
			}
		}
	}
}

// sessionAlive lists the live processes of session sid, and pid when it
// runs (a child that left the session).
func sessionAlive(sid, pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) < 4 || f[0] == "Z" {
			continue
		}
		if f[3] == strconv.Itoa(sid) || p == pid {
			out = append(out, p)
		}
	}
	return out
}
