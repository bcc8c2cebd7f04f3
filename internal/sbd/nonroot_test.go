package sbd

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
)

// TestNonRootSbatchd runs sbatchd as an ordinary user (basalt1), as a
// non-root LSF installation does: no cgroups, no user switching; it runs
// its own user's jobs and refuses the others'. Without cgroups the shared
// shepherd process is the subreaper of every job: the orphans a job leaves
// (a setsid daemon) are told apart by the job's environment, so killing one
// job kills its own and leaves another job's alone.
func TestNonRootSbatchd(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to become the test user")
	}
	acct, err := shepherd.LookupAccount("basalt1")
	if err != nil {
		t.Skipf("test user basalt1: %v (run scripts/setup-test-env.sh)", err)
	}
	state, sub := testDirs(t)
	bin := filepath.Join(filepath.Dir(state), "bin")
	os.Mkdir(bin, 0o755)
	exe := filepath.Join(bin, "sbd.test")
	copyFile(t, os.Args[0], exe)
	os.MkdirAll(state, 0o755)
	os.Chown(state, int(acct.UID), int(acct.GID))

	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	cfg.ShepherdPath, cfg.ShepherdArgv = exe, []string{exe, "job-shepherd"}
	t.Cleanup(func() { killJobs(cfg) })
	logf, _ := os.Create(filepath.Join(filepath.Dir(state), "sbatchd.log"))
	cmd := exec.Command(exe, "run-sbatchd", "-state", state, "-host", cfg.Host, "-master", mbd.addr)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + acct.Home}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(acct.UID), Gid: uint32(acct.GID)}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("sbatchd log:\n%s", b)
		}
	})
	s := mbd.session()
	l := jobLaunch(81, "basalt1", sub, "id -un > who; (setsid sleep 300 &); sleep 300")
	if a := s.launch(l); a.Status != nil || a.PID == 0 {
		t.Fatalf("launch: %+v", a)
	}
	s.status(81, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
	other := jobLaunch(83, "basalt1", sub, "(setsid sleep 301 &); touch other; sleep 301")
	if a := s.launch(other); a.Status != nil {
		t.Fatalf("launch: %+v", a)
	}
	s.status(83, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
	waitFor(t, "the jobs' first lines", func() bool {
		b, _ := os.ReadFile(filepath.Join(sub, "who"))
		_, err := os.Stat(filepath.Join(sub, "other"))
		return len(b) > 0 && err == nil
	})
	count := func(pattern string) int {
		out, _ := exec.Command("pgrep", "-u", "basalt1", "-f", pattern).Output()
		return len(strings.Fields(string(out)))
	}
	waitFor(t, "both daemons", func() bool { return count("sleep 300") == 2 && count("sleep 301") == 2 })
	if b, _ := os.ReadFile(filepath.Join(sub, "who")); strings.TrimSpace(string(b)) != "basalt1" {
		t.Errorf("job ran as %q", b)
	}
	s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 81, Action: api.ActTerminate}})
	fin := s.final(81)
	if fin.State != api.StateExit || fin.TermReason != "TERM_OWNER" || fin.ExecUser != "basalt1" {
		t.Errorf("final %+v", fin)
	}
	// The setsid daemon went with the job: the shepherd was its subreaper.
	if n := count("sleep 300"); n > 0 {
		t.Errorf("%d processes of the job survived", n)
	}
	if n := count("sleep 301"); n != 2 {
		t.Errorf("the other job has %d processes left, want 2", n)
	}
	s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 83, Action: api.ActTerminate}})
	if fin := s.final(83); fin.TermReason != "TERM_OWNER" {
		t.Errorf("final %+v", fin)
	}
	if n := count("sleep 301"); n > 0 {
		t.Errorf("%d processes of the other job survived", n)
	}
	if a := s.launch(jobLaunch(82, "basalt2", sub, "true")); a.Status == nil || a.Status.Code != LSBEBadUser {
		t.Errorf("another user's job: %+v, want LSBE_BAD_USER", a)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
