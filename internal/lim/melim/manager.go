package melim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
)

// DefaultAbortValue is ELIM_ABORT_VALUE (LSF's value).
const DefaultAbortValue = 97

// RestartInterval is the least time between two starts of one elim.
const RestartInterval = 90 * time.Second

// Config configures a Manager.
type Config struct {
	// ServerDir is LSF_SERVERDIR, where the elims are.
	ServerDir string
	// Args are ELIMARGS, passed to every elim.
	Args []string
	// Env is the elims' base environment (LIM's own).
	Env []string
	// Resources is LSF_RESOURCES for this host.
	Resources []string
	// Master sets LSF_MASTER=Y (N otherwise).
	Master bool
	// AbortValue is ELIM_ABORT_VALUE (DefaultAbortValue when 0).
	AbortValue int
	// BlockTime is LSF_ELIM_BLOCKTIME; negative waits for ever.
	BlockTime time.Duration
	// Restarts is LSF_ELIM_RESTARTS; negative is no cap.
	Restarts int
	// Debug is LSF_ELIM_DEBUG: log every update (at slog.LevelDebug; the
	// LIM lowers the melim log's level to it).
	Debug bool
	// Log receives the activity log (melim.log.<host>); discarded if nil.
	Log *slog.Logger
	// Clock times restarts and block time; the wall clock when nil.
	Clock clock.Clock
	// OnEvent, when set, is called from the Manager's goroutine for every
	// event (tests wait on it).
	OnEvent func(Event)
}

// EventKind classifies an Event.
type EventKind int

// Event kinds.
const (
	Started EventKind = iota
	Exited
	Aborted     // exited with ELIM_ABORT_VALUE: not restarted
	GaveUp      // LSF_ELIM_RESTARTS used up: not restarted
	Updated     // a good load update string
	BadUpdate   // a malformed one, ignored
	Blocked     // partial line for longer than LSF_ELIM_BLOCKTIME: restarted
	StartFailed // could not be started
	Partial     // an incomplete line is held, waiting for its end
)

func (k EventKind) String() string {
	return [...]string{"started", "exited", "aborted", "gave up", "updated", "bad update", "blocked", "start failed", "partial"}[k]
}

// Event is something that happened to one elim.
type Event struct {
	Elim   string
	Kind   EventKind
	Detail string
}

// Manager runs the elims of one host. Its methods are safe for concurrent
// use; all state belongs to one goroutine.
type Manager struct {
	cfg     Config
	clk     clock.Clock
	events  chan any
	done    chan struct{}
	stop    chan context.Context
	stopped chan error
}

type elim struct {
	name      string
	path      string
	cmd       *exec.Cmd
	gen       int // start generation, to discard stale events
	lastStart time.Time
	restarts  int
	partial   []byte
	blockT    clock.Timer
	restartT  clock.Timer
	finished  bool // aborted or gave up
	running   bool
}

type dataEv struct {
	name string
	gen  int
	b    []byte
}

type exitEv struct {
	name string
	gen  int
	err  error
}

type valuesReq chan map[string]float64

type timerEv struct {
	name string
	kind int // 0 block, 1 restart
	gen  int
}

// Elims lists the elim executables of dir: "elim" and "elim.*", sorted.
func Elims(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("melim: %w", err)
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if n != "elim" && !strings.HasPrefix(n, "elim.") || e.IsDir() {
			continue
		}
		fi, err := e.Info()
		if err != nil || fi.Mode()&0o111 == 0 {
			continue
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// Start starts every elim of cfg.ServerDir and returns the Manager. It
// returns an error only when the directory cannot be read.
func Start(cfg Config) (*Manager, error) {
	names, err := Elims(cfg.ServerDir)
	if err != nil {
		return nil, err
	}
	if cfg.AbortValue == 0 {
		cfg.AbortValue = DefaultAbortValue
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{cfg: cfg, clk: cfg.Clock, events: make(chan any, 64), done: make(chan struct{}),
		stop: make(chan context.Context), stopped: make(chan error, 1)}
	if m.clk == nil {
		m.clk = clock.Real()
	}
	go m.run(names)
	return m, nil
}

// Values returns the latest merged values, or nil once stopped.
func (m *Manager) Values() map[string]float64 {
	r := make(valuesReq, 1)
	select {
	case m.events <- r:
	case <-m.done:
		return nil
	}
	select {
	case v := <-r:
		return v
	case <-m.done:
		return nil
	}
}

// Stop sends SIGTERM to every elim and waits for them to exit, or kills
// them when ctx ends.
func (m *Manager) Stop(ctx context.Context) error {
	select {
	case m.stop <- ctx:
		return <-m.stopped
	case <-m.done:
		return nil
	}
}

type value struct {
	v    float64
	from string
	at   time.Time
}

func (m *Manager) run(names []string) {
	defer close(m.done)
	elims := map[string]*elim{}
	vals := map[string]value{}
	for _, n := range names {
		e := &elim{name: n, path: filepath.Join(m.cfg.ServerDir, n)}
		elims[n] = e
		m.start(e)
	}
	for {
		select {
		case ctx := <-m.stop:
			m.stopped <- m.shutdown(ctx, elims)
			return
		case ev := <-m.events:
			switch ev := ev.(type) {
			case valuesReq:
				out := make(map[string]float64, len(vals))
				for k, v := range vals {
					out[k] = v.v
				}
				ev <- out
			case dataEv:
				e := elims[ev.name]
				if e == nil || e.gen != ev.gen {
					continue
				}
				m.data(e, ev.b, vals)
			case exitEv:
				e := elims[ev.name]
				if e == nil || e.gen != ev.gen {
					continue
				}
				m.exited(e, ev.err, vals)
			case timerEv:
				e := elims[ev.name]
				if e == nil || e.gen != ev.gen {
					continue
				}
				switch ev.kind {
				case 0:
					if e.running && len(e.partial) > 0 {
						m.cfg.Log.Warn(fmt.Sprintf("elim %s: incomplete load update string %q for more than %v; restarting it", e.name, e.partial, m.cfg.BlockTime))
						m.emit(e, Blocked, string(e.partial))
						e.partial = nil
						m.kill(e, syscall.SIGTERM)
					}
				case 1:
					if !e.running && !e.finished {
						m.start(e)
					}
				}
			}
		}
	}
}

func (m *Manager) emit(e *elim, k EventKind, detail string) {
	if m.cfg.OnEvent != nil {
		m.cfg.OnEvent(Event{Elim: e.name, Kind: k, Detail: detail})
	}
}

func (m *Manager) env() []string {
	env := make([]string, 0, len(m.cfg.Env)+3)
	for _, kv := range m.cfg.Env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "LSF_RESOURCES", "LSF_MASTER", "ELIM_ABORT_VALUE":
			continue
		}
		env = append(env, kv)
	}
	master := "N"
	if m.cfg.Master {
		master = "Y"
	}
	return append(env, "LSF_RESOURCES="+strings.Join(m.cfg.Resources, " "), "LSF_MASTER="+master,
		"ELIM_ABORT_VALUE="+strconv.Itoa(m.cfg.AbortValue))
}

func (m *Manager) start(e *elim) {
	e.gen++
	e.partial = nil
	e.lastStart = m.clk.Now()
	cmd := exec.Command(e.path, m.cfg.Args...)
	cmd.Env = m.env()
	cmd.Dir = m.cfg.ServerDir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = logWriter{m.cfg.Log, e.name}
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		m.cfg.Log.Error(fmt.Sprintf("elim %s: cannot start: %v", e.name, err))
		m.emit(e, StartFailed, err.Error())
		m.scheduleRestart(e)
		return
	}
	e.cmd = cmd
	e.running = true
	m.cfg.Log.Info(fmt.Sprintf("elim %s: started, pid %d, LSF_RESOURCES=%q", e.name, cmd.Process.Pid, strings.Join(m.cfg.Resources, " ")))
	m.emit(e, Started, strconv.Itoa(cmd.Process.Pid))
	gen, name := e.gen, e.name
	go func() {
		buf := make([]byte, 4096)
		for {
			n, rerr := out.Read(buf)
			if n > 0 {
				b := append([]byte(nil), buf[:n]...)
				select {
				case m.events <- dataEv{name, gen, b}:
				case <-m.done:
					return
				}
			}
			if rerr != nil {
				break
			}
		}
		werr := cmd.Wait()
		select {
		case m.events <- exitEv{name, gen, werr}:
		case <-m.done:
		}
	}()
}

func (m *Manager) data(e *elim, b []byte, vals map[string]value) {
	e.partial = append(e.partial, b...)
	for {
		i := indexByte(e.partial, '\n')
		if i < 0 {
			break
		}
		line := string(e.partial[:i])
		e.partial = e.partial[i+1:]
		vs, err := ParseUpdate(line)
		if err != nil {
			m.cfg.Log.Warn(fmt.Sprintf("elim %s: bad load update string %q: %v; ignored", e.name, line, err))
			m.emit(e, BadUpdate, err.Error())
			continue
		}
		now := m.clk.Now()
		for _, v := range vs {
			vals[v.Name] = value{v.Value, e.name, now}
		}
		if m.cfg.Debug {
			m.cfg.Log.Debug(fmt.Sprintf("elim %s: %s", e.name, line))
		}
		m.emit(e, Updated, line)
	}
	if len(e.partial) == 0 {
		e.partial = nil
		if e.blockT != nil {
			e.blockT.Stop()
			e.blockT = nil
		}
		return
	}
	if m.cfg.BlockTime >= 0 && e.blockT == nil {
		gen, name := e.gen, e.name
		t := m.clk.NewTimer(m.cfg.BlockTime)
		e.blockT = t
		go m.fire(t, timerEv{name, 0, gen})
		m.emit(e, Partial, string(e.partial))
	}
}

func (m *Manager) fire(t clock.Timer, ev timerEv) {
	select {
	case <-t.C():
		select {
		case m.events <- ev:
		case <-m.done:
		}
	case <-m.done:
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func (m *Manager) exited(e *elim, err error, vals map[string]value) {
	e.running = false
	e.cmd = nil
	if e.blockT != nil {
		e.blockT.Stop()
		e.blockT = nil
	}
	// The values this elim was the last to report are no longer current.
	for k, v := range vals {
		if v.from == e.name {
			delete(vals, k)
		}
	}
	code := -1
	var xe *exec.ExitError
	switch {
	case err == nil:
		code = 0
	case errors.As(err, &xe):
		code = xe.ExitCode()
	}
	if code == m.cfg.AbortValue {
		e.finished = true
		m.cfg.Log.Warn(fmt.Sprintf("elim %s: exited with ELIM_ABORT_VALUE %d; not restarted", e.name, code))
		m.emit(e, Aborted, strconv.Itoa(code))
		return
	}
	m.cfg.Log.Warn(fmt.Sprintf("elim %s: exited (%v)", e.name, exitText(err)))
	m.emit(e, Exited, exitText(err))
	m.scheduleRestart(e)
}

func (m *Manager) scheduleRestart(e *elim) {
	if m.cfg.Restarts >= 0 && e.restarts >= m.cfg.Restarts {
		e.finished = true
		m.cfg.Log.Error(fmt.Sprintf("elim %s: restarted %d times (LSF_ELIM_RESTARTS); not restarted again", e.name, e.restarts))
		m.emit(e, GaveUp, strconv.Itoa(e.restarts))
		return
	}
	e.restarts++
	wait := e.lastStart.Add(RestartInterval).Sub(m.clk.Now())
	if wait < 0 {
		wait = 0
	}
	t := m.clk.NewTimer(wait)
	e.restartT = t
	go m.fire(t, timerEv{e.name, 1, e.gen})
	// Logged once the timer runs (tests advance their clock on this line).
	m.cfg.Log.Warn(fmt.Sprintf("elim %s: restarting in %v", e.name, wait.Round(time.Second)))
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

func (m *Manager) kill(e *elim, sig syscall.Signal) {
	if e.cmd != nil && e.cmd.Process != nil {
		_ = syscall.Kill(-e.cmd.Process.Pid, sig)
	}
}

// shutdown terminates the elims: SIGTERM, then SIGKILL when ctx ends.
func (m *Manager) shutdown(ctx context.Context, elims map[string]*elim) error {
	running := 0
	for _, e := range elims {
		if e.restartT != nil {
			e.restartT.Stop()
		}
		if e.running {
			m.kill(e, syscall.SIGTERM)
			running++
		}
	}
	var err error
	for running > 0 {
		select {
		case ev := <-m.events:
			switch ev := ev.(type) {
			case exitEv:
				if e := elims[ev.name]; e != nil && e.gen == ev.gen && e.running {
					e.running = false
					running--
					m.cfg.Log.Info(fmt.Sprintf("elim %s: terminated", e.name))
				}
			case valuesReq:
				ev <- nil
			}
		case <-ctx.Done():
			for _, e := range elims {
				if e.running {
					m.kill(e, syscall.SIGKILL)
				}
			}
			err = ctx.Err()
			ctx = context.Background()
		}
	}
	return err
}

type logWriter struct {
	l    *slog.Logger
	name string
}

func (w logWriter) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		w.l.Warn(fmt.Sprintf("elim %s: stderr: %s", w.name, line))
	}
	return len(b), nil
}
