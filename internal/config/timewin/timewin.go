package timewin

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

const (
	dayMinutes  = 24 * 60
	weekMinutes = 7 * dayMinutes
)

// span is a half-open interval [start, end) of minutes of the week, counted
// from Sunday 00:00, with 0 <= start < end <= weekMinutes.
type span struct{ start, end int }

// Window is a parsed window specification. The zero Window is always open
// (an undefined RUN_WINDOW or DISPATCH_WINDOW). Windows are immutable.
type Window struct {
	text   string
	spans  []span // sorted, merged, non-overlapping
	bounds []int  // minutes of the week where the window changes state
}

// Error is a syntax error in a window specification. Offset is the byte
// offset of the offending time window in the parsed string.
type Error struct {
	Offset int
	Text   string // the offending time window
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("bad time window <%s>: %s", e.Text, e.Msg) }

// Parse parses a window specification. An empty (all blank) specification
// gives the always-open Window.
func Parse(s string) (Window, error) {
	var w Window
	var texts []string
	var raw []span
	for off := 0; off < len(s); {
		for off < len(s) && isBlank(s[off]) {
			off++
		}
		if off == len(s) {
			break
		}
		end := off
		for end < len(s) && !isBlank(s[end]) {
			end++
		}
		tok := s[off:end]
		spans, err := parseOne(tok)
		if err != nil {
			return Window{}, &Error{Offset: off, Text: tok, Msg: err.Error()}
		}
		raw = append(raw, spans...)
		texts = append(texts, tok)
		off = end
	}
	if len(texts) == 0 {
		return w, nil
	}
	w.text = strings.Join(texts, " ")
	w.spans = merge(raw)
	w.bounds = w.boundaries()
	return w, nil
}

// MustParse is Parse for specifications known to be valid; it panics on error.
func MustParse(s string) Window {
	w, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return w
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// clock is one parsed time value.
type clock struct {
	day    int // -1 when no day was given
	minute int // minute of the day
}

func parseOne(tok string) ([]span, error) {
	dash := strings.IndexByte(tok, '-')
	if dash < 0 {
		return nil, fmt.Errorf("expected begin_time-end_time")
	}
	if strings.IndexByte(tok[dash+1:], '-') >= 0 {
		return nil, fmt.Errorf("more than one '-'")
	}
	b, err := parseClock(tok[:dash])
	if err != nil {
		return nil, fmt.Errorf("begin time: %w", err)
	}
	e, err := parseClock(tok[dash+1:])
	if err != nil {
		return nil, fmt.Errorf("end time: %w", err)
	}
	if (b.day < 0) != (e.day < 0) {
		return nil, fmt.Errorf("if either time specifies a day, the other must specify a day")
	}
	var out []span
	if b.day < 0 {
		if b.minute == e.minute {
			return nil, fmt.Errorf("begin and end times are equal")
		}
		length := e.minute - b.minute
		if length < 0 {
			length += dayMinutes
		}
		for d := 0; d < 7; d++ {
			out = appendWrapped(out, d*dayMinutes+b.minute, length)
		}
		return out, nil
	}
	start := b.day*dayMinutes + b.minute
	end := e.day*dayMinutes + e.minute
	if start == end {
		return nil, fmt.Errorf("begin and end times are equal")
	}
	length := end - start
	if length < 0 {
		length += weekMinutes
	}
	return appendWrapped(out, start, length), nil
}

// appendWrapped appends [start, start+length) reduced modulo the week.
func appendWrapped(out []span, start, length int) []span {
	end := start + length
	if end <= weekMinutes {
		return append(out, span{start, end})
	}
	return append(out, span{start, weekMinutes}, span{0, end - weekMinutes})
}

func parseClock(s string) (clock, error) {
	if s == "" {
		return clock{}, fmt.Errorf("missing time")
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return clock{}, fmt.Errorf("too many fields in <%s>", s)
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		if p == "" || len(p) > 2 {
			return clock{}, fmt.Errorf("bad number <%s> in <%s>", p, s)
		}
		n := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				return clock{}, fmt.Errorf("bad number <%s> in <%s>", p, s)
			}
			n = n*10 + int(c-'0')
		}
		nums[i] = n
	}
	c := clock{day: -1}
	var hour, minute int
	switch len(nums) {
	case 1:
		hour = nums[0]
	case 2:
		hour, minute = nums[0], nums[1]
	case 3:
		c.day, hour, minute = nums[0], nums[1], nums[2]
		if c.day > 6 {
			return clock{}, fmt.Errorf("day %d out of range 0-6", c.day)
		}
	}
	if hour > 23 {
		return clock{}, fmt.Errorf("hour %d out of range 0-23", hour)
	}
	if minute > 59 {
		return clock{}, fmt.Errorf("minute %d out of range 0-59", minute)
	}
	c.minute = hour*60 + minute
	return c, nil
}

func merge(in []span) []span {
	sort.Slice(in, func(i, j int) bool {
		if in[i].start != in[j].start {
			return in[i].start < in[j].start
		}
		return in[i].end < in[j].end
	})
	var out []span
	for _, s := range in {
		if n := len(out); n > 0 && s.start <= out[n-1].end {
			if s.end > out[n-1].end {
				out[n-1].end = s.end
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// String returns the specification with windows separated by one blank;
// "" for the always-open window.
func (w Window) String() string { return w.text }

// Always reports whether the window is open at every instant: undefined, or
// covering the whole week.
func (w Window) Always() bool {
	return len(w.spans) == 0 || (len(w.spans) == 1 && w.spans[0] == span{0, weekMinutes})
}

// minuteOfWeek returns the minute of the week of t in t's location.
func minuteOfWeek(t time.Time) int {
	return int(t.Weekday())*dayMinutes + t.Hour()*60 + t.Minute()
}

// Open reports whether the window is open at t (evaluated in t's location).
func (w Window) Open(t time.Time) bool {
	if w.Always() {
		return true
	}
	m := minuteOfWeek(t)
	i := sort.Search(len(w.spans), func(i int) bool { return w.spans[i].end > m })
	return i < len(w.spans) && w.spans[i].start <= m
}

// boundaries returns the minutes of the week at which the window changes
// state, sorted. A span touching the end of the week that continues at its
// start has no boundary there.
func (w Window) boundaries() []int {
	n := len(w.spans)
	wraps := n > 0 && w.spans[0].start == 0 && w.spans[n-1].end == weekMinutes
	var b []int
	for i, s := range w.spans {
		if !(wraps && i == 0) {
			b = append(b, s.start)
		}
		if !(wraps && i == n-1) {
			b = append(b, s.end%weekMinutes)
		}
	}
	sort.Ints(b)
	return b
}

// Next returns the first instant after t at which the window opens or
// closes, in t's location, or the zero Time if it never changes (Always).
func (w Window) Next(t time.Time) time.Time {
	if w.Always() {
		return time.Time{}
	}
	bs := w.bounds
	m := minuteOfWeek(t)
	y, mo, d := t.Date()
	weekStartDay := d - int(t.Weekday())
	loc := t.Location()
	// Candidates in order: this week's boundaries after m, then the next
	// week's. Daylight-saving shifts can make a wall-clock candidate fall at
	// or before t; such candidates are skipped.
	for week := 0; week < 3; week++ {
		for _, b := range bs {
			if week == 0 && b <= m {
				continue
			}
			day := weekStartDay + week*7 + b/dayMinutes
			c := time.Date(y, mo, day, (b%dayMinutes)/60, b%60, 0, 0, loc)
			if c.After(t) {
				return c
			}
		}
	}
	return time.Time{}
}
