package eauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary ask an agent as another user
// (EAUTH_TEST_ASK=addr).
func TestMain(m *testing.M) {
	if addr := os.Getenv("EAUTH_TEST_ASK"); addr != "" {
		cred, err := AskAgent(context.Background(), addr, "mbatchd", "host1")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%s", cred)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func startAgent(t *testing.T, keys *Keyring) string {
	t.Helper()
	addr := fmt.Sprintf("@basalt-eauth-test/%d/%d", os.Getpid(), time.Now().UnixNano())
	ln, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	a := &Agent{Keys: keys, Host: "host2", LookupUser: func(uid uint32) (string, error) { return fmt.Sprintf("user%d", uid), nil }}
	go func() { done <- a.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return addr
}

// TestAgentUsesKernelUID: the agent seals the uid the kernel gives for
// the peer, for the agent's host; what the client asks cannot change it.
func TestAgentUsesKernelUID(t *testing.T) {
	keys := ring("k")
	addr := startAgent(t, keys)
	text, err := AskAgent(context.Background(), addr, "mbatchd", "host1")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(keys, text, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if int(c.UID) != os.Getuid() || c.User != fmt.Sprintf("user%d", os.Getuid()) || c.ClientHost != "host2" || c.ClientKind != "user" ||
		c.ServerDaemon != "mbatchd" || c.ServerHost != "host1" {
		t.Fatalf("agent sealed %+v", c)
	}
	// Asking for a daemon's credential or with a malformed line: refused.
	for _, req := range []string{"seal user host1\n", "seal mbatchd\n", "give me root\n", "seal mbatchd host 1\n", strings.Repeat("x", 600)} {
		conn, err := net.Dial("unix", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, req)
		b, _ := io.ReadAll(conn)
		conn.Close()
		if !strings.HasPrefix(string(b), "err ") {
			t.Errorf("request %.20q: answer %q, want err", req, b)
		}
	}
	if _, err := AskAgent(context.Background(), addr, "user", "host1"); err == nil {
		t.Error("a credential of kind user for daemon \"user\"")
	}
}

// TestAgentAnotherUID asks the agent as another user (needs root): the
// credential names that user's uid, not the agent's.
func TestAgentAnotherUID(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	keys := ring("k")
	addr := startAgent(t, keys)
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o755)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "eauth.test")
	src, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	const nobody = 65534
	cmd := exec.Command(bin)
	cmd.Env = []string{"EAUTH_TEST_ASK=" + addr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("%v: %s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	c, err := Open(keys, out, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if c.UID != nobody || c.GID != nobody || c.User != "user65534" {
		t.Fatalf("credential of another user: %+v", c)
	}
	// And a daemon takes it as that user, not root.
	v := &Verifier{Keys: keys, Daemon: "mbatchd", Host: "host1"}
	if got, err := v.Verify(out); err != nil || got.UID != nobody {
		t.Fatalf("verified %+v %v", got, err)
	}
}
