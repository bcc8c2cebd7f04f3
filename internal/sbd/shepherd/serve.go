package shepherd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/logging"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
	"github.com/basalt-lsf/basalt/internal/sbd/spool"
)

// server is the state of a serving host, owned by Serve's loop: the jobs
// it runs, the sbatchd connections open, and whether it was retired.
type server struct {
	lst     net.Listener
	evs     chan func()
	done    chan struct{}
	jobs    map[*Shepherd]bool
	conns   int
	retired bool
	build   string
	// forks is held by every fork (Host.forkExec) until its child has
	// exec'd: until then the child holds a copy of the host socket.
	forks *sync.Mutex
}

// do runs f on Serve's loop; false when the loop has ended.
func (srv *server) do(ctx context.Context, f func()) bool {
	ran := make(chan struct{})
	select {
	case srv.evs <- func() { f(); close(ran) }:
	case <-srv.done:
		return false
	case <-ctx.Done():
		return false
	}
	<-ran
	return true
}

// retire closes the host socket: no new connection, no new job. The
// socket is close-on-exec, but a child being forked holds a copy of it
// until it execs: retire waits for forks in progress, so that the socket
// is closed in every process (a new host can take its name) when it
// returns.
func (srv *server) retire() {
	if !srv.retired {
		srv.retired = true
		srv.forks.Lock()
		srv.lst.Close()
		srv.forks.Unlock()
	}
}

// Serve runs the host's shepherd service on lst (the host socket, see
// HostSocketName) until the host retires (Retire, or a HostOpRetire
// request) and its last job is done, or it has had no job and no sbatchd
// connection for idle. Jobs keep running whether or not sbatchd is
// connected; each job's shepherd listens on the job's own socket.
func (h *Host) Serve(ctx context.Context, lst net.Listener, idle time.Duration) error {
	if idle <= 0 {
		idle = idleDefault
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h.startReaper(ctx)
	srv := &server{lst: lst, evs: make(chan func()), done: make(chan struct{}), jobs: map[*Shepherd]bool{},
		build: Build("/proc/self/exe"), forks: &h.mu}
	defer close(srv.done)
	h.srv.Store(srv)
	h.logf("serving (build %s)", srv.build)
	go h.accept(ctx, srv)
	var idleT clock.Timer
	for {
		if srv.retired && len(srv.jobs) == 0 {
			h.logf("retired, no job left: exiting")
			return nil
		}
		if len(srv.jobs) == 0 && srv.conns == 0 {
			if idleT == nil {
				idleT = h.clk.NewTimer(idle)
			}
		} else if idleT != nil {
			idleT.Stop()
			idleT = nil
		}
		select {
		case f := <-srv.evs:
			f()
		case <-timerC(idleT):
			h.logf("no job and no sbatchd for %v: exiting", idle)
			srv.retire()
			return nil
		case <-ctx.Done():
			srv.retire()
			return ctx.Err()
		}
	}
}

// Retire makes a serving host accept no more jobs and exit once its jobs
// are done (SIGTERM).
func (h *Host) Retire(ctx context.Context) {
	if srv := h.srv.Load(); srv != nil {
		srv.do(ctx, srv.retire)
	}
}

func (h *Host) accept(ctx context.Context, srv *server) {
	for {
		c, err := srv.lst.Accept()
		if err != nil {
			return
		}
		go h.serveConn(ctx, srv, c)
	}
}

// serveConn serves one sbatchd connection: a hello, then requests, each
// answered (job starts run concurrently).
func (h *Host) serveConn(ctx context.Context, srv *server, c net.Conn) {
	defer c.Close()
	if uid, err := peerUID(c); err != nil || (uid != 0 && uid != os.Geteuid()) {
		h.warnf("refusing connection from uid %d: %v", uid, err)
		return
	}
	var jobs int
	if !srv.do(ctx, func() { srv.conns++; jobs = len(srv.jobs) }) {
		return
	}
	defer srv.do(ctx, func() { srv.conns-- })
	var wmu sync.Mutex
	w := bufio.NewWriter(c)
	send := func(typ byte, m interface {
		AppendWire([]byte) []byte
		SizeWire() int
		UnmarshalWire([]byte) error
	}) {
		wmu.Lock()
		defer wmu.Unlock()
		_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if writeFrame(w, typ, m) == nil {
			w.Flush()
		}
	}
	send(frameHostHello, &sbdwire.HostHello{PID: int32(h.pid), Build: srv.build, Jobs: int32(jobs)})
	var wg sync.WaitGroup
	defer wg.Wait()
	r := bufio.NewReader(c)
	for {
		typ, b, err := readFrame(r)
		if err != nil {
			return
		}
		req := &sbdwire.HostRequest{}
		if typ != frameHostRequest || req.UnmarshalWire(b) != nil {
			continue
		}
		switch req.Op {
		case sbdwire.HostOpStart:
			wg.Add(1)
			go func() {
				defer wg.Done()
				rep := h.startServed(ctx, srv, req)
				rep.Seq = req.Seq
				send(frameHostReply, rep)
			}()
		case sbdwire.HostOpRetire:
			srv.do(ctx, srv.retire)
			h.logf("retired by sbatchd")
			send(frameHostReply, &sbdwire.HostReply{Seq: req.Seq, PID: int32(h.pid)})
		default:
			send(frameHostReply, &sbdwire.HostReply{Seq: req.Seq, Err: fmt.Sprintf("unknown operation %d", req.Op)})
		}
	}
}

// startServed starts the shepherd of the job spooled in dir: its state
// read, its socket bound, its loop running, before the answer.
func (h *Host) startServed(ctx context.Context, srv *server, req *sbdwire.HostRequest) *sbdwire.HostReply {
	cfg := Config{Dir: spool.Dir(req.SpoolDir)}
	if len(req.Launch) > 0 && len(req.Params) > 0 {
		cfg.Launch, cfg.Params = &api.JobLaunch{}, &sbdwire.Params{}
		if err := cfg.Launch.UnmarshalWire(req.Launch); err != nil {
			return &sbdwire.HostReply{Err: fmt.Sprintf("launch: %v", err)}
		}
		if err := cfg.Params.UnmarshalWire(req.Params); err != nil {
			return &sbdwire.HostReply{Err: fmt.Sprintf("params: %v", err)}
		}
	}
	s, err := h.Prepare(cfg)
	if err != nil {
		return &sbdwire.HostReply{Err: err.Error(), Running: errors.Is(err, ErrRunning)}
	}
	ok := false
	srv.do(ctx, func() {
		if !srv.retired {
			srv.jobs[s] = true
			ok = true
		}
	})
	if !ok {
		s.lst.Close()
		s.close()
		return &sbdwire.HostReply{Err: errRetired.Error()}
	}
	go func() {
		defer srv.do(ctx, func() { delete(srv.jobs, s) })
		h.RunJob(ctx, s)
	}()
	return &sbdwire.HostReply{PID: int32(h.pid)}
}

// ErrRunning: the job already has a live shepherd (its socket is bound).
var ErrRunning = errors.New("the job's shepherd is already running")

// Prepare makes the shepherd of a job (cfg's Clock and Host are the
// host's), listening on cfg.Listener or, when nil, on the job's own socket
// (Params.SocketName), bound here.
func (h *Host) Prepare(cfg Config) (*Shepherd, error) {
	cfg.Clock, cfg.Host = h.clk, h
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Listener == nil {
		l, err := net.Listen("unix", s.p.SocketName)
		if err != nil {
			s.close()
			if errors.Is(err, syscall.EADDRINUSE) {
				return nil, fmt.Errorf("%w (%s)", ErrRunning, s.p.SocketName)
			}
			return nil, fmt.Errorf("job socket: %w", err)
		}
		s.lst = l
	}
	return s, nil
}

// RunJob runs a prepared shepherd to its end. A panic in it ends only this
// job's shepherd: its sockets close, and sbatchd follows the job as one
// whose shepherd is gone.
func (h *Host) RunJob(ctx context.Context, s *Shepherd) {
	defer func() {
		if r := recover(); r != nil {
			h.errorf("job %s: shepherd failed: %v\n%s", spool.Key(s.l.JobID, s.l.Index), r, debug.Stack())
			s.abort()
		}
		h.release(s)
		s.close()
	}()
	if err := s.Run(ctx); err != nil {
		s.warnf("exiting: %v", err)
	}
}

// Build identifies the program at path (size and modification time), as
// HostHello.Build; "" when it cannot be read.
func Build(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(st.Size(), 10) + "." + strconv.FormatInt(st.ModTime().UnixNano(), 10)
}

// HostMain is "job-shepherd -host STATEDIR [-idle DURATION]": the host's
// shepherd service for the sbatchd of STATEDIR, its socket on fd 3 (bound
// by sbatchd), its log STATEDIR/shepherd.log. SIGTERM, SIGINT and SIGHUP
// retire it: no new job, exit after the last. SIGUSR1 reopens the log
// (logrotate: SIGHUP is taken).
func HostMain(args []string) int { return hostMain(args, nil) }

func hostMain(args []string, remote RemoteFor) int {
	usage := func() int {
		fmt.Fprintln(os.Stderr, "usage: basaltd job-shepherd -host STATEDIR [-idle DURATION]")
		return 2
	}
	if len(args) == 0 || len(args[0]) == 0 || args[0][0] == '-' {
		return usage()
	}
	stateDir, idle := args[0], time.Duration(0)
	for rest := args[1:]; len(rest) > 0; rest = rest[2:] {
		if len(rest) < 2 || rest[0] != "-idle" {
			return usage()
		}
		d, err := time.ParseDuration(rest[1])
		if err != nil || d <= 0 {
			return usage()
		}
		idle = d
	}
	logFile, lst, h, ok := openHost(filepath.Join(stateDir, "shepherd.log"))
	if !ok {
		return 1
	}
	h.Remote = remote
	ctx := context.Background()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGUSR1)
	go func() {
		for sig := range sigs {
			if sig == syscall.SIGUSR1 {
				if err := logFile.Reopen(); err != nil {
					h.warnf("cannot reopen the log: %v", err)
				} else {
					h.logf("%v: log reopened", sig)
				}
				continue
			}
			h.logf("%v: retiring", sig)
			h.Retire(ctx)
		}
	}()
	if err := h.Serve(ctx, lst, idle); err != nil {
		h.warnf("exiting: %v", err)
		return 1
	}
	return 0
}

// openHost opens a shepherd process's log (its standard error from then
// on: runtime panics and helpers' messages go there), its socket on fd 3
// and its Host; false when it cannot (said on the log, or on stderr).
func openHost(logPath string) (*logging.File, net.Listener, *Host, bool) {
	logFile, err := logging.OpenStderrFile(logPath, 0o600)
	if err != nil {
		fmt.Fprintf(os.Stderr, "job-shepherd: %v\n", err)
		return nil, nil, nil, false
	}
	// FileListener dups the descriptor: fd 3 itself must be closed, or the
	// socket keeps listening (queueing connections nobody accepts) after
	// the listener is closed.
	fd3 := os.NewFile(3, "socket")
	lst, err := net.FileListener(fd3)
	fd3.Close()
	if err != nil {
		fmt.Fprintf(logFile, "job-shepherd: socket on fd 3: %v\n", err)
		return nil, nil, nil, false
	}
	h, err := NewHost(clock.Real(), logFile)
	if err != nil {
		fmt.Fprintf(logFile, "job-shepherd: %v\n", err)
		return nil, nil, nil, false
	}
	return logFile, lst, h, true
}
