package resreq

import (
	"fmt"
	"strings"
)

// exprParser parses one select string by precedence climbing.
type exprParser struct {
	p    *parser
	ts   []token
	i    int
	end  int // position reported for the end of the string
	nest int
}

func (e *exprParser) tok() token {
	if e.i < len(e.ts) {
		return e.ts[e.i]
	}
	near := ""
	if len(e.ts) > 0 {
		near = e.ts[len(e.ts)-1].lit
	}
	return token{pos: e.end, tok: EOF, lit: near}
}

// parseSelectExpr parses and checks a select string.
func (p *parser) parseSelectExpr(ts []token, end int) Expr {
	if len(ts) == 0 {
		return nil
	}
	e := &exprParser{p: p, ts: ts, end: end}
	x, _ := e.parseBinary(ColonPrec)
	if e.i < len(ts) {
		t := ts[e.i]
		switch t.tok {
		case RPAREN:
			p.failTok(t, "unbalanced parentheses")
		case STRING, DSTRING:
			p.failTok(t, MsgQuotes)
		}
		p.failTok(t, "syntax error")
	}
	c := checker{p: p}
	x, k := c.expr(x)
	c.condition(x, k)
	return x
}

// enter guards the parser's recursion (parentheses, unary operators and
// precedence levels).
func (e *exprParser) enter(t token) {
	e.nest++
	if e.nest > maxNest {
		e.p.failTok(t, MsgNestedTooDeep)
	}
}

// node checks the depth of a new expression node. Bounding the tree's depth
// (not the input's parentheses) keeps the canonical form, which
// parenthesises every nested operation, within the limits too.
func (e *exprParser) node(t token, d int) int {
	if d > maxDepth {
		e.p.failTok(t, MsgNestedTooDeep)
	}
	return d
}

// parseBinary parses operators of precedence prec1 and above, returning the
// expression and its depth.
func (e *exprParser) parseBinary(prec1 int) (Expr, int) {
	e.enter(e.tok())
	defer func() { e.nest-- }()
	x, dx := e.parseUnary()
	for {
		t := e.tok()
		prec := t.tok.Precedence()
		if t.tok == COLON && e.p.strict {
			e.p.failTok(t, MsgColon)
		}
		if prec == LowestPrec || prec < prec1 {
			return x, dx
		}
		e.i++
		y, dy := e.parseBinary(prec + 1)
		op := t.tok
		switch op {
		case ASSIGN:
			op = EQL
		case COLON:
			op = LAND
		}
		x = &BinaryExpr{X: x, OpPos: t.pos, Op: op, Y: y}
		dx = e.node(t, 1+max(dx, dy))
	}
}

func (e *exprParser) parseUnary() (Expr, int) {
	t := e.tok()
	if t.tok != SUB && t.tok != NOT {
		return e.parseOperand()
	}
	e.i++
	if t.tok == NOT && e.p.strict && e.tok().tok == NOT {
		e.p.fail(t.pos, "!!", MsgDoubleNot)
	}
	e.enter(t)
	x, d := e.parseUnary()
	e.nest--
	return &UnaryExpr{OpPos: t.pos, Op: t.tok, X: x}, e.node(t, d+1)
}

// parseOperand returns an operand and its depth (that of a parenthesised
// expression).
func (e *exprParser) parseOperand() (Expr, int) {
	t := e.tok()
	p := e.p
	switch t.tok {
	case IDENT:
		e.i++
		if e.tok().tok != LPAREN {
			return &Ident{NamePos: t.pos, Name: t.lit, Index: -1}, 0
		}
		if !p.isWord(t.lit, "defined") {
			p.failTok(t, "unknown function "+t.lit)
		}
		lp := e.tok()
		e.i++
		arg := e.tok()
		if arg.tok != IDENT {
			p.failTok(arg, "defined() takes a resource name")
		}
		e.i++
		rp := e.tok()
		if rp.tok != RPAREN {
			p.failTok(rp, "missing ) after defined(")
		}
		e.i++
		if p.strict && (arg.pos != lp.pos+1 || rp.pos != arg.pos+len(arg.lit)) {
			p.fail(t.pos, t.lit, MsgDefinedBlanks)
		}
		return &CallExpr{NamePos: t.pos, Fun: "defined", Arg: &Ident{NamePos: arg.pos, Name: arg.lit, Index: -1}}, 0
	case NUMBER:
		e.i++
		return p.numberLit(t), 0
	case STRING:
		e.i++
		if p.strict && strings.ContainsRune(t.lit, '\\') {
			p.failTok(t, MsgEscape)
		}
		return &StringLit{ValuePos: t.pos, Value: t.lit, Quoted: true}, 0
	case DSTRING:
		p.failTok(t, MsgQuotes)
	case LPAREN:
		e.i++
		x, d := e.parseBinary(ColonPrec)
		if e.tok().tok != RPAREN {
			if e.tok().tok == EOF {
				p.failTok(t, "missing )")
			}
			p.failTok(e.tok(), "syntax error")
		}
		e.i++
		return x, d
	case EOF:
		p.fail(t.pos, t.lit, "incomplete expression")
	}
	p.failTok(t, "syntax error")
	return nil, 0
}

// vkind is the kind of a select expression's value.
type vkind int

const (
	vNum    vkind = iota // a number (numeric resource, literal, arithmetic)
	vLogic               // 0 or 1 from a comparison or logical operator
	vBool                // a Boolean resource
	vStr                 // a string resource (needs a comparison)
	vStrLit              // a string value (needs a string resource)
)

// checker resolves names and checks operand kinds.
type checker struct{ p *parser }

// operand checks that x (of kind k) may be an operand of op.
func (c checker) operand(x Expr, k vkind, op Token) {
	p := c.p
	if n, ok := x.(*NumberLit); ok && n.Unit != "" && !op.IsComparison() {
		p.fail(n.ValuePos, n.Text+n.Unit, fmt.Sprintf("unit %s not allowed here", n.Unit))
	}
	switch k {
	case vStr:
		p.fail(x.Pos(), exprNear(x), MsgStringOp)
	case vStrLit:
		p.fail(x.Pos(), exprNear(x), MsgQuotes)
	case vBool:
		if p.strict && op != LAND && op != LOR && op != NOT {
			p.fail(x.Pos(), exprNear(x), MsgBooleanOp)
		}
	}
}

// condition checks the kind of a whole select string.
func (c checker) condition(x Expr, k vkind) { c.operand(x, k, LAND) }

func exprNear(x Expr) string {
	switch x := x.(type) {
	case *Ident:
		return x.Name
	case *NumberLit:
		return x.Text + x.Unit
	case *StringLit:
		if x.Quoted {
			return "'" + x.Value + "'"
		}
		return x.Value
	case *UnaryExpr:
		return x.Op.String()
	case *BinaryExpr:
		return exprNear(x.X)
	case *CallExpr:
		return x.Fun
	}
	return ""
}

func (c checker) expr(x Expr) (Expr, vkind) {
	p := c.p
	switch x := x.(type) {
	case *Ident:
		i, d := p.resolve(x.NamePos, x.Name, p.strict)
		x.Index, x.Name = i, p.t.Name(i)
		switch d.Type {
		case Boolean:
			return x, vBool
		case String:
			return x, vStr
		}
		return x, vNum
	case *NumberLit:
		return x, vNum
	case *StringLit:
		return x, vStrLit
	case *CallExpr:
		i, d := p.resolve(x.Arg.NamePos, x.Arg.Name, p.strict)
		if d.Builtin || d.Dynamic() {
			p.fail(x.Arg.NamePos, x.Arg.Name, MsgDefinedArg)
		}
		x.Arg.Index, x.Arg.Name = i, d.Name
		return x, vLogic
	case *UnaryExpr:
		y, k := c.expr(x.X)
		x.X = y
		c.operand(y, k, x.Op)
		if x.Op == NOT {
			return x, vLogic
		}
		return x, vNum
	case *BinaryExpr:
		if x.Op.IsComparison() {
			if r := c.stringComparison(x); r != nil {
				return r, vLogic
			}
		}
		l, kl := c.expr(x.X)
		r, kr := c.expr(x.Y)
		x.X, x.Y = l, r
		c.operand(l, kl, x.Op)
		c.operand(r, kr, x.Op)
		if x.Op.IsComparison() {
			c.numericLiteral(x.X, x.Y)
			c.numericLiteral(x.Y, x.X)
			return x, vLogic
		}
		if x.Op.IsArithmetic() {
			return x, vNum
		}
		return x, vLogic
	}
	panic(fmt.Sprintf("resreq: unexpected expression %T", x))
}

// stringComparison handles a comparison with a string resource on either
// side: the other side is a value (a bare word or a quoted string). It
// returns nil when neither side names a string resource.
func (c checker) stringComparison(x *BinaryExpr) Expr {
	p := c.p
	strRes := func(e Expr) *Ident {
		id, ok := e.(*Ident)
		if !ok {
			return nil
		}
		i, ok := p.lookup(id.Name, p.strict)
		if !ok || p.t.Def(i).Type != String {
			return nil
		}
		id.Index, id.Name = i, p.t.Name(i)
		return id
	}
	value := func(e Expr, res *Ident) Expr {
		switch v := e.(type) {
		case *Ident:
			if p.strict && p.t.Def(res.Index).Shared {
				p.fail(v.NamePos, v.Name, MsgSharedQuotes)
			}
			s := &StringLit{ValuePos: v.NamePos, Value: v.Name}
			if (res.Index == IdxType || res.Index == IdxModel) && !p.strict {
				for _, w := range []string{"any", "local"} {
					if strings.EqualFold(s.Value, w) {
						s.Value = w
					}
				}
			}
			return s
		case *StringLit:
			return v
		}
		p.fail(e.Pos(), exprNear(e), MsgStringValue)
		return nil
	}
	if res := strRes(x.X); res != nil {
		x.Y = value(x.Y, res)
		return x
	}
	if res := strRes(x.Y); res != nil {
		x.X = value(x.X, res)
		return x
	}
	return nil
}

// numericLiteral applies units (mem, swp, tmp) and the ut range rule to a
// literal compared directly with a resource.
func (c checker) numericLiteral(lit, other Expr) {
	n, ok := lit.(*NumberLit)
	if !ok {
		return
	}
	id, ok := other.(*Ident)
	if !ok {
		if n.Unit != "" {
			c.p.fail(n.ValuePos, n.Text+n.Unit, fmt.Sprintf("unit %s not allowed here", n.Unit))
		}
		return
	}
	c.p.memValue(n, id.Index)
	if id.Index == IdxUt && n.Value > 1 {
		if c.p.strict {
			c.p.fail(n.ValuePos, n.Text, MsgUtRange)
		}
		n.Scale = 0.01 // LSF 6's percentage form
	}
}
