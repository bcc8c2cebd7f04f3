package sbd

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/logging"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// servedDaemon is an sbatchd of cfg in the test process with its RPC
// methods served to user (uid); stop ends both, as a restart does.
type servedDaemon struct {
	d    *Daemon
	addr string
	stop func()
}

func serveDaemon(t *testing.T, cfg Config, user string, uid int) *servedDaemon {
	t.Helper()
	d := inProcessCfg(t, cfg)
	srv := rpc.NewServer(auth.Static{User: user, UID: uid})
	d.d.Register(srv)
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	d.addr = ln.Addr().String()
	stopD := d.stop
	d.stop = func() {
		// As basaltd does: the daemon, then its RPC service.
		stopD()
		srv.Shutdown(context.Background())
	}
	t.Cleanup(d.stop)
	return d
}

// inProcessCfg runs a Daemon in the test process; its stop cancels it and
// waits for its end (jobs go on under their shepherds).
func inProcessCfg(t *testing.T, cfg Config) *servedDaemon {
	t.Helper()
	cfg.Log = slog.New(logging.NewHandler(testLog{t}, &logging.HandlerOptions{Level: slog.LevelDebug, Name: "sbatchd"}))
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		d.Run(ctx)
		close(done)
	}()
	return &servedDaemon{d: d, stop: func() { cancel(); <-done }}
}

func dialAs(t *testing.T, addr, user string) *rpc.Client {
	t.Helper()
	cl, err := rpc.Dial(context.Background(), addr, &api.ConnHello{User: user})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// TestAttachSurvivesRestart: sbatchd stops while bsub -Is relays its job's
// terminal; the job is not hung up, and a new sbatchd lets the job's owner
// re-attach with the session's token and go on typing, to the job's exit
// status. Another user, or a wrong token, is refused.
func TestAttachSurvivesRestart(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	cleanupCgroups(t, cfg)
	t.Cleanup(func() { killJobs(cfg) })
	d1 := serveDaemon(t, cfg, "root", 0)
	s := mbd.session()
	l := jobLaunch(91, "root", sub, `trap 'echo HUP; exit 9' HUP; echo ready; read x; echo "got $x"; read y; exit 6`)
	l.Spec.Interactive, l.Spec.Pty = true, true
	s.launch(l)
	st, err := dialAs(t, d1.addr, "root").Bidi(context.Background(), api.SBatchdAttach,
		&api.TaskInput{Spec: &api.TaskSpec{JobID: 91, Pty: true, Rows: 24, Cols: 80}})
	if err != nil {
		t.Fatal(err)
	}
	var token []byte
	var out strings.Builder
	for !strings.Contains(out.String(), "ready") {
		var o api.TaskOutput
		if err := st.Recv(&o); err != nil {
			t.Fatalf("first attach: %v (%q)", err, out.String())
		}
		if o.Started != nil && len(o.Started.Session) > 0 {
			token = o.Started.Session
		}
		out.Write(o.Stdout)
	}
	if len(token) < 16 {
		t.Fatalf("session token %x", token)
	}
	d1.stop()
	for i := 0; ; i++ {
		var o api.TaskOutput
		if err := st.Recv(&o); err != nil {
			break
		}
		if i > 100 || o.Exit != nil {
			t.Fatalf("the stream survived its sbatchd: %+v", &o)
		}
	}

	d2 := serveDaemon(t, cfg, "root", 0)
	s2 := mbd.session()
	refused := func(what string, cl *rpc.Client, tok []byte, text string) {
		t.Helper()
		st, err := cl.Bidi(context.Background(), api.SBatchdAttach, &api.TaskInput{Spec: &api.TaskSpec{JobID: 91, Pty: true, Session: tok}})
		if err == nil {
			err = st.Recv(&api.TaskOutput{})
		}
		if rpc.CodeOf(err) != rpc.PermissionDenied || !strings.Contains(err.Error(), text) {
			t.Errorf("%s: %v, want PermissionDenied %q", what, err, text)
		}
	}
	// Another user with the right token (as root's sbatchd sees alice).
	alice := serveDaemonRPC(t, d2.d, "alice", 1000)
	refused("another user", dialAs(t, alice, "alice"), token, "User permission denied")
	forged := append([]byte(nil), token...)
	forged[0] ^= 1
	refused("a forged token", dialAs(t, d2.addr, "root"), forged, "does not match")

	var st2 *rpc.ClientStream
	waitFor(t, "a re-attach", func() bool {
		var err error
		st2, err = dialAs(t, d2.addr, "root").Bidi(context.Background(), api.SBatchdAttach,
			&api.TaskInput{Spec: &api.TaskSpec{JobID: 91, Pty: true, Session: token}})
		if err == nil {
			var o api.TaskOutput
			if err = st2.Recv(&o); err == nil && o.Started == nil {
				t.Fatalf("re-attach began with %+v", &o)
			}
		}
		return err == nil
	})
	if err := st2.Send(&api.TaskInput{Stdin: []byte("again\r")}); err != nil {
		t.Fatalf("input after the re-attach: %v", err)
	}
	o, _, exit, _ := collect(t, st2, func(o string) bool { return strings.Contains(o, "got again") })
	if exit != nil || strings.Contains(o, "HUP") {
		t.Fatalf("after the restart: %q %+v", o, exit)
	}
	st2.Send(&api.TaskInput{Stdin: []byte("bye\r")})
	_, _, exit, _ = collect(t, st2, nil)
	if exit.ExitCode != 6 {
		t.Errorf("exit %+v, want 6", exit)
	}
	if fin := s2.final(91); fin.State != api.StateExit {
		t.Errorf("final %+v", fin)
	}
}

// serveDaemonRPC serves d's RPC methods to user on a new listener.
func serveDaemonRPC(t *testing.T, d *Daemon, user string, uid int) string {
	t.Helper()
	srv := rpc.NewServer(auth.Static{User: user, UID: uid})
	d.Register(srv)
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return ln.Addr().String()
}
