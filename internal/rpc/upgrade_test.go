package rpc

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
)

// TestUpgrade: an authenticated peer's connection goes to the upgrade
// handler as a raw stream (bytes sent right behind the hello included),
// while the same server keeps serving calls; an unknown upgrade, a peer
// that fails authentication and one the handler refuses each get the
// reason and nothing else.
func TestUpgrade(t *testing.T) {
	s := testServer()
	got := make(chan auth.Identity, 1)
	s.HandleUpgrade("echo", func(id auth.Identity) (func(net.Conn), error) {
		if id.User == "mallory" {
			return nil, errors.New("not a replica")
		}
		got <- id
		return func(conn net.Conn) { go func() { defer conn.Close(); io.Copy(conn, conn) }() }, nil
	})
	addr := startServer(t, s)
	ctx := context.Background()
	conn, err := DialUpgrade(ctx, addr, &api.ConnHello{User: "alice"}, "echo")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if id := <-got; id.User != "alice" {
		t.Errorf("handler saw %+v", id)
	}
	for _, msg := range []string{"hello", strings.Repeat("x", 100000)} {
		if _, err := conn.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, len(msg))
		if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != msg {
			t.Fatalf("echo of %d bytes: %v", len(msg), err)
		}
	}
	// Calls are still served beside the upgraded connection.
	var rep api.Status
	if err := dial(t, addr).Call(ctx, tEcho, &api.JobRef{JobID: 7}, &rep); err != nil || rep.Code != 7 {
		t.Errorf("call: %v %+v", err, &rep)
	}

	if _, err := DialUpgrade(ctx, addr, nil, "nosuch"); CodeOf(err) != Unimplemented || !strings.Contains(err.Error(), `unknown upgrade "nosuch"`) {
		t.Errorf("unknown upgrade: %v", err)
	}
	deny := NewServer(denyAll{})
	deny.HandleUpgrade("echo", func(auth.Identity) (func(net.Conn), error) {
		t.Error("handler reached unauthenticated")
		return nil, nil
	})
	if _, err := DialUpgrade(ctx, startServer(t, deny), nil, "echo"); CodeOf(err) != Unauthenticated {
		t.Errorf("unauthenticated upgrade: %v", err)
	}
	refusing := NewServer(auth.Static{User: "mallory"})
	refusing.HandleUpgrade("echo", s.upgrades["echo"])
	if _, err := DialUpgrade(ctx, startServer(t, refusing), nil, "echo"); CodeOf(err) != PermissionDenied || !strings.Contains(err.Error(), "not a replica") {
		t.Errorf("refused upgrade: %v", err)
	}
}

// TestGate: a gate's refusal reaches the caller with its code and text,
// and the handler never runs; a call the gate lets through is served.
func TestGate(t *testing.T) {
	s := testServer()
	s.Gate = func(method string) error {
		if method == tEcho.Name() {
			return nil
		}
		return Errorf(FailedPrecondition, "not the leader")
	}
	c := dial(t, startServer(t, s))
	ctx := context.Background()
	var rep api.Status
	if err := c.Call(ctx, tEcho, &api.JobRef{JobID: 3}, &rep); err != nil || rep.Code != 3 {
		t.Errorf("allowed call: %v %+v", err, &rep)
	}
	if err := c.Call(ctx, tPanic, &api.JobRef{}, &rep); CodeOf(err) != FailedPrecondition || err.Error() != "not the leader" {
		t.Errorf("gated call: %v", err)
	}
}
