package mbd

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config/defaults"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// replicaCreds are a replica's credentials under trustHello: root's
// mbatchd on its host.
type replicaCreds struct{ host string }

func (c replicaCreds) Hello(ctx context.Context, daemon, host string) (*api.ConnHello, error) {
	return &api.ConnHello{User: "root", Host: c.host, Daemon: "mbatchd"}, nil
}

// writeReplicated writes a cluster of hosts hosts whose first n are master
// candidates (n > 1: a replicated master), on a free port base.
func writeReplicated(t testing.TB, hosts, n int) string {
	t.Helper()
	dir := t.TempDir()
	base := freePortBase(t, n)
	if _, err := defaults.Write(dir, defaults.Options{Hosts: hosts, Slots: 4, Admin: "root", Masters: n, PortBase: base}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// freePortBase finds a port base whose mbatchd port is free on the first n
// hosts' addresses.
func freePortBase(t testing.TB, n int) int {
	t.Helper()
	for tries := 0; tries < 100; tries++ {
		base := 20000 + 10*rand.Intn(4000)
		_, _, mbd, _ := defaults.Ports(base)
		free := true
		for i := 1; i <= n && free; i++ {
			ln, err := net.Listen("tcp", net.JoinHostPort(defaults.HostAddr(i).String(), strconv.Itoa(mbd)))
			if err != nil {
				free = false
				continue
			}
			ln.Close()
		}
		if free {
			return base
		}
	}
	t.Fatal("no free port base")
	return 0
}

// replica is one in-process mbatchd replica. A replica that loses the
// leadership is started again as a follower, as sbatchd does.
type replica struct {
	host   string
	cur    atomic.Pointer[Server]
	addr   string
	logDir string
	cancel context.CancelFunc
	done   chan error
}

func (r *replica) srv() *Server { return r.cur.Load() }

func startReplica(t testing.TB, dir, host string) *replica {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})).With("replica", host)
	}
	own := filepath.Join(dir, "replicas", host)
	ctx, cancel := context.WithCancel(context.Background())
	opts := Options{EnvDir: defaults.EnvDir(dir), Host: host, Log: log, Auth: trustHello{},
		Creds: replicaCreds{host}, DataDir: filepath.Join(own, "raft"), LogDir: filepath.Join(own, "logdir")}
	srv, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	i, _ := strconv.Atoi(strings.TrimPrefix(host, "host"))
	r := &replica{host: host, cancel: cancel, done: make(chan error, 1), logDir: opts.LogDir,
		addr: net.JoinHostPort(defaults.HostAddr(i).String(), strconv.Itoa(srv.cfg.Current().Conf.MBDPort()))}
	r.cur.Store(srv)
	go func() {
		for {
			err := r.srv().Run(ctx)
			if err != ErrDeposed || ctx.Err() != nil {
				r.done <- err
				return
			}
			srv, err := New(ctx, opts)
			if err != nil {
				r.done <- err
				return
			}
			r.cur.Store(srv)
		}
	}()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop ends the replica (as SIGTERM would) and waits for it.
func (r *replica) stop(t testing.TB) {
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	select {
	case err := <-r.done:
		if err != nil && err != ErrDeposed {
			t.Errorf("replica %s: %v", r.host, err)
		}
	case <-time.After(20 * time.Second):
		t.Errorf("replica %s did not stop", r.host)
	}
}

func (r *replica) call(method api.MethodDesc, req, resp interface {
	AppendWire([]byte) []byte
	UnmarshalWire([]byte) error
	SizeWire() int
}) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := rpc.Dial(ctx, r.addr, &api.ConnHello{User: "root", Host: "host1"})
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Call(ctx, method, req, resp)
}

func (r *replica) leader() (*api.LeaderReply, error) {
	var reply api.LeaderReply
	err := r.call(api.MBatchdLeader, &api.LeaderRequest{}, &reply)
	return &reply, err
}

// waitLeader waits until one of rs leads and the others name it.
func waitLeader(t testing.TB, within time.Duration, rs ...*replica) *replica {
	t.Helper()
	var lead *replica
	var last string
	if !testutil.Poll(within, func() bool {
		lead = nil
		for _, r := range rs {
			l, err := r.leader()
			if err != nil {
				last = fmt.Sprintf("%s: %v", r.host, err)
				return false
			}
			if l.IsLeader {
				lead = r
			}
		}
		if lead == nil {
			last = "no replica leads"
			return false
		}
		for _, r := range rs {
			if l, _ := r.leader(); l.Leader != lead.host {
				last = fmt.Sprintf("%s names %q, not %s", r.host, l.Leader, lead.host)
				return false
			}
		}
		return true
	}) {
		t.Fatalf("no leader within %v: %s", within, last)
	}
	return lead
}

func submitTo(r *replica, command string) (int64, error) {
	var reply api.SubmitReply
	if err := r.call(api.MBatchdSubmit, &api.SubmitRequest{Jobs: []*api.JobSpec{{Command: command, FromHost: "host1"}}}, &reply); err != nil {
		return 0, err
	}
	if res := reply.Results[0]; res.Status != nil && res.Status.Code != 0 {
		return 0, fmt.Errorf("%s", res.Status.Message)
	}
	return reply.Results[0].JobID, nil
}

// TestReplicasElectOneMaster: three replicas elect one master; the
// followers refuse a submission naming it and did nothing with it; what
// the master acknowledged is in every replica's state and lsb.events.
func TestReplicasElectOneMaster(t *testing.T) {
	dir := writeReplicated(t, 3, 3)
	var rs []*replica
	for _, h := range []string{"host1", "host2", "host3"} {
		rs = append(rs, startReplica(t, dir, h))
	}
	lead := waitLeader(t, 30*time.Second, rs...)
	var ids []int64
	for i := 0; i < 5; i++ {
		id, err := submitTo(lead, fmt.Sprintf("sleep %d", i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, r := range rs {
		if r == lead {
			continue
		}
		_, err := submitTo(r, "refused")
		if rpc.CodeOf(err) != rpc.FailedPrecondition || err.Error() != "mbatchd on "+r.host+" is not the master; the master is "+lead.host {
			t.Errorf("submission to follower %s: %v", r.host, err)
		}
	}
	// Every replica holds the acknowledged jobs, and only those.
	for _, r := range rs {
		r := r
		if !testutil.Poll(10*time.Second, func() bool { return len(stateJobs(r.srv())) == len(ids) }) {
			t.Errorf("%s holds jobs %v, want %v", r.host, stateJobs(r.srv()), ids)
		}
	}
	// Each renders its own lsb.events, identical to the master's.
	want := readEvents(t, lead)
	for _, r := range rs {
		if !testutil.Poll(10*time.Second, func() bool { return eventsJobNew(readEvents(t, r)) == len(ids) }) {
			t.Errorf("%s: lsb.events has %d JOB_NEW, want %d", r.host, eventsJobNew(readEvents(t, r)), len(ids))
		}
		if got := readEvents(t, r); eventsJobNew(got) == eventsJobNew(want) && !sameJobRecords(got, want) {
			t.Errorf("%s: lsb.events differs from the master's:\n%s\nwant:\n%s", r.host, got, want)
		}
	}
}

func stateJobs(s *Server) []int64 {
	var out []int64
	s.st.View(func(v *state.View) {
		v.Jobs(func(j *state.Job) bool { out = append(out, j.ID); return true })
	})
	return out
}

func readEvents(t testing.TB, r *replica) string {
	b, _ := os.ReadFile(filepath.Join(r.logDir, "lsb.events"))
	return string(b)
}

func eventsJobNew(s string) int { return strings.Count(s, "\"JOB_NEW\"") }

// sameJobRecords compares the job records of two lsb.events (MBD_START
// records name the replica that started, and differ).
func sameJobRecords(a, b string) bool {
	keep := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "\"JOB_") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	return keep(a) == keep(b)
}

// TestReplicaFailover: the master stops; the other two elect a master
// that has every acknowledged job and goes on numbering after them; the
// old master comes back as a follower, catches up, and (being the first
// candidate) is handed the master role back.
func TestReplicaFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("elections take seconds")
	}
	dir := writeReplicated(t, 3, 3)
	rs := map[string]*replica{}
	for _, h := range []string{"host1", "host2", "host3"} {
		rs[h] = startReplica(t, dir, h)
	}
	lead := waitLeader(t, 30*time.Second, rs["host1"], rs["host2"], rs["host3"])
	if lead.host != "host1" {
		// The first candidate takes the master role within a few checks.
		lead = waitLeaderIs(t, 30*time.Second, "host1", rs["host1"], rs["host2"], rs["host3"])
	}
	var last int64
	for i := 0; i < 3; i++ {
		id, err := submitTo(lead, "before")
		if err != nil {
			t.Fatal(err)
		}
		last = id
	}
	lead.stop(t)
	lead2 := waitLeader(t, 30*time.Second, rs["host2"], rs["host3"])
	id, err := submitTo(lead2, "after")
	if err != nil {
		t.Fatal(err)
	}
	if id <= last {
		t.Errorf("new master gave job ID %d after %d", id, last)
	}
	if n := len(stateJobs(lead2.srv())); n != 4 {
		t.Errorf("new master holds %d jobs, want 4", n)
	}
	// host1 comes back, catches up and is master again.
	rs["host1"] = startReplica(t, dir, "host1")
	back := waitLeaderIs(t, 60*time.Second, "host1", rs["host1"], rs["host2"], rs["host3"])
	if n := len(stateJobs(back.srv())); n != 4 {
		t.Errorf("host1 back as master holds %d jobs, want 4", n)
	}
	if _, err := submitTo(back, "back"); err != nil {
		t.Error(err)
	}
}

// waitLeaderIs waits until host leads and every replica names it.
func waitLeaderIs(t testing.TB, within time.Duration, host string, rs ...*replica) *replica {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		lead := waitLeader(t, time.Until(deadline), rs...)
		if lead.host == host {
			return lead
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s leads, not %s", lead.host, host)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// setReplicas rewrites lsf.conf's BASALT_MASTER_REPLICAS.
func setReplicas(t testing.TB, dir string, n int) {
	t.Helper()
	p := filepath.Join(defaults.EnvDir(dir), "lsf.conf")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if !strings.HasPrefix(l, "BASALT_MASTER_REPLICAS=") {
			keep = append(keep, l)
		}
	}
	keep = append(keep, fmt.Sprintf("BASALT_MASTER_REPLICAS=%d", n))
	if err := os.WriteFile(p, []byte(strings.Join(keep, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitVoters waits until the leader's raft configuration has exactly the
// voters want.
func waitVoters(t testing.TB, lead *replica, want ...string) {
	t.Helper()
	var got []string
	if !testutil.Poll(60*time.Second, func() bool {
		l, err := lead.leader()
		if err != nil {
			return false
		}
		got = l.Replicas
		return strings.Join(got, " ") == strings.Join(want, " ")
	}) {
		t.Fatalf("voters %v, want %v", got, want)
	}
}

// TestReplicasReconfig: badmin reconfig after BASALT_MASTER_REPLICAS
// changed adds the new replicas one at a time (each catches up before it
// votes) and later removes them; jobs go on being acknowledged and every
// replica, new ones included, holds them all.
func TestReplicasReconfig(t *testing.T) {
	if testing.Short() {
		t.Skip("membership changes take seconds")
	}
	dir := writeReplicated(t, 5, 5)
	setReplicas(t, dir, 3)
	rs := map[string]*replica{}
	for _, h := range []string{"host1", "host2", "host3"} {
		rs[h] = startReplica(t, dir, h)
	}
	lead := waitLeaderIs(t, 30*time.Second, "host1", rs["host1"], rs["host2"], rs["host3"])
	for i := 0; i < 3; i++ {
		if _, err := submitTo(lead, "before"); err != nil {
			t.Fatal(err)
		}
	}
	reconfig := func() {
		t.Helper()
		var reply api.AdminReply
		if err := lead.call(api.MBatchdAdmin, &api.AdminRequest{Op: api.AdminReconfig}, &reply); err != nil || reply.Status != nil {
			t.Fatalf("badmin reconfig: %v %+v", err, reply.Status)
		}
	}
	setReplicas(t, dir, 5)
	rs["host4"] = startReplica(t, dir, "host4")
	rs["host5"] = startReplica(t, dir, "host5")
	reconfig()
	waitVoters(t, lead, "host1", "host2", "host3", "host4", "host5")
	if _, err := submitTo(lead, "five"); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"host4", "host5"} {
		r := rs[h]
		if !testutil.Poll(10*time.Second, func() bool { return len(stateJobs(r.srv())) == 4 }) {
			t.Errorf("new replica %s holds %d jobs, want 4", h, len(stateJobs(r.srv())))
		}
	}
	setReplicas(t, dir, 3)
	reconfig()
	waitVoters(t, lead, "host1", "host2", "host3")
	if _, err := submitTo(lead, "three again"); err != nil {
		t.Fatal(err)
	}
}
