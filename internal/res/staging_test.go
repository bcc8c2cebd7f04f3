package res

import (
	"context"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// stagingUsers are the two test users (scripts/setup-test-env.sh).
func stagingUsers(t *testing.T) (*user.User, *user.User) {
	if os.Geteuid() != 0 {
		t.Skip("RES serves other users' files as root only")
	}
	a, err := user.Lookup("basalt1")
	if err != nil {
		t.Skip("no basalt1 (run scripts/setup-test-env.sh as root)")
	}
	b, err := user.Lookup("basalt2")
	if err != nil {
		t.Skip("no basalt2 (run scripts/setup-test-env.sh as root)")
	}
	return a, b
}

// fileClient dials addr with hello (fakeAuth: Scheme is the daemon kind).
func fileClient(addr string, hello *api.ConnHello) *FileClient {
	return &FileClient{Dial: func(ctx context.Context, host string) (*rpc.Client, error) { return rpc.Dial(ctx, addr, hello) }}
}

func fetchAll(c *FileClient, user, path string) (string, os.FileMode, error) {
	mode, r, err := c.Fetch(context.Background(), "testhost", user, path)
	if err != nil {
		return "", 0, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	return string(b), mode, err
}

// TestStagingAsJobUser: an sbatchd acting for a job's user reads and
// writes that user's files as that user, with the kernel's checks: it
// gets the user's own files and not another user's, and what it stores is
// the user's.
func TestStagingAsJobUser(t *testing.T) {
	alice, bob := stagingUsers(t)
	addr := startRESRoot(t, false)
	dir := openDir(t)
	mine := filepath.Join(dir, "mine")
	os.WriteFile(mine, []byte("alice's data"), 0o750)
	uidA, _ := strconv.Atoi(alice.Uid)
	gidA, _ := strconv.Atoi(alice.Gid)
	os.Chown(mine, uidA, gidA)
	theirs := filepath.Join(dir, "theirs")
	os.WriteFile(theirs, []byte("bob's secret"), 0o600)
	uidB, _ := strconv.Atoi(bob.Uid)
	os.Chown(theirs, uidB, uidB)

	sbd := fileClient(addr, &api.ConnHello{User: "root", Scheme: "sbatchd"})
	if got, mode, err := fetchAll(sbd, "basalt1", mine); err != nil || got != "alice's data" || mode != 0o750 {
		t.Errorf("sbatchd for basalt1 fetching basalt1's file: %q %o %v", got, mode, err)
	}
	if _, _, err := fetchAll(sbd, "basalt1", theirs); rpc.CodeOf(err) != rpc.PermissionDenied || !strings.Contains(err.Error(), "Permission denied") {
		t.Errorf("sbatchd for basalt1 fetching basalt2's 0600 file: %v, want permission denied", err)
	}
	out := filepath.Join(dir, "out")
	if err := sbd.Store(context.Background(), "testhost", "basalt1", out, false, 0o640, strings.NewReader("result\n")); err != nil {
		t.Fatal(err)
	}
	if err := sbd.Store(context.Background(), "testhost", "basalt1", out, true, 0o640, strings.NewReader("more\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(out)
	if b, _ := os.ReadFile(out); string(b) != "result\nmore\n" || err != nil || fi.Sys().(*syscall.Stat_t).Uid != uint32(uidA) {
		t.Errorf("stored %q (%v), owner %v: want basalt1's", b, err, fi.Sys())
	}
	if err := sbd.Store(context.Background(), "testhost", "basalt1", theirs, false, 0o600, strings.NewReader("overwritten")); rpc.CodeOf(err) != rpc.PermissionDenied {
		t.Errorf("sbatchd for basalt1 overwriting basalt2's file: %v, want permission denied", err)
	}
	if b, _ := os.ReadFile(theirs); string(b) != "bob's secret" {
		t.Errorf("basalt2's file now %q", b)
	}
}

// TestStagingRefusals: who may not act for a user. A user cannot read
// another user's files by naming that user (account mapping refuses
// without that account's .lsfhosts), nor by being a daemon of another
// kind; sbatchd must name a user that exists and is not root (without
// LSF_ROOT_REX), with an absolute path.
func TestStagingRefusals(t *testing.T) {
	alice, bob := stagingUsers(t)
	addr := startRESRoot(t, false)
	dir := openDir(t)
	theirs := filepath.Join(dir, "theirs")
	os.WriteFile(theirs, []byte("bob's secret"), 0o600)
	uidB, _ := strconv.Atoi(bob.Uid)
	os.Chown(theirs, uidB, uidB)
	rootOnly := filepath.Join(dir, "root-only")
	os.WriteFile(rootOnly, []byte("root's"), 0o600)

	asAlice := fileClient(addr, helloOf(alice))
	for _, tc := range []struct {
		name string
		c    *FileClient
		user string
		path string
		want string
	}{
		{"user naming another user", asAlice, "basalt2", theirs, "User permission denied"}, // account mapping refuses: LSF's text (the reason is logged)
		{"user naming root", asAlice, "root", rootOnly, "User permission denied"},
		{"user reading another's file as itself", asAlice, "", theirs, "Permission denied"},
		{"lim acting for a user", fileClient(addr, &api.ConnHello{User: "root", Scheme: "lim"}), "basalt2", theirs, "a lim does not copy users' files"},
		{"mbatchd acting for a user", fileClient(addr, &api.ConnHello{User: "root", Scheme: "mbatchd"}), "basalt2", theirs, "a mbatchd does not copy users' files"},
		{"sbatchd naming no user", fileClient(addr, &api.ConnHello{User: "root", Scheme: "sbatchd"}), "", rootOnly, "names no user"},
		{"sbatchd acting for root", fileClient(addr, &api.ConnHello{User: "root", Scheme: "sbatchd"}), "root", rootOnly, "Root user rejected"},
		{"sbatchd acting for an unknown user", fileClient(addr, &api.ConnHello{User: "root", Scheme: "sbatchd"}), "nosuchuser", rootOnly, "is not known"},
		{"sbatchd with a relative path", fileClient(addr, &api.ConnHello{User: "root", Scheme: "sbatchd"}), "basalt2", "theirs", "must be absolute"},
	} {
		_, _, err := fetchAll(tc.c, tc.user, tc.path)
		if rpc.CodeOf(err) != rpc.PermissionDenied || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: fetch %v, want permission denied (%q)", tc.name, err, tc.want)
		}
		err = tc.c.Store(context.Background(), "testhost", tc.user, tc.path, false, 0o644, strings.NewReader("overwritten"))
		if rpc.CodeOf(err) != rpc.PermissionDenied || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: store %v, want permission denied (%q)", tc.name, err, tc.want)
		}
	}
	if b, _ := os.ReadFile(theirs); string(b) != "bob's secret" {
		t.Errorf("basalt2's file now %q", b)
	}
	if b, _ := os.ReadFile(rootOnly); string(b) != "root's" {
		t.Errorf("root's file now %q", b)
	}
}
