package sbd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/sbd/procfs"
)

// launchAll sends the launches at once and returns each job's Ack.
func launchAll(t *testing.T, s *fakeSession, ls []*api.JobLaunch) map[int64]*api.Ack {
	t.Helper()
	seqs := map[uint64]int64{}
	for _, l := range ls {
		seqs[s.send(&api.MbdMessage{Launch: l})] = l.JobID
	}
	acks := map[int64]*api.Ack{}
	for seq, id := range seqs {
		a := s.ack(seq)
		if a.Status != nil {
			t.Fatalf("launch of job %d: %+v", id, a.Status)
		}
		acks[id] = a
	}
	return acks
}

// runningAll waits until every job of ids has reported RUN.
func runningAll(t *testing.T, s *fakeSession, ids []int64) map[int64]*api.JobStatusReport {
	t.Helper()
	out := map[int64]*api.JobStatusReport{}
	for len(out) < len(ids) {
		r := s.report("RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun && r.PID > 0 })
		out[r.JobID] = r
	}
	return out
}

// gone reports whether process pid no longer runs (a zombie is gone).
func gone(pid int) bool { return !(procfs.FS{}).Alive(pid, 0) }

// TestSharedShepherdHost: jobs launched at once all run under one shepherd
// process, each in its own cgroup with its own exit status; once sbatchd
// shuts down and the jobs are done, the shepherd process exits.
func TestSharedShepherdHost(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	cleanupCgroups(t, cfg)
	t.Cleanup(func() { killJobs(cfg) })
	p := startProc(t, cfg)
	s := mbd.session()
	const n = 12
	var ls []*api.JobLaunch
	var ids []int64
	for i := 0; i < n; i++ {
		id := int64(200 + i)
		cmd := fmt.Sprintf("cat /proc/self/cgroup > cg-%d; echo run >> runs-%d; while [ ! -e go ]; do sleep 0.02; done; exit %d", id, id, i)
		ls, ids = append(ls, jobLaunch(id, "root", sub, cmd)), append(ids, id)
	}
	acks := launchAll(t, s, ls)
	host := acks[200].PID
	for id, a := range acks {
		if a.PID != host {
			t.Errorf("job %d served by process %d, job 200 by %d: want one shepherd process", id, a.PID, host)
		}
	}
	runs := runningAll(t, s, ids)
	pids := map[int32]bool{}
	for id, r := range runs {
		if pids[r.PID] || r.PID == host {
			t.Errorf("job %d has PID %d, shared with another job or the shepherd", id, r.PID)
		}
		pids[r.PID] = true
	}
	if os.Geteuid() == 0 {
		for _, id := range ids {
			waitFor(t, "the job's cgroup listing", func() bool {
				b, _ := os.ReadFile(filepath.Join(sub, fmt.Sprintf("cg-%d", id)))
				return strings.Contains(string(b), "\n")
			})
			b, _ := os.ReadFile(filepath.Join(sub, fmt.Sprintf("cg-%d", id)))
			want := "/" + cfg.CgroupParent() + "/job." + strconv.FormatInt(id, 10)
			if !strings.Contains(string(b), want+"\n") {
				t.Errorf("job %d's first process is not in %s:\n%s", id, want, b)
			}
		}
	}
	os.WriteFile(filepath.Join(sub, "go"), nil, 0o644)
	for i := 0; i < n; i++ {
		fin := s.report("final", func(r *api.JobStatusReport) bool { return r.Final })
		want := int(fin.JobID - 200)
		if fin.State != api.StateExit && want != 0 || syscall.WaitStatus(fin.ExitStatus).ExitStatus() != want {
			t.Errorf("job %d: final %+v, want exit %d", fin.JobID, fin, want)
		}
		s.commit(fin)
	}
	for _, id := range ids {
		if b, _ := os.ReadFile(filepath.Join(sub, fmt.Sprintf("runs-%d", id))); string(b) != "run\n" {
			t.Errorf("job %d ran %q", id, b)
		}
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
	waitFor(t, "the shepherd process's exit", func() bool { return gone(int(host)) })
}

// TestShepherdHostKilled: when the shepherd process is killed (SIGKILL)
// its jobs keep running in their cgroups; sbatchd follows them as orphans,
// controls them through their cgroups and reports them (TERM_ZOMBIE: their
// exit status died with the shepherd) once their processes are gone; new
// jobs start under a new shepherd process.
func TestShepherdHostKilled(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("orphans are followed through their cgroups: needs root")
	}
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	inProcess(t, cfg)
	s := mbd.session()
	loop := func(id int64) string {
		return fmt.Sprintf("echo run >> runs-%d; while [ ! -e end-%d ]; do sleep 0.02; done; exit 3", id, id)
	}
	acks := launchAll(t, s, []*api.JobLaunch{jobLaunch(301, "root", sub, loop(301)), jobLaunch(302, "root", sub, loop(302))})
	runs := runningAll(t, s, []int64{301, 302})
	host := int(acks[301].PID)
	syscall.Kill(host, syscall.SIGKILL)
	waitFor(t, "the shepherd process's death", func() bool { return gone(host) })
	// The jobs run on. A real sleep: that nothing happens (the jobs, other
	// processes, do not die) has no event to wait for; they are given time.
	time.Sleep(300 * time.Millisecond)
	for id, r := range runs {
		if gone(int(r.PID)) {
			t.Fatalf("job %d (pid %d) died with its shepherd", id, r.PID)
		}
	}
	// A new job gets a new shepherd process.
	a := s.launch(jobLaunch(303, "root", sub, "exit 0"))
	if a.Status != nil || a.PID == int32(host) || a.PID <= 0 {
		t.Fatalf("launch after the shepherd's death: %+v", a)
	}
	if fin := s.final(303); fin.State != api.StateDone {
		t.Errorf("job 303: %+v", fin)
	}
	// Control through the cgroup.
	seq := s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 302, Action: api.ActTerminate}})
	if a := s.ack(seq); a.Status != nil && a.Status.Code != 0 {
		t.Errorf("bkill of an orphan: %+v", a.Status)
	}
	fin := s.final(302)
	if fin.State != api.StateExit || fin.TermReason != "TERM_ZOMBIE" {
		t.Errorf("job 302: %+v, want EXIT TERM_ZOMBIE", fin)
	}
	s.commit(fin)
	os.WriteFile(filepath.Join(sub, "end-301"), nil, 0o644)
	fin = s.final(301)
	if fin.State != api.StateExit || fin.TermReason != "TERM_ZOMBIE" {
		t.Errorf("job 301: %+v, want EXIT TERM_ZOMBIE", fin)
	}
	for _, id := range []int64{301, 302} {
		if b, _ := os.ReadFile(filepath.Join(sub, fmt.Sprintf("runs-%d", id))); string(b) != "run\n" {
			t.Errorf("job %d ran %q", id, b)
		}
	}
}

// TestSIGKILLWithManyJobs: sbatchd killed with SIGKILL while several jobs
// run under the shared shepherd process; the restarted sbatchd re-adopts
// them all from the same process, never starts one twice, and reports each
// true final status, for the jobs that ended while it was down and for the
// others; new jobs go to the same shepherd process.
func TestSIGKILLWithManyJobs(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	cleanupCgroups(t, cfg)
	t.Cleanup(func() { killJobs(cfg) })
	p := startProc(t, cfg)
	s := mbd.session()
	const n = 8
	var ls []*api.JobLaunch
	var ids []int64
	for i := 0; i < n; i++ {
		id := int64(400 + i)
		cmd := fmt.Sprintf("echo run >> runs-%d; while [ ! -e end-%d ]; do sleep 0.02; done; exit %d", id, id, 10+i)
		ls, ids = append(ls, jobLaunch(id, "root", sub, cmd)), append(ids, id)
	}
	host := launchAll(t, s, ls)[400].PID
	runningAll(t, s, ids)
	p.kill()
	// Half the jobs end while sbatchd is down.
	for _, id := range ids[:n/2] {
		os.WriteFile(filepath.Join(sub, fmt.Sprintf("end-%d", id)), nil, 0o644)
	}
	for _, id := range ids[:n/2] {
		waitFor(t, "a final state in the spool", func() bool {
			st, err := newRoot(cfg).Job(strconv.FormatInt(id, 10)).ReadState()
			return err == nil && st.Final
		})
	}
	p = startProc(t, cfg)
	s = mbd.session()
	finals := map[int64]*api.JobStatusReport{}
	for _, r := range s.hello.Jobs {
		switch {
		case r.Final:
			finals[r.JobID] = r
		case r.State != api.StateRun:
			t.Errorf("hello reports %+v", r)
		}
	}
	if len(s.hello.Jobs) != n || len(finals) != n/2 {
		t.Fatalf("hello has %d jobs, %d final; want %d, %d", len(s.hello.Jobs), len(finals), n, n/2)
	}
	for _, id := range ids[n/2:] {
		os.WriteFile(filepath.Join(sub, fmt.Sprintf("end-%d", id)), nil, 0o644)
	}
	for len(finals) < n {
		r := s.report("final", func(r *api.JobStatusReport) bool { return r.Final })
		finals[r.JobID] = r
	}
	for i, id := range ids {
		fin := finals[id]
		if fin.State != api.StateExit || syscall.WaitStatus(fin.ExitStatus).ExitStatus() != 10+i {
			t.Errorf("job %d: final %+v, want EXIT %d", id, fin, 10+i)
		}
		if b, _ := os.ReadFile(filepath.Join(sub, fmt.Sprintf("runs-%d", id))); string(b) != "run\n" {
			t.Errorf("job %d ran %q", id, b)
		}
		s.commit(fin)
	}
	if a := s.launch(jobLaunch(409, "root", sub, "exit 0")); a.PID != host {
		t.Errorf("new job served by %d, want the running shepherd process %d", a.PID, host)
	}
	s.final(409)
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
}

// TestHostOfAnotherBuildIsRetired: after an upgrade (sbatchd's shepherd
// program is another build than the running shepherd process's), the
// restarted sbatchd re-adopts the old process's jobs, retires it (it exits
// after its last job) and starts new jobs under a new process.
func TestHostOfAnotherBuildIsRetired(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	cleanupCgroups(t, cfg)
	t.Cleanup(func() { killJobs(cfg) })
	p := startProc(t, cfg)
	s := mbd.session()
	old := int(s.launch(jobLaunch(501, "root", sub, "while [ ! -e end ]; do sleep 0.02; done; exit 5")).PID)
	s.status(501, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
	p.kill()
	// The upgrade: another build of the program at the shepherd path.
	upgraded := filepath.Join(filepath.Dir(state), "basalt-upgraded")
	copyFile(t, os.Args[0], upgraded)
	os.Chmod(upgraded, 0o755)
	cfg.ShepherdPath = upgraded
	p = startProc(t, cfg)
	s = mbd.session()
	if len(s.hello.Jobs) != 1 || s.hello.Jobs[0].State != api.StateRun {
		t.Fatalf("hello %+v, want job 501 running", s.hello.Jobs)
	}
	a := s.launch(jobLaunch(502, "root", sub, "exit 0"))
	if a.Status != nil || int(a.PID) == old {
		t.Fatalf("job 502 %+v: want a new shepherd process", a)
	}
	if fin := s.final(502); fin.State != api.StateDone {
		t.Errorf("job 502: %+v", fin)
	}
	if gone(old) {
		t.Fatal("the old shepherd process exited with a job running")
	}
	os.WriteFile(filepath.Join(sub, "end"), nil, 0o644)
	if fin := s.final(501); syscall.WaitStatus(fin.ExitStatus).ExitStatus() != 5 {
		t.Errorf("job 501: %+v", fin)
	}
	waitFor(t, "the old shepherd process's exit", func() bool { return gone(old) })
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
}
