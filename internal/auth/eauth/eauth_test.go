package eauth

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
)

var t0 = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func testCred() Cred {
	return Cred{UID: 1001, GID: 1001, User: "alice", ClientHost: "host2", ClientKind: "user", ServerDaemon: "mbatchd", ServerHost: "host1",
		Issued: t0, TTL: DefaultTTL, Nonce: [NonceSize]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}
}

func ring(secret string) *Keyring { return &Keyring{Current: NewKey(secret)} }

func TestSealOpenRoundTrip(t *testing.T) {
	text, err := Seal(ring("k").Current, testCred())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(text, []byte(prefix)) || bytes.ContainsAny(text, " \n") {
		t.Fatalf("credential %q is not one printable word", text)
	}
	c, err := Open(ring("k"), text, t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	want := testCred()
	want.KeyID = NewKey("k").ID
	if !c.Issued.Equal(want.Issued) {
		t.Fatalf("issued %v, want %v", c.Issued, want.Issued)
	}
	c.Issued = want.Issued
	if c != want {
		t.Fatalf("opened %+v, want %+v", c, want)
	}
}

// raw decodes a printed credential.
func raw(t *testing.T, text []byte) []byte {
	b, err := base64.RawURLEncoding.DecodeString(string(text[len(prefix):]))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func print(b []byte) []byte { return []byte(prefix + base64.RawURLEncoding.EncodeToString(b)) }

// TestOpenRefuses: every byte of a credential tampered, a wrong key, an
// expired or future credential, a time to live over 5 minutes, a
// truncated or oversized one: each refused, without a panic.
func TestOpenRefuses(t *testing.T) {
	keys := ring("k")
	text, _ := Seal(keys.Current, testCred())
	b := raw(t, text)
	for i := range b {
		m := bytes.Clone(b)
		m[i] ^= 0x01
		if _, err := Open(keys, print(m), t0); err == nil {
			t.Errorf("byte %d tampered: accepted", i)
		}
	}
	// Every field changed and resealed with another key.
	for name, f := range map[string]func(*Cred){
		"uid": func(c *Cred) { c.UID = 0 }, "gid": func(c *Cred) { c.GID = 0 }, "user": func(c *Cred) { c.User = "root" },
		"client host": func(c *Cred) { c.ClientHost = "host3" }, "kind": func(c *Cred) { c.ClientKind = "sbatchd" },
		"server": func(c *Cred) { c.ServerDaemon = "lim" }, "server host": func(c *Cred) { c.ServerHost = "host9" },
		"issued": func(c *Cred) { c.Issued = c.Issued.Add(time.Minute) }, "ttl": func(c *Cred) { c.TTL = 2 * time.Minute },
		"nonce": func(c *Cred) { c.Nonce[0] ^= 1 },
	} {
		c := testCred()
		f(&c)
		forged, _ := Seal(NewKey("attacker"), c)
		// The attacker keeps the cluster key's id.
		fb := raw(t, forged)
		copy(fb[4:8], b[4:8])
		if _, err := Open(keys, print(fb), t0); !errors.Is(err, ErrBadSeal) {
			t.Errorf("%s changed, sealed with another key: err %v, want ErrBadSeal", name, err)
		}
	}
	tests := []struct {
		name string
		cred func() []byte
		now  time.Time
		want error
	}{
		{"wrong key", func() []byte { x, _ := Seal(NewKey("other"), testCred()); return x }, t0, ErrUnknownKey},
		{"expired", func() []byte { return text }, t0.Add(DefaultTTL), ErrExpired},
		{"future", func() []byte { return text }, t0.Add(-MaxSkew - time.Second), ErrFuture},
		{"ttl over 5 min", func() []byte { c := testCred(); c.TTL = MaxTTL + time.Second; x, _ := Seal(keys.Current, c); return x }, t0, ErrTTL},
		{"ttl 0", func() []byte { c := testCred(); c.TTL = 0; x, _ := Seal(keys.Current, c); return x }, t0, ErrTTL},
	}
	for _, tc := range tests {
		if _, err := Open(keys, tc.cred(), tc.now); !errors.Is(err, tc.want) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.want)
		}
	}
	// Within the skew: accepted, from a client clock ahead or behind.
	if _, err := Open(keys, text, t0.Add(-MaxSkew+time.Second)); err != nil {
		t.Errorf("4m59s in the future: %v", err)
	}
	if _, err := Open(keys, text, t0.Add(MaxSkew-time.Second)); err != nil {
		t.Errorf("issued 4m59s ago by its clock: %v", err)
	}
	for n := 0; n < len(text); n++ {
		if _, err := Open(keys, text[:n], t0); err == nil {
			t.Fatalf("truncated to %d bytes: accepted", n)
		}
	}
	big := append(bytes.Clone(text), bytes.Repeat([]byte("A"), MaxEncoded)...)
	if _, err := Open(keys, big, t0); err == nil || !strings.Contains(err.Error(), "oversized") {
		t.Errorf("oversized: %v", err)
	}
}

// TestParsePositions: malformed credentials fail with the offset of the
// problem.
func TestParsePositions(t *testing.T) {
	good := testCred()
	body, _ := good.appendBody(nil)
	mac := make([]byte, macSize)
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"no prefix", []byte("xyz"), "offset 0: not a Basalt credential"},
		{"bad base64", []byte(prefix + "ab$d"), "offset 10: bad encoding"},
		{"short", print([]byte("BAE1")), "offset 4: truncated: shorter than its MAC"},
		{"magic", print(append(append([]byte("XXXX"), body[4:]...), mac...)), "offset 0: bad magic"},
		{"fixed part", print(append(bytes.Clone(body[:20]), mac...)), "offset 20: truncated"},
		{"field", print(append(bytes.Clone(body[:fixed+3]), mac...)), "offset 43: truncated: field of 5 bytes, 2 left"},
		{"trailing", print(append(append(bytes.Clone(body), 'x'), mac...)), "trailing bytes"},
		{"space in name", func() []byte {
			b := bytes.Clone(body)
			b[fixed+2] = ' '
			return print(append(b, mac...))
		}(), "offset 44: byte 0x20 in a name"},
	}
	for _, tc := range tests {
		_, _, _, err := Parse(tc.in)
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want a ParseError with %q", tc.name, err, tc.want)
		}
	}
}

func TestKeyRotation(t *testing.T) {
	old := NewKey("old")
	text, _ := Seal(old, testCred())
	r := &Keyring{Current: NewKey("new"), Old: old, OldExpiry: t0.Add(time.Hour)}
	if _, err := Open(r, text, t0); err != nil {
		t.Fatalf("old key before its expiry: %v", err)
	}
	r.OldExpiry = t0
	if _, err := Open(r, text, t0); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("old key after its expiry: %v", err)
	}
}

func TestReplayCacheSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), ReplayFile)
	keys := ring("k")
	c1, err := OpenReplayCache(path, t0)
	if err != nil {
		t.Fatal(err)
	}
	v := &Verifier{Keys: keys, Cache: c1, Daemon: "mbatchd", Host: "host1", Now: func() time.Time { return t0 }}
	text, _ := Seal(keys.Current, testCred())
	if _, err := v.Verify(text); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(text); !errors.Is(err, ErrReplayed) {
		t.Fatalf("replayed: %v", err)
	}
	// A restart without a clean close (the file is not closed: a crash).
	c2, err := OpenReplayCache(path, t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	v.Cache = c2
	if _, err := v.Verify(text); !errors.Is(err, ErrReplayed) {
		t.Fatalf("replayed after a restart: %v", err)
	}
	c := testCred()
	c.Nonce[0] = 99
	other, _ := Seal(keys.Current, c)
	if _, err := v.Verify(other); err != nil {
		t.Fatalf("a new credential after the restart: %v", err)
	}
	c2.Close()
	c1.Close()
	// After the expiry, the restarted cache forgets the nonces.
	c3, err := OpenReplayCache(path, t0.Add(DefaultTTL+2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	if n := c3.Len(); n != 0 {
		t.Fatalf("%d nonces kept after their expiry", n)
	}
}

func TestVerifierWrongPeer(t *testing.T) {
	keys := ring("k")
	text, _ := Seal(keys.Current, testCred())
	for _, v := range []*Verifier{{Keys: keys, Daemon: "lim", Host: "host1"}, {Keys: keys, Daemon: "mbatchd", Host: "host2"}} {
		v.Now = func() time.Time { return t0 }
		if _, err := v.Verify(text); !errors.Is(err, ErrWrongPeer) {
			t.Errorf("%s on %s: %v, want ErrWrongPeer", v.Daemon, v.Host, err)
		}
	}
}

// fakeConn is a connection from a given address.
type fakeConn struct {
	net.Conn
	remote net.Addr
}

func (c fakeConn) RemoteAddr() net.Addr { return c.remote }

func tcpAddr(s string) net.Addr { return net.TCPAddrFromAddrPort(netip.MustParseAddrPort(s)) }

// TestAuthenticatorAcrossHosts: hosts on their own addresses (as in
// separate network namespaces); a credential is accepted only from its
// client host's address, and only for a host of the cluster.
func TestAuthenticatorAcrossHosts(t *testing.T) {
	keys := ring("k")
	hosts := map[string]netip.Addr{"host1": netip.MustParseAddr("10.9.0.1"), "host2": netip.MustParseAddr("10.9.0.2")}
	a := &Authenticator{
		Verifier: &Verifier{Keys: keys, Daemon: "mbatchd", Host: "host1"},
		Hosts: &HostCheck{
			InCluster: func(h string) (string, bool) { _, ok := hosts[h]; return h, ok },
			Addrs: func(_ context.Context, h string) ([]netip.Addr, error) {
				return []netip.Addr{hosts[h]}, nil
			},
		},
	}
	seal := func(host, kind string, uid uint32) []byte {
		x, err := SealFor(keys, int(uid), 100, "alice", host, kind, "mbatchd", "host1", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	hello := func(cred []byte) *api.ConnHello {
		return &api.ConnHello{Scheme: "eauth", Credential: cred, User: "root", UID: 0}
	}
	id, err := a.Authenticate(context.Background(), fakeConn{remote: tcpAddr("10.9.0.2:40000")}, hello(seal("host2", "user", 1001)))
	if err != nil || id.UID != 1001 || id.User != "alice" || id.Host != "host2" || id.Daemon != "" {
		t.Fatalf("user of host2 from 10.9.0.2: %+v %v", id, err)
	}
	id, err = a.Authenticate(context.Background(), fakeConn{remote: tcpAddr("10.9.0.2:40001")}, hello(seal("host2", "sbatchd", 0)))
	if err != nil || !id.IsDaemon(auth.KindSbatchd, "host2") {
		t.Fatalf("sbatchd of host2: %+v %v", id, err)
	}
	for _, tc := range []struct {
		name, from, host string
		want             error
	}{
		{"host2's credential from host1's address", "10.9.0.1:40000", "host2", ErrNotInCluster},
		{"host2's credential from elsewhere", "10.9.0.7:40000", "host2", ErrNotInCluster},
		{"a host outside the cluster", "10.9.0.9:40000", "host9", ErrNotInCluster},
		{"loopback for a 10.x host", "127.0.0.1:40000", "host2", ErrNotInCluster},
	} {
		if _, err := a.Authenticate(context.Background(), fakeConn{remote: tcpAddr(tc.from)}, hello(seal(tc.host, "user", 1001))); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// A daemon from the wrong address: "User permission denied".
	if _, err := a.Authenticate(context.Background(), fakeConn{remote: tcpAddr("10.9.0.1:40000")}, hello(seal("host2", "lim", 0))); !errors.Is(err, auth.ErrDenied) {
		t.Errorf("daemon from the wrong address: %v", err)
	}
	// No credential, a garbage one, the ident scheme: denied.
	for _, h := range []*api.ConnHello{{Scheme: "eauth"}, {Scheme: "eauth", Credential: []byte("basalt1.AAAA")}, {Scheme: "ident", User: "root"}} {
		if _, err := a.Authenticate(context.Background(), fakeConn{remote: tcpAddr("10.9.0.2:1")}, h); !errors.Is(err, auth.ErrDenied) {
			t.Errorf("hello %+v: %v, want denied", h, err)
		}
	}
}
