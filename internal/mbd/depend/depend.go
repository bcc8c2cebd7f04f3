// Package depend parses and evaluates bsub -w dependency expressions:
//
//	expr      := or
//	or        := and { "||" and }
//	and       := not { "&&" not }
//	not       := "!" not | "(" expr ")" | condition
//	condition := func "(" ref [ "," arg ] ")" | ref          (a bare ref means done(ref))
//	func      := done | ended | exit | started | post_done | post_err | external
//	           | numdone | numended | numexit | numhold | numpend | numrun | numstart
//	ref       := job_ID | job_ID "[" index "]" | name | "quoted name"   (name may end in *)
//	exit arg  := [op] exit_code          op: == != > >= < <=   (default ==)
//	num arg   := op number | "*"
//
// Job names refer to the submitting user's jobs only; when several jobs have
// the name, all must satisfy the condition (LSF's default, JOB_DEP_LAST_SUB
// unset). A job ID without an index refers to every element of an array.
package depend

import (
	"fmt"
	"strconv"
	"strings"
)

// Func is a dependency condition.
type Func int

// Conditions.
const (
	Done Func = iota + 1
	Ended
	ExitF
	Started
	PostDone
	PostErr
	External
	NumDone
	NumEnded
	NumExit
	NumHold
	NumPend
	NumRun
	NumStart
)

var funcNames = map[string]Func{
	"done": Done, "ended": Ended, "exit": ExitF, "started": Started, "post_done": PostDone, "post_err": PostErr,
	"external": External, "numdone": NumDone, "numended": NumEnded, "numexit": NumExit, "numhold": NumHold,
	"numpend": NumPend, "numrun": NumRun, "numstart": NumStart,
}

func (f Func) String() string {
	for n, v := range funcNames {
		if v == f {
			return n
		}
	}
	return "?"
}

// Ref names the jobs a condition is about.
type Ref struct {
	JobID int64
	Index int32  // array element, 0 = the whole job
	Name  string // job name (may end in *) when JobID is 0
	// Each is [*]: for each element of the dependent array, the element
	// with the same index (LSF's one-to-one array dependency).
	Each bool
}

func (r Ref) String() string {
	elem := ""
	switch {
	case r.Index != 0:
		elem = fmt.Sprintf("[%d]", r.Index)
	case r.Each:
		elem = "[*]"
	}
	if r.JobID != 0 {
		return strconv.FormatInt(r.JobID, 10) + elem
	}
	return `"` + r.Name + elem + `"` // names cannot contain quotes: no escaping
}

// Expr is a parsed dependency expression.
type Expr struct {
	Op    string // "&&", "||", "!", or "" for a condition
	X, Y  *Expr
	Func  Func
	Ref   Ref
	CmpOp string // exit/num* comparison operator
	Value int64  // exit code or count
	All   bool   // num*(id, *)
	Text  string // external status text
}

// Error is a syntax error at byte offset Pos.
type Error struct {
	Pos int
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("column %d: %s", e.Pos+1, e.Msg) }

// Parse parses a dependency expression.
func Parse(s string) (*Expr, error) {
	p := &parser{s: s}
	p.next()
	if p.tok == tEOF {
		return nil, &Error{0, "empty dependency expression"}
	}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok != tEOF {
		return nil, &Error{p.pos, fmt.Sprintf("unexpected %q", p.lit)}
	}
	return e, nil
}

type token int

const (
	tEOF token = iota
	tAnd
	tOr
	tNot
	tLParen
	tRParen
	tComma
	tWord   // identifiers, numbers, names, ids with [index]
	tString // "quoted"
	tCmp    // == != > >= < <=
	tStar
	tBad
)

type parser struct {
	s     string
	off   int
	tok   token
	lit   string
	pos   int
	depth int
}

func isWordChar(c byte) bool {
	return c != ' ' && c != '\t' && c != '\n' && !strings.ContainsRune("()&|!,\"<>=", rune(c))
}

func (p *parser) next() {
	for p.off < len(p.s) && (p.s[p.off] == ' ' || p.s[p.off] == '\t' || p.s[p.off] == '\n') {
		p.off++
	}
	p.pos = p.off
	if p.off >= len(p.s) {
		p.tok, p.lit = tEOF, ""
		return
	}
	c := p.s[p.off]
	two := ""
	if p.off+1 < len(p.s) {
		two = p.s[p.off : p.off+2]
	}
	switch {
	case two == "&&":
		p.tok, p.lit, p.off = tAnd, two, p.off+2
	case two == "||":
		p.tok, p.lit, p.off = tOr, two, p.off+2
	case two == "==" || two == "!=" || two == ">=" || two == "<=":
		p.tok, p.lit, p.off = tCmp, two, p.off+2
	case c == '>' || c == '<':
		p.tok, p.lit, p.off = tCmp, string(c), p.off+1
	case c == '!':
		p.tok, p.lit, p.off = tNot, "!", p.off+1
	case c == '(':
		p.tok, p.lit, p.off = tLParen, "(", p.off+1
	case c == ')':
		p.tok, p.lit, p.off = tRParen, ")", p.off+1
	case c == ',':
		p.tok, p.lit, p.off = tComma, ",", p.off+1
	case c == '"':
		end := strings.IndexByte(p.s[p.off+1:], '"')
		if end < 0 {
			p.tok, p.lit, p.off = tBad, p.s[p.off:], len(p.s)
			return
		}
		p.tok, p.lit = tString, p.s[p.off+1:p.off+1+end]
		p.off += end + 2
	case c == '*' && (p.off+1 >= len(p.s) || !isWordChar(p.s[p.off+1])):
		p.tok, p.lit, p.off = tStar, "*", p.off+1
	case isWordChar(c):
		start := p.off
		for p.off < len(p.s) && isWordChar(p.s[p.off]) {
			p.off++
		}
		p.tok, p.lit = tWord, p.s[start:p.off]
	default:
		p.tok, p.lit, p.off = tBad, string(c), p.off+1
	}
}

const maxDepth = 100

func (p *parser) or() (*Expr, error) {
	x, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.tok == tOr {
		p.next()
		y, err := p.and()
		if err != nil {
			return nil, err
		}
		x = &Expr{Op: "||", X: x, Y: y}
	}
	return x, nil
}

func (p *parser) and() (*Expr, error) {
	x, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.tok == tAnd {
		p.next()
		y, err := p.not()
		if err != nil {
			return nil, err
		}
		x = &Expr{Op: "&&", X: x, Y: y}
	}
	return x, nil
}

func (p *parser) not() (*Expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, &Error{p.pos, "expression nested too deeply"}
	}
	switch p.tok {
	case tNot:
		p.next()
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return &Expr{Op: "!", X: x}, nil
	case tLParen:
		p.next()
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.tok != tRParen {
			return nil, &Error{p.pos, "missing )"}
		}
		p.next()
		return x, nil
	case tWord:
		word, pos := p.lit, p.pos
		p.next()
		if f, ok := funcNames[strings.ToLower(word)]; ok && p.tok == tLParen {
			p.next()
			return p.call(f, pos)
		}
		ref, err := parseRef(word, pos, false)
		if err != nil {
			return nil, err
		}
		return &Expr{Func: Done, Ref: ref}, nil
	case tString:
		ref, err := parseRef(p.lit, p.pos, true)
		if err != nil {
			return nil, err
		}
		p.next()
		return &Expr{Func: Done, Ref: ref}, nil
	case tEOF:
		return nil, &Error{p.pos, "unexpected end of expression"}
	}
	return nil, &Error{p.pos, fmt.Sprintf("unexpected %q", p.lit)}
}

func (p *parser) call(f Func, fpos int) (*Expr, error) {
	var ref Ref
	var err error
	switch p.tok {
	case tWord:
		ref, err = parseRef(p.lit, p.pos, false)
	case tString:
		ref, err = parseRef(p.lit, p.pos, true)
	default:
		return nil, &Error{p.pos, fmt.Sprintf("%s: missing job ID or name", f)}
	}
	if err != nil {
		return nil, err
	}
	p.next()
	e := &Expr{Func: f, Ref: ref}
	isNum := f >= NumDone
	if isNum && ref.JobID == 0 {
		return nil, &Error{fpos, fmt.Sprintf("%s needs a job array ID", f)}
	}
	if p.tok == tComma {
		p.next()
		switch {
		case f == ExitF:
			e.CmpOp = "=="
			if p.tok == tCmp {
				e.CmpOp = p.lit
				p.next()
			}
			if e.Value, err = p.number(); err != nil {
				return nil, err
			}
		case f == External:
			if p.tok != tString && p.tok != tWord {
				return nil, &Error{p.pos, "external: missing status text"}
			}
			e.Text = p.lit
			p.next()
		case isNum:
			if p.tok == tStar {
				e.All = true
				p.next()
				break
			}
			if p.tok != tCmp {
				return nil, &Error{p.pos, fmt.Sprintf("%s: expected an operator or *", f)}
			}
			e.CmpOp = p.lit
			p.next()
			if e.Value, err = p.number(); err != nil {
				return nil, err
			}
		default:
			return nil, &Error{p.pos, fmt.Sprintf("%s takes one argument", f)}
		}
	} else if isNum {
		return nil, &Error{p.pos, fmt.Sprintf("%s: expected , and a count", f)}
	}
	if p.tok != tRParen {
		return nil, &Error{p.pos, "missing )"}
	}
	p.next()
	return e, nil
}

func (p *parser) number() (int64, error) {
	if p.tok != tWord {
		return 0, &Error{p.pos, "expected a number"}
	}
	n, err := strconv.ParseInt(p.lit, 10, 64)
	if err != nil || n < 0 {
		return 0, &Error{p.pos, fmt.Sprintf("bad number %q", p.lit)}
	}
	p.next()
	return n, nil
}

// parseRef parses a job ID or job name, either followed by [index] (one
// element) or [*] (Ref.Each). quoted names are always names (LSF: quote
// names that begin with a digit).
func parseRef(s string, pos int, quoted bool) (Ref, error) {
	if s == "" {
		return Ref{}, &Error{pos, "empty job name"}
	}
	var r Ref
	base := s
	if i := strings.IndexByte(s, '['); i >= 0 && strings.HasSuffix(s, "]") {
		base = s[:i]
		switch idx := s[i+1 : len(s)-1]; idx {
		case "*":
			r.Each = true
		default:
			n, err := strconv.ParseInt(idx, 10, 32)
			if err != nil || n <= 0 {
				return Ref{}, &Error{pos, fmt.Sprintf("bad array index in %q", s)}
			}
			r.Index = int32(n)
		}
		if base == "" {
			return Ref{}, &Error{pos, "empty job name"}
		}
	}
	if !quoted && base[0] >= '0' && base[0] <= '9' {
		id, err := strconv.ParseInt(base, 10, 64)
		if err != nil || id <= 0 {
			return Ref{}, &Error{pos, fmt.Sprintf("bad job ID %q", s)}
		}
		r.JobID = id
		return r, nil
	}
	if i := strings.IndexByte(base, '*'); i >= 0 && i != len(base)-1 {
		return Ref{}, &Error{pos + i, "a wildcard * may only end a job name"}
	}
	r.Name = base
	return r, nil
}

// Refs returns every job reference in the expression, in order.
func (e *Expr) Refs() []Ref {
	var out []Ref
	var walk func(*Expr)
	walk = func(x *Expr) {
		if x == nil {
			return
		}
		if x.Op == "" {
			out = append(out, x.Ref)
			return
		}
		walk(x.X)
		walk(x.Y)
	}
	walk(e)
	return out
}

// String prints the expression canonically.
func (e *Expr) String() string {
	switch e.Op {
	case "&&", "||":
		return "(" + e.X.String() + " " + e.Op + " " + e.Y.String() + ")"
	case "!":
		return "!" + e.X.String()
	}
	arg := ""
	switch {
	case e.Func == ExitF && e.CmpOp != "":
		arg = fmt.Sprintf(", %s %d", e.CmpOp, e.Value)
	case e.Func == External:
		arg = `, "` + e.Text + `"`
	case e.Func >= NumDone && e.All:
		arg = ", *"
	case e.Func >= NumDone:
		arg = fmt.Sprintf(", %s %d", e.CmpOp, e.Value)
	}
	return fmt.Sprintf("%s(%s%s)", e.Func, e.Ref, arg)
}
