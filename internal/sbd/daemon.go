package sbd

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/basalt-lsf/basalt/internal/sbd/rawfile"
	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
	"github.com/basalt-lsf/basalt/internal/sbd/spool"
)

// LSF batch error numbers sbatchd answers with (lsbatch.h LSBE_*).
const (
	LSBENoJob     = 1  // LSBE_NO_JOB
	LSBEJobFinish = 4  // LSBE_JOB_FINISH
	LSBEBadUser   = 16 // LSBE_BAD_USER
	LSBESbatchd   = 48 // LSBE_SBATCHD
)

// spoolPoolSize bounds the spool directories kept for reuse: more than a
// host runs at once, at a few kilobytes each.
const spoolPoolSize = 128

// Daemon is a running sbatchd.
type Daemon struct {
	cfg  Config
	root spool.Root
	// pool keeps forgotten jobs' spool directories for new jobs.
	pool *spool.Pool
	cgm  *cgroup.Manager // nil: no cgroups
	// hostl reaches the host's shepherd process, which runs every job's
	// shepherd.
	hostl *hostLink
	seq   *seqAlloc
	boot  time.Time
	// self is the daemon's own account; a non-root sbatchd runs only its
	// own user's jobs.
	self    *shepherd.Account
	nonRoot bool
	// userRoot holds the jobs' user directories when job users cannot
	// traverse the state directory ("" : job/ in each spool directory).
	userRoot string
	umask    int // the process's, read at start
	accts    *accounts

	jobs       map[string]*job
	pendingAck map[uint64]string // final report Seq -> job key
	sess       *session
	cmdSeq     uint64
	lastSusp   time.Time // last load suspension
	loadKick   bool      // run the load check at the end of this turn
	// server is the RPC server Register was given (nil before); its
	// accept health is told mbatchd (health.go).
	server     atomic.Pointer[rpc.Server]
	notServing bool // as last told mbatchd
	// restart: the shutdown mbatchd asked for is a restart (Restarting).
	restart atomic.Bool

	sessCh  chan sessEvent
	shepCh  chan shepEvent
	queryCh chan func()
	// launchCh carries finished launches; launchSem bounds the shepherds
	// being started at once.
	launchCh  chan *launchResult
	launchSem chan struct{}
	done      chan struct{}
	stop      chan struct{}
	ctr       Counters // metrics.go
}

// New checks the configuration and prepares the state directory.
func New(cfg Config) (*Daemon, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	d := &Daemon{
		cfg: cfg, root: spool.Root(filepath.Join(cfg.StateDir, "jobs")), boot: cfg.Clock.Now(),
		jobs: map[string]*job{}, pendingAck: map[uint64]string{},
		sessCh: make(chan sessEvent), shepCh: make(chan shepEvent, 64), queryCh: make(chan func()),
		launchCh: make(chan *launchResult), launchSem: make(chan struct{}, maxConcurrentLaunches),
		done: make(chan struct{}), stop: make(chan struct{}),
	}
	d.pool = spool.NewPool(d.root, spoolPoolSize)
	d.hostl = newHostLink(&d.cfg)
	d.accts = newAccounts(shepherd.LookupAccount, cfg.Clock.Now)
	d.umask = syscall.Umask(0o022)
	syscall.Umask(d.umask)
	if err := os.MkdirAll(string(d.root), 0o755); err != nil {
		return nil, fmt.Errorf("sbatchd: %w", err)
	}
	seq, err := newSeqAlloc(cfg.StateDir, cfg.Clock)
	if err != nil {
		return nil, err
	}
	d.seq = seq
	self, err := shepherd.LookupAccount(selfUser())
	if err != nil {
		return nil, fmt.Errorf("sbatchd: own account: %w", err)
	}
	d.self, d.nonRoot = self, os.Geteuid() != 0
	if !d.nonRoot && !traversable(string(d.root)) {
		root, err := userRootFor(cfg.StateDir)
		if err != nil {
			return nil, fmt.Errorf("sbatchd: %w", err)
		}
		d.userRoot = root
		cfg.Log.Warn("job users cannot traverse the state directory: their job files go elsewhere", "state", d.root, "jobfiles", root)
	}
	if cfg.Cgroups && !d.nonRoot {
		h, err := cgroup.Detect()
		if err == nil {
			m := cgroup.New(h, cfg.CgroupParent())
			if g, err := m.Create("probe"); err == nil {
				g.Remove()
				d.cgm = m
			} else {
				cfg.Log.Warn("cgroups unusable, jobs tracked by process descent", "err", err)
			}
		}
	}
	return d, nil
}

func selfUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

// maxConcurrentLaunches bounds the shepherds started at once.
const maxConcurrentLaunches = 16

// Run runs sbatchd until ctx ends or Shutdown is called. Jobs keep
// running after it returns.
func (d *Daemon) Run(ctx context.Context) error {
	defer close(d.done)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	mode := "process groups"
	if d.cgm != nil {
		mode = "cgroups (" + d.cgm.Mode() + ")"
	}
	d.cfg.Log.Info("sbatchd on "+d.cfg.Host+" starting", "state", d.cfg.StateDir, "tracking", mode)
	d.recover(ctx)
	go d.runSessions(ctx)
	tick := d.cfg.Clock.NewTicker(d.cfg.SleepTime)
	defer tick.Stop()
	for {
		select {
		case ev := <-d.sessCh:
			d.onSession(ctx, ev)
		case ev := <-d.shepCh:
			d.onShepherd(ctx, ev)
		case r := <-d.launchCh:
			d.launched(ctx, r)
		case f := <-d.queryCh:
			f()
		case <-tick.C():
			d.checkHealth()
			d.flushUsage()
			d.checkOrphans()
			d.loadCheck(ctx)
		case <-d.stop:
			d.shutdown()
			return nil
		case <-ctx.Done():
			d.shutdown()
			return ctx.Err()
		}
		if d.loadKick {
			d.loadKick = false
			d.loadCheck(ctx)
		}
	}
}

// Restarting reports whether mbatchd asked for a restart (badmin
// hrestart): once Run has returned, the caller executes sbatchd again.
func (d *Daemon) Restarting() bool { return d.restart.Load() }

// Shutdown stops the daemon (net/http semantics: it waits for Run to
// return or ctx to end). Jobs keep running under their shepherds.
func (d *Daemon) Shutdown(ctx context.Context) error {
	select {
	case d.stop <- struct{}{}:
	case <-d.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-d.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *Daemon) shutdown() {
	if d.sess != nil {
		d.sess.flush(d.cfg.Clock, 2*time.Second)
		d.sess.cancel()
		d.sess = nil
	}
	for _, j := range d.jobs {
		if j.client != nil {
			j.client.Close()
			j.client = nil
		}
	}
	d.hostl.retire()
	if len(d.jobs) == 0 {
		// Leave no empty directories behind (they are recreated as needed).
		if d.userRoot != "" {
			os.Remove(d.userRoot)
		}
		if d.cgm != nil {
			d.cgm.RemoveParents()
		}
	}
	d.cfg.Log.Info("sbatchd on "+d.cfg.Host+" stopped; jobs left to their shepherds", "jobs", len(d.jobs))
}

// query runs f on the main loop (for RPC handlers); false when the daemon
// is not running.
func (d *Daemon) query(ctx context.Context, f func()) bool {
	done := make(chan struct{})
	select {
	case d.queryCh <- func() { f(); close(done) }:
	case <-d.done:
		return false
	case <-ctx.Done():
		return false
	}
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// recover finds the jobs of a previous life: the spool directories, and
// the cgroups of jobs whose spool was lost. Live shepherds are
// reconnected; finished runs wait for mbatchd's acknowledgement.
func (d *Daemon) recover(ctx context.Context) {
	if err := d.root.Sweep(); err != nil {
		d.cfg.Log.Warn("removing the spools of acknowledged jobs", "err", err)
	}
	keys, err := d.root.Keys()
	if err != nil {
		d.cfg.Log.Error("reading the state directory", "dir", d.root, "err", err)
	}
	for _, k := range keys {
		dir := d.root.Job(k)
		if dir.IsAcked() {
			d.removeSpool(k, dir)
			continue
		}
		j := d.newJob(k)
		if l, err := dir.ReadLaunch(); err == nil {
			j.launch = l
		}
		if st, err := dir.ReadState(); err == nil {
			j.status = st
			j.shepSeq = st.Seq
		}
		d.jobs[k] = j
		if d.connect(ctx, j) {
			continue
		}
		d.shepherdGone(ctx, j)
	}
	if d.cgm == nil {
		return
	}
	names, _ := d.cgm.List()
	for _, n := range names {
		k, ok := strings.CutPrefix(n, "job.")
		if _, _, valid := spool.ParseKey(k); !ok || !valid || d.jobs[k] != nil {
			continue
		}
		j := d.newJob(k)
		if d.connect(ctx, j) {
			d.cfg.Log.Warn("job re-adopted from its cgroup and shepherd (state directory lost)", "job", k)
			d.jobs[k] = j
			d.shepCommand(j, &cmdPersist, 0)
		}
	}
}

// onSession handles the session's events.
func (d *Daemon) onSession(ctx context.Context, ev sessEvent) {
	switch {
	case ev.up != nil:
		d.sess = ev.up
		d.cfg.Log.Info("session with mbatchd open", "session", ev.up.id)
		d.sendMbd(&api.SbdMessage{Hello: d.hello()})
	case ev.down != nil:
		if d.sess != nil && d.sess.id == ev.down.id {
			d.sess = nil
		}
	case ev.msg != nil:
		d.onMessage(ctx, ev.msg)
	}
}

// hello lists every job held, each with a fresh report.
func (d *Daemon) hello() *api.SbdHello {
	d.notServing = d.acceptFailing()
	h := &api.SbdHello{Host: d.cfg.Host, BootTime: d.boot.Unix(), Version: d.cfg.Version, NotServing: d.notServing}
	for _, j := range d.sorted() {
		r := j.report()
		if r == nil {
			continue
		}
		d.stamp(j, r)
		h.Jobs = append(h.Jobs, r)
	}
	return h
}

func (d *Daemon) sorted() []*job {
	out := make([]*job, 0, len(d.jobs))
	for _, j := range d.jobs {
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].key < out[b].key })
	return out
}

// stamp gives a report its Seq and remembers what was sent.
func (d *Daemon) stamp(j *job, r *api.JobStatusReport) {
	r.Seq = d.seq.Next()
	if r.Final {
		d.pendingAck[r.Seq] = j.key
	}
	j.sentState, j.sentReasons, j.sentFinal, j.sentPost = r.State, r.SuspReasons, r.Final, r.PostDone || r.PostFailed
	j.sentUsage, j.sentAt, j.usageHeld = r.Usage, d.cfg.Clock.Now(), false
	if r.ChkpntPhase == api.ChkpntSucceeded || r.ChkpntPhase == api.ChkpntFailed {
		j.sentChkpnt = r.ChkpntReq
	}
}

func (d *Daemon) onMessage(ctx context.Context, m *api.MbdMessage) {
	switch {
	case m.Welcome != nil:
		for _, l := range m.Welcome.Jobs {
			d.adopt(ctx, l)
		}
	case m.Launch != nil:
		d.launch(ctx, m.Seq, m.Launch)
	case m.Signal != nil:
		if st := d.signal(m.Seq, m.Signal); st != nil {
			d.sendMbd(&api.SbdMessage{Ack: &api.Ack{Seq: m.Seq, Status: st}})
		}
	case m.Ack != nil:
		if next := d.acked(m.Ack.Seq); next != nil {
			for _, seq := range next.seqs {
				d.launch(ctx, seq, next.launch)
			}
		}
	case m.Control != nil:
		if m.Control.Restart {
			d.restart.Store(true)
		}
		if m.Control.Shutdown || m.Control.Restart {
			d.cfg.Log.Warn("mbatchd asked sbatchd to shut down", "restart", m.Control.Restart)
			go func() {
				select {
				case d.stop <- struct{}{}:
				case <-d.done:
				}
			}()
		}
		if m.Control.Reconfig {
			d.cfg.Log.Warn("reconfiguration requested: lsb.params and lsb.hosts are read at start-up; restart sbatchd to apply changes")
		}
		if m.Seq != 0 {
			d.sendMbd(&api.SbdMessage{Ack: &api.Ack{Seq: m.Seq}})
		}
	}
}

// sbdError is an error with LSF's error number.
type sbdError struct {
	code int32
	msg  string
}

func (e *sbdError) Error() string { return e.msg }

func statusOf(err error) *api.Status {
	var se *sbdError
	if errors.As(err, &se) {
		return &api.Status{Code: se.code, Message: se.msg}
	}
	return &api.Status{Code: LSBESbatchd, Message: err.Error()}
}

// acked handles mbatchd's acknowledgement of a final report: the run's
// record is deleted. It returns the launch of a later run held until then.
func (d *Daemon) acked(seq uint64) *heldLaunch {
	k, ok := d.pendingAck[seq]
	if !ok {
		return nil
	}
	j := d.jobs[k]
	for s, key := range d.pendingAck {
		if key == k {
			delete(d.pendingAck, s)
		}
	}
	if j == nil {
		return nil
	}
	d.forget(j)
	return j.next
}

// forget deletes a job's record once mbatchd has its final report (its
// spool disappears atomically: a restart never reports the run again).
func (d *Daemon) forget(j *job) {
	if j.client != nil {
		j.client.Close()
		j.client = nil
	}
	j.gen++
	if d.cgm != nil {
		// The shepherd removed it, unless it could not.
		if g := d.cgm.Group("job." + j.key); g.Exists() && g.Remove() != nil {
			d.ctr.CgroupErrors.Add(1)
			g.Kill()
			g.WaitEmpty(d.cfg.Clock, time.Second)
			g.Remove()
		}
	}
	d.removeSpool(j.key, j.dir)
	if d.userRoot != "" {
		rawfile.RemoveAll(filepath.Join(d.userRoot, j.key))
	}
	delete(d.jobs, j.key)
}

// newJob is the record of job key k.
func (d *Daemon) newJob(k string) *job {
	j := &job{key: k, dir: d.root.Job(k)}
	j.userDir = j.dir.User()
	if d.userRoot != "" {
		j.userDir = spool.UserDir(filepath.Join(d.userRoot, k))
	}
	return j
}

// traversable reports whether every user may traverse path and its
// ancestors (others have search permission on each).
func traversable(path string) bool {
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if p == filepath.Dir(p) {
			return true
		}
	}
}

// userRootFor is the directory of the jobs' user directories when the
// state directory is private: a root-owned, mode 0711 directory in the
// system's temporary directory, named after the state directory (refused
// if someone else made it).
func userRootFor(stateDir string) (string, error) {
	h := fnv.New64a()
	h.Write([]byte(stateDir))
	root := filepath.Join(os.TempDir(), fmt.Sprintf(".basalt-jobs-%x", h.Sum64()))
	if err := os.Mkdir(root, 0o711); err != nil && !os.IsExist(err) {
		return "", err
	}
	st, err := os.Lstat(root)
	if err != nil {
		return "", err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !st.IsDir() || !ok || int(sys.Uid) != os.Geteuid() || st.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("%s is not a directory of this user's that only it can write", root)
	}
	if err := os.Chmod(root, 0o711); err != nil {
		return "", err
	}
	if !traversable(root) {
		return "", fmt.Errorf("job users cannot traverse %s either", root)
	}
	return root, nil
}

func (d *Daemon) removeSpool(k string, dir spool.Dir) {
	if err := d.pool.Retire(dir); err != nil {
		d.cfg.Log.Warn("removing a job's spool", "job", k, "err", err)
	}
}
