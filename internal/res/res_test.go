package res

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
)

// fakeAuth trusts the hello's user (looked up here), refuses Credential
// "bad" as an unauthenticated peer, and takes Scheme as a daemon kind.
type fakeAuth struct{}

func (fakeAuth) Authenticate(ctx context.Context, conn net.Conn, h *api.ConnHello) (auth.Identity, error) {
	if string(h.Credential) == "bad" {
		return auth.Identity{}, auth.ErrDenied
	}
	id := auth.Identity{User: h.User, UID: int(h.UID), Host: "client", Daemon: h.Scheme}
	return id, nil
}

func startRES(t *testing.T) string { return startRESRoot(t, true) }

// openDir is a temporary directory every test user may use.
func openDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "res-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(d, 0o777)
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

var serverSeq atomic.Int32

func startRESRoot(t *testing.T, rootRex bool) string {
	return startRESWith(t, func(rs *Server) { rs.RootRex = rootRex })
}

// startRESWith starts a RES that set changes first.
func startRESWith(t *testing.T, set func(*Server)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := rpc.NewServer(fakeAuth{})
	rs := &Server{Host: "testhost"}
	set(rs)
	if os.Geteuid() == 0 {
		if h, err := cgroup.Detect(); err == nil {
			rs.Cgroups = cgroup.New(h, fmt.Sprintf("basalt-restest/%d-%d", os.Getpid(), serverSeq.Add(1)))
			t.Cleanup(rs.Cgroups.RemoveParents)
		}
	}
	rs.Register(srv)
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return ln.Addr().String()
}

func dial(t *testing.T, addr string, hello *api.ConnHello) *rpc.Client {
	t.Helper()
	c, err := rpc.Dial(context.Background(), addr, hello)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// users: root, and basalt1 when it exists (scripts/setup-test-env.sh).
func users(t *testing.T) []*user.User {
	if os.Geteuid() != 0 {
		t.Skip("RES tests run tasks as other users: need root")
	}
	var out []*user.User
	for _, n := range []string{"root", "basalt1"} {
		if u, err := user.Lookup(n); err == nil {
			out = append(out, u)
		}
	}
	return out
}

func helloOf(u *user.User) *api.ConnHello {
	uid, _ := strconv.Atoi(u.Uid)
	return &api.ConnHello{User: u.Username, UID: int32(uid)}
}

type result struct {
	stdout, stderr bytes.Buffer
	started        *api.TaskStarted
	exit           *api.TaskExit
}

// runTask runs spec, sends stdin then EOF, and collects everything;
// during is called after each message before the exit.
func runTask(t *testing.T, c *rpc.Client, spec *api.TaskSpec, stdin string, during func(st *rpc.ClientStream, r *result)) (*result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := c.Bidi(ctx, api.RESRun, nil)
	if err != nil {
		return nil, err
	}
	if err := st.Send(&api.TaskInput{Spec: spec}); err != nil {
		return nil, err
	}
	if stdin != "" {
		st.Send(&api.TaskInput{Stdin: []byte(stdin)})
	}
	if !spec.Pty {
		st.Send(&api.TaskInput{StdinEOF: true})
	}
	r := &result{}
	for {
		var m api.TaskOutput
		if err := st.Recv(&m); err != nil {
			if err == io.EOF {
				return r, nil
			}
			return r, err
		}
		r.stdout.Write(m.Stdout)
		r.stderr.Write(m.Stderr)
		if m.Started != nil {
			r.started = m.Started
		}
		if during != nil && m.Exit == nil {
			during(st, r)
		}
		if m.Exit != nil {
			r.exit = m.Exit
		}
	}
}

func TestRunAsUser(t *testing.T) {
	addr := startRES(t)
	for _, u := range users(t) {
		t.Run(u.Username, func(t *testing.T) {
			c := dial(t, addr, helloOf(u))
			dir := openDir(t)
			r, err := runTask(t, c, &api.TaskSpec{Argv: []string{"sh", "-c", `id -un; echo "$FOO"; pwd; cat; echo err >&2; exit 7`},
				Env: []string{"PATH=/usr/bin:/bin", "FOO=bar baz"}, Cwd: dir}, "hello stdin\n", nil)
			if err != nil {
				t.Fatal(err)
			}
			want := u.Username + "\nbar baz\n" + dir + "\nhello stdin\n"
			if r.stdout.String() != want || r.stderr.String() != "err\n" {
				t.Errorf("stdout %q stderr %q, want %q and %q", r.stdout.String(), r.stderr.String(), want, "err\n")
			}
			if r.started == nil || r.started.Host != "testhost" || r.exit == nil || r.exit.ExitCode != 7 {
				t.Errorf("started %+v exit %+v, want testhost and exit 7", r.started, r.exit)
			}
		})
	}
}

func TestRunCommandNotFound(t *testing.T) {
	addr := startRES(t)
	u := users(t)[0]
	r, err := runTask(t, dial(t, addr, helloOf(u)), &api.TaskSpec{Argv: []string{"no-such-command-xyz"}, Env: []string{"PATH=/bin"}}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	// As LSF's RES: perror(argv[0]) on the task's stderr, status 127.
	if r.exit == nil || r.exit.ExitCode != 127 || r.exit.Message != "" || r.stderr.String() != "no-such-command-xyz: No such file or directory\n" {
		t.Errorf("exit %+v stderr %q, want 127 and perror's line", r.exit, r.stderr.String())
	}
	// Found in PATH but not executable: EACCES; an absolute path that does
	// not exist: ENOENT.
	dir := openDir(t)
	if err := os.WriteFile(filepath.Join(dir, "notexec"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ argv0, path, want string }{
		{"notexec", dir, "notexec: Permission denied\n"},
		{dir + "/missing", "/bin", dir + "/missing: No such file or directory\n"},
	} {
		r, err := runTask(t, dial(t, addr, helloOf(u)), &api.TaskSpec{Argv: []string{tc.argv0}, Env: []string{"PATH=" + tc.path}}, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.exit == nil || r.exit.ExitCode != 127 || r.stderr.String() != tc.want {
			t.Errorf("%s: exit %+v stderr %q, want 127 and %q", tc.argv0, r.exit, r.stderr.String(), tc.want)
		}
	}
}

func TestSignalForwarded(t *testing.T) {
	addr := startRES(t)
	u := users(t)[len(users(t))-1]
	r, err := runTask(t, dial(t, addr, helloOf(u)), &api.TaskSpec{Argv: []string{"sleep", "30"}, Env: []string{"PATH=/bin:/usr/bin"}}, "",
		func(st *rpc.ClientStream, r *result) {
			if r.started != nil && r.stdout.Len() == 0 {
				st.Send(&api.TaskInput{Signal: int32(syscall.SIGINT)})
				r.stdout.WriteString("sent")
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if r.exit == nil || r.exit.Signal != int32(syscall.SIGINT) || r.exit.ExitCode != 130 {
		t.Errorf("exit %+v, want SIGINT (130)", r.exit)
	}
}

func TestPtyWindowSize(t *testing.T) {
	addr := startRES(t)
	for _, u := range users(t) {
		t.Run(u.Username, func(t *testing.T) {
			c := dial(t, addr, helloOf(u))
			sent := false
			r, err := runTask(t, c, &api.TaskSpec{Argv: []string{"sh", "-c", `stty size; read x; stty size; test -t 0 && echo tty`},
				Env: []string{"PATH=/bin:/usr/bin"}, Pty: true, Rows: 30, Cols: 100, Term: "xterm"}, "",
				func(st *rpc.ClientStream, r *result) {
					if strings.Contains(r.stdout.String(), "30 100") && !sent {
						sent = true
						st.Send(&api.TaskInput{Resize: &api.WindowSize{Rows: 40, Cols: 132}})
						st.Send(&api.TaskInput{Stdin: []byte("go\n")})
					}
				})
			if err != nil {
				t.Fatal(err)
			}
			out := strings.ReplaceAll(r.stdout.String(), "\r", "")
			if !strings.Contains(out, "30 100\n") || !strings.Contains(out, "40 132\n") || !strings.HasSuffix(out, "tty\n") {
				t.Errorf("terminal output %q, want 30 100 then 40 132 and tty", out)
			}
			if r.exit == nil || r.exit.ExitCode != 0 {
				t.Errorf("exit %+v", r.exit)
			}
		})
	}
}

func TestPtyCtrlC(t *testing.T) {
	addr := startRES(t)
	u := users(t)[0]
	sent := false
	r, err := runTask(t, dial(t, addr, helloOf(u)), &api.TaskSpec{Argv: []string{"sh", "-c", "echo ready; exec sleep 30"},
		Env: []string{"PATH=/bin:/usr/bin"}, Pty: true, Rows: 24, Cols: 80},
		"", func(st *rpc.ClientStream, r *result) {
			if strings.Contains(r.stdout.String(), "ready") && !sent {
				sent = true
				st.Send(&api.TaskInput{Stdin: []byte{3}})
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if r.exit == nil || r.exit.Signal != int32(syscall.SIGINT) {
		t.Errorf("exit %+v, want killed by SIGINT through the terminal's ^C", r.exit)
	}
}

// TestDisconnectKillsAll: a client that goes away mid-stream leaves no
// process of its task behind (a background child included), and RES
// still serves.
func TestDisconnectKillsAll(t *testing.T) {
	addr := startRES(t)
	u := users(t)[len(users(t))-1]
	c, err := rpc.Dial(context.Background(), addr, helloOf(u))
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Bidi(context.Background(), api.RESRun, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Send(&api.TaskInput{Spec: &api.TaskSpec{Argv: []string{"sh", "-c", `setsid sh -c 'echo escaped $$; exec sleep 300' & sleep 300 & wait`}, Env: []string{"PATH=/bin:/usr/bin"}}})
	var sid, escaped int
	var out []byte
	for escaped == 0 {
		var m api.TaskOutput
		if err := st.Recv(&m); err != nil {
			t.Fatal(err)
		}
		if m.Started != nil {
			sid = int(m.Started.PID)
		}
		out = append(out, m.Stdout...)
		fmt.Sscanf(string(out), "escaped %d", &escaped)
	}
	time.Sleep(50 * time.Millisecond) // the shell starts its sleep
	if n := len(sessionPIDs("/proc", sid)); n < 2 {
		t.Fatalf("session %d has %d processes, want the shell and sleep", sid, n)
	}
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for len(sessionPIDs("/proc", sid)) > 0 || alive(escaped) {
		if time.Now().After(deadline) {
			t.Fatalf("processes left behind: session %d: %v; the child that left it (%d) alive: %v", sid, sessionPIDs("/proc", sid), escaped, alive(escaped))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// RES unharmed.
	r, err := runTask(t, dial(t, addr, helloOf(u)), &api.TaskSpec{Argv: []string{"true"}, Env: []string{"PATH=/bin:/usr/bin"}}, "", nil)
	if err != nil || r.exit == nil || r.exit.ExitCode != 0 {
		t.Fatalf("after a dropped client: %+v, %v", r, err)
	}
}

func TestRefused(t *testing.T) {
	addr := startRES(t)
	users(t)
	for _, tc := range []struct {
		name  string
		hello *api.ConnHello
		want  string
	}{
		{"unknown user", &api.ConnHello{User: "no-such-user-basalt", UID: 4242}, "Bad user ID"},
		{"unauthenticated", &api.ConnHello{User: "root", Credential: []byte("bad")}, ""},
		{"daemon", &api.ConnHello{User: "root", Scheme: "sbatchd"}, "User permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := rpc.Dial(context.Background(), addr, tc.hello)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = runTask(t, c, &api.TaskSpec{Argv: []string{"touch", "/tmp/res-refused-" + tc.name}}, "", nil)
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.want)) {
				t.Errorf("err %v, want refusal %q", err, tc.want)
			}
			if _, err := os.Stat("/tmp/res-refused-" + tc.name); err == nil {
				os.Remove("/tmp/res-refused-" + tc.name)
				t.Errorf("the refused task ran")
			}
		})
	}
	// root without LSF_ROOT_REX is refused.
	c := dial(t, startRESRoot(t, false), &api.ConnHello{User: "root", UID: 0})
	_, err := runTask(t, c, &api.TaskSpec{Argv: []string{"touch", "/tmp/res-refused-root"}}, "", nil)
	if err == nil || !strings.Contains(err.Error(), "Root user rejected") {
		t.Errorf("root without LSF_ROOT_REX: %v, want refused", err)
	}
	if os.Remove("/tmp/res-refused-root") == nil {
		t.Errorf("root's refused task ran")
	}
}

func TestFetchStore(t *testing.T) {
	addr := startRES(t)
	for _, u := range users(t) {
		t.Run(u.Username, func(t *testing.T) {
			c := dial(t, addr, helloOf(u))
			dir := openDir(t)
			data := bytes.Repeat([]byte("0123456789abcdef"), (3*Chunk+100)/16)
			path := filepath.Join(dir, "f")
			ctx := context.Background()
			st, err := c.Bidi(ctx, api.RESStore, nil)
			if err != nil {
				t.Fatal(err)
			}
			st.Send(&api.FileChunk{Request: &api.FileRequest{Path: path, Mode: 0o600}})
			for b := data; len(b) > 0; {
				n := min(len(b), 100000)
				st.Send(&api.FileChunk{Data: b[:n]})
				b = b[n:]
			}
			st.CloseSend()
			var rep api.FileReply
			if err := st.Recv(&rep); err != nil || rep.Written != int64(len(data)) {
				t.Fatalf("store: %+v %v", rep, err)
			}
			fi, err := os.Stat(path)
			if err != nil || fi.Sys().(*syscall.Stat_t).Uid != uint32(helloOf(u).UID) || fi.Mode().Perm() != 0o600 {
				t.Fatalf("stored file %v %v: want owned by %s, mode 0600", fi, err, u.Username)
			}
			fs, err := c.Stream(ctx, api.RESFetch, &api.FileRequest{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.New()
			var size int64 = -1
			for {
				var ch api.FileChunk
				err := fs.Recv(&ch)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if size < 0 {
					size = ch.Size
				}
				h.Write(ch.Data)
			}
			if want := sha256.Sum256(data); size != int64(len(data)) || !bytes.Equal(h.Sum(nil), want[:]) {
				t.Errorf("fetched size %d, checksum differs: %v", size, !bytes.Equal(h.Sum(nil), want[:]))
			}
		})
	}
	// A user cannot read a file only root may read.
	if len(users(t)) > 1 {
		secret := filepath.Join(openDir(t), "secret")
		os.WriteFile(secret, []byte("x"), 0o600)
		c := dial(t, addr, helloOf(users(t)[1]))
		fs, err := c.Stream(context.Background(), api.RESFetch, &api.FileRequest{Path: secret})
		if err == nil {
			var ch api.FileChunk
			err = fs.Recv(&ch)
		}
		if err == nil || !strings.Contains(err.Error(), ": Permission denied") {
			t.Errorf("basalt1 reading root's 0600 file: %v, want Permission denied", err)
		}
	}
}

// alive: pid runs (a zombie is not running).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, ok := statSession(string(b))
	return ok
}

// TestAccountMapping: a task asked to run as another account runs as it
// when that account's .lsfhosts accepts the caller from its host, and is
// refused otherwise; root is never mapped to.
func TestAccountMapping(t *testing.T) {
	us := users(t)
	if len(us) < 2 {
		t.Skip("needs the test user basalt1")
	}
	u2, err := user.Lookup("basalt2")
	if err != nil {
		t.Skip("needs the test user basalt2")
	}
	uid2, _ := strconv.Atoi(u2.Uid)
	gid2, _ := strconv.Atoi(u2.Gid)
	home := openDir(t) // basalt2's home, as this test's Lookup says
	lsfhosts := filepath.Join(home, ".lsfhosts")
	if err := os.WriteFile(lsfhosts, []byte("client basalt1 recv\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chown(lsfhosts, uid2, gid2)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := rpc.NewServer(fakeAuth{})
	rs := &Server{Host: "testhost", RootRex: true, Lookup: func(name string) (*account, error) {
		if name == "basalt2" {
			return &account{User: "basalt2", UID: int32(uid2), GID: int32(gid2), Home: home}, nil
		}
		return shepherd.LookupAccount(name)
	}}
	rs.Register(srv)
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	c := dial(t, ln.Addr().String(), helloOf(us[1])) // basalt1 from host "client"
	spec := func(as string) *api.TaskSpec {
		return &api.TaskSpec{Argv: []string{"id", "-un"}, Env: []string{"PATH=/usr/bin:/bin"}, Cwd: "/tmp", User: as}
	}
	r, err := runTask(t, c, spec("basalt2"), "", nil)
	if err != nil || r.stdout.String() != "basalt2\n" {
		t.Errorf("basalt1 as basalt2 (accepted): %q, %v; want basalt2", r.stdout.String(), err)
	}
	for _, as := range []string{"basalt3", "root"} {
		if _, err := runTask(t, c, spec(as), "", nil); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("basalt1 as %s (not accepted): %v, want refused", as, err)
		}
	}
	// The same through RES.Fetch.
	fs, err := c.Stream(context.Background(), api.RESFetch, &api.FileRequest{Path: lsfhosts, User: "basalt2"})
	if err == nil {
		var ch api.FileChunk
		err = fs.Recv(&ch)
	}
	if err != nil {
		t.Errorf("fetching basalt2's 0600 file as basalt2: %v", err)
	}
}

// TestControl: root, a cluster administrator and RES's own account may
// shut RES down or restart it; an ordinary user, a daemon identity and an
// unauthenticated peer claiming root may not, and the RES serves on.
func TestControl(t *testing.T) {
	var mu sync.Mutex
	var ops []api.ResOp
	var proceeded atomic.Int32
	addr := startRESWith(t, func(rs *Server) {
		rs.RootRex = true
		rs.Admin = func(u string) bool { return u == "lsfadmin" }
		rs.Control = func(op api.ResOp) func() {
			mu.Lock()
			ops = append(ops, op) // before the reply
			mu.Unlock()
			return func() { proceeded.Add(1) }
		}
	})
	calls := func() []api.ResOp {
		mu.Lock()
		defer mu.Unlock()
		return append([]api.ResOp(nil), ops...)
	}
	me := os.Geteuid()
	for _, tc := range []struct {
		name  string
		hello *api.ConnHello
		op    api.ResOp
		want  string // "": allowed; else the refusal's text
		code  rpc.Code
	}{
		{"root shutdown", &api.ConnHello{User: "root", UID: 0}, api.ResOpShutdown, "", 0},
		{"admin restart", &api.ConnHello{User: "lsfadmin", UID: 4000}, api.ResOpRestart, "", 0},
		{"own account", &api.ConnHello{User: "resowner", UID: int32(me)}, api.ResOpShutdown, "", 0},
		{"ordinary user", &api.ConnHello{User: "basalt1", UID: 1001}, api.ResOpShutdown, "User permission denied", rpc.PermissionDenied},
		{"user named like no admin", &api.ConnHello{User: "lsfadmin2", UID: 4001}, api.ResOpRestart, "User permission denied", rpc.PermissionDenied},
		{"daemon identity", &api.ConnHello{User: "root", UID: 0, Scheme: "sbatchd"}, api.ResOpShutdown, "User permission denied", rpc.PermissionDenied},
		{"unauthenticated root", &api.ConnHello{User: "root", UID: 0, Credential: []byte("bad")}, api.ResOpShutdown, "", rpc.Unauthenticated},
		{"bad operation", &api.ConnHello{User: "root", UID: 0}, api.ResOp(99), "Bad operation code 99", rpc.InvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "own account" && me == 0 {
				t.Skip("RES runs as root: its own account is root's")
			}
			before := len(calls())
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := rpc.Dial(ctx, addr, tc.hello)
			var reply api.ResControlReply
			if err == nil {
				defer c.Close()
				var st *rpc.ClientStream
				if st, err = c.Stream(ctx, api.RESControl, &api.ResControlRequest{Op: tc.op}); err == nil {
					err = st.Recv(&reply)
				}
			}
			got := calls()
			if tc.code == 0 {
				if err != nil || reply.Host != "testhost" {
					t.Fatalf("reply %+v err %v, want testhost's acknowledgement", reply, err)
				}
				if len(got) != before+1 || got[len(got)-1] != tc.op {
					t.Fatalf("Control calls %v, want %v last", got, tc.op)
				}
				return
			}
			var rerr *rpc.Error
			if !errors.As(err, &rerr) || rerr.Code != tc.code || !strings.Contains(rerr.Msg, tc.want) {
				t.Errorf("err %v, want code %d %q", err, tc.code, tc.want)
			}
			if len(got) != before {
				t.Errorf("a refused request reached Control: %v", got)
			}
		})
	}
	// Each allowed request went on to its second step, after its reply.
	if want := int32(len(calls())); !poll(5*time.Second, func() bool { return proceeded.Load() == want }) {
		t.Errorf("%d requests proceeded, want %d", proceeded.Load(), want)
	}
	// The RES serves on after the refusals.
	if os.Geteuid() == 0 {
		r, err := runTask(t, dial(t, addr, &api.ConnHello{User: "root", UID: 0}), &api.TaskSpec{Argv: []string{"true"}}, "", nil)
		if err != nil || r.exit == nil || r.exit.ExitCode != 0 {
			t.Errorf("a task after the refusals: %+v %v", r, err)
		}
	}
	// Without Control (a RES that cannot be controlled) even root is
	// told so, not obeyed.
	addr2 := startRESWith(t, func(rs *Server) {})
	c := dial(t, addr2, &api.ConnHello{User: "root", UID: 0})
	st, err := c.Stream(context.Background(), api.RESControl, &api.ResControlRequest{Op: api.ResOpShutdown})
	if err == nil {
		var reply api.ResControlReply
		err = st.Recv(&reply)
	}
	var rerr *rpc.Error
	if !errors.As(err, &rerr) || rerr.Code != rpc.Unimplemented {
		t.Errorf("RES without Control: %v, want Unimplemented", err)
	}
}

// poll calls cond until it holds or d has passed.
func poll(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// TestDisableLsrun: under LSF_DISABLE_LSRUN an ordinary user's task from
// another host is refused; root's and an administrator's run, and so does
// the user's from RES's own host.
func TestDisableLsrun(t *testing.T) {
	var us []*user.User
	for _, u := range users(t) {
		if u.Username != "root" {
			us = append(us, u)
		}
	}
	if len(us) == 0 {
		t.Skip("needs basalt1")
	}
	u := us[0]
	start := func(host string, admin string) string {
		return startRESWith(t, func(rs *Server) {
			rs.Host, rs.RootRex, rs.DisableLsrun = host, true, true
			rs.Admin = func(n string) bool { return n == admin }
		})
	}
	dir := openDir(t)
	for _, tc := range []struct {
		name, resHost, admin string
		hello                *api.ConnHello
		ok                   bool
	}{
		{"user from another host", "testhost", "", helloOf(u), false},
		{"root", "testhost", "", &api.ConnHello{User: "root", UID: 0}, true},
		{"administrator", "testhost", u.Username, helloOf(u), true},
		{"user on RES's own host", "client", "", helloOf(u), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mark := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			r, err := runTask(t, dial(t, start(tc.resHost, tc.admin), tc.hello), &api.TaskSpec{Argv: []string{"touch", mark}}, "", nil)
			_, statErr := os.Stat(mark)
			if tc.ok {
				if err != nil || r.exit == nil || r.exit.ExitCode != 0 || statErr != nil {
					t.Errorf("refused: %v %+v %v", err, r, statErr)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "User permission denied") || statErr == nil {
				t.Errorf("err %v (task ran: %v), want User permission denied", err, statErr == nil)
			}
		})
	}
}
