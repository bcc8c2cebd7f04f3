package sbd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/config/lsfhosts"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/basalt-lsf/basalt/internal/sbd/jobenv"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
	"github.com/basalt-lsf/basalt/internal/sbd/spool"
)

// job is sbatchd's record of one job run on the host.
type job struct {
	key     string
	dir     spool.Dir
	userDir spool.UserDir
	launch  *api.JobLaunch // nil until known (re-adoption without spool)

	client *shepherd.Client // nil when no shepherd is connected
	gen    int              // connection generation: events of older ones are stale
	spid   int              // the shepherd's PID, when this sbatchd started it

	status  *api.JobStatusReport // the shepherd's latest state
	shepSeq uint64               // its Seq (the shepherd's own numbering)
	started time.Time            // when sbatchd first saw it running

	// orphan is the cgroup of a job whose shepherd is gone while its
	// processes run: watched until empty, controlled by signals.
	orphan *cgroup.Group

	// What mbatchd was last sent.
	sentState   api.JobState
	sentReasons int32
	sentFinal   bool
	sentChkpnt  int64 // the checkpoint request whose outcome was sent
	sentPost    bool
	sentUsage   *api.Usage
	sentAt      time.Time
	usageHeld   bool // a usage change waits for SBD_SLEEP_TIME

	// Commands sent to the shepherd awaiting its ack: command Seq ->
	// mbatchd message Seq (0: none to answer).
	pending map[uint64]uint64

	// launching is set while the shepherd is being started: mbatchd's
	// launch messages (launchSeqs) are answered, and the commands that
	// arrive meanwhile (queued) sent, once it is up.
	launching  bool
	launchSeqs []uint64
	queued     []queuedCmd

	// next is a launch of a later run that arrived while this run's
	// shepherd was still finishing (post-execution after a requeue): it
	// starts once this run's final report is acknowledged.
	next *heldLaunch
}

type heldLaunch struct {
	launch *api.JobLaunch
	seqs   []uint64
}

// queuedCmd is a shepherd command held while the job is launching.
type queuedCmd struct {
	cmd    sbdwire.Command
	mbdSeq uint64
}

func (j *job) final() bool { return j.status != nil && j.status.Final }

// report is the job's current report for mbatchd (without its Seq); nil
// when there is nothing to say yet.
func (j *job) report() *api.JobStatusReport {
	if j.status == nil {
		if j.launch == nil {
			return nil
		}
		// Started, but not yet executing (pre-execution): running for
		// mbatchd.
		return &api.JobStatusReport{JobID: j.launch.JobID, Index: j.launch.Index, State: api.StateRun,
			RunCount: j.launch.RunCount, PID: int32(j.spid)}
	}
	r := *j.status
	if r.State == 0 {
		r.State = api.StateRun
	}
	return &r
}

// shepEvent is what a shepherd watcher tells the main loop.
type shepEvent struct {
	key string
	gen int
	ev  shepherd.Event
	err error // the connection ended
}

var cmdPersist = sbdwire.Command{Op: sbdwire.OpPersist}

// launch starts a job: the shepherd is prepared, started and connected by
// a goroutine of its own (several jobs start at once), and mbatchd's launch
// message seq is answered with the shepherd's PID when it is up (see
// launched). A job already held is never started again: a repeated launch
// is answered with the running shepherd's PID.
func (d *Daemon) launch(ctx context.Context, seq uint64, l *api.JobLaunch) {
	k := spool.Key(l.JobID, l.Index)
	if j := d.jobs[k]; j != nil {
		if j.launching {
			j.launchSeqs = append(j.launchSeqs, seq)
			return
		}
		if !j.final() && j.launch != nil && l.RunCount > j.launch.RunCount {
			// A new run (REQUEUE_EXIT_VALUES sends the job back at once)
			// while the previous one's post-execution runs: it waits for
			// that run to end instead of being taken for a repeated
			// launch of it (the job then showed RUN with no process until
			// sbatchd reconnected).
			if j.next == nil || j.next.launch.RunCount != l.RunCount {
				j.next = &heldLaunch{launch: l}
			}
			j.next.seqs = append(j.next.seqs, seq)
			return
		}
		if !j.final() {
			d.sendMbd(&api.SbdMessage{Ack: &api.Ack{Seq: seq, PID: int32(j.spid)}})
			return
		}
		// mbatchd dispatches the job again: it has committed the previous
		// run's end.
		d.forget(j)
	}
	j := d.newJob(k)
	j.launch, j.launching, j.launchSeqs = l, true, []uint64{seq}
	d.jobs[k] = j
	gen := j.gen
	go func() {
		d.launchSem <- struct{}{}
		r := d.startShepherd(ctx, k, j.dir, l)
		<-d.launchSem
		r.key, r.gen = k, gen
		select {
		case d.launchCh <- r:
		case <-ctx.Done():
			if r.client != nil {
				r.client.Close() // the shepherd runs on; the next sbatchd adopts it
			}
		}
	}()
}

// launchResult is what a launch goroutine tells the main loop.
type launchResult struct {
	key    string
	gen    int
	pid    int
	err    error
	client *shepherd.Client // nil when the new shepherd could not be reached
	status *api.JobStatusReport
	launch *api.JobLaunch
}

// startShepherd prepares a job's spool and starts and connects its
// shepherd. It touches no daemon state: it runs outside the main loop.
func (d *Daemon) startShepherd(ctx context.Context, k string, dir spool.Dir, l *api.JobLaunch) *launchResult {
	acct, err := d.execAccount(l)
	if err != nil {
		return &launchResult{err: err}
	}
	if err := dir.Remove(); err != nil {
		return &launchResult{err: err}
	}
	p := d.params(l, acct, k, dir)
	p.SpoolTraversable = d.umask&0o011 == 0
	lb, pb := wire.Marshal(l), wire.Marshal(p)
	// The launch stays in the spool for a restarted sbatchd; the host
	// gets both in the request (the shepherd's parameters are not kept).
	if err := d.pool.Create(dir, lb); err != nil {
		return &launchResult{err: err}
	}
	pid, err := d.hostl.start(ctx, string(dir), lb, pb)
	if err != nil {
		dir.Remove()
		d.ctr.ShepherdErrors.Add(1)
		return &launchResult{err: &sbdError{LSBESbatchd, fmt.Sprintf("cannot start the job's shepherd: %v", err)}}
	}
	d.cfg.Log.Info("job started", "job", k, "user", acct.User, "shepherd", pid)
	r := &launchResult{pid: pid}
	r.client, r.status, r.launch, err = d.dialShepherd(ctx, k)
	if err != nil {
		d.ctr.ShepherdErrors.Add(1)
		d.cfg.Log.Warn("cannot reach the job's new shepherd", "job", k, "err", err)
	}
	return r
}

// launched completes a launch in the main loop: mbatchd's launch messages
// are answered and the commands queued meanwhile go to the shepherd.
func (d *Daemon) launched(ctx context.Context, r *launchResult) {
	j := d.jobs[r.key]
	if j == nil || !j.launching || j.gen != r.gen {
		if r.client != nil {
			r.client.Close()
		}
		return
	}
	seqs, queued := j.launchSeqs, j.queued
	j.launching, j.launchSeqs, j.queued = false, nil, nil
	if r.err != nil {
		delete(d.jobs, r.key)
		d.ctr.JobStartFailures.Add(1)
		d.cfg.Log.Warn("job not started", "job", r.key, "err", r.err)
		for _, s := range seqs {
			d.sendMbd(&api.SbdMessage{Ack: &api.Ack{Seq: s, Status: statusOf(r.err)}})
		}
		for _, q := range queued {
			if q.mbdSeq != 0 {
				d.sendMbd(&api.SbdMessage{Ack: &api.Ack{Seq: q.mbdSeq, Status: &api.Status{Code: LSBENoJob, Message: "No matching job found"}}})
			}
		}
		return
	}
	j.spid = r.pid
	d.ctr.JobsStarted.Add(1)
	for _, s := range seqs {
		d.sendMbd(&api.SbdMessage{Ack: &api.Ack{Seq: s, PID: int32(r.pid)}})
	}
	if r.client != nil {
		d.attach(ctx, j, r.client, r.status, r.launch)
	} else {
		// Ended before it could be reached (its final state is in the
		// spool), or its host went away.
		d.shepherdGone(ctx, j)
	}
	for _, q := range queued {
		if !d.shepCommand(j, &q.cmd, q.mbdSeq) && q.mbdSeq != 0 {
			d.sendMbd(&api.SbdMessage{Ack: &api.Ack{Seq: q.mbdSeq, Status: &api.Status{Code: LSBESbatchd, Message: "the job's shepherd is not reachable"}}})
		}
	}
}

// execAccount is the account l's job runs as here: its user's, or the one
// the user's .lsfhosts maps this host to (bsub sent the send lines) when
// that account's own .lsfhosts on this host accepts the user from the
// submission host (seed 004, "User Account Mapping"). A mapping that is not
// accepted is not applied; root is never mapped to.
func (d *Daemon) execAccount(l *api.JobLaunch) (*shepherd.Account, error) {
	if d.nonRoot || l.Spec == nil || len(l.Spec.UserMap) == 0 {
		return d.account(l.User)
	}
	to := lsfhosts.SendTo(lsfhosts.FromPairs(l.Spec.UserMap), d.cfg.Host, d.cfg.Cluster)
	if to == "" || to == l.User {
		return d.account(l.User)
	}
	a, err := d.accts.get(to)
	if err != nil || a.UID == 0 {
		d.cfg.Log.Warn("account mapping not applied", "job", l.JobID, "user", l.User, "to", to, "err", err)
		return d.account(l.User)
	}
	es, err := lsfhosts.Load(a.Home, int(a.UID))
	if err != nil || !lsfhosts.Accepts(es, l.Spec.FromHost, d.cfg.Cluster, l.User) {
		d.cfg.Log.Warn("account mapping not accepted by the account's .lsfhosts", "job", l.JobID, "user", l.User, "to", to, "err", err)
		return d.account(l.User)
	}
	return a, nil
}

// account is who job user name runs as on this host.
func (d *Daemon) account(name string) (*shepherd.Account, error) {
	if d.nonRoot {
		if name != d.self.User {
			return nil, &sbdError{LSBEBadUser, fmt.Sprintf("sbatchd runs as %s (not root): it cannot run jobs of user %s", d.self.User, name)}
		}
		return d.self, nil
	}
	a, err := d.accts.get(name)
	if err != nil {
		return nil, &sbdError{LSBEBadUser, fmt.Sprintf("no account for user %s on host %s", name, d.cfg.Host)}
	}
	return a, nil
}

func (d *Daemon) params(l *api.JobLaunch, a *shepherd.Account, k string, dir spool.Dir) *sbdwire.Params {
	p := &sbdwire.Params{
		Host: d.cfg.Host, Cluster: firstNonEmpty(l.Cluster, d.cfg.Cluster), SpoolDir: string(dir),
		User: a.User, UID: a.UID, GID: a.GID, Groups: a.Groups, Home: a.Home, SetCred: !d.nonRoot,
		ExecArgv: d.cfg.ShepherdArgv, ExecPath: d.cfg.ShepherdPath, TerminateInterval: int64(d.cfg.TerminateInterval), SampleInterval: int64(d.cfg.SampleInterval),
		ServerDir: d.cfg.ServerDir, ExtraEnv: d.cfg.ExtraEnv, JobCPULimit: d.cfg.JobCPULimit, MemLimitEnforce: d.cfg.MemLimitEnforce,
		SocketName: shepherd.SocketName(d.cfg.StateDir, k), Admin: d.cfg.Admin,
		MailProg: d.cfg.MailProg, MailTo: d.cfg.MailTo, MailSizeLimit: d.cfg.MailSizeLimit,
	}
	if d.cgm != nil {
		p.CgroupParent, p.CgroupName = d.cfg.CgroupParent(), "job."+k
		p.GPUDevices = d.cfg.GPUDevicesMount
	}
	if d.userRoot != "" {
		p.UserDir = filepath.Join(d.userRoot, k)
	}
	return p
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// connect dials a job's shepherd and starts watching it; false when no
// shepherd listens.
func (d *Daemon) connect(ctx context.Context, j *job) bool {
	c, st, l, err := d.dialShepherd(ctx, j.key)
	if err != nil {
		return false
	}
	d.attach(ctx, j, c, st, l)
	return true
}

// dialShepherd connects to a job's shepherd and takes its state and launch
// record (the handshake). Safe outside the main loop.
func (d *Daemon) dialShepherd(ctx context.Context, k string) (*shepherd.Client, *api.JobStatusReport, *api.JobLaunch, error) {
	c, err := shepherd.Dial(ctx, shepherd.SocketName(d.cfg.StateDir, k))
	if err != nil {
		return nil, nil, nil, err
	}
	// The shepherd's state comes first: the job is fully known before the
	// next hello lists it.
	st, l, _, err := c.Handshake(time.Now().Add(5 * time.Second)) // an I/O deadline
	if err != nil {
		d.cfg.Log.Warn("shepherd handshake", "job", k, "err", err)
		c.Close()
		return nil, nil, nil, err
	}
	return c, st, l, nil
}

// attach makes c the job's shepherd connection and watches it.
func (d *Daemon) attach(ctx context.Context, j *job, c *shepherd.Client, st *api.JobStatusReport, l *api.JobLaunch) {
	if j.launch == nil {
		j.launch = l
	}
	j.gen++
	j.client = c
	gen := j.gen
	d.onStatus(j, st)
	go func() {
		for {
			ev, err := c.Recv()
			select {
			case d.shepCh <- shepEvent{key: j.key, gen: gen, ev: ev, err: err}:
			case <-ctx.Done():
				c.Close()
				return
			}
			if err != nil {
				c.Close()
				return
			}
		}
	}()
}

func (d *Daemon) onShepherd(ctx context.Context, e shepEvent) {
	j := d.jobs[e.key]
	if j == nil || e.gen != j.gen {
		return
	}
	switch {
	case e.err != nil:
		j.client = nil
		for cs, ms := range j.pending {
			delete(j.pending, cs)
			if ms != 0 {
				d.sendMbd(&api.SbdMessage{Ack: &api.Ack{Seq: ms}})
			}
		}
		if !j.final() {
			d.shepherdGone(ctx, j)
		}
	case e.ev.Status != nil:
		d.onStatus(j, e.ev.Status)
	case e.ev.Launch != nil:
		if j.launch == nil {
			j.launch = e.ev.Launch
		}
	case e.ev.Ack != nil:
		ms, ok := j.pending[e.ev.Ack.Seq]
		if !ok {
			return
		}
		delete(j.pending, e.ev.Ack.Seq)
		if ms == 0 {
			return
		}
		ack := &api.Ack{Seq: ms, PID: e.ev.Ack.PID}
		if e.ev.Ack.Err != "" {
			code := int32(LSBESbatchd)
			if e.ev.Ack.Err == shepherd.ErrFinished.Error() {
				code = LSBEJobFinish
			}
			ack.Status = &api.Status{Code: code, Message: e.ev.Ack.Err}
		}
		d.sendMbd(&api.SbdMessage{Ack: ack})
	}
}

// onStatus takes a state from a job's shepherd and tells mbatchd what
// changed: state changes at once, usage at most every SBD_SLEEP_TIME and
// only when significant.
func (d *Daemon) onStatus(j *job, st *api.JobStatusReport) {
	if j.status != nil && st.Seq <= j.shepSeq {
		return
	}
	j.status, j.shepSeq = st, st.Seq
	if st.State == 0 && !st.Final {
		return // pre-execution: nothing new for mbatchd
	}
	if st.State == api.StateRun && j.started.IsZero() {
		j.started = d.cfg.Clock.Now()
	}
	changed := st.State != j.sentState || st.SuspReasons != j.sentReasons || st.Final != j.sentFinal ||
		(st.PostDone || st.PostFailed) != j.sentPost || j.sentAt.IsZero() || chkpntChanged(j, st)
	if changed {
		d.sendReport(j)
		return
	}
	if significant(j.sentUsage, st.Usage) {
		if d.cfg.Clock.Now().Sub(j.sentAt) >= d.cfg.SleepTime {
			d.sendReport(j)
		} else {
			j.usageHeld = true
		}
	}
}

func (d *Daemon) sendReport(j *job) {
	r := j.report()
	if r == nil {
		return
	}
	if d.sess == nil {
		return // the next hello carries it
	}
	d.stamp(j, r)
	if r.Final {
		d.cfg.Log.Info("final report sent", "job", j.key, "state", fmt.Sprintf("%#x", r.State), "status", fmt.Sprintf("%#x", r.ExitStatus), "reason", r.TermReason)
	}
	d.sendMbd(&api.SbdMessage{Status: r})
}

// significant reports whether usage moved enough to be reported: CPU time,
// memory or swap by more than 10%, or new processes or process groups.
func significant(old, cur *api.Usage) bool {
	if cur == nil {
		return false
	}
	if old == nil {
		return true
	}
	moved := func(a, b float64) bool {
		if a == b {
			return false
		}
		if a == 0 {
			return true
		}
		diff := b - a
		if diff < 0 {
			diff = -diff
		}
		return diff > a/10
	}
	if moved(old.CPUTime, cur.CPUTime) || moved(float64(old.Mem), float64(cur.Mem)) || moved(float64(old.Swap), float64(cur.Swap)) {
		return true
	}
	seen := map[int32]bool{}
	for _, p := range old.PIDs {
		seen[p] = true
	}
	for _, p := range cur.PIDs {
		if !seen[p] {
			return true
		}
	}
	return false
}

// flushUsage sends the usage changes held back by the SBD_SLEEP_TIME
// limit.
func (d *Daemon) flushUsage() {
	now := d.cfg.Clock.Now()
	for _, j := range d.sorted() {
		if j.usageHeld && now.Sub(j.sentAt) >= d.cfg.SleepTime {
			d.sendReport(j)
		}
	}
}

// shepherdGone handles a job whose shepherd is not (or no longer)
// reachable: its spool may hold a final state it wrote before exiting;
// otherwise the job's processes, if any remain, are watched as an orphan,
// and the job is reported lost once they are gone.
func (d *Daemon) shepherdGone(ctx context.Context, j *job) {
	if st, err := j.dir.ReadState(); err == nil && st.Final && (j.status == nil || st.Seq >= j.shepSeq) {
		j.status, j.shepSeq = st, st.Seq
		d.sendReport(j)
		return
	}
	if d.cgm != nil {
		if g, err := d.cgm.Open("job." + j.key); err == nil {
			if empty, _ := g.Empty(); !empty {
				d.cfg.Log.Warn("shepherd gone, processes still running: watching its cgroup", "job", j.key)
				j.orphan = g
				return
			}
		}
	}
	d.lost(j, "TERM_UNKNOWN")
}

// checkOrphans reports the orphans whose processes have all ended. Their
// exit status is not known: LSF's TERM_ZOMBIE ("job exited while LSF is not
// available").
func (d *Daemon) checkOrphans() {
	for _, j := range d.sorted() {
		if j.orphan == nil {
			continue
		}
		if empty, err := j.orphan.Empty(); err == nil && empty {
			j.orphan.Remove()
			j.orphan = nil
			d.lost(j, "TERM_ZOMBIE")
		}
	}
}

// lost ends a job sbatchd cannot follow any more: EXIT with reason,
// requeued when the job is rerunnable, recorded in the spool until
// mbatchd acknowledges it.
func (d *Daemon) lost(j *job, reason string) {
	st := &api.JobStatusReport{State: api.StateExit, TermReason: reason, Final: true, Time: d.cfg.Clock.Now().Unix()}
	if j.status != nil {
		old := *j.status
		st.PID, st.PGID, st.ExecCwd, st.ExecHome, st.ExecUser, st.Usage = old.PID, old.PGID, old.ExecCwd, old.ExecHome, old.ExecUser, old.Usage
		st.ChkpntReq, st.ChkpntPhase, st.ChkpntPID, st.ChkpntErr = old.ChkpntReq, old.ChkpntPhase, old.ChkpntPID, old.ChkpntErr
	}
	if l := j.launch; l != nil {
		st.JobID, st.Index, st.RunCount = l.JobID, l.Index, l.RunCount
		st.Requeue = (l.Spec != nil && l.Spec.Rerunnable && !l.Spec.NotRerunnable) || (l.Queue != nil && l.Queue.Rerunnable)
	} else if id, idx, ok := spool.ParseKey(j.key); ok {
		st.JobID, st.Index = id, idx
	}
	st.Seq = j.shepSeq + 1
	j.status, j.shepSeq = st, st.Seq
	if err := os.MkdirAll(string(j.dir), 0o700); err == nil {
		if err := j.dir.WriteState(st); err != nil {
			d.cfg.Log.Warn("writing a lost job's state", "job", j.key, "err", err)
		}
	}
	d.ctr.ShepherdErrors.Add(1)
	d.cfg.Log.Warn("job lost", "job", j.key, "reason", reason)
	d.sendReport(j)
}

// adopt handles a job of mbatchd's welcome that the hello did not list:
// re-adopted when its shepherd or cgroup is alive, reported lost otherwise;
// never started again.
func (d *Daemon) adopt(ctx context.Context, l *api.JobLaunch) {
	k := spool.Key(l.JobID, l.Index)
	if d.jobs[k] != nil {
		return
	}
	j := d.newJob(k)
	j.launch = l
	d.jobs[k] = j
	if d.connect(ctx, j) {
		d.cfg.Log.Info("job re-adopted (its shepherd is alive)", "job", k)
		d.shepCommand(j, &cmdPersist, 0)
		return
	}
	d.shepherdGone(ctx, j)
}

// shepCommand sends a command to a job's shepherd; mbdSeq (when not 0) is
// the mbatchd message answered when the shepherd acknowledges it.
func (d *Daemon) shepCommand(j *job, c *sbdwire.Command, mbdSeq uint64) bool {
	if j.launching {
		j.queued = append(j.queued, queuedCmd{cmd: *c, mbdSeq: mbdSeq})
		return true
	}
	if j.client == nil {
		return false
	}
	d.cmdSeq++
	cmd := *c
	cmd.Seq = d.cmdSeq
	if j.pending == nil {
		j.pending = map[uint64]uint64{}
	}
	if err := j.client.Send(&cmd); err != nil {
		d.cfg.Log.Warn("command to the shepherd", "job", j.key, "err", err)
		return false
	}
	j.pending[cmd.Seq] = mbdSeq
	return true
}

// signal applies a JobSignal; it returns the Ack status to send at once, or
// nil when the shepherd's answer will be forwarded.
func (d *Daemon) signal(seq uint64, s *api.JobSignal) *api.Status {
	k := spool.Key(s.JobID, s.Index)
	j := d.jobs[k]
	if j == nil {
		return &api.Status{Code: LSBENoJob, Message: "No matching job found"}
	}
	if j.final() {
		return &api.Status{Code: LSBEJobFinish, Message: "Job has already finished"}
	}
	c := &sbdwire.Command{SuspReasons: s.SuspReasons, SuspSubreason: s.SuspSubreason, TermReason: s.TermReason}
	switch s.Action {
	case api.ActSuspend:
		c.Op = sbdwire.OpSuspend
		if c.SuspReasons == 0 {
			c.SuspReasons = shepherd.SuspUserStop
		}
		c.User = c.SuspReasons&(shepherd.SuspUserStop|shepherd.SuspAdminStop) != 0
	case api.ActResume:
		c.Op = sbdwire.OpResume
		if j.status != nil && j.status.State == api.StateUSusp {
			// bresume: SSUSP now, resumed by the load check.
			c.Op = sbdwire.OpUserResume
			d.loadKick = true
		}
	case api.ActTerminate:
		c.Op = sbdwire.OpTerminate
		if c.TermReason == "" {
			c.TermReason = "TERM_OWNER"
		}
	case api.ActSignal:
		c.Op, c.Signal = sbdwire.OpSignal, s.Signal
	case api.ActRequeue:
		c.Op, c.Requeue = sbdwire.OpTerminate, true
		if c.TermReason == "" {
			c.TermReason = "TERM_REQUEUE_OWNER"
		}
	case api.ActChkpnt:
		if st := chkpntCommand(j, s, c); st != nil {
			return st
		}
	case api.ActResize:
		if st := d.resizeCommand(j, s, c); st != nil {
			return st
		}
	default:
		return &api.Status{Code: LSBESbatchd, Message: fmt.Sprintf("unknown job control action %d", s.Action)}
	}
	if j.orphan != nil {
		return d.orphanSignal(j, c)
	}
	if !d.shepCommand(j, c, seq) {
		return &api.Status{Code: LSBESbatchd, Message: "the job's shepherd is not reachable"}
	}
	return nil
}

// orphanSignal controls a job without a shepherd through its cgroup.
func (d *Daemon) orphanSignal(j *job, c *sbdwire.Command) *api.Status {
	var err error
	switch c.Op {
	case sbdwire.OpSuspend:
		_, err = j.orphan.Signal(syscall.SIGSTOP)
	case sbdwire.OpResume, sbdwire.OpUserResume:
		_, err = j.orphan.Signal(syscall.SIGCONT)
	case sbdwire.OpTerminate:
		err = j.orphan.Kill()
	case sbdwire.OpSignal:
		_, err = j.orphan.Signal(syscall.Signal(c.Signal))
	}
	if err != nil {
		return &api.Status{Code: LSBESbatchd, Message: err.Error()}
	}
	return &api.Status{}
}

// outputPath is where a job's output is, for bpeek.
func (j *job) outputPath() string {
	if l := j.launch; l != nil && l.Spec != nil && l.Spec.OutFile != "" {
		p := jobenv.Expand(l.Spec.OutFile, l.JobID, l.Index)
		if !filepath.IsAbs(p) && j.status != nil && j.status.ExecCwd != "" {
			p = filepath.Join(j.status.ExecCwd, p)
		}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			p = filepath.Join(p, fmt.Sprintf("%d.out", l.JobID))
		}
		return p
	}
	return j.userDir.Output()
}
