package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/config/lex"
	"github.com/basalt-lsf/basalt/internal/config/timewin"
	"github.com/basalt-lsf/basalt/internal/resreq/gpureq"
)

// Pos, Diagnostic and Diagnostics are the lexer's: every problem carries
// the file, line and column it was found at.
type (
	Pos         = lex.Pos
	Diagnostic  = lex.Diagnostic
	Diagnostics = lex.Diagnostics
)

// Severities of diagnostics.
const (
	Warning = lex.Warning
	Error   = lex.Error
)

// val is one value being read: its text, position and the context used in
// messages ("Queue <normal>: PRIORITY ...").
type val struct {
	key    string // upper-cased
	orig   string // as written
	text   string
	pos    Pos
	keyPos Pos
	where  string
	d      *Diagnostics
}

func kvVal(kv lex.KeyValue, where string, d *Diagnostics) val {
	return val{key: strings.ToUpper(kv.Key), orig: kv.Key, text: kv.Value, pos: kv.ValuePos, keyPos: kv.KeyPos, where: where, d: d}
}

func tokVal(key string, t lex.Token, where string, d *Diagnostics) val {
	return val{key: key, orig: key, text: t.Text, pos: t.Pos, keyPos: t.Pos, where: where, d: d}
}

func (v val) prefix() string {
	if v.where == "" {
		return ""
	}
	return v.where + ": "
}

// warnf records a warning about the value.
func (v val) warnf(format string, args ...any) {
	v.d.Warnf(v.pos, "%s%s", v.prefix(), fmt.Sprintf(format, args...))
}

// bad records "KEY value <text> ...; ignored".
func (v val) bad(reason string) {
	v.warnf("%s value <%s> %s; ignored", v.key, v.text, reason)
}

func (v val) inner() val {
	t := lex.Token{Pos: v.pos, Text: v.text}.Inner()
	v.text, v.pos = t.Text, t.Pos
	return v
}

// words splits the value into blank-separated fields (groups kept whole).
func (v val) words() []lex.Token {
	var scratch Diagnostics
	toks := lex.Fields(v.text, func(off int) Pos { return v.pos.Add(off) }, &scratch)
	for _, x := range scratch {
		v.d.Warnf(x.Pos, "%s%s: %s", v.prefix(), v.key, x.Msg)
	}
	return toks
}

func (v val) int(min, max int) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(v.text))
	if err != nil {
		v.bad("is not an integer")
		return 0, false
	}
	if n < min || n > max {
		v.bad(rangeText(float64(min), float64(max)))
		return 0, false
	}
	return n, true
}

func (v val) float(min, max float64) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v.text), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		v.bad("is not a number")
		return 0, false
	}
	if f < min || f > max {
		v.bad(rangeText(min, max))
		return 0, false
	}
	return f, true
}

func rangeText(min, max float64) string {
	switch {
	case max >= math.MaxInt32:
		return fmt.Sprintf("must be at least %s", fmtNum(min))
	default:
		return fmt.Sprintf("is out of range %s-%s", fmtNum(min), fmtNum(max))
	}
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// seconds reads a positive number of seconds.
func (v val) seconds(min int) (time.Duration, bool) {
	n, ok := v.int(min, math.MaxInt32)
	return time.Duration(n) * time.Second, ok
}

// yesNo reads Y|N (yes, no, y, n in any case).
func (v val) yesNo() (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v.text)) {
	case "y", "yes":
		return true, true
	case "n", "no":
		return false, true
	}
	v.bad("must be Y or N")
	return false, false
}

func (v val) window() (timewin.Window, bool) {
	w, err := timewin.Parse(v.text)
	if err != nil {
		e := err.(*timewin.Error)
		v.d.Warnf(v.pos.Add(e.Offset), "%s%s: %v; ignored", v.prefix(), v.key, err)
		return timewin.Window{}, false
	}
	return w, true
}

// names reads a blank-separated list of names.
func (v val) names() []string {
	var out []string
	for _, t := range v.words() {
		out = append(out, t.Text)
	}
	return out
}

// nameOK reports whether s is a plausible LSF name: printable, without
// blanks or the characters LSF's syntax uses.
func nameOK(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c <= ' ' || c > '~' || strings.ContainsRune("()[]{}=,;\"'", c) {
			return false
		}
	}
	return true
}

// KV is a raw parameter as written, kept for showconf and for parameters
// Basalt reads but does not model.
type KV struct {
	Key   string
	Value string
	Pos   Pos
}

// LoadThreshold is a load-index threshold: loadSched (a job is dispatched
// only while the index is within it) and loadStop (a running job is
// suspended when the index goes beyond it). Which side is "beyond" comes from
// the index's direction (INCREASING).
type LoadThreshold struct {
	Index    string
	Sched    float64
	Stop     float64
	HasSched bool
	HasStop  bool
	Pos      Pos
}

func (t LoadThreshold) String() string {
	s, st := "-", "-"
	if t.HasSched {
		s = fmtNum(t.Sched)
	}
	if t.HasStop {
		st = fmtNum(t.Stop)
	}
	return t.Index + "=" + s + "/" + st
}

// builtinIndices are LIM's load indices, usable as threshold columns and
// keys.
var builtinIndices = []string{"r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem"}

// indexAliases are the alternative names of the built-in load indices.
var indexAliases = map[string]string{"cpu": "r1m", "login": "ls", "idle": "it", "swap": "swp"}

func isBuiltinIndex(name string) bool {
	for _, n := range builtinIndices {
		if n == name {
			return true
		}
	}
	return false
}

// canonicalIndex maps a (case-insensitive) built-in index name or alias to
// its canonical name.
func canonicalIndex(name string) (string, bool) {
	l := strings.ToLower(name)
	if isBuiltinIndex(l) {
		return l, true
	}
	if c, ok := indexAliases[l]; ok {
		return c, true
	}
	return "", false
}

// threshold parses loadSched[/loadStop] ("-" or "" for an absent side).
func (v val) threshold(index string) (LoadThreshold, bool) {
	t := LoadThreshold{Index: index, Pos: v.keyPos}
	sched, stop, hasSlash := strings.Cut(strings.TrimSpace(v.text), "/")
	parse := func(s string) (float64, bool, bool) {
		s = strings.TrimSpace(s)
		if s == "" || s == "-" {
			return 0, false, true
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, false, false
		}
		return f, true, true
	}
	var ok bool
	if t.Sched, t.HasSched, ok = parse(sched); !ok {
		v.bad("is not loadSched[/loadStop]")
		return t, false
	}
	if hasSlash {
		if t.Stop, t.HasStop, ok = parse(stop); !ok {
			v.bad("is not loadSched[/loadStop]")
			return t, false
		}
	}
	if !t.HasSched && !t.HasStop {
		v.bad("is not loadSched[/loadStop]")
		return t, false
	}
	return t, true
}

// ShareKind is how a share assignment applies.
type ShareKind int

const (
	// ShareUser: one user.
	ShareUser ShareKind = iota
	// ShareGroup: a user group as a whole (its members share the shares).
	ShareGroup
	// ShareEach: "group@": each member of the group (recursively) gets the
	// shares.
	ShareEach
	// ShareDefault: "default": each user without an assignment gets the
	// shares.
	ShareDefault
	// ShareOthers: "others": users without an assignment share them
	// collectively.
	ShareOthers
)

func (k ShareKind) String() string {
	return [...]string{"user", "group", "each", "default", "others"}[k]
}

// ShareAssignment is one [name, shares] pair of a USER_SHARES list.
type ShareAssignment struct {
	Name   string // as written, without a trailing '@'
	Kind   ShareKind
	Shares int
	Pos    Pos
}

// shares parses "[name, n] [name, n] ..." (the outer USER_SHARES[...] and
// parentheses already removed). isGroup tells user groups apart; it may be
// nil before groups are known (kinds are then fixed later).
func (v val) shares(isGroup func(string) bool) ([]ShareAssignment, bool) {
	var out []ShareAssignment
	seen := map[string]bool{}
	okAll := true
	for _, t := range v.words() {
		if len(t.Text) < 2 || t.Text[0] != '[' || t.Text[len(t.Text)-1] != ']' {
			v.d.Warnf(t.Pos, "%s%s: expected [name, shares], found <%s>; ignored", v.prefix(), v.key, t.Text)
			okAll = false
			continue
		}
		name, n, found := strings.Cut(t.Text[1:len(t.Text)-1], ",")
		name, n = strings.TrimSpace(name), strings.TrimSpace(n)
		shares, err := strconv.Atoi(n)
		if !found || name == "" || err != nil || shares <= 0 {
			v.d.Warnf(t.Pos, "%s%s: bad share assignment <%s> (want [name, positive integer]); ignored", v.prefix(), v.key, t.Text)
			okAll = false
			continue
		}
		a := ShareAssignment{Name: name, Shares: shares, Pos: t.Pos}
		switch {
		case name == "default":
			a.Kind = ShareDefault
		case name == "others":
			a.Kind = ShareOthers
		case strings.HasSuffix(name, "@"):
			a.Kind, a.Name = ShareEach, strings.TrimSuffix(name, "@")
		case isGroup != nil && isGroup(name):
			a.Kind = ShareGroup
		}
		key := a.Kind.String() + ":" + a.Name
		if seen[key] {
			v.d.Warnf(t.Pos, "%s%s: <%s> is given shares twice; the first assignment is used", v.prefix(), v.key, name)
			continue
		}
		seen[key] = true
		out = append(out, a)
	}
	return out, okAll
}

// bracketArg returns the text inside KEYWORD[...] when s is exactly that
// (keyword compared case-insensitively), e.g. MAX_RESERVE_TIME[5].
func bracketArg(s, keyword string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) < len(keyword)+2 || !strings.EqualFold(s[:len(keyword)], keyword) {
		return "", false
	}
	rest := strings.TrimSpace(s[len(keyword):])
	if len(rest) < 2 || rest[0] != '[' || rest[len(rest)-1] != ']' {
		return "", false
	}
	return rest[1 : len(rest)-1], true
}

// gpuReq reads GPU_REQ (lsb.queues, lsb.applications): LSF 10.1's GPU
// requirement, quotes removed; "" with a warning at the faulty option when
// it does not parse.
func (v val) gpuReq() string {
	in := v.inner()
	if in.text == "" {
		return ""
	}
	if _, err := gpureq.Parse(in.text); err != nil {
		pos := in.pos
		var e *gpureq.Error
		if errors.As(err, &e) {
			pos = in.pos.Add(e.Pos)
			err = errors.New(e.Msg)
		}
		v.d.Warnf(pos, "%sGPU_REQ <%s> is not a valid GPU requirement: %v; ignored", v.prefix(), in.text, err)
		return ""
	}
	return in.text
}
