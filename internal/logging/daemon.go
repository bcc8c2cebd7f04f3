package logging

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Config describes a daemon's log.
type Config struct {
	// Daemon names the log (<Daemon>.log.<Host>) and its lines
	// (Daemon[pid]).
	Daemon, Host string
	// Dir is LSF_LOGDIR; "" logs to Stderr.
	Dir string
	// MaskParam and Mask are the parameter that set the level and its
	// value (see MaskParam); an invalid value is warned about on the log.
	MaskParam, Mask string
	// Stderr receives the log when it has no file (os.Stderr if nil).
	Stderr io.Writer
	// Now, if set, stamps the lines (tests).
	Now func() time.Time
	// Classes and Timing are lsf.conf's log classes and timing level of
	// the daemon (see DebugParams), what a debug subcommand's -o restores.
	Classes []string
	Timing  int
}

// Log is a daemon's logger and its file.
type Log struct {
	*slog.Logger
	file  *File // nil when logging to Stderr
	level slog.LevelVar
	own   io.Writer // file, or Stderr
	out   swapWriter
	debug debugState

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// New opens the daemon's log: LSF_LOGDIR/<daemon>.log.<host>, or Stderr
// when Dir is "" or the file cannot be created there (said on Stderr's
// log).
func New(cfg Config) *Log {
	level, maskErr := ParseMask(cfg.Mask)
	stderr := cfg.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	l := &Log{}
	l.level.Set(level)
	var w io.Writer = stderr
	var openErr error
	if cfg.Dir != "" {
		path := filepath.Join(cfg.Dir, cfg.Daemon+".log."+cfg.Host)
		if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
			openErr = err
		} else if l.file, openErr = OpenFile(path, 0o644); openErr == nil {
			w = l.file
		}
	}
	l.own = w
	l.out.w = w
	l.debug = debugState{daemon: cfg.Daemon, host: cfg.Host, dir: cfg.Dir, baseLevel: level,
		baseClasses: cfg.Classes, classes: cfg.Classes, baseTiming: cfg.Timing, timing: cfg.Timing}
	name := fmt.Sprintf("%s[%d]", cfg.Daemon, os.Getpid())
	l.Logger = slog.New(NewHandler(&l.out, &HandlerOptions{Level: &l.level, Name: name, Now: cfg.Now}))
	if openErr != nil {
		l.Warn("LSF_LOGDIR unusable: logging to standard error", "dir", cfg.Dir, "err", openErr)
	}
	if maskErr != nil {
		l.Warn(fmt.Sprintf("%s=%s is not a log mask: %s used", cfg.MaskParam, cfg.Mask, DefaultMask))
	}
	return l
}

// Path is the log file's path, "" when the log goes to standard error.
func (l *Log) Path() string {
	if l.file == nil {
		return ""
	}
	return l.file.Path()
}

// SetLevel changes the least severe level logged.
func (l *Log) SetLevel(level slog.Level) { l.level.Set(level) }

// Reopen reopens the log file at its path (nothing when there is none).
func (l *Log) Reopen() error {
	if l.file == nil {
		return nil
	}
	return l.file.Reopen()
}

// ReopenOn reopens the file whenever one of sigs arrives, until ctx ends
// or Close. A failed reopen is logged on the old file, which stays.
func (l *Log) ReopenOn(ctx context.Context, sigs ...os.Signal) {
	if l.file == nil || l.stop != nil {
		return
	}
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() {
		defer close(l.done)
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-l.stop:
				return
			case sig := <-ch:
				if err := l.Reopen(); err != nil {
					l.Error("cannot reopen the log", "signal", sig.String(), "err", err)
					continue
				}
				l.Info("log reopened", "signal", sig.String())
			}
		}
	}()
}

// Close stops ReopenOn and closes the file (and a debug subcommand's).
func (l *Log) Close() error {
	if l.stop != nil {
		l.stopOnce.Do(func() { close(l.stop) })
		<-l.done
	}
	l.debug.mu.Lock()
	if l.debug.extra != nil {
		l.debug.extra.Close()
		l.debug.extra = nil
	}
	l.debug.mu.Unlock()
	if l.file == nil {
		return nil
	}
	return l.file.Close()
}

// Daemon opens the log of daemon on host as lsf.conf (p) says (LSF_LOGDIR,
// the mask of MaskParam) and reopens it on SIGHUP until ctx ends or the
// returned function (which closes it) is called.
func Daemon(ctx context.Context, p Params, daemon, host string, stderr io.Writer) (*slog.Logger, func(), error) {
	l, err := OpenDaemon(ctx, p, daemon, host, stderr)
	if err != nil {
		return nil, nil, err
	}
	return l.Logger, func() { l.Close() }, nil
}

// OpenDaemon is Daemon returning the Log itself (for the debug
// subcommands: Apply, Timed); Close closes it.
func OpenDaemon(ctx context.Context, p Params, daemon, host string, stderr io.Writer) (*Log, error) {
	if p == nil {
		return nil, errors.New("log: no lsf.conf")
	}
	param, mask := MaskParam(p, daemon)
	classes, timing := DebugParams(p, daemon)
	l := New(Config{Daemon: daemon, Host: host, Dir: p.Get("LSF_LOGDIR"), MaskParam: param, Mask: mask, Stderr: stderr,
		Classes: classes, Timing: timing})
	l.ReopenOn(ctx, syscall.SIGHUP)
	return l, nil
}
