package logging

import (
	"context"
	"encoding"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// HandlerOptions configure a Handler.
type HandlerOptions struct {
	// Level is the least severe level written (slog.LevelInfo if nil).
	Level slog.Leveler
	// Name is written after the level: "mbatchd[4242]", "job 31".
	Name string
	// Now, if set, stamps the records instead of their own time (a
	// shepherd's clock in tests).
	Now func() time.Time
}

// Handler writes records as the package describes, one Write per record
// under a lock its derived handlers share: lines from goroutines never
// interleave.
type Handler struct {
	opts   HandlerOptions
	mu     *sync.Mutex
	w      io.Writer
	pre    []byte // attributes from WithAttrs, formatted
	prefix string // groups from WithGroup, "a.b."
}

// NewHandler returns a Handler writing to w.
func NewHandler(w io.Writer, opts *HandlerOptions) *Handler {
	h := &Handler{mu: &sync.Mutex{}, w: w}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.Level == nil {
		h.opts.Level = slog.LevelInfo
	}
	return h
}

// Enabled reports whether level is at least the handler's level.
func (h *Handler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.opts.Level.Level()
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// Handle writes r as one line.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	bp := bufPool.Get().(*[]byte)
	b := (*bp)[:0]
	t := r.Time
	if h.opts.Now != nil {
		t = h.opts.Now()
	}
	if t.IsZero() {
		t = time.Now()
	}
	b = t.AppendFormat(b, "2006-01-02 15:04:05.000")
	b = append(b, ' ')
	b = append(b, LevelName(r.Level)...)
	if h.opts.Name != "" {
		b = append(b, ' ')
		b = append(b, h.opts.Name...)
		b = append(b, ':')
	}
	b = append(b, ' ')
	b = append(b, r.Message...)
	b = append(b, h.pre...)
	r.Attrs(func(a slog.Attr) bool {
		b = appendAttr(b, h.prefix, a)
		return true
	})
	b = append(b, '\n')
	h.mu.Lock()
	_, err := h.w.Write(b)
	h.mu.Unlock()
	if cap(b) <= 64<<10 {
		*bp = b
		bufPool.Put(bp)
	}
	return err
}

// WithAttrs returns a handler that writes attrs on every line.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	h2 := *h
	h2.pre = append([]byte(nil), h.pre...)
	for _, a := range attrs {
		h2.pre = appendAttr(h2.pre, h.prefix, a)
	}
	return &h2
}

// WithGroup returns a handler that qualifies later attributes' keys with
// name.
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.prefix = h.prefix + name + "."
	return &h2
}

func appendAttr(b []byte, prefix string, a slog.Attr) []byte {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return b
	}
	if a.Value.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			b = appendAttr(b, p, g)
		}
		return b
	}
	b = append(b, ' ')
	b = append(b, prefix...)
	b = append(b, a.Key...)
	b = append(b, '=')
	return appendValue(b, a.Value)
}

func appendValue(b []byte, v slog.Value) []byte {
	switch v.Kind() {
	case slog.KindString:
		return appendString(b, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10)
	case slog.KindFloat64:
		return strconv.AppendFloat(b, v.Float64(), 'g', -1, 64)
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool())
	case slog.KindDuration:
		return append(b, v.Duration().String()...)
	case slog.KindTime:
		return v.Time().AppendFormat(b, time.RFC3339Nano)
	}
	switch x := v.Any().(type) {
	case nil:
		return append(b, "<nil>"...)
	case error:
		return appendString(b, x.Error())
	case fmt.Stringer:
		return appendString(b, x.String())
	case encoding.TextMarshaler:
		t, err := x.MarshalText()
		if err != nil {
			return appendString(b, "!ERROR:"+err.Error())
		}
		return appendString(b, string(t))
	case []byte:
		return appendString(b, string(x))
	default:
		return appendString(b, fmt.Sprint(x))
	}
}

// appendString appends s, quoted when it would not read back as one
// value.
func appendString(b []byte, s string) []byte {
	if needsQuote(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

func needsQuote(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c <= ' ' || c == '=' || c == '"' || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += n
	}
	return false
}
