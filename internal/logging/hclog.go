package logging

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
)

// HCLog returns an hclog.Logger (hashicorp/raft's) named name that writes
// to h: hclog's Trace, Debug, Info, Warn and Error are LevelDebug3,
// slog.LevelDebug, Info, Warn and Error, so that the daemon's mask
// applies; messages are prefixed with the logger's name ("raft: ...").
func HCLog(h slog.Handler, name string) hclog.Logger {
	return &hcLogger{h: h, name: name, min: new(atomic.Int32)}
}

type hcLogger struct {
	h    slog.Handler
	name string
	args []any
	// min is SetLevel's level, shared with the loggers derived from this
	// one (hclog.NoLevel: none, the handler decides).
	min *atomic.Int32
}

// slogLevel maps an hclog level to slog's.
func slogLevel(l hclog.Level) slog.Level {
	switch l {
	case hclog.Trace:
		return LevelDebug3
	case hclog.Debug:
		return slog.LevelDebug
	case hclog.Info, hclog.NoLevel:
		return slog.LevelInfo
	case hclog.Warn:
		return slog.LevelWarn
	default: // Error, Off
		return slog.LevelError
	}
}

func (l *hcLogger) enabled(level hclog.Level) bool {
	if level == hclog.Off {
		return false
	}
	if m := hclog.Level(l.min.Load()); m != hclog.NoLevel && level < m {
		return false
	}
	return l.h.Enabled(context.Background(), slogLevel(level))
}

func (l *hcLogger) Log(level hclog.Level, msg string, args ...any) {
	if !l.enabled(level) {
		return
	}
	var pcs [1]uintptr
	runtime.Callers(3, pcs[:])
	if l.name != "" {
		msg = l.name + ": " + msg
	}
	r := slog.NewRecord(time.Now(), slogLevel(level), msg, pcs[0])
	r.Add(l.args...)
	r.Add(hcArgs(args)...)
	_ = l.h.Handle(context.Background(), r)
}

// hcArgs turns hclog's values into slog's: hclog.Format is formatted,
// and a lone trailing value gets slog's !BADKEY.
func hcArgs(args []any) []any {
	for i, a := range args {
		switch v := a.(type) {
		case hclog.Format:
			if len(v) > 0 {
				if f, ok := v[0].(string); ok {
					args[i] = fmt.Sprintf(f, v[1:]...)
				}
			}
		case hclog.Hex:
			args[i] = "0x" + strconv.FormatInt(int64(v), 16)
		case hclog.Octal:
			args[i] = "0" + strconv.FormatInt(int64(v), 8)
		case hclog.Binary:
			args[i] = "0b" + strconv.FormatInt(int64(v), 2)
		}
	}
	return args
}

func (l *hcLogger) Trace(msg string, args ...any) { l.Log(hclog.Trace, msg, args...) }
func (l *hcLogger) Debug(msg string, args ...any) { l.Log(hclog.Debug, msg, args...) }
func (l *hcLogger) Info(msg string, args ...any)  { l.Log(hclog.Info, msg, args...) }
func (l *hcLogger) Warn(msg string, args ...any)  { l.Log(hclog.Warn, msg, args...) }
func (l *hcLogger) Error(msg string, args ...any) { l.Log(hclog.Error, msg, args...) }

func (l *hcLogger) IsTrace() bool { return l.enabled(hclog.Trace) }
func (l *hcLogger) IsDebug() bool { return l.enabled(hclog.Debug) }
func (l *hcLogger) IsInfo() bool  { return l.enabled(hclog.Info) }
func (l *hcLogger) IsWarn() bool  { return l.enabled(hclog.Warn) }
func (l *hcLogger) IsError() bool { return l.enabled(hclog.Error) }

func (l *hcLogger) ImpliedArgs() []any { return l.args }

func (l *hcLogger) With(args ...any) hclog.Logger {
	l2 := *l
	l2.args = append(append([]any(nil), l.args...), hcArgs(args)...)
	return &l2
}

func (l *hcLogger) Name() string { return l.name }

func (l *hcLogger) Named(name string) hclog.Logger {
	l2 := *l
	if l.name != "" {
		name = l.name + "." + name
	}
	l2.name = name
	return &l2
}

func (l *hcLogger) ResetNamed(name string) hclog.Logger {
	l2 := *l
	l2.name = name
	return &l2
}

// SetLevel raises the least severe level logged (the daemon's mask still
// applies); hclog.NoLevel removes it.
func (l *hcLogger) SetLevel(level hclog.Level) { l.min.Store(int32(level)) }

// GetLevel is the least severe level that is logged.
func (l *hcLogger) GetLevel() hclog.Level {
	for _, lv := range []hclog.Level{hclog.Trace, hclog.Debug, hclog.Info, hclog.Warn, hclog.Error} {
		if l.enabled(lv) {
			return lv
		}
	}
	return hclog.Off
}

func (l *hcLogger) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(l.StandardWriter(opts), "", 0)
}

// StandardWriter logs each line written at opts.ForceLevel, or, with
// InferLevels, at the level of its "[WARN]"-style prefix, else Info.
func (l *hcLogger) StandardWriter(opts *hclog.StandardLoggerOptions) io.Writer {
	if opts == nil {
		opts = &hclog.StandardLoggerOptions{}
	}
	return &hcWriter{l: l, opts: *opts}
}

type hcWriter struct {
	l    *hcLogger
	opts hclog.StandardLoggerOptions
}

var hcPrefixes = []struct {
	p string
	l hclog.Level
}{{"[TRACE]", hclog.Trace}, {"[DEBUG]", hclog.Debug}, {"[INFO]", hclog.Info}, {"[WARN]", hclog.Warn}, {"[ERROR]", hclog.Error}, {"[ERR]", hclog.Error}}

func (w *hcWriter) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(bytes.TrimRight(p, "\r\n"), []byte("\n")) {
		s, level := strings.TrimSpace(string(line)), hclog.Info
		if w.opts.ForceLevel != hclog.NoLevel {
			level = w.opts.ForceLevel
		} else if w.opts.InferLevels {
			for _, e := range hcPrefixes {
				if strings.HasPrefix(s, e.p) {
					level, s = e.l, strings.TrimSpace(s[len(e.p):])
					break
				}
			}
		}
		w.l.Log(level, s)
	}
	return len(p), nil
}
