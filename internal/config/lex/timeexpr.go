package lex

import (
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/config/timewin"
)

// timeExpr is the expression of an #if or #elif directive:
//
//	expr  := and { "||" and }
//	and   := unary { "&&" unary }
//	unary := "!" unary | "(" expr ")" | "time" "(" window_spec ")"
type timeExpr struct {
	op   byte // 't' time(), '!' not, '&' and, '|' or
	win  timewin.Window
	x, y *timeExpr
}

func (e *timeExpr) eval(t time.Time) bool {
	switch e.op {
	case 't':
		return e.win.Open(t)
	case '!':
		return !e.x.eval(t)
	case '&':
		return e.x.eval(t) && e.y.eval(t)
	default:
		return e.x.eval(t) || e.y.eval(t)
	}
}

func (e *timeExpr) windows() []timewin.Window {
	if e == nil {
		return nil
	}
	if e.op == 't' {
		return []timewin.Window{e.win}
	}
	return append(e.x.windows(), e.y.windows()...)
}

type exprError struct {
	off int
	msg string
}

// maxExprDepth bounds the nesting of parentheses and '!' in expressions.
const maxExprDepth = 64

type exprParser struct {
	s     string
	i     int
	depth int
	err   *exprError
}

func parseTimeExpr(s string) (*timeExpr, *exprError) {
	p := &exprParser{s: s}
	e := p.or()
	p.blank()
	if p.err == nil && p.i < len(p.s) {
		p.fail("unexpected \"" + p.s[p.i:] + "\"")
	}
	if p.err != nil {
		return nil, p.err
	}
	return e, nil
}

func (p *exprParser) fail(msg string) {
	if p.err == nil {
		p.err = &exprError{off: p.i, msg: msg}
	}
}

func (p *exprParser) blank() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *exprParser) eat(tok string) bool {
	p.blank()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

func (p *exprParser) or() *timeExpr {
	x := p.and()
	for p.err == nil && p.eat("||") {
		x = &timeExpr{op: '|', x: x, y: p.and()}
	}
	return x
}

func (p *exprParser) and() *timeExpr {
	x := p.unary()
	for p.err == nil && p.eat("&&") {
		x = &timeExpr{op: '&', x: x, y: p.unary()}
	}
	return x
}

func (p *exprParser) unary() *timeExpr {
	if p.err != nil {
		return &timeExpr{op: 't'}
	}
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxExprDepth {
		p.fail("expression nested too deeply")
		return &timeExpr{op: 't'}
	}
	p.blank()
	switch {
	case p.eat("!"):
		return &timeExpr{op: '!', x: p.unary()}
	case p.eat("("):
		e := p.or()
		if !p.eat(")") {
			p.fail("missing ')'")
		}
		return e
	case len(p.s)-p.i >= 4 && strings.EqualFold(p.s[p.i:p.i+4], "time"):
		p.i += 4
		if !p.eat("(") {
			p.fail("expected '(' after time")
			return &timeExpr{op: 't'}
		}
		start := p.i
		end := strings.IndexByte(p.s[start:], ')')
		if end < 0 {
			p.fail("missing ')' after time(")
			return &timeExpr{op: 't'}
		}
		spec := p.s[start : start+end]
		w, err := timewin.Parse(spec)
		if err != nil {
			p.i = start + err.(*timewin.Error).Offset
			p.fail(err.Error())
			return &timeExpr{op: 't'}
		}
		if w.String() == "" {
			p.fail("empty time()")
		}
		p.i = start + end + 1
		return &timeExpr{op: 't', win: w}
	case p.i >= len(p.s):
		p.fail("missing expression")
	default:
		p.fail("unexpected \"" + p.s[p.i:] + "\"")
	}
	return &timeExpr{op: 't'}
}
