package shepherd

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/logging"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/basalt-lsf/basalt/internal/sbd/jobenv"
	"github.com/basalt-lsf/basalt/internal/sbd/procfs"
	"github.com/basalt-lsf/basalt/internal/sbd/rawfile"
	"github.com/basalt-lsf/basalt/internal/sbd/report"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
	"github.com/basalt-lsf/basalt/internal/sbd/spool"
)

// LSF pending reasons the shepherd reports when a run cannot start.
const (
	PendJobPreExec   = 6   // PEND_JOB_PRE_EXEC
	PendJobNoFile    = 7   // PEND_JOB_NO_FILE
	PendJobPaths     = 9   // PEND_JOB_PATHS
	PendJobOpenFiles = 10  // PEND_JOB_OPEN_FILES
	PendJobExecInit  = 11  // PEND_JOB_EXEC_INIT
	PendQueuePreExec = 306 // PEND_QUE_PRE_FAIL
)

// Suspend reason bits (LSB_SUSP_REASONS).
const (
	SuspUserResume = 0x1
	SuspUserStop   = 0x2
	SuspAdminStop  = 0x4000
)

// Config is a shepherd's wiring.
type Config struct {
	Dir      spool.Dir
	Listener net.Listener
	Clock    clock.Clock
	// LogFile receives the shepherd's diagnostics and is the exec
	// helper's standard error; nil: the host's log, and the spool's
	// shepherd.log for the helpers (opened when one is first started).
	LogFile *os.File
	// Host is the process's shared part (reaper, cgroup mounts); nil makes
	// one for this job alone.
	Host *Host
	// Launch and Params, when set, are the job's (else read from Dir).
	Launch *api.JobLaunch
	Params *sbdwire.Params
}

// Shepherd runs one job; see the package documentation.
type Shepherd struct {
	dir     spool.Dir
	udir    spool.UserDir
	l       *api.JobLaunch
	p       *sbdwire.Params
	clk     clock.Clock
	logFile *os.File
	ownLog  bool // logFile was opened for the helpers (closed at the end)
	log     *slog.Logger
	devnull *os.File
	lst     net.Listener
	// lstClosed: the job's socket is released (see releaseSocket).
	lstClosed bool
	host      *Host
	// direct: the job runs its job file directly (forked by the shepherd,
	// released at the gate), not through the exec helper. gated: through
	// the job gate, not the job file's; bare: the gate was given the
	// command itself, without the job file's shell (see direct.go).
	direct, gated, bare bool
	// signalled: a signal that may end the job was sent to it (or a job
	// control command ran).
	signalled bool

	cg *cgroup.Group
	// gpuProcs is the job's devices group's cgroup.procs (gpu.go), "".
	gpuProcs string
	proc     procfs.FS

	st    api.JobStatusReport
	env   []string
	files jobenv.Files

	children map[int]*child
	job      *child
	started  bool // the job process executed
	ended    bool // the job process ended (or never will)
	done     bool
	jobPre   bool // the job's -E ran (its output files now exist)

	suspended  bool
	term       *termination
	termReason string // set by a signal that may kill the job
	requeue    bool
	termTimer  clock.Timer
	runTimer   clock.Timer
	sampler    clock.Ticker
	procWatch  clock.Ticker // the process limit's watch (proclimit.go)

	startTime time.Time
	endTime   time.Time
	runSince  time.Time // zero while suspended
	runAccum  time.Duration
	endWS     syscall.WaitStatus

	// usage
	cpu        float64
	maxMem     int64
	maxSwap    int64
	memSum     float64
	samples    int
	maxProcs   int
	maxThreads int
	oomBase    int64

	execRes  *sbdwire.ExecResult
	notes    []string
	posts    []postCmd
	postRan  bool
	postFail bool
	reported bool
	// mailing is the job report mail under way (mail.go).
	mailing endMailKind
	// finalSent: the final state went to a connected sbatchd; connected:
	// sbatchd has connected at least once.
	finalSent, connected bool

	conns    map[*sconn]bool
	exits    chan exitEvent
	results  chan resultEvent
	cmds     chan cmdEvent
	newConns chan net.Conn
	gone     chan *sconn
	reports  chan error
	xfers    chan []string
	xferNext func()
	// xferCancel stops the -f copies under way (nil when none).
	xferCancel context.CancelFunc
	// An interactive job's terminal (tty.go): its streams until the job
	// is forked with them, whether the job waits for them, and for how
	// long.
	ttys       chan ttyEvent
	tty        *ttyFDs
	waitingTTY bool
	ttyTimer   clock.Timer
	// relay: sbatchd's ends of the job's terminal, held while the job
	// runs so that its session survives an sbatchd restart (tty.go).
	relay *relayHold
	// chk is the checkpoint in progress (chkpnt.go).
	chk *chkpntRun
	// rsz is the resize notification command running (resize.go).
	rsz      *resizeRun
	rszQueue []cmdEvent // notifications waiting for rsz to end
	// heldSuspend is a preemption's suspension held while rsz runs.
	heldSuspend *sbdwire.Command
	// finished is closed when Run returns: goroutines stop handing it
	// events.
	finished chan struct{}
}

type termination struct {
	reason  string
	requeue bool
	plan    []step
	next    int
}

type postCmd struct {
	kind childKind
	cmd  string
}

type sconn struct {
	c net.Conn
	w *bufio.Writer
}

type cmdEvent struct {
	from *sconn
	cmd  *sbdwire.Command
}

// Main is the job-shepherd command: "-exec" runs the exec helper, "-host
// STATEDIR" the host's shepherd service (HostMain), a spool directory the
// shepherd of that one job with its socket on fd 3.
func Main(args []string) int { return MainWith(args, nil) }

// MainWith is Main with the way to the submission hosts of jobs' bsub -f
// files (nil: through this host's file system).
func MainWith(args []string, remote RemoteFor) int {
	if len(args) == 1 && args[0] == "-exec" {
		return ExecMain()
	}
	if len(args) > 0 && args[0] == "-host" {
		return hostMain(args[1:], remote)
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(os.Stderr, "usage: basaltd job-shepherd SPOOLDIR | -host STATEDIR [-idle DURATION] | -exec")
		return 2
	}
	dir := spool.Dir(args[0])
	logFile, lst, h, ok := openHost(dir.Log())
	if !ok {
		return 1
	}
	h.single = true
	h.Remote = remote
	// The log is on standard error too (openHost): the helpers get fd 2.
	s, err := New(Config{Dir: dir, Listener: lst, Clock: clock.Real(), LogFile: os.Stderr, Host: h})
	if err != nil {
		fmt.Fprintf(logFile, "job-shepherd: %v\n", err)
		return 1
	}
	if err := s.Run(context.Background()); err != nil {
		s.warnf("exiting: %v", err)
		return 1
	}
	return 0
}

// New reads the job's launch and parameters from its spool directory.
func New(cfg Config) (*Shepherd, error) {
	l, p := cfg.Launch, cfg.Params
	var err error
	if l == nil {
		if l, err = cfg.Dir.ReadLaunch(); err != nil {
			return nil, fmt.Errorf("reading launch: %w", err)
		}
	}
	if p == nil {
		if p, err = cfg.Dir.ReadParams(); err != nil {
			return nil, fmt.Errorf("reading params: %w", err)
		}
	}
	if l.Spec == nil {
		l.Spec = &api.JobSpec{}
	}
	h := cfg.Host
	if h == nil {
		var logw io.Writer // not a nil *os.File in an interface
		if cfg.LogFile != nil {
			logw = cfg.LogFile
		}
		if h, err = NewHost(cfg.Clock, logw); err != nil {
			return nil, err
		}
		h.single = true
	}
	s := &Shepherd{
		dir: cfg.Dir, l: l, p: p, clk: cfg.Clock, logFile: cfg.LogFile, devnull: h.devnull, lst: cfg.Listener, host: h,
		children: map[int]*child{}, conns: map[*sconn]bool{},
		exits: make(chan exitEvent, 16), results: make(chan resultEvent, 16), cmds: make(chan cmdEvent, 16),
		newConns: make(chan net.Conn, 4), gone: make(chan *sconn, 4),
		reports: make(chan error, 1), xfers: make(chan []string, 1), finished: make(chan struct{}),
		ttys: make(chan ttyEvent, 1),
	}
	logw := h.logw
	if cfg.LogFile != nil {
		logw = cfg.LogFile
	}
	s.log = slog.New(logging.NewHandler(logw, &logging.HandlerOptions{Level: slog.LevelInfo,
		Name: "job " + spool.Key(l.JobID, l.Index), Now: func() time.Time { return s.clk.Now() }}))
	s.udir = cfg.Dir.User()
	if p.UserDir != "" {
		s.udir = spool.UserDir(p.UserDir)
	}
	s.st = api.JobStatusReport{JobID: l.JobID, Index: l.Index, RunCount: l.RunCount}
	if cfg.Launch != nil {
		// A fresh start: sbatchd made the spool directory anew.
	} else if old, err := cfg.Dir.ReadState(); err == nil {
		s.st.Seq = old.Seq
	}
	return s, nil
}

// logf and warnf write the job's lines at LOG_INFO and LOG_WARNING.
func (s *Shepherd) logf(format string, args ...any) { s.log.Info(fmt.Sprintf(format, args...)) }

func (s *Shepherd) warnf(format string, args ...any) { s.log.Warn(fmt.Sprintf(format, args...)) }

func (s *Shepherd) now() time.Time { return s.clk.Now() }

func timerC(t clock.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C()
}

// Run runs the job to its end and returns once its final state is
// written.
func (s *Shepherd) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer close(s.finished)
	// Orphans of the job become the process's children.
	s.host.startReaper(ctx)
	go s.accept(ctx)
	s.begin()
	var linger clock.Timer
	for {
		// (An interactive job's terminal whose relay is gone is held for
		// a re-attach to take the job's last output: tty.go.)
		if s.done && !s.holdRelay() {
			// The final state goes to sbatchd before the socket closes: a
			// job that ends before sbatchd's first connection was accepted
			// waits for it (a while; sbatchd may be down, and the spool has
			// it). Once sbatchd has connected, a later one reads the spool.
			if s.finalSent || s.connected {
				break
			}
			if linger == nil {
				linger = s.clk.NewTimer(finalLinger)
			}
		}
		var sampleC <-chan time.Time
		if s.sampler != nil {
			sampleC = s.sampler.C()
		}
		select {
		case <-timerC(linger):
			s.finalSent = true // nobody came
			continue
		case e := <-s.exits:
			s.onExit(e)
		case r := <-s.results:
			s.onResult(r)
		case c := <-s.newConns:
			s.onConn(c)
		case ce := <-s.cmds:
			s.onCommand(ce)
		case sc := <-s.gone:
			s.drop(sc)
		case <-timerC(s.termTimer):
			s.termTimer = nil
			s.termStep()
		case <-timerC(s.runTimer):
			s.runTimer = nil
			s.limitExceeded("TERM_RUNLIMIT")
		case <-sampleC:
			s.sample()
		case <-tickerC(s.procWatch):
			s.watchProcs()
		case err := <-s.reports:
			s.onReport(err)
		case notes := <-s.xfers:
			s.onXfer(notes)
		case e := <-s.ttys:
			s.onTTY(e)
		case <-timerC(s.ttyTimer):
			s.onTTYTimeout()
		case <-ctx.Done():
			s.abort()
			return ctx.Err()
		}
	}
	if linger != nil {
		linger.Stop()
	}
	s.abort()
	return nil
}

// finalLinger is how long a shepherd whose job is done waits for an
// sbatchd connection to hand the final state to.
const finalLinger = 5 * time.Second

// abort closes the shepherd's sockets.
func (s *Shepherd) abort() {
	s.releaseSocket()
	s.relay.close()
	for c := range s.conns {
		c.c.Close()
		delete(s.conns, c)
	}
}

// releaseSocket closes the job's socket, before its final state goes out:
// once sbatchd has read that state, mbatchd may dispatch the job again, and
// the next run's shepherd binds the same name. Connections already
// accepted stay open.
func (s *Shepherd) releaseSocket() {
	if s.lst != nil && !s.lstClosed {
		s.lst.Close()
		s.lstClosed = true
	}
}

// close releases the job's files once its shepherd is done.
func (s *Shepherd) close() {
	if s.logFile != nil && s.ownLog {
		s.logFile.Close()
	}
}

const pr_SET_CHILD_SUBREAPER = 36

func prctl(option, arg uintptr) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, option, arg, 0); e != 0 {
		return e
	}
	return nil
}

// ---- sockets

func (s *Shepherd) accept(ctx context.Context) {
	for {
		c, err := s.lst.Accept()
		if err != nil {
			return
		}
		select {
		case s.newConns <- c:
		case <-s.finished:
			c.Close()
			return
		case <-ctx.Done():
			c.Close()
			return
		}
	}
}

func (s *Shepherd) onConn(c net.Conn) {
	if uid, err := peerUID(c); err != nil || (uid != 0 && uid != os.Geteuid()) {
		s.warnf("refusing connection from uid %d: %v", uid, err)
		c.Close()
		return
	}
	sc := &sconn{c: c, w: bufio.NewWriter(c)}
	s.conns[sc] = true
	s.connected = true
	if s.st.Final && !s.relayHeld() {
		s.releaseSocket()
	}
	if !s.send(sc, frameStatus, &s.st) || !s.send(sc, frameLaunch, s.l) || !s.send(sc, frameParams, s.p) {
		return
	}
	if s.st.Final {
		s.finalSent = true
	}
	go func() {
		gone := func() {
			select {
			case s.gone <- sc:
			case <-s.finished:
			}
		}
		// The first bytes may carry an interactive job's streams.
		first, fds, err := firstRead(c)
		if err != nil {
			gone()
			return
		}
		r := bufio.NewReader(io.MultiReader(bytes.NewReader(first), c))
		for {
			typ, b, err := readFrame(r)
			if err != nil {
				for _, fd := range fds {
					syscall.Close(fd)
				}
				gone()
				return
			}
			if handled, stop := s.ttyFrame(sc, typ, b, &fds); handled {
				if stop {
					return
				}
				continue
			}
			if typ != frameCommand {
				continue
			}
			cmd := &sbdwire.Command{}
			if cmd.UnmarshalWire(b) != nil {
				continue
			}
			select {
			case s.cmds <- cmdEvent{from: sc, cmd: cmd}:
			case <-s.finished:
				return
			}
		}
	}()
}

func (s *Shepherd) send(sc *sconn, typ byte, m interface {
	AppendWire([]byte) []byte
	SizeWire() int
	UnmarshalWire([]byte) error
}) bool {
	_ = sc.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	err := writeFrame(sc.w, typ, m)
	if err == nil {
		err = sc.w.Flush()
	}
	if err != nil {
		s.drop(sc)
		return false
	}
	return true
}

func (s *Shepherd) drop(sc *sconn) {
	if s.conns[sc] {
		delete(s.conns, sc)
		sc.c.Close()
		s.relayGone(sc)
	}
}

// update records a change of the job's state: a new Seq, a push to every
// connected sbatchd and, for the final state, the spool file (the job's
// outcome is known even if sbatchd never got it). The states before are
// only pushed: sbatchd keeps them, and while the shepherd runs a restarted
// sbatchd asks it.
func (s *Shepherd) update() {
	s.st.Seq++
	s.st.Time = s.now().Unix()
	if s.st.Final {
		if err := s.dir.WriteState(&s.st); err != nil {
			s.warnf("%v", err)
		}
	}
	if s.st.Final && len(s.conns) > 0 && !s.relayHeld() {
		s.releaseSocket()
	}
	for c := range s.conns {
		if s.send(c, frameStatus, &s.st) && s.st.Final {
			s.finalSent = true
		}
	}
}

// ---- start

// begin prepares the job's files, cgroup and environment, then starts the
// first stage.
func (s *Shepherd) begin() {
	s.logf("starting (run %d) for user %s", s.l.RunCount, s.p.User)
	s.files = jobenv.Files{JobFile: s.udir.JobFile(), HostFile: s.udir.HostFile()}
	if s.l.Spec.CmdSpoolName != "" {
		s.files.CmdSpool = s.udir.CmdSpool()
	}
	if s.l.Spec.InSpool {
		s.files.InSpool = s.udir.InSpool()
	}
	s.direct = s.canStartDirect()
	s.gated = s.direct && s.host.jobGate() != nil
	if s.l.Spec.FromScript {
		s.files.Script = s.udir.Script()
	}
	if err := s.prepareFiles(); err != nil {
		s.warnf("preparing job files: %v", err)
		s.finishPending(PendJobNoFile)
		return
	}
	if s.p.CgroupParent != "" {
		m, err := s.host.cgroups(s.p.CgroupParent)
		if err == nil {
			g, existed, merr := m.Make(s.p.CgroupName)
			if err = merr; err == nil && existed {
				// A group of that name with processes is another job's
				// (a cluster of the same name and hosts): never share it.
				if empty, eerr := g.Empty(); eerr != nil || !empty {
					err = fmt.Errorf("cgroup %s/%s already holds processes", s.p.CgroupParent, s.p.CgroupName)
					g = nil
				} else if n := g.OOMKills(); n > 0 {
					s.oomBase = n
				}
			}
			s.cg = g
		}
		if err != nil {
			s.warnf("no cgroup, tracking processes by descent: %v", err)
		} else if l := s.l.Limits; l != nil {
			if s.p.MemLimitEnforce && l.Mem > 0 {
				if err := s.cg.SetMemoryLimit(l.Mem * 1024); err != nil {
					s.warnf("memory limit: %v", err)
				}
			}
			if n := pidsCeiling(l); n > 0 {
				if err := s.cg.SetPIDsLimit(n); err != nil {
					s.warnf("thread/process limit: %v", err)
				}
			}
		}
	}
	s.prepareGPUDevices()
	s.env = jobenv.Env(s.l, jobenv.Host{ExecUser: s.p.User, ExecHome: s.p.Home, ExecShell: s.p.Shell, Extra: s.p.ExtraEnv,
		GPUDevices: s.gpuProcs != ""}, s.files)
	s.update()
	s.startQueuePre()
}

// prepareFiles writes the job's directory: created by the shepherd, then
// given to the job user, so the user cannot plant links in it beforehand.
// A directory the spool pool kept that is still the same user's is
// reused: its files are rewritten in place (see reuseUserDir).
func (s *Shepherd) prepareFiles() error {
	ud := string(s.udir)
	uid, gid := s.fileOwner()
	names := map[string]bool{filepath.Base(s.files.JobFile): true, filepath.Base(s.files.HostFile): true}
	for _, f := range []string{s.files.Script, s.files.CmdSpool, s.files.InSpool} {
		if f != "" {
			names[filepath.Base(f)] = true
		}
	}
	in := s.eexecInput()
	if len(in) > 0 {
		names[filepath.Base(s.udir.EexecIn())] = true
	}
	reused := s.reuseUserDir(uid, gid, func(name string) bool { return names[name] })
	if !reused {
		if err := os.Mkdir(ud, 0o700); err != nil {
			if !errors.Is(err, fs.ErrExist) {
				return err
			}
			if err := os.RemoveAll(ud); err != nil {
				return err
			}
			if err := os.Mkdir(ud, 0o700); err != nil {
				return err
			}
		}
	}
	// Other users must reach job/ (mode 0700, the job user's) through
	// the spool directory (sbatchd may have made it so).
	if s.p.SetCred && !s.p.SpoolTraversable {
		if err := os.Chmod(string(s.dir), 0o711); err != nil {
			return err
		}
	}
	write := func(path string, data []byte, mode uint32) error {
		if reused {
			err := rawfile.Rewrite(path, data, uid, gid, mode)
			if err == nil {
				return nil
			}
			// Not the file it was (or none): made anew.
			if err := rawfile.RemoveAll(path); err != nil {
				return err
			}
		}
		fd, err := rawfile.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL, mode)
		if err != nil {
			return err
		}
		err = rawfile.WriteAll(fd, data)
		if err == nil && s.p.SetCred {
			err = syscall.Fchown(fd, int(uid), int(gid))
		}
		if cerr := syscall.Close(fd); err == nil {
			err = cerr
		}
		if err != nil {
			return &fs.PathError{Op: "write", Path: path, Err: err}
		}
		return nil
	}
	if s.files.Script != "" {
		if err := write(s.files.Script, []byte(s.l.Spec.Command), 0o700); err != nil {
			return err
		}
	}
	// The files bsub spooled (-Zs, -is), as they were at submission.
	if s.files.CmdSpool != "" {
		if err := write(s.files.CmdSpool, s.l.Spec.CmdSpool, 0o700); err != nil {
			return err
		}
	}
	if s.files.InSpool != "" {
		if err := write(s.files.InSpool, s.l.Spec.InSpoolData, 0o600); err != nil {
			return err
		}
	}
	jobFile := jobenv.JobFile(s.l, s.files)
	if s.direct && !s.gated {
		jobFile = jobenv.GatedJobFile(s.l, s.files, s.umask())
	}
	if err := write(s.files.JobFile, jobFile, 0o700); err != nil {
		return err
	}
	if err := write(s.files.HostFile, jobenv.HostFile(s.l.ExecHosts), 0o600); err != nil {
		return err
	}
	if len(in) > 0 {
		if err := write(s.udir.EexecIn(), in, 0o600); err != nil {
			return err
		}
	}
	if s.p.SetCred && !reused {
		return os.Chown(ud, int(uid), int(gid))
	}
	return nil
}

// fileOwner is who owns the job user's files: the job user, or sbatchd's
// user when it runs jobs as itself.
func (s *Shepherd) fileOwner() (uid, gid uint32) {
	if !s.p.SetCred {
		return uint32(os.Getuid()), uint32(os.Getgid())
	}
	return uint32(s.p.UID), uint32(s.p.GID)
}

// reuseUserDir prepares job/ for reuse when it is a directory (not a link)
// of the job user's, left by an earlier job of the same user in a spool
// directory the pool kept: what the earlier job left is removed, but the
// files named by keep, which prepareFiles rewrites in place, and its mode
// and group are set back. The spool directory holding it is root's, so
// only job/'s entries can be the user's doing, and rawfile.Rewrite writes
// none of them unless it is a plain file of the user's: nothing the user
// could not have written. false when job/ is another user's, not a
// directory, absent, or cannot be cleared: it is then made anew.
func (s *Shepherd) reuseUserDir(uid, gid uint32, keep func(string) bool) bool {
	if s.p.UserDir != "" {
		return false // sbatchd removes it with the job
	}
	ud := string(s.udir)
	var st syscall.Stat_t
	if err := syscall.Lstat(ud, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR || st.Uid != uid {
		return false
	}
	if err := rawfile.RemoveEntries(ud, keep); err != nil {
		return false
	}
	if st.Gid != gid {
		if err := os.Lchown(ud, int(uid), int(gid)); err != nil {
			return false
		}
	}
	if st.Mode&0o7777 != 0o700 {
		if err := os.Chmod(ud, 0o700); err != nil {
			return false
		}
	}
	return true
}

// baseSpec is an exec helper spec running as the job user with the job's
// environment.
func (s *Shepherd) baseSpec(argv []string, env []string) *sbdwire.ExecSpec {
	spec := &sbdwire.ExecSpec{Argv: argv, Env: env, SetCred: s.p.SetCred, UID: s.p.UID, GID: s.p.GID, Groups: s.p.Groups}
	spec.SetMask, spec.Umask = true, s.umask()
	return spec
}

// umask is the job's umask: bsub's, 022 when it recorded none.
func (s *Shepherd) umask() uint32 {
	if s.l.Spec.Umask == 0 {
		return 0o022
	}
	return s.l.Spec.Umask
}

func (s *Shepherd) inCgroup(spec *sbdwire.ExecSpec) *sbdwire.ExecSpec {
	if s.cg != nil {
		spec.Cgroups = s.cg.ProcsFiles()
		if s.gpuProcs != "" {
			spec.Cgroups = append(spec.Cgroups, s.gpuProcs)
		}
	}
	spec.Setpgid = true
	return spec
}

// prePostSpec runs a queue-level command: as PRE_POST_EXEC_USER when set,
// in /tmp, with /dev/null as its standard streams and LSF's fixed PATH.
func (s *Shepherd) prePostSpec(cmd string, env []string) (*sbdwire.ExecSpec, error) {
	spec := s.inCgroup(s.baseSpec([]string{"/bin/sh", "-c", cmd}, jobenv.PrePostEnv(env)))
	spec.Dirs = []string{"/tmp"}
	if q := s.l.Queue; q != nil && q.PrePostExecUser != "" && s.p.SetCred {
		acct, err := LookupAccount(q.PrePostExecUser)
		if err != nil {
			return nil, err
		}
		spec.UID, spec.GID, spec.Groups = acct.UID, acct.GID, acct.Groups
	}
	return spec, nil
}

func (s *Shepherd) startQueuePre() {
	q := s.l.Queue
	if q == nil || strings.TrimSpace(q.PreExec) == "" {
		s.startJobPre()
		return
	}
	spec, err := s.prePostSpec(q.PreExec, append(s.env[:len(s.env):len(s.env)], "LSB_EXIT_PRE_ABORT="+strconv.Itoa(jobenv.ExitPreAbort)))
	if err != nil {
		s.warnf("queue pre-exec: %v", err)
		s.finishPending(PendQueuePreExec)
		return
	}
	if _, err := s.spawn(kindQueuePre, spec, nil); err != nil {
		s.warnf("%v", err)
		s.finishPending(PendJobExecInit)
	}
}

// ioSpecs are the job's standard streams: -i, -o/-oo (else the spool's
// output file), -e/-eo (else with the output).
func (s *Shepherd) ioSpecs(spec *sbdwire.ExecSpec, job bool) {
	js := s.l.Spec
	switch {
	case s.files.InSpool != "":
		spec.Stdin = &sbdwire.FileSpec{Path: s.files.InSpool, Read: true}
	case js.InFile != "":
		spec.Stdin = &sbdwire.FileSpec{Path: jobenv.Expand(js.InFile, s.l.JobID, s.l.Index), Read: true}
	}
	id := strconv.FormatInt(s.l.JobID, 10)
	// An interactive job's streams are its terminal's (tty.go) but for
	// the -i, -o and -e given (LSF's rule for -I, -Ip, -Is).
	tty := js.Interactive && job
	switch {
	case js.OutFile != "":
		spec.Stdout = &sbdwire.FileSpec{Path: jobenv.Expand(js.OutFile, s.l.JobID, s.l.Index), Append: !js.OutOverwrite || s.jobPre,
			DirName: id + ".out", Fallback: s.udir.Output()}
	case !tty:
		spec.Stdout = &sbdwire.FileSpec{Path: s.udir.Output(), Append: true}
	}
	switch {
	case js.ErrFile != "":
		spec.Stderr = &sbdwire.FileSpec{Path: jobenv.Expand(js.ErrFile, s.l.JobID, s.l.Index), Append: !js.ErrOverwrite || s.jobPre,
			DirName: id + ".err", Fallback: s.udir.Output()}
	case !tty:
		spec.StderrToStdout = true
	}
}

func (s *Shepherd) startJobPre() {
	if s.term != nil {
		s.finishKilled()
		return
	}
	if strings.TrimSpace(s.l.Spec.PreExec) == "" {
		s.startJob()
		return
	}
	env := append(s.env[:len(s.env):len(s.env)], "LSB_EXIT_PRE_ABORT="+strconv.Itoa(jobenv.ExitPreAbort))
	spec := s.inCgroup(s.baseSpec([]string{"/bin/sh", "-c", s.l.Spec.PreExec}, env))
	spec.Dirs = jobenv.Dirs(s.l, s.p.Home)
	s.ioSpecs(spec, false)
	s.jobPre = true
	if _, err := s.spawn(kindJobPre, spec, nil); err != nil {
		s.warnf("%v", err)
		s.finishPending(PendJobExecInit)
	}
}

// startJob copies the job's -f input files, then starts the job.
func (s *Shepherd) startJob() {
	if s.term != nil {
		s.finishKilled()
		return
	}
	ts, notes := transfers(s.l.Spec.Files)
	s.notes = append(s.notes, notes...)
	in := false
	for _, t := range ts {
		in = in || t.in
	}
	if !in {
		s.startJobNow()
		return
	}
	// The job's working directory is the first candidate that exists.
	dir := "/tmp"
	for _, d := range jobenv.Dirs(s.l, s.p.Home) {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			dir = d
			break
		}
	}
	s.xferNext = s.startJobNow
	s.stageFiles(ts, true, dir)
}

// stageFiles runs a direction of the job's -f copies off the loop; their
// notes come back on s.xfers (onXfer), and terminate cancels them.
func (s *Shepherd) stageFiles(ts []transfer, toExec bool, execCwd string) {
	js := s.l.Spec
	g := &staging{fromHost: js.FromHost, user: s.l.User, subCwd: js.SubCwd, subHome: js.SubHome, execCwd: execCwd, c: s.userCred()}
	var remoteFor RemoteFor
	if js.FromHost != "" && js.FromHost != s.p.Host {
		remoteFor = s.host.Remote
	}
	p, log := s.p, s.log
	ctx, cancel := context.WithCancel(context.Background())
	s.xferCancel = cancel
	go func() {
		defer cancel()
		if remoteFor != nil {
			r, err := remoteFor(p)
			if err != nil {
				log.Warn("bsub -f: no way to the submission host", "host", g.fromHost, "err", err)
				s.xfers <- []string{fmt.Sprintf("Unable to reach submission host <%s> for the job's file transfers: %s.", g.fromHost, why(err))}
				return
			}
			g.remote = r
		}
		s.xfers <- g.copyFiles(ctx, ts, toExec)
	}()
}

// userCred is the job user's identity for files the shepherd opens (nil
// when the shepherd runs as that user).
func (s *Shepherd) userCred() *cred {
	if !s.p.SetCred {
		return nil
	}
	return &cred{uid: int(s.p.UID), gid: int(s.p.GID), groups: s.p.Groups}
}

// onXfer continues after a direction of file transfers.
func (s *Shepherd) onXfer(notes []string) {
	s.xferCancel = nil
	s.notes = append(s.notes, notes...)
	next := s.xferNext
	s.xferNext = nil
	if next != nil {
		next()
	}
}

func (s *Shepherd) startJobNow() {
	if s.term != nil {
		s.finishKilled()
		return
	}
	if s.l.Spec.Interactive && s.tty == nil {
		s.waitTTY()
		return
	}
	// The job has its own copies of the terminal's descriptors.
	defer func() { s.tty.close(); s.tty = nil }()
	spec := s.inCgroup(s.baseSpec(jobenv.Argv(s.l, s.files), s.env))
	spec.Dirs = jobenv.Dirs(s.l, s.p.Home)
	spec.Rlimits = rlimits(s.l.Limits, s.p.JobCPULimit)
	s.ioSpecs(spec, true)
	spec.SetJobPID = true
	if s.l.Queue != nil {
		spec.Nice = s.l.Queue.Nice
	}
	if s.direct {
		s.startDirect(spec)
		return
	}
	if e := s.eexec(); e != "" {
		spec.Eexec = e
		if len(s.eexecInput()) > 0 {
			spec.EexecInput = s.udir.EexecIn()
		}
	}
	c, err := s.spawn(kindJob, spec, nil)
	if err != nil {
		s.warnf("%v", err)
		s.finishPending(PendJobExecInit)
		return
	}
	s.job = c
}

// eexecInput is what eexec reads on its standard input: the esubs'
// standard output, carried by the job (or given by sbatchd).
func (s *Shepherd) eexecInput() []byte {
	if len(s.p.EexecInput) > 0 {
		return s.p.EexecInput
	}
	return s.l.Spec.EsubOutput
}

// eexec is LSF_SERVERDIR/eexec when it exists.
func (s *Shepherd) eexec() string {
	if s.p.ServerDir == "" {
		return ""
	}
	p := filepath.Join(s.p.ServerDir, "eexec")
	if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
		return p
	}
	return ""
}

// rlimits are the per-process limits of -F -D -S -C (KB) and, unless
// LSB_JOB_CPULIMIT=y makes it a per-job limit only, -c.
func rlimits(l *api.Limits, jobCPULimit int32) []*sbdwire.Rlimit {
	if l == nil {
		return nil
	}
	var out []*sbdwire.Rlimit
	add := func(res int, v uint64) {
		out = append(out, &sbdwire.Rlimit{Resource: int32(res), Cur: v, Max: v})
	}
	if l.CPU > 0 && jobCPULimit != 1 {
		add(syscall.RLIMIT_CPU, uint64(l.CPU))
	}
	for _, x := range []struct {
		res int
		kb  int64
	}{{syscall.RLIMIT_FSIZE, l.File}, {syscall.RLIMIT_DATA, l.Data}, {syscall.RLIMIT_STACK, l.Stack}, {syscall.RLIMIT_CORE, l.Core}} {
		if x.kb > 0 {
			add(x.res, uint64(x.kb)*1024)
		}
	}
	if l.CoreZero {
		add(syscall.RLIMIT_CORE, 0) // bsub -C 0: no core files
	}
	return out
}

// ---- events

func (s *Shepherd) onExit(e exitEvent) {
	c := s.children[e.pid]
	if c == nil {
		return // an orphan of the job, reaped
	}
	c.exited, c.ws, c.ru = true, e.ws, e.ru
	if c.resDone {
		s.complete(c)
	}
}

func (s *Shepherd) onResult(r resultEvent) {
	c := s.children[r.pid]
	if c == nil {
		return
	}
	c.res, c.resDone = r.res, true
	if c.kind == kindJob && r.res != nil && r.res.Err == "" && !s.started {
		s.jobStarted(c)
	}
	if c.exited {
		s.complete(c)
	}
}

func (s *Shepherd) complete(c *child) {
	delete(s.children, c.pid)
	failed := c.res != nil && c.res.Err != ""
	if failed {
		s.warnf("%s: %s failed: %s", c.kind, c.res.Step, c.res.Err)
	}
	switch c.kind {
	case kindQueuePre, kindJobPre:
		pend := PendQueuePreExec
		if c.kind == kindJobPre {
			pend = PendJobPreExec
		}
		switch {
		case s.term != nil:
			s.finishKilled()
		case failed:
			s.finishSetupFailed(c.res, c.ws)
		case c.ws.Exited() && c.ws.ExitStatus() == 0:
			if c.kind == kindQueuePre {
				s.startJobPre()
			} else {
				s.startJob()
			}
		case c.ws.Exited() && c.ws.ExitStatus() == jobenv.ExitPreAbort:
			s.warnf("%s exited %d: job aborted", c.kind, jobenv.ExitPreAbort)
			s.st.Abort = true
			s.finish(api.StateExit, c.ws)
		default:
			s.warnf("%s failed (status %#x): job back to pending", c.kind, int(c.ws))
			s.finishPending(int32(pend))
		}
	case kindJob:
		if s.term != nil && !s.started {
			s.finishKilled()
			return
		}
		if failed || !s.started {
			s.finishSetupFailed(c.res, c.ws)
			return
		}
		s.jobEnded(c.ws, c.ru)
	case kindEexecEnd:
		s.writeReport()
	case kindJobPost, kindQueuePost:
		if failed || !(c.ws.Exited() && c.ws.ExitStatus() == 0) {
			s.postFail = true
			s.warnf("%s failed (status %#x)", c.kind, int(c.ws))
		}
		s.runPosts()
	case kindControl:
		if failed || !(c.ws.Exited() && c.ws.ExitStatus() == 0) {
			s.warnf("job control command failed (status %#x)", int(c.ws))
		}
	case kindMailBegin:
		if !failed && !(c.ws.Exited() && c.ws.ExitStatus() == 0) {
			s.warnf("mail program %s failed (status %#x): start notice not sent", s.p.MailProg, int(c.ws))
		}
	case kindMailEnd:
		s.endMailed(c.res, c.ws)
	case kindChkpnt:
		s.chkpntDone(c, failed)
	case kindResize:
		s.resizeDone(c, failed)
	}
}

func (s *Shepherd) jobStarted(c *child) {
	s.started = true
	s.execRes = c.res
	s.notes = append(s.notes, c.res.OpenErrors...)
	now := s.now()
	s.startTime, s.runSince = now, now
	s.st.State = api.StateRun
	s.st.PID, s.st.PGID = int32(c.pid), int32(c.pid)
	s.st.ExecCwd, s.st.ExecHome, s.st.ExecUser = c.res.Dir, s.p.Home, s.p.User
	s.st.OutStart = c.res.StdoutStart
	s.logf("job started: pid %d in %s", c.pid, c.res.Dir)
	if s.l.Spec.OutFile == "" && !s.l.Spec.Interactive {
		s.logf("no output file (-o): the job's output and report are kept in %s and mailed", s.udir.Output())
	}
	if s.l.Spec.NotifyBegin && s.p.MailProg != "" {
		s.mailBegin()
	}
	if s.suspended {
		// Suspended while its pre-execution ran: stop it now.
		s.st.State = api.StateSSusp
		if s.st.SuspReasons&(SuspUserStop|SuspAdminStop) != 0 {
			s.st.State = api.StateUSusp
		}
		s.runSince = time.Time{}
		s.apply(suspendStep(s.l), []string{"LSB_SUSP_REASONS=" + strconv.Itoa(int(s.st.SuspReasons)),
			"LSB_SUSP_SUBREASONS=" + strconv.Itoa(int(s.st.SuspSubreason))})
	}
	s.armRunLimit()
	if iv := time.Duration(s.p.SampleInterval); iv > 0 {
		s.sampler = s.clk.NewTicker(iv)
	}
	s.armProcWatch()
	s.update()
}

// ---- ends

// finish records the final state and ends the shepherd.
func (s *Shepherd) finish(state api.JobState, ws syscall.WaitStatus) {
	s.ended = true
	s.st.State = state
	s.st.ExitStatus = int32(ws)
	s.finalize()
}

func (s *Shepherd) finishPending(reason int32) {
	s.ended = true
	s.st.State = api.StatePend
	s.st.PendReason = reason
	s.finalize()
}

// finishKilled ends a job killed before it started.
func (s *Shepherd) finishKilled() {
	s.ended = true
	s.st.State = api.StateExit
	s.st.TermReason = s.term.reason
	s.st.Requeue = s.term.requeue
	s.st.ExitStatus = int32(syscall.SIGKILL)
	s.finalize()
}

// finishSetupFailed ends a run whose helper could not set the process up.
func (s *Shepherd) finishSetupFailed(res *sbdwire.ExecResult, ws syscall.WaitStatus) {
	if res == nil {
		s.warnf("helper ended without a result (status %#x)", int(ws))
		s.finishPending(PendJobExecInit)
		return
	}
	switch res.Step {
	case StepDir:
		s.finishPending(PendJobPaths)
	case StepStdout, StepStderr:
		s.finishPending(PendJobOpenFiles)
	case StepStdin, StepExec, StepEexec:
		// The job ran and failed, as a shell would report it.
		s.started = true
		now := s.now()
		s.startTime, s.endTime = now, now
		s.st.ExecCwd, s.st.ExecHome, s.st.ExecUser = res.Dir, s.p.Home, s.p.User
		s.notes = append(s.notes, setupNote(res))
		s.endWS = ws
		s.st.State, s.st.ExitStatus = api.StateExit, int32(ws)
		s.ended = true
		s.afterJob()
	default:
		s.finishPending(PendJobExecInit)
	}
}

func setupNote(res *sbdwire.ExecResult) string {
	switch res.Step {
	case StepStdin:
		return "Unable to open the input file: " + res.Err + "."
	case StepEexec:
		return "eexec failed: " + res.Err + "."
	}
	return "Unable to execute the job: " + res.Err + "."
}

// killLeftovers kills what the job left running when its main process
// ended.
// It waits (a bounded time) for them to be gone, so that a final state
// means the job holds nothing any more.
func (s *Shepherd) killLeftovers() {
	if s.cg != nil {
		if empty, err := s.cg.Empty(); err == nil && empty {
			return
		}
		if err := s.cg.Kill(); err != nil {
			s.warnf("killing the job's cgroup: %v", err)
		}
		if err := s.cg.WaitEmpty(s.clk, 10*time.Second); err != nil {
			s.warnf("waiting for the job's processes to exit: %v", err)
		}
		return
	}
	type proc struct {
		pid   int
		start uint64
	}
	var killed []proc
	for _, pid := range s.jobPIDs() {
		if st, err := s.proc.Stat(pid); err == nil {
			killed = append(killed, proc{pid, st.StartTime})
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := s.now().Add(10 * time.Second)
	for _, p := range killed {
		for s.proc.Alive(p.pid, p.start) && s.now().Before(deadline) {
			t := s.clk.NewTimer(10 * time.Millisecond)
			<-t.C()
		}
	}
}

func (s *Shepherd) jobEnded(ws syscall.WaitStatus, ru syscall.Rusage) {
	if s.bare && ws.Signaled() && !s.signalled {
		// The command itself was the job process: report what the job
		// file's shell would have, 128 plus the signal (a signal LSF
		// sends ends that shell too).
		ws = syscall.WaitStatus((128 + int(ws.Signal())) << 8)
	}
	s.ended = true
	s.endTime = s.now()
	s.endWS = ws
	s.stopTimers()
	s.sample() // last look at the processes before the cleanup
	s.killLeftovers()
	s.accountRun()
	// CPU: the cgroup counts every process that ever ran in it; without
	// one, the job process's rusage covers the children it waited for.
	cpuRU := float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
	if s.cg != nil {
		if cpu, err := s.cg.CPU(); err == nil {
			s.cpu = max(s.cpu, cpu.Seconds())
		}
	}
	s.cpu = max(s.cpu, cpuRU)
	// (ru.Maxrss is not used: it is the exec helper's peak, before the
	// job's program replaced it.) The job had at least its own process.
	s.maxProcs, s.maxThreads = max(s.maxProcs, 1), max(s.maxThreads, 1)
	termReason := s.termReason
	requeue := s.requeue
	if s.term != nil {
		termReason, requeue = s.term.reason, s.term.requeue
	}
	if termReason == "" && s.cg != nil {
		if n := s.cg.OOMKills(); n > s.oomBase {
			termReason = "TERM_MEMLIMIT"
		}
	}
	state, reason, rq, excl := outcome(ws, s.l.Queue, termReason, requeue)
	s.st.State, s.st.TermReason, s.st.Requeue, s.st.ExcludeHost = state, reason, rq, excl
	s.st.ExitStatus = int32(ws)
	s.st.SuspReasons, s.st.SuspSubreason = 0, 0
	s.st.Usage = s.usage(nil)
	s.logf("job ended: status %#x, %s %s", int(ws), stateName(state), reason)
	s.afterJob()
}

func stateName(st api.JobState) string {
	switch st {
	case api.StateDone:
		return "DONE"
	case api.StateExit:
		return "EXIT"
	case api.StatePend:
		return "PEND"
	}
	return strconv.Itoa(int(st))
}

// afterJob runs what follows the job: eexec END, the report, the
// post-execution commands.
func (s *Shepherd) afterJob() {
	s.posts = nil
	if c := strings.TrimSpace(s.l.Spec.PostExec); c != "" {
		s.posts = append(s.posts, postCmd{kindJobPost, c})
	}
	if s.l.Queue != nil && strings.TrimSpace(s.l.Queue.PostExec) != "" {
		s.posts = append(s.posts, postCmd{kindQueuePost, s.l.Queue.PostExec})
	}
	e := s.eexec()
	ts, _ := transfers(s.l.Spec.Files)
	out := false
	for _, t := range ts {
		out = out || t.out
	}
	if len(s.posts) > 0 || e != "" || out {
		// The job's end is known now; the final report waits for the rest.
		s.update()
	}
	if out && s.started {
		s.xferNext = s.afterTransfers
		s.stageFiles(ts, false, s.st.ExecCwd)
		return
	}
	s.afterTransfers()
}

// afterTransfers runs eexec END, then the report.
func (s *Shepherd) afterTransfers() {
	e := s.eexec()
	if e != "" {
		spec := s.baseSpec([]string{e}, append(s.env[:len(s.env):len(s.env)], "LS_EXEC_T=END"))
		spec.Dirs = s.endDirs()
		if _, err := s.spawn(kindEexecEnd, spec, nil); err == nil {
			return
		}
	}
	s.writeReport()
}

func (s *Shepherd) endDirs() []string {
	if s.st.ExecCwd != "" {
		return []string{s.st.ExecCwd, "/tmp"}
	}
	return []string{"/tmp"}
}

// reportTarget is where the report goes: the job's output file, or the
// spool's output file when the job has none (and it is mailed too).
func (s *Shepherd) reportTarget() string {
	if s.execRes != nil && s.execRes.Stdout != "" {
		return s.execRes.Stdout
	}
	return s.udir.Output()
}

func (s *Shepherd) writeReport() {
	// A run requeued by REQUEUE_EXIT_VALUES is not reported (LSF sends no
	// mail for it).
	if s.st.Requeue && s.st.TermReason == "" {
		s.runPosts()
		return
	}
	if k := s.endMailKind(); k != noEndMail && s.mailEnd(k) {
		return // endMailed follows
	}
	s.reportToFile()
}

// reportToFile appends the report to its file; -o /dev/null discards it
// with the output (what users ask for, to get no mail).
func (s *Shepherd) reportToFile() {
	if s.reportTarget() == os.DevNull {
		s.runPosts()
		return
	}
	if err := s.appendReport(s.reportTarget()); err != nil {
		s.warnf("report: %v", err)
		s.runPosts()
	}
}

// appendReport appends the job report to target, opened with the job
// user's permissions, in a goroutine (a slow file system does not hold up
// the shepherd); the outcome comes back as a report event.
func (s *Shepherd) appendReport(target string) error {
	data := report.Format(s.reportJob())
	c := s.userCred()
	s.reported = true
	go func() {
		s.reports <- s.host.appendFile(target, data, c)
	}()
	return nil
}

// appendFile appends data to path as c (nil: as the shepherd), on one of
// the host's forker threads, whose file system identity is switched for
// it (see openAs).
func (h *Host) appendFile(path string, data []byte, c *cred) error {
	var err error
	if terr := h.onThread(func() bool {
		if c == nil {
			err = rawfile.AppendBlocking(path, data, 0o666)
			return true
		}
		restore, cerr := threadAs(c.uid, c.gid, c.groups)
		if cerr == nil {
			err = rawfile.AppendBlocking(path, data, 0o666)
		} else {
			err = cerr
		}
		return restore() == nil
	}); terr != nil {
		return terr
	}
	return err
}

// onReport takes the outcome of appendReport.
func (s *Shepherd) onReport(err error) {
	if err == nil {
		s.runPosts()
		return
	}
	s.reportFailed(err)
}

// reportFailed: the report could not be appended to the job's output file
// (disk full, removed directory...): it goes to the spool's output file,
// with a note, so it is not lost.
func (s *Shepherd) reportFailed(err error) {
	why := err.Error()
	var pe *os.PathError
	if errors.As(err, &pe) {
		why = pe.Err.Error()
	}
	s.warnf("appending the report to %s: %v", s.reportTarget(), err)
	if s.reportTarget() != s.udir.Output() {
		s.notes = append(s.notes, fmt.Sprintf("Unable to append this report to the output file <%s>: %s.", s.reportTarget(), why))
		if s.execRes != nil {
			s.execRes.Stdout = ""
		}
		s.appendReport(s.udir.Output())
		return
	}
	s.runPosts()
}

func (s *Shepherd) reportJob() *report.Job {
	js := s.l.Spec
	j := &report.Job{
		JobID: s.l.JobID, Index: s.l.Index, JobName: jobenv.JobName(s.l), Cluster: firstNonEmpty(s.l.Cluster, s.p.Cluster),
		User: s.l.User, ExecUser: s.p.User, FromHost: js.FromHost, Hosts: s.l.ExecHosts,
		ExecHome: s.st.ExecHome, ExecCwd: s.st.ExecCwd, Command: js.Command, Admin: s.p.Admin, Host: s.p.Host,
		SubmitTime: unix(s.l.SubmitTime), StartTime: s.startTime, EndTime: s.endTime, ReportTime: s.now(),
		WaitStatus: s.st.ExitStatus, TermReason: s.st.TermReason, Requeued: s.st.Requeue && s.st.TermReason != "",
		Usage: s.st.Usage, MaxProcs: s.maxProcs, MaxThreads: s.maxThreads, ReqMem: reqMemKB(s.l.EffectiveResReq),
	}
	if s.l.Queue != nil {
		j.Queue = s.l.Queue.Name
	}
	j.Notes = append(j.Notes, s.notes...)
	if s.execRes != nil && s.execRes.Stderr != "" && s.execRes.Stderr != s.execRes.Stdout && js.ErrFile != "" {
		j.Notes = append(j.Notes, "Read file <"+s.execRes.Stderr+"> for stderr output of this job.")
	}
	return j
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func unix(sec int64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0)
}

// reqMemKB is the memory the job reserved (rusage[mem=...] of its effective
// requirement), in KB; 0 when none or unknown.
func reqMemKB(effective string) int64 {
	if strings.TrimSpace(effective) == "" {
		return 0
	}
	r, err := resreq.Parse(effective, resreq.Options{})
	if err != nil {
		return 0
	}
	c, err := r.Compile(resreq.BuiltinTable(), resreq.Local{})
	if err != nil || len(c.Rusage) == 0 {
		return 0
	}
	for _, u := range c.Rusage[0] {
		if u.Index == resreq.IdxMem {
			return int64(u.Value * 1024)
		}
	}
	return 0
}

// runPosts runs the next post-execution command, or finishes.
func (s *Shepherd) runPosts() {
	if len(s.posts) == 0 {
		s.finalize()
		return
	}
	pc := s.posts[0]
	s.posts = s.posts[1:]
	s.postRan = true
	env := jobenv.PostEnv(s.env, jobenv.PostInfo{WaitStatus: s.st.ExitStatus, Info: report.ExitInfo(s.st.TermReason), Pending: s.st.Requeue})
	var spec *sbdwire.ExecSpec
	var err error
	if pc.kind == kindQueuePost {
		spec, err = s.prePostSpec(pc.cmd, env)
	} else {
		spec = s.inCgroup(s.baseSpec([]string{"/bin/sh", "-c", pc.cmd}, env))
		spec.Dirs = s.endDirs()
	}
	if err == nil {
		_, err = s.spawn(pc.kind, spec, nil)
	}
	if err != nil {
		s.warnf("%s: %v", pc.kind, err)
		s.postFail = true
		s.runPosts()
	}
}

// finalize writes and pushes the final state; the loop then ends.
func (s *Shepherd) finalize() {
	s.stopTimers()
	if s.postRan {
		s.st.PostDone = !s.postFail
		s.st.PostFailed = s.postFail
	}
	s.st.Final = true
	if s.cg != nil {
		if empty, err := s.cg.Empty(); err != nil || !empty {
			s.cg.Kill()
			s.cg.WaitEmpty(s.clk, 2*time.Second)
		}
		if err := s.cg.Remove(); err != nil {
			s.warnf("cgroup left for sbatchd to remove: %v", err)
		}
		s.removeGPUDevices()
	}
	s.update()
	s.logf("final state %s written", stateName(s.st.State))
	s.done = true
}

func (s *Shepherd) stopTimers() {
	for _, t := range []clock.Timer{s.termTimer, s.runTimer, s.ttyTimer} {
		if t != nil {
			t.Stop()
		}
	}
	s.termTimer, s.runTimer, s.ttyTimer = nil, nil, nil
	// A terminal that came for a run that never started is released.
	s.tty.close()
	s.tty, s.waitingTTY = nil, false
	if s.sampler != nil {
		s.sampler.Stop()
		s.sampler = nil
	}
	if s.procWatch != nil {
		s.procWatch.Stop()
		s.procWatch = nil
	}
}

// ---- control

func (s *Shepherd) onCommand(ce cmdEvent) {
	if s.chkpntCommand(ce) {
		return // answered when echkpnt ends
	}
	if s.resizeCommand(ce) {
		return // answered when the notification command ends
	}
	err := s.command(ce.cmd)
	ack := &sbdwire.Ack{Seq: ce.cmd.Seq}
	if err != nil {
		ack.Err = err.Error()
	}
	if s.conns[ce.from] {
		s.send(ce.from, frameAck, ack)
	}
}

// ErrFinished is the answer to a control request for a job that has ended.
var ErrFinished = errors.New("Job has already finished")

func (s *Shepherd) command(c *sbdwire.Command) error {
	if c.Op == sbdwire.OpPersist {
		return s.persist()
	}
	if s.ended || s.done {
		return ErrFinished
	}
	switch c.Op {
	case sbdwire.OpSuspend:
		if s.holdPreemption(c) {
			return nil
		}
		s.suspend(c.SuspReasons, c.SuspSubreason, c.User)
	case sbdwire.OpResume:
		s.heldSuspend = nil
		s.resume()
	case sbdwire.OpUserResume:
		if s.st.State == api.StateUSusp {
			s.st.State = api.StateSSusp
			s.st.SuspReasons, s.st.SuspSubreason = SuspUserResume, 0
			s.update()
		}
	case sbdwire.OpTerminate:
		plan := terminatePlan(s.l.Queue)
		if strings.HasPrefix(c.TermReason, "TERM_FORCE") {
			plan = []step{{sig: syscall.SIGKILL}}
		}
		s.terminate(c.TermReason, c.Requeue, plan)
	case sbdwire.OpSignal:
		sig := syscall.Signal(c.Signal)
		if sig <= 0 || sig > 64 {
			return fmt.Errorf("bad signal %d", c.Signal)
		}
		if c.TermReason != "" {
			s.termReason = c.TermReason
		}
		s.signal(sig)
	default:
		return fmt.Errorf("unknown operation %d", c.Op)
	}
	return nil
}

func (s *Shepherd) persist() error {
	if err := os.MkdirAll(string(s.dir), 0o711); err != nil {
		return err
	}
	if err := s.dir.WriteLaunch(s.l); err != nil {
		return err
	}
	if err := s.dir.WriteParams(s.p); err != nil {
		return err
	}
	return s.dir.WriteState(&s.st)
}

func (s *Shepherd) suspend(reasons, subreason int32, user bool) {
	state := api.StateSSusp
	if user {
		state = api.StateUSusp
	}
	s.st.State, s.st.SuspReasons, s.st.SuspSubreason = state, reasons, subreason
	if !s.started {
		s.st.State = 0 // not running yet: remembered for the start
	}
	if !s.suspended {
		s.suspended = true
		s.accountRun()
		s.runSince = time.Time{}
		if s.runTimer != nil {
			s.runTimer.Stop()
			s.runTimer = nil
		}
		// Before the job executes, its exec helper (or pre-execution
		// command) must not be stopped halfway: the job is stopped as soon
		// as it starts (jobStarted).
		if s.started {
			s.apply(suspendStep(s.l), []string{"LSB_SUSP_REASONS=" + strconv.Itoa(int(reasons)),
				"LSB_SUSP_SUBREASONS=" + strconv.Itoa(int(subreason))})
		}
	}
	s.update()
}

func (s *Shepherd) resume() {
	if !s.suspended {
		return
	}
	s.suspended = false
	if s.started {
		s.apply(resumeStep(s.l.Queue), nil)
	}
	if s.started {
		s.st.State = api.StateRun
		s.runSince = s.now()
		s.armRunLimit()
	}
	s.st.SuspReasons, s.st.SuspSubreason = 0, 0
	s.update()
}

// terminate starts killing the job with plan, the steps
// JOB_TERMINATE_INTERVAL apart.
func (s *Shepherd) terminate(reason string, requeue bool, plan []step) {
	if s.term != nil {
		return // already being terminated
	}
	s.term = &termination{reason: reason, requeue: requeue, plan: plan}
	s.logf("terminating (%s): %v", reason, plan)
	if !s.started && len(s.children) == 0 {
		if s.xferCancel != nil {
			// The job waits for its input files: stop the copies; the
			// job, seeing s.term, ends killed then (onXfer).
			s.xferCancel()
			return
		}
		s.finishKilled()
		return
	}
	if s.suspended && plan[0].cmd == "" {
		// Stopped processes would not handle the signals.
		s.signal(syscall.SIGCONT)
		if s.cg != nil {
			s.cg.Thaw()
		}
	}
	s.termStep()
}

func (s *Shepherd) termStep() {
	t := s.term
	if t == nil || t.next >= len(t.plan) || s.ended {
		return
	}
	st := t.plan[t.next]
	t.next++
	s.apply(st, nil)
	if t.next < len(t.plan) {
		iv := time.Duration(s.p.TerminateInterval)
		if iv <= 0 {
			iv = 10 * time.Second
		}
		s.termTimer = s.clk.NewTimer(iv)
	}
}

func (s *Shepherd) limitExceeded(reason string) {
	if s.term != nil || s.ended {
		return
	}
	s.logf("%s: %s", reason, report.TermText(reason))
	s.terminate(reason, false, limitPlan(s.l.Queue, reason))
}

// apply carries out one job control step.
func (s *Shepherd) apply(st step, extraEnv []string) {
	if st.chkpnt {
		s.localChkpnt(st.sig) // chkpnt.go
		return
	}
	if st.cmd != "" {
		s.runControl(st.cmd, extraEnv)
		return
	}
	s.signal(st.sig)
}

// signal sends sig to every process of the job (SIGKILL through the
// cgroup's kill when it has one).
func (s *Shepherd) signal(sig syscall.Signal) {
	switch sig {
	case syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGCONT,
		syscall.SIGCHLD, syscall.SIGURG, syscall.SIGWINCH:
	default:
		s.signalled = true
	}
	if s.cg != nil {
		if sig == syscall.SIGKILL {
			if err := s.cg.Kill(); err != nil {
				s.warnf("kill: %v", err)
			}
			return
		}
		if sig == syscall.SIGSTOP && s.job != nil && s.job.pid > 0 {
			// The job's process group first: a group signal cannot miss
			// a child being forked, which a listing of the cgroup can (a
			// suspended job would go on in it). Stopping twice is no harm.
			_ = syscall.Kill(-s.job.pid, sig)
		}
		n, err := s.cg.Signal(sig)
		if err != nil {
			s.warnf("signal %d: %v", sig, err)
		}
		s.logf("%s sent to %d processes", report.SignalText(sig), n)
		return
	}
	pids := s.jobPIDs()
	for _, pid := range pids {
		_ = syscall.Kill(pid, sig)
	}
	s.logf("%s sent to %d processes", report.SignalText(sig), len(pids))
}

// runControl runs a JOB_CONTROLS command as the job user, outside the job's
// cgroup (so a TERMINATE command does not kill itself), with the job's
// environment and LSB_JOBPIDS / LSB_JOBPGIDS.
func (s *Shepherd) runControl(cmd string, extraEnv []string) {
	s.signalled = true // the command may signal the job
	pids := s.jobPIDs()
	tab, _ := s.table(pids)
	u := tab.Sum(pids)
	env := append(s.env[:len(s.env):len(s.env)], "LSB_JOBPIDS="+joinInts(u.PIDs), "LSB_JOBPGIDS="+joinInts(u.PGIDs))
	env = append(env, extraEnv...)
	spec := s.baseSpec([]string{"/bin/sh", "-c", cmd}, env)
	spec.Dirs = []string{"/tmp"}
	if _, err := s.spawn(kindControl, spec, nil); err != nil {
		s.warnf("job control command: %v", err)
	}
}

func joinInts(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, " ")
}

// jobPIDs are the job's processes: its cgroup's, or, without one, the
// processes the shepherd started for the job (not its job control commands
// or eexec END) and their descendants, and the job's orphans the process
// has inherited as their subreaper.
func (s *Shepherd) jobPIDs() []int {
	if s.cg != nil {
		pids, err := s.cg.PIDs()
		if err != nil {
			s.warnf("%v", err)
		}
		return pids
	}
	tab, err := s.proc.Snapshot()
	if err != nil {
		return nil
	}
	seen := map[int]bool{}
	var out []int
	add := func(pids ...int) {
		for _, pid := range pids {
			if st, ok := tab[pid]; ok && !seen[pid] && st.State != 'Z' {
				seen[pid] = true
				out = append(out, pid)
			}
		}
	}
	for pid, c := range s.children {
		if c.kind != kindControl && c.kind != kindEexecEnd && c.kind != kindMailBegin && c.kind != kindMailEnd && c.kind != kindChkpnt && c.kind != kindResize {
			add(pid)
			add(tab.Descendants(pid)...)
		}
	}
	add(s.host.orphans(tab, s.l.JobID, s.l.Index)...)
	sort.Ints(out)
	return out
}

func (s *Shepherd) table(pids []int) (procfs.Table, error) {
	t := procfs.Table{}
	for _, pid := range pids {
		if st, err := s.proc.Stat(pid); err == nil {
			t[pid] = st
		}
	}
	return t, nil
}

// ---- usage and limits

func (s *Shepherd) accountRun() {
	if !s.runSince.IsZero() {
		s.runAccum += s.now().Sub(s.runSince)
		s.runSince = s.now()
	}
}

func (s *Shepherd) runTime() time.Duration {
	d := s.runAccum
	if !s.runSince.IsZero() && !s.ended {
		d += s.now().Sub(s.runSince)
	}
	return d
}

func (s *Shepherd) armRunLimit() {
	if s.l.Limits == nil || s.l.Limits.Run <= 0 || s.ended || s.term != nil {
		return
	}
	left := time.Duration(s.l.Limits.Run)*time.Second - s.runTime()
	if left < 0 {
		left = 0
	}
	if s.runTimer != nil {
		s.runTimer.Stop()
	}
	s.runTimer = s.clk.NewTimer(left)
}

// sample measures the job's processes, updates the peaks and averages,
// checks the limits and pushes the new usage.
func (s *Shepherd) sample() {
	if !s.started {
		return
	}
	pids := s.jobPIDs()
	tab, _ := s.table(pids)
	u := tab.Sum(pids)
	if len(u.PIDs) == 0 && s.ended {
		return
	}
	cpu := float64(u.UTicks+u.STicks) / procfs.TicksPerSecond
	if s.cg != nil {
		if c, err := s.cg.CPU(); err == nil {
			cpu = c.Seconds()
		}
	}
	s.cpu = max(s.cpu, cpu)
	mem, swap := u.RSS/1024, u.VSize/1024
	s.maxMem = max(s.maxMem, mem)
	s.maxSwap = max(s.maxSwap, swap)
	s.memSum += float64(mem)
	s.samples++
	s.maxProcs = max(s.maxProcs, len(u.PIDs))
	s.maxThreads = max(s.maxThreads, u.Threads)
	s.st.Usage = s.usage(&u)
	if !s.ended {
		s.checkLimits(mem, swap, len(u.PIDs), u.Threads)
		s.update()
	}
}

func (s *Shepherd) usage(u *procfs.Usage) *api.Usage {
	out := &api.Usage{CPUTime: round2(s.cpu), MaxMem: s.maxMem, MaxSwap: s.maxSwap,
		RunTime: int64(s.runTime() / time.Second), SampledAt: s.now().Unix(), PGID: s.st.PGID}
	if s.samples > 0 {
		out.AvgMem = int64(s.memSum / float64(s.samples))
	}
	if u != nil {
		out.UTime = float64(u.UTicks) / procfs.TicksPerSecond
		out.STime = float64(u.STicks) / procfs.TicksPerSecond
		out.Mem, out.Swap = u.RSS/1024, u.VSize/1024
		out.NThreads = int32(u.Threads)
		for _, p := range u.PIDs {
			out.PIDs = append(out.PIDs, int32(p))
		}
	}
	return out
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

func (s *Shepherd) checkLimits(memKB, swapKB int64, procs, threads int) {
	l := s.l.Limits
	if l == nil || s.term != nil {
		return
	}
	switch {
	case l.Mem > 0 && memKB > l.Mem:
		s.limitExceeded("TERM_MEMLIMIT")
	case l.Mem > 0 && s.cg != nil && s.p.MemLimitEnforce && s.cg.OOMKills() > s.oomBase:
		// The cgroup held the job at its limit and the kernel killed one
		// of its processes: the job ends, as LSF ends a job past its
		// limit, instead of living on without that process.
		s.limitExceeded("TERM_MEMLIMIT")
	case l.Swap > 0 && swapKB > l.Swap:
		s.limitExceeded("TERM_SWAP")
	case l.CPU > 0 && s.p.JobCPULimit != 2 && s.cpu >= float64(l.CPU):
		s.limitExceeded("TERM_CPULIMIT")
	case l.Process > 0 && int64(procs) > l.Process:
		s.limitExceeded("TERM_PROCESSLIMIT")
	case l.Thread > 0 && int64(threads) > l.Thread:
		s.limitExceeded("TERM_THREADLIMIT")
	}
}
