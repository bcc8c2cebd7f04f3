package mbd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// TestFullDisk: with its log's file system full, mbatchd keeps serving
// queries and refuses changes with a message saying why, never loses an
// acknowledged job, and takes changes again by itself once there is space
// (it used to panic in raft, "failed to save current term", and restart
// every 2 s, so that bjobs failed for as long as the disk was full).
func TestFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := writeCluster(t, 2, 4)
	data := filepath.Join(t.TempDir(), "raft")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", data, "tmpfs", 0, "size=4m"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(data, syscall.MNT_DETACH) })
	m := startMbdWith(t, dir, func(o *Options) { o.DataDir = data })
	var acked []int64
	for _, r := range m.submit("alice", spec("sleep 1")) {
		acked = append(acked, r.JobID)
	}

	filler := filepath.Join(data, "filler")
	fillDisk(t, filler)
	// Submissions until one is refused for space: those acknowledged
	// before it must all stay.
	var refused error
	for i := 0; i < 1000 && refused == nil; i++ {
		c := m.client("alice")
		var reply api.SubmitReply
		refused = c.Call(context.Background(), api.MBatchdSubmit, &api.SubmitRequest{Jobs: []*api.JobSpec{spec("sleep 1")}}, &reply)
		c.Close()
		if refused == nil {
			acked = append(acked, reply.Results[0].JobID)
		}
	}
	if refused == nil {
		t.Fatal("1000 submissions accepted on a full file system")
	}
	// Refusals from now on say why, and queries keep working.
	for i := 0; i < 5; i++ {
		c := m.client("alice")
		var reply api.SubmitReply
		err := c.Call(context.Background(), api.MBatchdSubmit, &api.SubmitRequest{Jobs: []*api.JobSpec{spec("sleep 1")}}, &reply)
		c.Close()
		if rpc.CodeOf(err) != rpc.Unavailable || !strings.Contains(err.Error(), "no space left on device") {
			t.Fatalf("submission %d on a full disk: %v, want Unavailable naming the lack of space", i, err)
		}
		if got := len(m.jobs("alice", &api.JobsRequest{User: "all"}).Jobs); got != len(acked) {
			t.Fatalf("bjobs on a full disk lists %d jobs, want the %d acknowledged", got, len(acked))
		}
		time.Sleep(200 * time.Millisecond) // real time: raft's elections run on it
	}
	select {
	case err := <-m.done:
		t.Fatalf("mbatchd ended on a full disk: %v", err)
	default:
	}
	// A master restarted on the full disk serves queries too.
	m.stop()
	m = startMbdWith(t, dir, func(o *Options) { o.DataDir = data })
	if got := len(m.jobs("alice", &api.JobsRequest{User: "all"}).Jobs); got != len(acked) {
		t.Fatalf("bjobs after a restart on a full disk lists %d jobs, want %d", got, len(acked))
	}

	os.Remove(filler)
	var id int64
	if !testutil.Poll(20*time.Second, func() bool {
		c := m.client("alice")
		defer c.Close()
		var reply api.SubmitReply
		if err := c.Call(context.Background(), api.MBatchdSubmit, &api.SubmitRequest{Jobs: []*api.JobSpec{spec("sleep 1")}}, &reply); err != nil {
			return false
		}
		id = reply.Results[0].JobID
		return true
	}) {
		t.Fatal("submissions still refused after space returned")
	}
	acked = append(acked, id)
	for _, id := range acked {
		if m.job(id) == nil {
			t.Fatalf("acknowledged job %d lost", id)
		}
	}
}

// fillDisk writes path until its file system is full.
func fillDisk(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			return
		}
	}
}
