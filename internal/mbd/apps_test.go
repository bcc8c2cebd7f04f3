package mbd

import (
	"bytes"
	"slices"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// appCluster writes a cluster with two application profiles, "default"
// being DEFAULT_APPLICATION.
func appCluster(t *testing.T) string {
	t.Helper()
	dir := writeCluster(t, 1, 4)
	editBatchConf(t, dir, "lsb.params", func(b []byte) []byte {
		return bytes.Replace(b, []byte("End Parameters"), []byte("DEFAULT_APPLICATION = default\nEnd Parameters"), 1)
	})
	apps := `
Begin Application
NAME = default
RUNLIMIT = 5
ENV_VARS = "WHERE=default"
End Application

Begin Application
NAME = solver
RUNLIMIT = 20
MEMLIMIT = 1000 # MB (LSF_UNIT_FOR_LIMITS)
PRE_EXEC = /bin/app-pre
JOB_STARTER = nice %USRCMD
SUCCESS_EXIT_VALUES = 3 4
REQUEUE_EXIT_VALUES = 9
ENV_VARS = "WHERE=solver,MODE=fast"
End Application
`
	editBatchConf(t, dir, "lsb.applications", func([]byte) []byte { return []byte(apps) })
	return dir
}

// TestApplicationProfiles: -app or DEFAULT_APPLICATION names a job's
// profile; an unknown one is refused; the profile's limits, pre-exec, job
// starter, requeue values and environment reach the launch (the job's own
// limits win); SUCCESS_EXIT_VALUES make an exit DONE; bapp counts jobs.
func TestApplicationProfiles(t *testing.T) {
	m := startMbd(t, appCluster(t))
	sbd := connectSbd(t, m, "host1", nil)
	plain := spec("a")
	solver := spec("b")
	solver.App = "solver"
	own := spec("c")
	own.App = "solver"
	own.Limits = &api.Limits{Run: 60}
	bad := spec("d")
	bad.App = "nosuch"
	res := m.submit("alice", plain, solver, own, bad)
	if msg := statusMessage(res[3].Status); msg != "nosuch: Application profile does not exist" {
		t.Errorf("unknown profile: %q", msg)
	}
	l1, l2, l3 := sbd.waitRunning(1), sbd.waitRunning(2), sbd.waitRunning(3)
	if r := m.jobs("alice", &api.JobsRequest{Jobs: []*api.JobRef{{JobID: 1}}, Detail: true}); len(r.Jobs) != 1 || r.Jobs[0].Spec.App != "default" {
		t.Errorf("job 1 (no -app) is not of DEFAULT_APPLICATION: %+v", r)
	}
	if l1.Limits.Run != 5*60 || !slices.Contains(l1.Spec.Env, "WHERE=default") {
		t.Errorf("default profile launch: limits %+v env %q", l1.Limits, l1.Spec.Env)
	}
	if l2.Limits.Run != 20*60 || l2.Limits.Mem != 1000<<10 || l2.Spec.PreExec != "/bin/app-pre" ||
		l2.Queue.JobStarter != "nice %USRCMD" || !slices.Equal(l2.Queue.RequeueExitValues, []int32{9}) ||
		!slices.Contains(l2.Spec.Env, "MODE=fast") {
		t.Errorf("solver launch: limits %+v pre %q queue %+v env %q", l2.Limits, l2.Spec.PreExec, l2.Queue, l2.Spec.Env)
	}
	if l3.Limits.Run != 60 {
		t.Errorf("job's own RUNLIMIT: %d, want 60", l3.Limits.Run)
	}

	c := m.client("alice")
	defer c.Close()
	var apps api.ApplicationsReply
	if err := c.Call(t.Context(), api.MBatchdApplications, &api.ApplicationsRequest{Names: []string{"solver", "nope"}}, &apps); err != nil {
		t.Fatal(err)
	}
	if len(apps.Applications) != 1 || apps.Applications[0].Run != 2 || apps.Applications[0].SuccessExitValues != "3 4" ||
		!slices.Equal(apps.NotFound, []string{"nope"}) {
		t.Errorf("bapp solver: %+v", apps)
	}

	sbd.finish(2, 3)
	sbd.finish(3, 5)
	sbd.finish(1, 3)
	if r := m.waitState(2, api.StateDone); r.ExitStatus != 3<<8 {
		t.Errorf("job 2 exit status %#x", r.ExitStatus)
	}
	m.waitState(3, api.StateExit)
	m.waitState(1, api.StateExit)
}

func statusMessage(s *api.Status) string {
	if s == nil {
		return ""
	}
	return s.Message
}
