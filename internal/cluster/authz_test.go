package cluster_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/cluster"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// The authorization matrix: every controlling command, badmin and the
// detail view x every role, on a job of basalt1 in queue qa, run as real processes of
// real users against real daemons. LSF's rules: the owner, the job queue's
// administrators, the GROUP_ADMIN of a group holding the owner, cluster
// administrators and root may control a job and see its details; brun is
// for cluster administrators (and root) only.

const authzQueues = `Begin Queue
QUEUE_NAME = normal
PRIORITY = 30
End Queue

Begin Queue
QUEUE_NAME = qa
PRIORITY = 40
ADMINISTRATORS = basalt3
End Queue

Begin Queue
QUEUE_NAME = qb
PRIORITY = 20
ADMINISTRATORS = basalt4
End Queue
`

const authzUsers = `Begin UserGroup
GROUP_NAME  GROUP_MEMBER  GROUP_ADMIN
ga          (basalt1)     (basalt5)
gb          (basalt2)     (basalt6)
End UserGroup
`

type authzRole struct {
	name, user string
}

var authzRoles = []authzRole{
	{"owner", "basalt1"},
	{"other user", "basalt2"},
	{"admin of the job's queue", "basalt3"},
	{"admin of another queue", "basalt4"},
	{"admin of the owner's group", "basalt5"},
	{"admin of another group", "basalt6"},
	{"cluster admin", "basalt7"},
	{"root", "root"},
}

// mayAct is the expected decision.
func mayAct(role, command string) bool {
	switch role {
	case "cluster admin", "root":
		return true
	case "owner", "admin of the job's queue", "admin of the owner's group":
		return command != "brun" && command != "badmin"
	}
	return false
}

func TestAuthorizationMatrix(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (commands run as test users)")
	}
	if testutil.Race {
		// Its command processes are copies of the race-built test binary
		// run as other users, which do not complete there; CI runs the
		// matrix in the plain pass, and the daemons' concurrency in the
		// race runs of the script tests.
		t.Skip("runs copies of the test binary as other users: not under the race detector")
	}
	for _, r := range authzRoles {
		if _, err := user.Lookup(r.user); err != nil {
			t.Skipf("test user %s missing (scripts/setup-test-env.sh creates basalt1-7)", r.user)
		}
	}
	c := upFiles(t, 2, 12, map[string][]byte{"lsb.queues": []byte(authzQueues), "lsb.users": []byte(authzUsers)})
	os.Chmod(filepath.Dir(c.Opts.Dir), 0o755)
	os.Chmod(c.Opts.Dir, 0o755)
	// basalt7 administers the cluster.
	lc := filepath.Join(c.EnvDir, "lsf.cluster."+c.Opts.Cluster)
	b, err := os.ReadFile(lc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lc, []byte(strings.Replace(string(b), "ADMINISTRATORS = root", "ADMINISTRATORS = root basalt7", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := publicCommands(t)
	as := func(u string, args ...string) string {
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, filepath.Join(bin, args[0]), args[1:]...)
		home := "/root"
		if u != "root" {
			acct, _ := user.Lookup(u)
			uid, _ := strconv.Atoi(acct.Uid)
			gid, _ := strconv.Atoi(acct.Gid)
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
			home = acct.HomeDir
		}
		cmd.Dir = bin
		cmd.Env = append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST=host1", "HOME="+home, "PWD="+bin)
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := as("root", "badmin", "reconfig"); !strings.Contains(out, "Reconfiguration initiated") {
		t.Fatalf("badmin reconfig: %s", out)
	}
	testutil.Eventually(t, 60*time.Second, "mbatchd answering with the new configuration", func() bool {
		return strings.Contains(as("root", "bqueues", "qa"), "qa")
	})
	jobRE := regexp.MustCompile(`Job <(\d+)>`)
	submit := func(args ...string) string {
		out := as("basalt1", append([]string{"bsub", "-q", "qa", "-o", "/dev/null"}, args...)...)
		m := jobRE.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("bsub as basalt1: %s", out)
		}
		return m[1]
	}
	waitRun := func(id string) {
		testutil.Eventually(t, 60*time.Second, "job "+id+" running", func() bool {
			return strings.Contains(as("root", "bjobs", "-noheader", "-o", "stat", id), "RUN")
		})
	}
	type check struct {
		command string
		run     func(u, id string) string
		running bool
		denied  func(out string) bool
	}
	permission := func(out string) bool {
		l := strings.ToLower(out)
		return strings.Contains(l, "permission denied") || strings.Contains(l, "user permission")
	}
	checks := []check{
		{"bkill", func(u, id string) string { return as(u, "bkill", id) }, false, permission},
		{"bstop", func(u, id string) string { return as(u, "bstop", id) }, false, permission},
		{"bresume", func(u, id string) string { return as(u, "bresume", id) }, false, permission},
		{"brequeue", func(u, id string) string { return as(u, "brequeue", id) }, true, permission},
		{"bmod", func(u, id string) string { return as(u, "bmod", "-W", "30", id) }, false, permission},
		{"bswitch", func(u, id string) string { return as(u, "bswitch", "qb", id) }, false, permission},
		{"btop", func(u, id string) string { return as(u, "btop", id) }, false, permission},
		{"bbot", func(u, id string) string { return as(u, "bbot", id) }, false, permission},
		{"bpeek", func(u, id string) string { return as(u, "bpeek", id) }, true, permission},
		{"brun", func(u, id string) string { return as(u, "brun", "-m", "host2", id) }, false, permission},
		{"badmin", func(u, id string) string {
			out := as(u, "badmin", "hclose", "host2")
			as("root", "badmin", "hopen", "host2")
			return out
		}, false, permission},
		{"bjobs -l", func(u, id string) string { return as(u, "bjobs", "-l", id) }, false,
			func(out string) bool {
				return strings.Contains(out, "(hidden)") && !strings.Contains(out, "matrix-job")
			}},
	}
	wrongAllow, wrongDeny := 0, 0
	var table strings.Builder
	for _, ck := range checks {
		fmt.Fprintf(&table, "%-9s", ck.command)
		for _, r := range authzRoles {
			var id string
			if ck.running {
				id = submit("echo matrix-job; sleep 600")
				waitRun(id)
			} else {
				id = submit("-H", "echo matrix-job; sleep 600")
			}
			out := ck.run(r.user, id)
			denied := ck.denied(out)
			want := mayAct(r.name, ck.command)
			mark := "ok"
			switch {
			case want && denied:
				wrongDeny++
				mark = "WRONG-DENY"
				t.Errorf("%s by %s (%s) on job %s denied: %s", ck.command, r.name, r.user, id, out)
			case !want && !denied:
				wrongAllow++
				mark = "WRONG-ALLOW"
				t.Errorf("%s by %s (%s) on job %s allowed: %s", ck.command, r.name, r.user, id, out)
			}
			fmt.Fprintf(&table, " %s:%s", r.user, mark)
			as("root", "bkill", id)
		}
		table.WriteString("\n")
	}
	t.Logf("authorization matrix (%d commands x %d roles):\n%s", len(checks), len(authzRoles), table.String())
	t.Logf("wrong allows: %d, wrong denies: %d", wrongAllow, wrongDeny)
}

// upFiles is up with configuration files replaced.
func upFiles(t *testing.T, hosts, slots int, files map[string][]byte) *cluster.Cluster {
	t.Helper()
	c, err := cluster.Up(t.Context(), cluster.Options{Dir: t.TempDir(), Hosts: hosts, Slots: slots, Files: files,
		Cluster: fmt.Sprintf("z%d-%d", os.Getpid()%100000, clusterSeq.Add(1)), Has: func(n string) bool { _, ok := cli.Lookup(n); return ok }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Down(t.Context()) })
	return c
}

// publicCommands copies the test binary where every user can run it, with
// a link per command.
func publicCommands(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "authz-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	exe, _ := os.Executable()
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "basalt")
	if err := os.WriteFile(target, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bsub", "bkill", "bstop", "bresume", "brequeue", "bmod", "bswitch", "btop", "bbot", "bpeek", "brun", "bjobs", "badmin", "bqueues"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
