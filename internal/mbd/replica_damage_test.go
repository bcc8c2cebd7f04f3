package mbd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/raftlog"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// Robustness of the replicated master: a follower catching up from a
// snapshot, restart cost after compaction, a replica's disk filling up, a
// replica's log truncated. Sizes are flags so that CI runs small ones.
var (
	damageCatchupJobs = flag.Int("mbd.damage.catchup.jobs", 5000, "jobs a stopped follower misses before it catches up from a snapshot (TestReplicaCatchUpFromSnapshot)")
	damageHistory     = flag.Int("mbd.damage.history", 100, "entries of history before the first snapshot; the second round has 4 times as many (TestReplicaRestartIndependentOfHistory)")
	damageFullEntries = flag.Int("mbd.damage.full.entries", 2000, "at most this many entries of one job with a 1 KB command are submitted while a replica's disk is full (TestReplicaDiskFull*)")
)

// setCompaction makes raft snapshot after threshold entries and keep
// trailing entries before a snapshot, for the replicas started after it
// (it must be called before them: their stop, a cleanup registered
// later, runs before the values are put back).
func setCompaction(t testing.TB, threshold, trailing uint64) {
	t.Helper()
	oldT, oldL := snapshotThreshold, trailingLogs
	snapshotThreshold, trailingLogs = threshold, trailing
	t.Cleanup(func() { snapshotThreshold, trailingLogs = oldT, oldL })
}

// startThree starts replicas host1-3 of dir and waits until host1 (the
// first candidate, to which the master role returns) leads.
func startThree(t *testing.T, dir string) map[string]*replica {
	t.Helper()
	rs := map[string]*replica{}
	for _, h := range []string{"host1", "host2", "host3"} {
		rs[h] = startReplica(t, dir, h)
	}
	waitLeaderIs(t, 60*time.Second, "host1", rs["host1"], rs["host2"], rs["host3"])
	return rs
}

// raftOf is the replica's running raft, nil while it has none.
func raftOf(r *replica) *raft.Raft {
	if s := r.srv(); s != nil {
		return s.raftR.Load()
	}
	return nil
}

// raftStat reads one of raft's Stats of the replica (0 without raft).
func raftStat(r *replica, key string) uint64 {
	rf := raftOf(r)
	if rf == nil {
		return 0
	}
	v, _ := strconv.ParseUint(rf.Stats()[key], 10, 64)
	return v
}

// submitJobs submits n jobs of command in one request to r and returns
// their IDs.
func submitJobs(r *replica, n int, command string) ([]int64, error) {
	req := &api.SubmitRequest{}
	for i := 0; i < n; i++ {
		req.Jobs = append(req.Jobs, &api.JobSpec{Command: command, FromHost: "host1"})
	}
	var reply api.SubmitReply
	if err := r.call(api.MBatchdSubmit, req, &reply); err != nil {
		return nil, err
	}
	var ids []int64
	for _, res := range reply.Results {
		if res.Status != nil && res.Status.Code != 0 {
			return ids, fmt.Errorf("%s", res.Status.Message)
		}
		ids = append(ids, res.JobID)
	}
	return ids, nil
}

// mustSubmit submits jobs of n jobs each to r, failing the test on any
// refusal, and returns the IDs.
func mustSubmit(t *testing.T, r *replica, requests, n int, command string) []int64 {
	t.Helper()
	var ids []int64
	for i := 0; i < requests; i++ {
		got, err := submitJobs(r, n, command)
		if err != nil {
			t.Fatalf("submission %d to %s: %v", i, r.host, err)
		}
		ids = append(ids, got...)
	}
	return ids
}

// holdsAll reports which of ids the replica's state lacks (nil: none).
func missingJobs(r *replica, ids []int64) []int64 {
	have := map[int64]bool{}
	for _, id := range stateJobs(r.srv()) {
		have[id] = true
	}
	var out []int64
	for _, id := range ids {
		if !have[id] {
			out = append(out, id)
		}
	}
	return out
}

// waitHolds waits until r's state holds every job of ids.
func waitHolds(t *testing.T, within time.Duration, r *replica, ids []int64) {
	t.Helper()
	if !testutil.Poll(within, func() bool { return len(missingJobs(r, ids)) == 0 }) {
		m := missingJobs(r, ids)
		t.Fatalf("%s lacks %d of %d acknowledged jobs after %v (first %d)", r.host, len(m), len(ids), within, m[0])
	}
}

// TestReplicaCatchUpFromSnapshot: a follower stopped while the master
// takes jobs and compacts its log past the follower's last entry comes
// back, installs the master's snapshot and holds every job.
func TestReplicaCatchUpFromSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("elections take seconds")
	}
	const trailing = 16
	setCompaction(t, 1<<20, trailing) // snapshots only when asked
	dir := writeReplicated(t, 3, 3)
	rs := startThree(t, dir)
	lead, fol := rs["host1"], rs["host3"]
	ids := mustSubmit(t, lead, 3, 1, "before")
	waitHolds(t, 30*time.Second, fol, ids)
	folLast := raftStat(fol, "last_log_index")
	eventsBefore := eventsJobNew(readEvents(t, fol))
	fol.stop(t)

	// Enough entries that compaction leaves the follower behind the
	// master's first entry.
	n := *damageCatchupJobs
	per := max(1, min(100, n/(4*trailing)))
	for len(ids) < 3+n {
		got, err := submitJobs(lead, min(per, 3+n-len(ids)), "missed")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, got...)
	}
	if err := raftOf(lead).Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	snap := raftStat(lead, "last_snapshot_index")
	if snap-trailing <= folLast {
		t.Fatalf("the master's log still holds the follower's next entry (snapshot %d, trailing %d, follower at %d): submit more", snap, trailing, folLast)
	}

	start := time.Now()
	fol = startReplica(t, dir, "host3")
	waitHolds(t, 120*time.Second, fol, ids)
	took := time.Since(start)
	t.Logf("a follower %d entries and %d jobs behind caught up from a snapshot in %v (restart included)",
		snap-folLast, n, took.Round(time.Millisecond))
	if got := raftStat(fol, "last_snapshot_index"); got < snap {
		t.Errorf("the follower's last snapshot is at %d, want the master's (%d): it did not install it", got, snap)
	}
	// It goes on taking entries as a follower.
	more := mustSubmit(t, lead, 2, 1, "after")
	ids = append(ids, more...)
	waitHolds(t, 30*time.Second, fol, ids)

	// The follower's lsb.events misses the records of the entries it got
	// through the snapshot: they were compacted away before it could
	// render them.
	ev := readEvents(t, fol)
	t.Logf("follower lsb.events: %d JOB_NEW before it stopped, %d now, for %d jobs (the master's has %d)",
		eventsBefore, eventsJobNew(ev), len(ids), eventsJobNew(readEvents(t, lead)))
}

// TestReplicaRestartIndependentOfHistory: a replica restarted after a
// snapshot restores it and replays only the entries after it, however long
// the history before: the jobs replayed (counted as submissions since the
// start) are those of the entries after the snapshot, for 1x and 4x the
// history.
func TestReplicaRestartIndependentOfHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("elections take seconds")
	}
	const trailing, since, per = 32, 20, 10
	setCompaction(t, 1<<20, trailing)
	dir := writeReplicated(t, 3, 3)
	rs := startThree(t, dir)
	lead := rs["host1"]
	var ids []int64
	var took []time.Duration
	h := *damageHistory
	for round, entries := range []int{h, 3 * h} { // 1x, then 4x in all
		ids = append(ids, mustSubmit(t, lead, entries, per, "history")...)
		fol := rs["host3"]
		waitHolds(t, 60*time.Second, fol, ids)
		if err := raftOf(fol).Snapshot().Error(); err != nil {
			t.Fatalf("round %d: snapshot of host3: %v", round, err)
		}
		snap := raftStat(fol, "last_snapshot_index")
		ids = append(ids, mustSubmit(t, lead, since, per, "since")...)
		waitHolds(t, 60*time.Second, fol, ids)
		last := raftStat(fol, "applied_index")
		fol.stop(t)

		start := time.Now()
		fol = startReplica(t, dir, "host3")
		rs["host3"] = fol
		waitHolds(t, 120*time.Second, fol, ids)
		took = append(took, time.Since(start))
		var replayed uint64
		for _, q := range fol.srv().Stats().Queues {
			replayed += q.Submitted
		}
		t.Logf("round %d: %d entries of history (%d jobs), snapshot at %d, %d entries after it: restart to caught up %v, %d jobs replayed",
			round, last, len(ids), snap, last-snap, took[round].Round(time.Millisecond), replayed)
		if replayed != since*per {
			t.Errorf("round %d: the restarted replica replayed %d submissions, want the %d after its snapshot", round, replayed, since*per)
		}
	}
	// The peer: host2 never took a snapshot and replays the whole history.
	rs["host2"].stop(t)
	start := time.Now()
	r2 := startReplica(t, dir, "host2")
	waitHolds(t, 120*time.Second, r2, ids)
	var replayed uint64
	for _, q := range r2.srv().Stats().Queues {
		replayed += q.Submitted
	}
	t.Logf("without a snapshot: restart to caught up %v, %d jobs replayed", time.Since(start).Round(time.Millisecond), replayed)
	if replayed != uint64(len(ids)) {
		t.Errorf("a replica without a snapshot replayed %d submissions, want all %d", replayed, len(ids))
	}
}

// tmpfsAt mounts a tmpfs of size bytes at path (skipping the test when
// that is not possible) and returns a function filling it.
func tmpfsAt(t *testing.T, path, size string) (fill, free func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", path, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(path, syscall.MNT_DETACH) })
	filler := filepath.Join(path, "filler")
	return func() { fillDisk(t, filler) }, func() { os.Remove(filler) }
}

// bigCommand is a job command of about 1 KB, so that entries fill a disk
// fast.
var bigCommand = "echo " + strings.Repeat("x", 1000)

// TestReplicaDiskFullFollower: a follower whose log's file system is full
// does not stop the others: every submission is acknowledged by the
// master and the other follower, none is lost, and the full follower
// catches up once space returns.
func TestReplicaDiskFullFollower(t *testing.T) {
	if testing.Short() {
		t.Skip("elections take seconds")
	}
	dir := writeReplicated(t, 3, 3)
	fill, free := tmpfsAt(t, filepath.Join(dir, "replicas", "host3", "raft"), "16m")
	rs := startThree(t, dir)
	lead, other, full := rs["host1"], rs["host2"], rs["host3"]
	ids := mustSubmit(t, lead, 3, 1, "before")
	waitHolds(t, 30*time.Second, full, ids)

	fill()
	// The follower's store gives its 1 MiB reserve back at its first
	// failed write (its reserve file goes). Entries of one job (about 1.3
	// KB) until then and a while after fill its disk to the last block,
	// unless the store keeps the reserve's space for raft's term.
	reserve := filepath.Join(dir, "replicas", "host3", "raft", "log", "reserve")
	gone, stalled := false, 0
	for i := 0; i < *damageFullEntries && stalled < 50; i++ {
		was := raftStat(full, "last_log_index")
		ids = append(ids, mustSubmit(t, lead, 1, 1, bigCommand)...)
		if _, err := os.Stat(reserve); err != nil {
			gone = true
		}
		if gone && raftStat(full, "last_log_index") == was {
			stalled++
		} else {
			stalled = 0
		}
	}
	if !gone {
		t.Fatalf("the full follower's store still holds its reserve after %d entries", *damageFullEntries)
	}
	waitHolds(t, 30*time.Second, other, ids)
	if m := missingJobs(full, ids); len(m) == 0 {
		t.Fatalf("the full follower took every entry: the disk was not full")
	} else {
		t.Logf("the full follower lacks %d of %d jobs", len(m), len(ids))
	}
	if l := waitLeader(t, 10*time.Second, lead, other, full); l != lead {
		t.Errorf("%s leads after a follower's disk filled, want host1", l.host)
	}

	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Join(dir, "replicas", "host3", "raft"), &st); err == nil {
		t.Logf("the full follower's file system has %d bytes free", st.Bavail*uint64(st.Bsize))
	}
	// New terms while the disk is full: the full follower must record
	// them (hashicorp/raft panics when it cannot save its term). Without
	// the master, the other two cannot commit (the full one cannot take
	// entries): no master is elected until it comes back.
	before, err := full.leader()
	if err != nil {
		t.Fatal(err)
	}
	lead.stop(t)
	if !testutil.Poll(30*time.Second, func() bool {
		l, err := full.leader()
		return err == nil && l.Term > before.Term
	}) {
		t.Errorf("the full follower did not go through new terms")
	}
	select {
	case err := <-full.done:
		t.Fatalf("the full follower stopped: %v", err)
	default:
	}
	lead = startReplica(t, dir, "host1")
	rs["host1"] = lead
	lead = waitLeaderIs(t, 60*time.Second, "host1", lead, other, full)
	ids = append(ids, mustSubmit(t, lead, 2, 1, "new term")...)

	free()
	ids = append(ids, mustSubmit(t, lead, 2, 1, "after")...)
	waitHolds(t, 90*time.Second, full, ids)
	// The others hold them too (a follower may apply the last entry a
	// moment after the master acknowledged it).
	for _, r := range []*replica{lead, other} {
		waitHolds(t, 30*time.Second, r, ids)
	}
}

// TestReplicaDiskFullLeader: the master's log's file system fills. The
// cluster keeps answering queries; submissions either go on through
// another master or are refused saying why; nothing acknowledged is lost,
// and the replica catches up once space returns. (Today they are refused:
// raft steps down at the first write that fails, the full replica is
// elected again or handed the role back as the first candidate, cannot
// record its start and serves queries only; a master that handed the role
// over instead would let the other two take submissions.)
func TestReplicaDiskFullLeader(t *testing.T) {
	if testing.Short() {
		t.Skip("elections take seconds")
	}
	dir := writeReplicated(t, 3, 3)
	fill, free := tmpfsAt(t, filepath.Join(dir, "replicas", "host1", "raft"), "16m")
	rs := startThree(t, dir)
	all := []*replica{rs["host1"], rs["host2"], rs["host3"]}
	ids := mustSubmit(t, rs["host1"], 3, 1, "before")

	fill()
	// Submit to whoever leads for a while; count what is acknowledged and
	// what is refused, and how.
	refusals := map[string]int{}
	acked, leaders := 0, map[string]int{}
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; i < *damageFullEntries/20 && time.Now().Before(deadline); i++ {
		lead := waitLeader(t, 30*time.Second, all...)
		leaders[lead.host]++
		got, err := submitJobs(lead, 20, bigCommand)
		ids = append(ids, got...)
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "no space left") {
				msg = "no space left ..."
			}
			refusals[msg]++
			time.Sleep(100 * time.Millisecond)
			continue
		}
		acked++
	}
	t.Logf("with the master's disk full: %d requests acknowledged, refusals %v, masters seen %v", acked, refusals, leaders)
	// The full master hands the role to a replica that can write: the
	// cluster goes on acknowledging.
	if acked == 0 {
		t.Errorf("nothing acknowledged while the first master's disk was full (refusals %v)", refusals)
	}
	for _, r := range all {
		if _, err := r.leader(); err != nil {
			t.Errorf("%s does not answer: %v", r.host, err)
		}
	}
	lead := waitLeader(t, 30*time.Second, all...)
	for _, r := range all {
		if r == lead || r.host == "host1" {
			continue
		}
		waitHolds(t, 30*time.Second, r, ids)
	}
	waitHolds(t, 30*time.Second, lead, ids)
	if n, err := bjobsCount(lead); err != nil || n < len(ids) {
		t.Errorf("bjobs on the master %s: %d jobs, %v; want at least the %d acknowledged", lead.host, n, err, len(ids))
	}
	if len(refusals) > 0 {
		for msg := range refusals {
			if msg != "no space left ..." && !strings.Contains(msg, "not the master") && !strings.Contains(msg, "connection") {
				t.Errorf("submission refused with %q", msg)
			}
		}
	}

	free()
	if !testutil.Poll(60*time.Second, func() bool {
		l := waitLeader(t, 30*time.Second, all...)
		got, err := submitJobs(l, 1, "after")
		ids = append(ids, got...)
		return err == nil
	}) {
		t.Fatal("submissions still refused after space returned")
	}
	for _, r := range all {
		waitHolds(t, 90*time.Second, r, ids)
	}
}

// bjobsCount counts the jobs bjobs -u all lists on r.
func bjobsCount(r *replica) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := rpc.Dial(ctx, r.addr, &api.ConnHello{User: "root", Host: "host1"})
	if err != nil {
		return 0, err
	}
	defer c.Close()
	st, err := c.Stream(ctx, api.MBatchdJobs, &api.JobsRequest{User: "all"})
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		var reply api.JobsReply
		err := st.Recv(&reply)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += len(reply.Jobs)
	}
}

// lastVoteTerm reads the term of the last vote in a stopped replica's
// stable store.
func lastVoteTerm(t *testing.T, dir, host string) uint64 {
	t.Helper()
	st, err := raftlog.Open(context.Background(), filepath.Join(dir, "replicas", host, "raft", "log"), raftlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, err := st.GetUint64([]byte("LastVoteTerm"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// lastSegment is the path of the newest segment of a replica's log.
func lastSegment(t *testing.T, dir, host string) string {
	t.Helper()
	logDir := filepath.Join(dir, "replicas", host, "raft", "log")
	ents, err := os.ReadDir(logDir)
	if err != nil {
		t.Fatal(err)
	}
	var segs []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".seg") {
			segs = append(segs, e.Name())
		}
	}
	if len(segs) == 0 {
		t.Fatalf("no segment in %s", logDir)
	}
	slices.Sort(segs)
	return filepath.Join(logDir, segs[len(segs)-1])
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestReplicaTruncatedLog: a stopped follower's last segment is cut at a
// random offset, inside its last batch or earlier; restarted, it either
// recovers (cuts the torn tail and catches up from the master) or refuses
// to start naming the file and offset; either way the other two go on
// taking jobs and none acknowledged is lost.
func TestReplicaTruncatedLog(t *testing.T) {
	if testing.Short() {
		t.Skip("elections take seconds")
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewSource(seed))
	for _, where := range []string{"last batch", "earlier", "first record", "header"} {
		t.Run(strings.ReplaceAll(where, " ", "_"), func(t *testing.T) {
			dir := writeReplicated(t, 3, 3)
			rs := startThree(t, dir)
			lead, fol := rs["host1"], rs["host3"]
			// One entry at a time, each waited for on the follower: each is
			// one batch of its log.
			var ids []int64
			for i := 0; i < 10; i++ {
				ids = append(ids, mustSubmit(t, lead, 1, 5, "early")...)
				waitHolds(t, 30*time.Second, fol, ids)
			}
			seg := lastSegment(t, dir, "host3")
			before := fileSize(t, seg)
			ids = append(ids, mustSubmit(t, lead, 1, 5, "last")...)
			waitHolds(t, 30*time.Second, fol, ids)
			fol.stop(t)
			if lastSegment(t, dir, "host3") != seg {
				t.Fatal("the follower's log rolled to a new segment")
			}
			after := fileSize(t, seg)
			vote := lastVoteTerm(t, dir, "host3")
			var off int64
			switch where {
			case "last batch":
				off = before + 1 + rnd.Int63n(after-before-1)
			case "earlier":
				off = 40 + rnd.Int63n(before-40)
			case "first record": // nothing left live
				off = 41 + rnd.Int63n(10)
			case "header":
				off = rnd.Int63n(40)
			}
			if err := os.Truncate(seg, off); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s cut at %d (last batch %d-%d)", seg, off, before, after)

			// The other two go on.
			ids = append(ids, mustSubmit(t, lead, 2, 1, "meanwhile")...)

			fol = startReplica(t, dir, "host3")
			rs["host3"] = fol
			var runErr error
			caught := testutil.Poll(60*time.Second, func() bool {
				select {
				case runErr = <-fol.done:
					fol.cancel()
					fol.cancel = nil
					return true
				default:
				}
				return len(missingJobs(fol, ids)) == 0
			})
			switch {
			case runErr != nil:
				var ce *raftlog.CorruptError
				if !errors.As(runErr, &ce) || ce.File != seg || !strings.Contains(runErr.Error(), seg) {
					t.Fatalf("the follower failed with %v, want a CorruptError naming %s and an offset", runErr, seg)
				}
				t.Logf("the follower refused to start: %v", runErr)
			case !caught:
				t.Fatalf("the follower neither caught up nor failed: it lacks %d jobs", len(missingJobs(fol, ids)))
			default:
				t.Logf("the follower recovered and caught up")
			}
			ids = append(ids, mustSubmit(t, lead, 2, 1, "after")...)
			for _, r := range []*replica{lead, rs["host2"]} {
				waitHolds(t, 30*time.Second, r, ids)
			}
			if runErr == nil {
				waitHolds(t, 30*time.Second, fol, ids)
				// It kept the record of its votes: a replica that forgets
				// them may vote twice in a term.
				fol.stop(t)
				if got := lastVoteTerm(t, dir, "host3"); got < vote {
					t.Errorf("the follower's last vote was in term %d before the damage, %d after", vote, got)
				}
			}
		})
	}
}
