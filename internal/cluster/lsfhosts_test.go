package cluster_test

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/testutil"
)

// TestLsfhostsMapping: a job of basalt1 whose ~/.lsfhosts maps host2 to
// basalt2 runs as basalt2 on host2 once basalt2's ~/.lsfhosts accepts
// basalt1 from host1; without that consent, and on hosts the file does not
// name, it runs as basalt1; a mapping file open to others is ignored.
func TestLsfhostsMapping(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (jobs of test users)")
	}
	a, errA := user.Lookup("basalt1")
	b, errB := user.Lookup("basalt2")
	if errA != nil || errB != nil {
		t.Skip("test users basalt1 and basalt2 missing (scripts/setup-test-env.sh creates them)")
	}
	writeAs := func(u *user.User, content string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(u.HomeDir, ".lsfhosts")
		if _, err := os.Stat(p); err == nil {
			t.Skipf("%s exists: not overwriting a real user's file", p)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		os.Chown(p, uid, gid)
		os.Chmod(p, mode)
		t.Cleanup(func() { os.Remove(p) })
	}
	c := up(t, 3, 2)
	// Users read the configuration, as on any LSF host.
	os.Chmod(filepath.Dir(c.Opts.Dir), 0o755)
	os.Chmod(c.Opts.Dir, 0o755)
	// basalt1 must be able to run the binary and write the output.
	pub, err := os.MkdirTemp("", "lsfhosts-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(pub)
	os.Chmod(pub, 0o1777)
	bsub := filepath.Join(publicCommands(t), "bsub")
	uid, _ := strconv.Atoi(a.Uid)
	gid, _ := strconv.Atoi(a.Gid)
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	run := func(host, out string) string {
		t.Helper()
		cmd := exec.Command(bsub, "-m", host, "-o", out, "id -un")
		cmd.Env = append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST=host1", "HOME="+a.HomeDir, "PWD="+pub)
		cmd.Dir = pub
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("bsub as basalt1: %v: %s", err, b)
		}
		var first string
		testutil.Eventually(t, 60*time.Second, "the job's output in "+out, func() bool {
			b, err := os.ReadFile(out)
			first, _, _ = strings.Cut(string(b), "\n")
			return err == nil && strings.Contains(string(b), "Resource usage summary")
		})
		return first
	}
	writeAs(a, "host2 basalt2 send\n", 0o600)
	if got := run("host2", filepath.Join(pub, "no-consent")); got != "basalt1" {
		t.Errorf("mapped without basalt2's consent: ran as %q", got)
	}
	writeAs(b, "host1 basalt1 recv\n", 0o600)
	if got := run("host2", filepath.Join(pub, "mapped")); got != "basalt2" {
		t.Errorf("a mapping both accounts agree to: ran as %q, want basalt2", got)
	}
	if got := run("host3", filepath.Join(pub, "unmapped")); got != "basalt1" {
		t.Errorf("a host the mapping does not name: ran as %q", got)
	}
	os.Chmod(filepath.Join(a.HomeDir, ".lsfhosts"), 0o644)
	if got := run("host2", filepath.Join(pub, "open")); got != "basalt1" {
		t.Errorf("a mapping file others can read was used: ran as %q", got)
	}
}
