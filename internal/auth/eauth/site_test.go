package eauth

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
)

// A site's eauth: -c prints who and for whom; -s accepts the data "ok-<uid>"
// for that uid, answers at most two requests, then exits (the daemon must
// restart it).
const siteEauth = `#!/bin/sh
if [ "$1" = -c ]; then printf 'ok-%s %s %s %s\n' "$(id -u)" "$LSF_EAUTH_CLIENT" "$LSF_EAUTH_SERVER" "$2"; exit 0; fi
n=0
while read uid gid user addr port len client server aux auxst data; do
  if [ "$data" = "ok-$uid" ] && [ "$server" = "$LSF_EAUTH_SERVER" ]; then echo 1; else echo 0; fi
  n=$((n+1)); [ $n -ge 2 ] && exit 0
done
`

func TestSiteEauth(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "eauth")
	if err := os.WriteFile(path, []byte(siteEauth), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := SiteEauth(dir); got != path {
		t.Fatalf("SiteEauth = %q, want %q", got, path)
	}
	out, err := RunClient(context.Background(), path, "sbatchd", "mbatchd", "host1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "ok-" + strconv.Itoa(os.Getuid()) + " sbatchd mbatchd host1"; string(out) != want {
		t.Fatalf("eauth -c printed %q, want %q", out, want)
	}
	s := &SiteServer{Path: path, Daemon: "mbatchd"}
	defer s.Close()
	a := &Authenticator{Site: s, Hosts: &HostCheck{
		InCluster: func(h string) (string, bool) { return h, h == "host2" },
		Addrs: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("10.9.0.2")}, nil
		},
	}}
	conn := fakeConn{remote: tcpAddr("10.9.0.2:5000")}
	// Five requests: the script exits after every second one.
	for i, tc := range []struct {
		uid  int32
		data string
		ok   bool
	}{{1001, "ok-1001", true}, {1001, "ok-0", false}, {0, "ok-0", true}, {1002, "bad", false}, {1002, "ok-1002", true}} {
		id, err := a.Authenticate(context.Background(), conn, &api.ConnHello{Scheme: "eauth", UID: tc.uid, GID: 1, User: "u", Host: "host2", Credential: []byte(tc.data)})
		if tc.ok != (err == nil) {
			t.Fatalf("request %d (%+v): %v", i, tc, err)
		}
		if err == nil && id.UID != int(tc.uid) {
			t.Fatalf("request %d: uid %d", i, id.UID)
		}
		if err != nil && !errors.Is(err, auth.ErrDenied) {
			t.Fatalf("request %d: %v, want User permission denied", i, err)
		}
	}
}

func TestSiteEauthBasaltsOwn(t *testing.T) {
	dir := t.TempDir()
	if SiteEauth(dir) != "" {
		t.Error("no eauth: a site eauth")
	}
	os.Symlink("/usr/local/bin/basaltd", filepath.Join(dir, "eauth"))
	if SiteEauth(dir) != "" {
		t.Error("a link to basaltd: a site eauth")
	}
}

func TestIsSelf(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cp := filepath.Join(dir, "eauth")
	os.WriteFile(cp, src, 0o755)
	if !IsSelf(cp) || !IsSelf(exe) {
		t.Fatal("a copy of this executable is not recognised")
	}
	src[len(src)/2] ^= 1
	os.WriteFile(cp, src, 0o755)
	if IsSelf(cp) {
		t.Fatal("a changed copy is taken for this executable")
	}
	if IsSelf(filepath.Join(dir, "none")) {
		t.Fatal("a missing file is this executable")
	}
}
