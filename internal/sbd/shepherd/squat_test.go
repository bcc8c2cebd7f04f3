package shepherd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// squat is the test binary become an ordinary user (uid): it binds a
// shepherd's socket name first, says so, and answers connections until
// killed. (The test binary's directory is private to root: it starts as
// root and drops to the user.)
func squat(name, uid string) int {
	id, _ := strconv.Atoi(uid)
	if err := syscall.Setgid(id); err != nil {
		fmt.Println("setgid:", err)
		return 1
	}
	if err := syscall.Setuid(id); err != nil {
		fmt.Println("setuid:", err)
		return 1
	}
	ln, err := net.Listen("unix", name)
	if err != nil {
		fmt.Println("listen:", err)
		return 1
	}
	fmt.Println("listening")
	for {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		go func() { _, _ = bufio.NewReader(c).ReadByte(); c.Close() }()
	}
}

// TestDialRefusesSquatter: a local user who binds a shepherd's (or the
// shepherd host's) socket name first does not receive sbatchd's
// connection: sbatchd checks the listener's uid, from the kernel.
func TestDialRefusesSquatter(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the squatter as another user")
	}
	acct, err := LookupAccount("basalt1")
	if err != nil {
		t.Skipf("test user: %v (scripts/setup-test-env.sh creates it)", err)
	}
	name := SocketName(t.TempDir(), "42")
	cmd := exec.Command(os.Args[0], "squat", name, strconv.Itoa(int(acct.UID)))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "listening" {
		t.Fatalf("squatter: %q", line)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if c, err := Dial(ctx, name); !errors.Is(err, ErrNotShepherd) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("Dial to a squatted shepherd socket: %v, want ErrNotShepherd", err)
	}
	if c, err := DialHost(ctx, name, time.Now().Add(5*time.Second)); !errors.Is(err, ErrNotShepherd) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("DialHost to a squatted socket: %v, want ErrNotShepherd", err)
	}
}
