package lex

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a position in a configuration file. Line and Col are 1-based; Col
// counts bytes. A Pos with Line 0 refers to the whole file.
type Pos struct {
	File string
	Line int
	Col  int
}

// String renders file:line:col, file:line or file.
func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	default:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
}

// Add returns the position n bytes to the right on the same line.
func (p Pos) Add(n int) Pos {
	if p.Line > 0 && p.Col > 0 {
		p.Col += n
	}
	return p
}

// Severity says what a problem costs.
type Severity int

const (
	// Warning: the line, value or section is ignored (or replaced by its
	// default) and the rest of the configuration is used.
	Warning Severity = iota
	// Error: the configuration cannot be used; a daemon refuses it.
	Error
)

func (s Severity) String() string {
	if s == Error {
		return "error"
	}
	return "warning"
}

// Diagnostic is one problem found in a configuration.
type Diagnostic struct {
	Pos      Pos
	Severity Severity
	Msg      string
}

// String renders "file:line:col: severity: message".
func (d Diagnostic) String() string {
	if d.Pos.File == "" {
		return fmt.Sprintf("%s: %s", d.Severity, d.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", d.Pos, d.Severity, d.Msg)
}

// Diagnostics is a list of problems, in the order they were found.
type Diagnostics []Diagnostic

// Warnf records a warning.
func (ds *Diagnostics) Warnf(pos Pos, format string, args ...any) {
	*ds = append(*ds, Diagnostic{Pos: pos, Severity: Warning, Msg: fmt.Sprintf(format, args...)})
}

// Errorf records an error.
func (ds *Diagnostics) Errorf(pos Pos, format string, args ...any) {
	*ds = append(*ds, Diagnostic{Pos: pos, Severity: Error, Msg: fmt.Sprintf(format, args...)})
}

// HasErrors reports whether any diagnostic is an Error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Count returns the number of diagnostics of severity s.
func (ds Diagnostics) Count(s Severity) int {
	n := 0
	for _, d := range ds {
		if d.Severity == s {
			n++
		}
	}
	return n
}

// Sort orders the diagnostics by file, line and column, keeping the order in
// which they were found for equal positions.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Pos, ds[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// String renders one diagnostic per line.
func (ds Diagnostics) String() string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Err returns nil when there are no errors, else an *ErrorList holding
// every diagnostic (warnings included, for context).
func (ds Diagnostics) Err() error {
	if !ds.HasErrors() {
		return nil
	}
	return &ErrorList{Diags: ds}
}

// ErrorList is the error returned for a configuration with errors.
type ErrorList struct {
	Diags Diagnostics
}

// Error renders the first error and how many more problems there are.
func (e *ErrorList) Error() string {
	var first *Diagnostic
	for i := range e.Diags {
		if e.Diags[i].Severity == Error {
			first = &e.Diags[i]
			break
		}
	}
	if first == nil {
		return "no errors"
	}
	n := e.Diags.Count(Error) - 1
	switch n {
	case 0:
		return first.String()
	case 1:
		return first.String() + " (and 1 more error)"
	default:
		return fmt.Sprintf("%s (and %d more errors)", first, n)
	}
}
