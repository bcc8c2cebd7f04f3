package cluster

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
	"github.com/basalt-lsf/basalt/internal/config/defaults"
	"github.com/basalt-lsf/basalt/internal/res"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// TestNetnsJobFileAccess: the bsub -f path of a RES between separate hosts
// under eauth. host3's sbatchd (the credential its shepherd seals) acting
// for a job's user reads that user's files on host2 and not another
// user's (the kernel checks them as the user); a user cannot act for
// another user, whether by naming that user or by claiming to be an
// sbatchd in its hello; another daemon kind cannot act for a user; an
// sbatchd credential from a machine outside the cluster, or from another
// host's address, is not authenticated.
func TestNetnsJobFileAccess(t *testing.T) {
	if err := NetnsSupport(context.Background()); err != nil {
		t.Skip(err)
	}
	alice, err1 := user.Lookup("basalt1")
	bob, err2 := user.Lookup("basalt2")
	if err1 != nil || err2 != nil {
		t.Skip("needs users basalt1 and basalt2 (scripts/setup-test-env.sh)")
	}
	c, err := Up(context.Background(), Options{Dir: t.TempDir(), Hosts: 3, Netns: true, Cluster: fmt.Sprintf("x%d", os.Getpid()%100000)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down(context.Background())
	rogue := addRogue(t, c, 97)

	keys, _, err := eauth.LoadKeyring(eauth.SudoersPath(c.EnvDir), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	resPort, _, _, _ := defaults.Ports(c.portBase())
	host2RES := net.JoinHostPort(c.HostAddr(2).String(), strconv.Itoa(resPort))
	// client seals, as the key's holder would (the LIM's agent for a user,
	// the shepherd for its sbatchd), a credential of kind for name
	// from host, and dials host2's RES from namespace ns; hello.Daemon is
	// claim.
	client := func(ns string, u *user.User, host, kind, claim string) *res.FileClient {
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &res.FileClient{Dial: func(ctx context.Context, _ string) (*rpc.Client, error) {
			cred, err := eauth.SealFor(keys, uid, gid, u.Username, host, kind, auth.KindRES, "host2", time.Now())
			if err != nil {
				return nil, err
			}
			hello := &api.ConnHello{User: u.Username, Host: host, Scheme: eauth.SchemeEauth, UID: int32(uid), GID: int32(gid), Credential: cred, Daemon: claim}
			var cl *rpc.Client
			err = InNetns(ns, func() (err error) { cl, err = rpc.Dial(ctx, host2RES, hello); return err })
			return cl, err
		}}
	}
	root, _ := user.Lookup("root")
	host1, host3 := c.net.hosts[0].ns, c.net.hosts[2].ns

	dir, err := os.MkdirTemp("", "basalt-stage-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	own := func(p, data string, u *user.User) {
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chown(p, uid, gid)
	}
	alices, bobs := filepath.Join(dir, "alice"), filepath.Join(dir, "bob")
	own(alices, "alice's input", alice)
	own(bobs, "bob's secret", bob)

	fetch := func(fc *res.FileClient, as, path string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, r, err := fc.Fetch(ctx, "host2", as, path)
		if err != nil {
			return "", err
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		return string(b), err
	}
	store := func(fc *res.FileClient, as, path string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return fc.Store(ctx, "host2", as, path, false, 0o600, strings.NewReader("overwritten"))
	}

	sbd := client(host3, root, "host3", auth.KindSbatchd, auth.KindSbatchd)
	if got, err := fetch(sbd, "basalt1", alices); err != nil || got != "alice's input" {
		t.Errorf("host3's sbatchd for basalt1, basalt1's file: %q, %v", got, err)
	}
	if _, err := fetch(sbd, "basalt1", bobs); rpc.CodeOf(err) != rpc.PermissionDenied {
		t.Errorf("host3's sbatchd for basalt1, basalt2's 0600 file: %v, want PermissionDenied", err)
	}
	for _, tc := range []struct {
		name string
		fc   *res.FileClient
		as   string
		want rpc.Code
	}{
		{"basalt1 naming basalt2", client(host3, alice, "host3", auth.KindUser, ""), "basalt2", rpc.PermissionDenied},
		{"basalt1 claiming to be sbatchd", client(host3, alice, "host3", auth.KindUser, auth.KindSbatchd), "basalt2", rpc.PermissionDenied},
		{"basalt1 as itself", client(host3, alice, "host3", auth.KindUser, ""), "", rpc.PermissionDenied},
		{"host3's LIM for basalt2", client(host3, root, "host3", auth.KindLIM, auth.KindLIM), "basalt2", rpc.PermissionDenied},
		{"an sbatchd outside the cluster claiming host3", client(rogue, root, "host3", auth.KindSbatchd, auth.KindSbatchd), "basalt2", rpc.Unauthenticated},
		{"host3's sbatchd credential from host1's address", client(host1, root, "host3", auth.KindSbatchd, auth.KindSbatchd), "basalt2", rpc.Unauthenticated},
	} {
		if got, err := fetch(tc.fc, tc.as, bobs); rpc.CodeOf(err) != tc.want {
			t.Errorf("%s: fetch of basalt2's file: %q, %v; want %v", tc.name, got, err, tc.want)
		}
		if err := store(tc.fc, tc.as, bobs); rpc.CodeOf(err) != tc.want {
			t.Errorf("%s: store onto basalt2's file: %v; want %v", tc.name, err, tc.want)
		}
	}
	if b, _ := os.ReadFile(bobs); string(b) != "bob's secret" {
		t.Errorf("basalt2's file now %q", b)
	}
}
