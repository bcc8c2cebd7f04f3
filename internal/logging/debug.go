package logging

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Debug is a change a debug subcommand (lsadmin limdebug, limtime,
// resdebug, restime; badmin mbddebug, mbdtime, schddebug, schdtime,
// sbddebug, sbdtime) makes to a running daemon's log, until the daemon
// restarts or Reset.
type Debug struct {
	// Timing makes Level the timing level (the *time subcommands).
	Timing bool
	// Level is -l: 0-3 for LOG_DEBUG .. LOG_DEBUG3; with Timing 0-5
	// (0: no timing).
	Level int
	// Classes are -c's log classes (recorded: Basalt's lines carry no
	// class to filter on).
	Classes []string
	// File is -f: the log goes to <File>.<daemon>.log.<host>, in
	// LSF_LOGDIR (else the temporary directory) unless File is absolute.
	File string
	// Reset is -o: the level and classes (with Timing, the timing level)
	// that lsf.conf set, and the daemon's own file.
	Reset bool
	// By names who asked (user@host), for the line recording the change.
	By string
}

// MaxDebugLevel and MaxTimingLevel bound Debug.Level.
const (
	MaxDebugLevel  = 3
	MaxTimingLevel = 5
)

// debugLevels are -l's levels: LOG_DEBUG .. LOG_DEBUG3.
var debugLevels = [...]slog.Level{slog.LevelDebug, LevelDebug1, LevelDebug2, LevelDebug3}

// timingFloor is, per timing level, the shortest call a timing line is
// written for: a higher level times more (shorter) calls, level 5 all.
var timingFloor = [...]time.Duration{1: time.Second, 2: 100 * time.Millisecond, 3: 10 * time.Millisecond, 4: time.Millisecond, 5: 0}

// swapWriter is the writer a Log's handler writes to; -f swaps the file
// under it. A write holds the read lock, so a swapped-out file is closed
// only once no line is being written to it.
type swapWriter struct {
	mu sync.RWMutex
	w  io.Writer
}

func (s *swapWriter) Write(p []byte) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.w.Write(p)
}

func (s *swapWriter) swap(w io.Writer) io.Writer {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.w
	s.w = w
	return old
}

// debugState is what the debug subcommands change; mu guards it.
type debugState struct {
	mu          sync.Mutex
	daemon      string
	host        string
	dir         string
	baseLevel   slog.Level
	baseClasses []string
	baseTiming  int
	classes     []string
	timing      int
	extra       *File // the -f file, nil when the log is the daemon's own
}

// Apply makes d's change and returns the path the log is written to now
// ("" for standard error). A line on the log records the change, whatever
// the level.
func (l *Log) Apply(d Debug) (string, error) {
	max := MaxDebugLevel
	if d.Timing {
		max = MaxTimingLevel
	}
	if d.Level < 0 || d.Level > max {
		return l.Path(), fmt.Errorf("level %d is not in [0-%d]", d.Level, max)
	}
	st := &l.debug
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case d.Reset && d.Timing:
		st.timing = st.baseTiming
	case d.Reset:
		l.level.Set(st.baseLevel)
		st.classes = st.baseClasses
	case d.Timing:
		st.timing = d.Level
	default:
		l.level.Set(debugLevels[d.Level])
		st.classes = append([]string(nil), d.Classes...)
	}
	if d.Reset {
		l.useFile(nil)
	} else if d.File != "" {
		f, err := l.openDebugFile(d.File)
		if err != nil {
			return l.pathLocked(), err
		}
		l.useFile(f)
	}
	path := l.pathLocked()
	l.always(slog.LevelInfo, "log settings changed", "level", MaskName(l.level.Level()),
		"classes", strings.Join(st.classes, " "), "timing", st.timing, "file", path, "by", d.By)
	return path, nil
}

// useFile makes f (nil: the daemon's own file or standard error) the
// file written to, and closes the -f file it replaces (debug.mu held).
func (l *Log) useFile(f *File) {
	var w io.Writer = f
	if f == nil {
		w = l.own
	}
	l.out.swap(w)
	if old := l.debug.extra; old != nil && old != f {
		old.Close()
	}
	l.debug.extra = f
}

// openDebugFile opens -f's <name>.<daemon>.log.<host>: under LSF_LOGDIR
// (the temporary directory without one) unless name is absolute, in the
// temporary directory when that path cannot be created (as LSF does).
func (l *Log) openDebugFile(name string) (*File, error) {
	st := &l.debug
	base := name + "." + st.daemon + ".log." + st.host
	path := base
	if !filepath.IsAbs(name) {
		dir := st.dir
		if dir == "" {
			dir = os.TempDir()
		}
		path = filepath.Join(dir, base)
	}
	f, err := OpenFile(path, 0o644)
	if err == nil {
		return f, nil
	}
	f, err2 := OpenFile(filepath.Join(os.TempDir(), filepath.Base(base)), 0o644)
	if err2 != nil {
		return nil, errors.Join(err, err2)
	}
	return f, nil
}

func (l *Log) pathLocked() string {
	if l.debug.extra != nil {
		return l.debug.extra.Path()
	}
	return l.Path()
}

// always writes a line whatever the level (the record of a change, a
// timing line).
func (l *Log) always(level slog.Level, msg string, args ...any) {
	var pcs [1]uintptr
	runtime.Callers(2, pcs[:])
	r := slog.NewRecord(time.Now(), level, msg, pcs[0])
	r.Add(args...)
	_ = l.Logger.Handler().Handle(context.Background(), r)
}

// Classes are the log classes in force (lsf.conf's, or -c's).
func (l *Log) Classes() []string {
	l.debug.mu.Lock()
	defer l.debug.mu.Unlock()
	return append([]string(nil), l.debug.classes...)
}

// TimingLevel is the timing level in force (0: none).
func (l *Log) TimingLevel() int {
	l.debug.mu.Lock()
	defer l.debug.mu.Unlock()
	return l.debug.timing
}

// Timed logs, in milliseconds as LSF's timing lines do, how long a call
// of method took, when the timing level times calls that long (see
// timingFloor); rpc.Server.Timed calls it after each call.
func (l *Log) Timed(method string, took time.Duration) {
	lvl := l.TimingLevel()
	if lvl <= 0 || lvl > MaxTimingLevel || took < timingFloor[lvl] {
		return
	}
	ms := strconv.FormatFloat(float64(took)/float64(time.Millisecond), 'f', 3, 64)
	l.always(slog.LevelInfo, "timing", "method", method, "ms", ms)
}

// MaskName is the LSF log mask of a level (LOG_DEBUG2 ...), the nearest
// more severe one for a level between two.
func MaskName(level slog.Level) string {
	for i := len(masks) - 1; i >= 0; i-- {
		if masks[i].level >= level {
			return masks[i].name
		}
	}
	return masks[0].name
}

// debugChain names, per daemon, lsf.conf's parameters of its log classes
// and timing level.
var debugChain = map[string][2]string{
	"mbatchd": {"LSB_DEBUG_MBD", "LSB_TIME_MBD"},
	"sbatchd": {"LSB_DEBUG_SBD", "LSB_TIME_SBD"},
	"mbschd":  {"LSB_DEBUG_SCH", "LSB_TIME_SCH"},
	"lim":     {"LSF_DEBUG_LIM", "LSF_TIME_LIM"},
	"res":     {"LSF_DEBUG_RES", "LSF_TIME_RES"},
}

// DebugParams reads daemon's log classes (LSF_DEBUG_LIM, LSB_DEBUG_MBD,
// ...: blank-separated, quotes stripped) and timing level (LSF_TIME_LIM,
// LSB_TIME_MBD, ...; not a level 1-5: none) from lsf.conf.
func DebugParams(p Params, daemon string) (classes []string, timing int) {
	names, ok := debugChain[daemon]
	if !ok || p == nil {
		return nil, 0
	}
	classes = strings.Fields(strings.Trim(strings.TrimSpace(p.Get(names[0])), `"`))
	if n, err := strconv.Atoi(strings.TrimSpace(p.Get(names[1]))); err == nil && n >= 1 && n <= MaxTimingLevel {
		timing = n
	}
	return classes, timing
}
