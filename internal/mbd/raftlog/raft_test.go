package raftlog

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// listFSM applies commands by appending their data to a list; its snapshot
// is the list as JSON.
type listFSM struct {
	mu      sync.Mutex
	applied []string
}

func (f *listFSM) Apply(l *raft.Log) any {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applied = append(f.applied, string(l.Data))
	return len(f.applied)
}

func (f *listFSM) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return listSnapshot(slices.Clone(f.applied)), nil
}

func (f *listFSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	var l []string
	if err := json.NewDecoder(rc).Decode(&l); err != nil {
		return err
	}
	f.mu.Lock()
	f.applied = l
	f.mu.Unlock()
	return nil
}

func (f *listFSM) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.applied)
}

type listSnapshot []string

func (s listSnapshot) Persist(sink raft.SnapshotSink) error {
	if err := json.NewEncoder(sink).Encode([]string(s)); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (listSnapshot) Release() {}

// raftNode is one single-node raft over a Store in dir/log and a file
// snapshot store in dir/snap.
type raftNode struct {
	r     *raft.Raft
	fsm   *listFSM
	store *Store
}

func startNode(t *testing.T, dir string, bootstrap bool) *raftNode {
	t.Helper()
	st := openT(t, filepath.Join(dir, "log"), Options{SegmentSize: 4 << 10, CacheEntries: 32})
	snaps, err := raft.NewFileSnapshotStore(filepath.Join(dir, "snap"), 3, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	addr, trans := raft.NewInmemTransport("mbd1")
	conf := raft.DefaultConfig()
	conf.LocalID = "mbd1"
	conf.HeartbeatTimeout = 50 * time.Millisecond
	conf.ElectionTimeout = 50 * time.Millisecond
	conf.LeaderLeaseTimeout = 50 * time.Millisecond
	conf.CommitTimeout = 5 * time.Millisecond
	conf.SnapshotThreshold = 1 << 30 // snapshots only when the test asks
	conf.SnapshotInterval = time.Hour
	conf.TrailingLogs = 20
	conf.LogOutput = io.Discard
	if bootstrap {
		if err := raft.BootstrapCluster(conf, st, st, snaps, trans, raft.Configuration{
			Servers: []raft.Server{{ID: conf.LocalID, Address: addr}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	fsm := &listFSM{}
	r, err := raft.NewRaft(conf, fsm, st, st, snaps, trans)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.LeaderCh():
	case <-time.After(10 * time.Second):
		t.Fatal("no leader after 10s")
	}
	return &raftNode{r: r, fsm: fsm, store: st}
}

func (n *raftNode) stop(t *testing.T) {
	t.Helper()
	if err := n.r.Shutdown().Error(); err != nil {
		t.Fatal(err)
	}
	if err := n.store.Close(); err != nil {
		t.Fatal(err)
	}
}

// apply submits count commands at once, so that raft hands the store
// batches, and records the index each was stored at.
func (n *raftNode) apply(t *testing.T, from, count int, at map[uint64]string) []string {
	t.Helper()
	futures := make([]raft.ApplyFuture, count)
	cmds := make([]string, count)
	for i := range futures {
		cmds[i] = fmt.Sprintf("cmd-%05d-%040d", from+i, from+i)
		futures[i] = n.r.Apply([]byte(cmds[i]), 5*time.Second)
	}
	for i, f := range futures {
		if err := f.Error(); err != nil {
			t.Fatalf("Apply(%s): %v", cmds[i], err)
		}
		at[f.Index()] = cmds[i]
	}
	return cmds
}

// TestRaftSingleNode runs a real raft over the store: applies, snapshots
// (and so compacts the log), restarts from the same directory twice, and
// checks that the FSM and every entry still in the log survive.
func TestRaftSingleNode(t *testing.T) {
	dir := t.TempDir()
	at := map[uint64]string{}
	var want []string

	n := startNode(t, dir, true)
	want = append(want, n.apply(t, 0, 300, at)...)
	segsBefore := len(segFiles(t, filepath.Join(dir, "log")))
	if err := n.r.Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	want = append(want, n.apply(t, 300, 100, at)...)
	if err := n.r.Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	first, _ := n.store.FirstIndex()
	last, _ := n.store.LastIndex()
	if first <= 1 || last-first+1 > 25 {
		t.Fatalf("after snapshots the log is [%d, %d], want it compacted to about TrailingLogs (20)", first, last)
	}
	if segs := len(segFiles(t, filepath.Join(dir, "log"))); segs >= segsBefore {
		t.Fatalf("compaction left %d segment files (had %d)", segs, segsBefore)
	}
	want = append(want, n.apply(t, 400, 50, at)...)
	if got := n.fsm.list(); !slices.Equal(got, want) {
		t.Fatalf("FSM holds %d commands, want %d", len(got), len(want))
	}
	n.stop(t)

	for round := 0; round < 2; round++ {
		n = startNode(t, dir, false)
		if err := n.r.Barrier(5 * time.Second).Error(); err != nil {
			t.Fatal(err)
		}
		if got := n.fsm.list(); !slices.Equal(got, want) {
			t.Fatalf("round %d: after restart the FSM holds %d commands, want %d\ngot  %v\nwant %v", round, len(got), len(want), got, want)
		}
		checkRaftEntries(t, n.store, at)
		want = append(want, n.apply(t, 450+100*round, 100, at)...)
		if round == 0 {
			if err := n.r.Snapshot().Error(); err != nil {
				t.Fatal(err)
			}
		}
		n.stop(t)
	}
}

// checkRaftEntries checks that every command entry still in the store holds
// the command raft stored at that index.
func checkRaftEntries(t *testing.T, st *Store, at map[uint64]string) {
	t.Helper()
	first, _ := st.FirstIndex()
	last, _ := st.LastIndex()
	seen := 0
	for i := first; i <= last && first != 0; i++ {
		var l raft.Log
		if err := st.GetLog(i, &l); err != nil {
			t.Fatalf("GetLog(%d): %v", i, err)
		}
		if l.Type != raft.LogCommand {
			continue
		}
		if want, ok := at[i]; !ok || string(l.Data) != want {
			t.Fatalf("entry %d = %q, want %q", i, l.Data, want)
		}
		seen++
	}
	if seen == 0 {
		t.Fatalf("no command entries in the log [%d, %d]", first, last)
	}
}
