package lsfopt

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
)

// Kind says whether an option takes a value.
type Kind int

const (
	// Flag options take no value.
	Flag Kind = iota
	// Value options take exactly one value, attached or in the next word.
	Value
	// OptionalValue options take the next word as value only when it does not
	// start with '-' (bjobs -u is not one of these; bmod's reset forms are).
	OptionalValue
)

// Option describes one accepted option, without its leading '-'.
type Option struct {
	Name string
	Kind Kind
}

// Spec is the set of options a command accepts. Its tables are built at
// its first use, not by New: every command's specs are package variables,
// and a command starts often.
type Spec struct {
	desc string
	// StopAtOperand ends option parsing at the first operand, as bsub does:
	// the rest of the line belongs to the job. Otherwise options and operands
	// may be interleaved (bjobs 12 -l).
	StopAtOperand bool

	tab atomic.Pointer[optTable]
}

// optTable is a Spec's options by name.
type optTable struct {
	byName map[string]Option
	values []string // value-taking option names, longest first
}

// Opt is one parsed option occurrence.
type Opt struct {
	Name  string
	Value string
	// HasValue distinguishes "-x ''" from a flag.
	HasValue bool
}

// Result is a parsed command line.
type Result struct {
	Opts     []Opt
	Operands []string
}

// Error is a command-line error; Option is the offending word.
type Error struct {
	Option string
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// New makes a Spec from a compact description: names separated by '|',
// a trailing ':' marks a value option and '::' an optional value, e.g.
// "a|l|w|u:|o:|noheader|json".
func New(desc string) *Spec { return &Spec{desc: desc} }

// table returns the spec's table, building it at the first call
// (concurrent first calls build equal tables; one is kept).
func (s *Spec) table() *optTable {
	if t := s.tab.Load(); t != nil {
		return t
	}
	t := &optTable{byName: map[string]Option{}}
	for _, f := range strings.Split(s.desc, "|") {
		if f == "" {
			continue
		}
		k := Flag
		switch {
		case strings.HasSuffix(f, "::"):
			k, f = OptionalValue, strings.TrimSuffix(f, "::")
		case strings.HasSuffix(f, ":"):
			k, f = Value, strings.TrimSuffix(f, ":")
		}
		t.byName[f] = Option{Name: f, Kind: k}
		if k == Value {
			t.values = append(t.values, f)
		}
	}
	sort.SliceStable(t.values, func(i, j int) bool { return len(t.values[i]) > len(t.values[j]) })
	s.tab.Store(t)
	return t
}

// Has reports whether the spec accepts option name.
func (s *Spec) Has(name string) bool {
	_, ok := s.table().byName[name]
	return ok
}

// Parse parses args (without the command name).
func (s *Spec) Parse(args []string) (*Result, error) {
	t := s.table()
	r := &Result{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			r.Operands = append(r.Operands, args[i+1:]...)
			return r, nil
		}
		if len(a) < 2 || a[0] != '-' || isNumber(a) {
			if s.StopAtOperand {
				r.Operands = append(r.Operands, args[i:]...)
				return r, nil
			}
			r.Operands = append(r.Operands, a)
			continue
		}
		name := a[1:]
		if o, ok := t.byName[name]; ok {
			switch o.Kind {
			case Flag:
				r.Opts = append(r.Opts, Opt{Name: name})
			case Value:
				if i+1 >= len(args) {
					return nil, &Error{Option: a, Msg: fmt.Sprintf("option requires an argument -- %s", name)}
				}
				i++
				r.Opts = append(r.Opts, Opt{Name: name, Value: args[i], HasValue: true})
			case OptionalValue:
				if i+1 < len(args) && (len(args[i+1]) == 0 || args[i+1][0] != '-') {
					i++
					r.Opts = append(r.Opts, Opt{Name: name, Value: args[i], HasValue: true})
				} else {
					r.Opts = append(r.Opts, Opt{Name: name})
				}
			}
			continue
		}
		// Attached value: the longest value option that prefixes the word.
		if o, ok := t.attached(name); ok {
			r.Opts = append(r.Opts, Opt{Name: o, Value: name[len(o):], HasValue: true})
			continue
		}
		// Combined single-letter flags, the last of which may take a value.
		opts, err := t.combined(name, args, &i)
		if err != nil {
			return nil, err
		}
		r.Opts = append(r.Opts, opts...)
	}
	return r, nil
}

func (t *optTable) attached(word string) (string, bool) {
	for _, v := range t.values {
		if len(word) > len(v) && strings.HasPrefix(word, v) {
			// A multi-letter flag must not be split into a value option:
			// "-noheader" is never "-n oheader" when both exist.
			return v, true
		}
	}
	return "", false
}

func (t *optTable) combined(word string, args []string, i *int) ([]Opt, error) {
	var out []Opt
	for j := 0; j < len(word); j++ {
		c := word[j : j+1]
		o, ok := t.byName[c]
		if !ok {
			return nil, &Error{Option: "-" + word, Msg: fmt.Sprintf("illegal option -- %s", word[j:])}
		}
		if o.Kind == Flag {
			out = append(out, Opt{Name: c})
			continue
		}
		rest := word[j+1:]
		if rest != "" {
			return append(out, Opt{Name: c, Value: rest, HasValue: true}), nil
		}
		if o.Kind == OptionalValue {
			if *i+1 < len(args) && (len(args[*i+1]) == 0 || args[*i+1][0] != '-') {
				*i++
				return append(out, Opt{Name: c, Value: args[*i], HasValue: true}), nil
			}
			return append(out, Opt{Name: c}), nil
		}
		if *i+1 >= len(args) {
			return nil, &Error{Option: "-" + word, Msg: fmt.Sprintf("option requires an argument -- %s", c)}
		}
		*i++
		return append(out, Opt{Name: c, Value: args[*i], HasValue: true}), nil
	}
	return out, nil
}

// isNumber reports whether a looks like a negative number ("-1"), which is an
// operand, not an option.
func isNumber(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	for _, c := range a[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Has reports whether option name was given.
func (r *Result) Has(name string) bool {
	for _, o := range r.Opts {
		if o.Name == name {
			return true
		}
	}
	return false
}

// FirstOf returns the first option of desc (New's syntax, value marks
// ignored) that was given, "" when none was: the check of a command's
// options that are parsed only to be refused by name.
func (r *Result) FirstOf(desc string) string {
	for _, f := range strings.Split(desc, "|") {
		if name := strings.TrimRight(f, ":"); name != "" && r.Has(name) {
			return name
		}
	}
	return ""
}

// Last returns the value of the last occurrence of name.
func (r *Result) Last(name string) (string, bool) {
	v, ok := "", false
	for _, o := range r.Opts {
		if o.Name == name {
			v, ok = o.Value, true
		}
	}
	return v, ok
}

// All returns the values of every occurrence of name, in order.
func (r *Result) All(name string) []string {
	var vs []string
	for _, o := range r.Opts {
		if o.Name == name {
			vs = append(vs, o.Value)
		}
	}
	return vs
}
