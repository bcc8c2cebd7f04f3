package eauth

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"time"
)

// AgentAddr is the signing agent's socket for a host of the cluster whose
// LIM listens at limPort: an abstract Unix socket, so it is per network
// namespace, and named by host and port so that the loopback hosts of
// several local clusters on one machine do not collide.
func AgentAddr(host string, limPort int) string {
	return "@basalt-eauth/" + host + "/" + strconv.Itoa(limPort)
}

// Agent seals credentials for the local users who ask: the uid and gid are
// the kernel's (SO_PEERCRED), the user name the passwd entry of the uid,
// the client host the agent's own, the kind "user".
type Agent struct {
	Keys *Keyring
	Host string
	Now  func() time.Time // nil: time.Now
	Log  *slog.Logger     // nil: discarded
	// LookupUser names a uid (nil: os/user).
	LookupUser func(uid uint32) (string, error)
}

// Serve answers requests on ln until ctx ends or ln fails.
func (a *Agent) Serve(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// Out of descriptors or the like: the agent waits and goes on.
			if a.Log != nil {
				a.Log.Warn("eauth agent: accept", "err", err)
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.serveConn(c)
		}()
	}
}

func (a *Agent) serveConn(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	cred, err := a.answer(c)
	if err != nil {
		if a.Log != nil {
			a.Log.Warn("eauth agent: request refused", "err", err)
		}
		fmt.Fprintf(c, "err %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return
	}
	fmt.Fprintf(c, "ok %s\n", cred)
}

func (a *Agent) answer(c net.Conn) ([]byte, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, errors.New("not a Unix socket")
	}
	uid, gid, err := PeerCred(uc)
	if err != nil {
		return nil, err
	}
	line, err := bufio.NewReaderSize(c, 512).ReadSlice('\n')
	if err != nil {
		return nil, fmt.Errorf("reading the request of uid %d: %w", uid, err)
	}
	daemon, host, err := ParseAgentRequest(line)
	if err != nil {
		return nil, fmt.Errorf("uid %d: %w", uid, err)
	}
	lookup := a.LookupUser
	if lookup == nil {
		lookup = lookupUser
	}
	name, err := lookup(uid)
	if err != nil {
		return nil, fmt.Errorf("uid %d has no user name: %w", uid, err)
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	return SealFor(a.Keys, int(uid), int(gid), name, a.Host, "user", daemon, host, now())
}

func lookupUser(uid uint32) (string, error) {
	u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10))
	if err != nil {
		return "", err
	}
	return u.Username, nil
}

// The agent's protocol: one request line "seal <daemon> <host>\n", one
// answer line "ok <credential>\n" or "err <message>\n".

// ParseAgentRequest parses a request line.
func ParseAgentRequest(line []byte) (daemon, host string, err error) {
	s := strings.TrimSuffix(string(line), "\n")
	f := strings.Split(s, " ")
	if len(f) != 3 || f[0] != "seal" {
		return "", "", fmt.Errorf("agent request %.40q: want \"seal <daemon> <host>\"", s)
	}
	if !knownKind(f[1]) || f[1] == "user" {
		return "", "", fmt.Errorf("agent request: unknown daemon %.20q", f[1])
	}
	if !nameOK(f[2]) {
		return "", "", fmt.Errorf("agent request: bad host name %.40q", f[2])
	}
	return f[1], f[2], nil
}

func knownKind(k string) bool {
	switch k {
	case "user", "lim", "sbatchd", "mbatchd", "res":
		return true
	}
	return false
}

func nameOK(s string) bool {
	if s == "" || len(s) > maxStr {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// AskAgent asks the agent at addr for a credential for daemon on host.
func AskAgent(ctx context.Context, addr, daemon, host string) ([]byte, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", addr)
	if err != nil {
		return nil, fmt.Errorf("eauth: the signing agent of this host's LIM is not reachable: %w", err)
	}
	defer c.Close()
	dl := time.Now().Add(5 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(dl) {
		dl = d
	}
	_ = c.SetDeadline(dl)
	if _, err := fmt.Fprintf(c, "seal %s %s\n", daemon, host); err != nil {
		return nil, fmt.Errorf("eauth agent: %w", err)
	}
	line, err := bufio.NewReaderSize(c, 2*MaxEncoded).ReadSlice('\n')
	if err != nil {
		return nil, fmt.Errorf("eauth agent: %w", err)
	}
	s := strings.TrimSuffix(string(line), "\n")
	if cred, ok := strings.CutPrefix(s, "ok "); ok {
		return []byte(cred), nil
	}
	if msg, ok := strings.CutPrefix(s, "err "); ok {
		return nil, fmt.Errorf("eauth agent: %s", msg)
	}
	return nil, fmt.Errorf("eauth agent: bad answer %.40q", s)
}
