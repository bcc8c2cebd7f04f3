package resreq

import (
	"errors"
	"fmt"
	"sort"
)

// Sentinel errors. Every *Error wraps one of them, so callers choose LSF's
// message for the whole class with errors.Is: bsub prints "Bad resource
// requirement syntax. Job not submitted." for ErrSyntax and ErrUnknownResource
// alike; lsload prints LSLIB's "Unknown resource name" for the latter.
var (
	// ErrSyntax is LSF's "Bad resource requirement syntax" (LSE_BAD_EXP,
	// LSBE_BAD_RESREQ).
	ErrSyntax = errors.New("Bad resource requirement syntax")
	// ErrUnknownResource is a name that is neither built in nor in
	// lsf.shared (LSE_UNKWN_RESNAME).
	ErrUnknownResource = errors.New("Unknown resource name")
	// ErrMerge is a job-level requirement that the queue-level one forbids
	// (rusage above the queue's value for an internal load index).
	ErrMerge = errors.New("Resource requirement conflicts with the queue's")
)

// Error is one positioned error in a resource requirement string.
type Error struct {
	// Arg is the index of the string among several (ParseMulti, CheckSelect's
	// -R options); 0 otherwise.
	Arg int
	// Pos is the byte offset of the offending token in its string.
	Pos int
	// Near is the offending token's text, for `Error near "x": msg`.
	Near string
	// Msg says what is wrong.
	Msg string
	// Err is the class of the error (ErrSyntax, ErrUnknownResource...).
	Err error
}

// Error returns LSF's check-mode form: Error near "<token>": <reason>, the
// token as written (not escaped).
func (e *Error) Error() string { return "Error near \"" + e.Near + "\": " + e.Msg }

// Unwrap returns the class of the error.
func (e *Error) Unwrap() error {
	if e.Err == nil {
		return ErrSyntax
	}
	return e.Err
}

// Column returns the 1-based column of the error in its string.
func (e *Error) Column() int { return e.Pos + 1 }

// ErrorList is a list of *Errors, sorted by position.
type ErrorList []*Error

// Add appends an error.
func (l *ErrorList) Add(arg, pos int, near, msg string, class error) {
	*l = append(*l, &Error{Arg: arg, Pos: pos, Near: near, Msg: msg, Err: class})
}

func (l ErrorList) Len() int      { return len(l) }
func (l ErrorList) Swap(i, j int) { l[i], l[j] = l[j], l[i] }
func (l ErrorList) Less(i, j int) bool {
	if l[i].Arg != l[j].Arg {
		return l[i].Arg < l[j].Arg
	}
	return l[i].Pos < l[j].Pos
}

// Sort sorts the list by argument and position, removing exact duplicates.
func (l *ErrorList) Sort() {
	sort.Stable(*l)
	out := (*l)[:0]
	for i, e := range *l {
		if i > 0 {
			p := (*l)[i-1]
			if p.Arg == e.Arg && p.Pos == e.Pos && p.Msg == e.Msg {
				continue
			}
		}
		out = append(out, e)
	}
	*l = out
}

// Error returns the first error's text, and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Err returns l as an error, or nil if it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Unwrap returns the errors, so errors.Is and errors.As see each of them.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// FirstError returns the first *Error in err (an *Error or an ErrorList).
func FirstError(err error) *Error {
	var l ErrorList
	if errors.As(err, &l) && len(l) > 0 {
		return l[0]
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
