package mbd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config/defaults"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// TestRootJobs: without LSF_ROOT_REX root's submissions are refused with
// LSF's message; a submission claiming another uid than its connection's
// is refused; ordinary users' jobs go on.
func TestRootJobs(t *testing.T) {
	dir := writeCluster(t, 1, 1)
	conf := filepath.Join(defaults.EnvDir(dir), "lsf.conf")
	b, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "LSF_ROOT_REX=local") {
		t.Fatal("the default configuration does not let root's jobs run")
	}
	if err := os.WriteFile(conf, []byte(strings.ReplaceAll(string(b), "LSF_ROOT_REX=local", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	m := startMbd(t, dir)
	r := m.submit("root", spec("true"))
	if r[0].JobID != 0 || r[0].Status == nil || r[0].Status.Code != int32(lsberr.RootDenied) ||
		r[0].Status.Message != "Root job submission is disabled" {
		t.Fatalf("root's job without LSF_ROOT_REX: %+v", r[0])
	}
	if r := m.submit("alice", spec("true")); r[0].JobID == 0 {
		t.Fatalf("alice's job: %+v", r[0])
	}
	forged := spec("true")
	forged.UID = 4242 // not alice's uid
	if r := m.submit("alice", forged); r[0].JobID != 0 || r[0].Status == nil || r[0].Status.Code != int32(lsberr.Permission) {
		t.Fatalf("a submission claiming another uid: %+v", r[0])
	}
}

// TestHistoryDetailsHidden: bhist -l shows another user's job without its
// details; the owner sees them.
func TestHistoryDetailsHidden(t *testing.T) {
	m := startMbd(t, writeCluster(t, 1, 1))
	sp := spec("echo secret-command")
	sp.OutFile = "/tmp/secret-out"
	if r := m.submit("alice", sp); r[0].JobID == 0 {
		t.Fatalf("submit: %+v", r[0])
	}
	for user, shown := range map[string]bool{"alice": true, "bob": false, "root": true} {
		c := m.client(user)
		var h api.HistoryReply
		ok := testutil.Poll(20*time.Second, func() bool {
			st, err := c.Stream(context.Background(), api.MBatchdHistory, &api.JobsRequest{User: "all", Jobs: []*api.JobRef{{JobID: 1}}})
			if err != nil {
				return false
			}
			h = api.HistoryReply{}
			return st.Recv(&h) == nil && len(h.Jobs) == 1 && h.Jobs[0].Job.Spec != nil
		})
		c.Close()
		if !ok {
			t.Fatalf("%s: bhist -l 1 found nothing", user)
		}
		sp := h.Jobs[0].Job.Spec
		if got := strings.Contains(sp.Command, "secret-command") && sp.OutFile == "/tmp/secret-out"; got != shown {
			t.Errorf("%s: command %q, output %q; details shown %v, want %v", user, sp.Command, sp.OutFile, got, shown)
		}
	}
}
