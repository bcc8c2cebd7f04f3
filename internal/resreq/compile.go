package resreq

import (
	"fmt"
	"math"
	"time"
)

// Local describes the submission host, for type==local and model==local.
type Local struct{ Type, Model string }

// Host is the value vector of one host, indexed by Table index.
type Host struct {
	// Num holds numeric values (Boolean: 1 or 0); NaN = not defined on this
	// host. Memory values (mem, swp, tmp, max*) are in MB, ut is a fraction
	// (0.0-1.0), r15s/r1m/r15m are the normalized run queue lengths.
	Num []float64
	// Str holds string values ("" = not defined).
	Str []string
	// Exclusive lists the table indices of the host's exclusive resources
	// (!bigmem in lsf.cluster): the host is selected only by requirements
	// that name each of them.
	Exclusive []int
}

// OrderKey is one key of a compiled order section.
type OrderKey struct {
	Index int
	Name  string
	// Reverse is the leading '-'.
	Reverse bool
	// Ascending is the effective direction: smaller values first. It is the
	// index's INCREASING property (more load is worse), flipped by Reverse.
	Ascending bool
}

// DefaultOrder is the order used when a requirement has no order section.
const DefaultOrder = "r15s:pg"

// Usage is one resource reservation of a compiled rusage alternative.
type Usage struct {
	Index int
	Name  string
	// Value is in the internal unit (MB for mem, swp and tmp).
	Value float64
	// Duration is 0 for the whole life of the job.
	Duration time.Duration
	// Decay: the reservation decreases linearly to 0 over Duration.
	Decay bool
	// Group is the index of the usage string (comma-separated) within the
	// alternative; usages of one group share duration and decay.
	Group int
}

// Span is a compiled span section.
type Span struct {
	Hosts    int // 1: all slots on one host; -1: no span limit (cancels the queue's)
	Ptile    int // slots per host; 0 when not given
	PtileMax bool
	// PtileByName are per host type or model slot counts (with same[type] or
	// same[model]); the scheduler matches Name against both.
	PtileByName []PtileEntry
	Block       int
}

// Cu is a compiled cu section (the same fields as the section).
type Cu = CuSection

// CompiledTerm is one term of a compound requirement.
type CompiledTerm struct {
	Slots int // 0: the slots the other terms leave
	Req   *Compiled
}

// Compiled is a requirement resolved against a Table and a submission host:
// Select and Less evaluate with no allocation and no name lookups.
type Compiled struct {
	Kind Kind

	nodes     []node
	root      int32 // -1: no select expression
	typeLocal bool
	localType string
	named     []uint64 // bitset of table indices the select section names

	// Order are the order keys (the default r15s:pg when none was given).
	Order []OrderKey
	// OrderResort is order[!...].
	OrderResort bool
	// Rusage are the alternatives of the rusage section (|| separated), each
	// flattened to its usages; nil when there is no rusage section.
	Rusage [][]Usage
	// Span is nil when there is no span section.
	Span *Span
	// Same are the table indices of same[...].
	Same []int
	// Cu is nil when there is no cu section.
	Cu *Cu
	// TypeRule is the default type rule that applies.
	TypeRule TypeRule

	// Terms of a compound requirement; Alternatives of an alternative one.
	// For these kinds Select reports whether any term or alternative selects
	// the host and Less uses the first one's order.
	Terms        []CompiledTerm
	Alternatives []*Compiled
}

type opcode uint8

const (
	opConst opcode = iota
	opNum
	opBool
	opNeg
	opNot
	opMul
	opDiv
	opAdd
	opSub
	opGT
	opLT
	opGE
	opLE
	opEQ
	opNE
	opAnd
	opOr
	opStrCmp
	opDefined
	// Fused forms for the common shapes, saving a node visit each:
	opNumCmpK // Num[idx] cmp val      (mem > 4000)
	opCmpK    // eval(a) cmp val       ((...) / 6 < 1.0)
	opArithK  // eval(a) cmp val, cmp one of * / + -   (r15s * 2)
	opKArith  // val cmp eval(a)                       (2 * r15s)
	opArithKNum
	opKArithNum
)

type node struct {
	op   opcode
	idx  int32 // resource index
	a, b int32 // operands
	cmp  Token // the comparison or arithmetic operator of fused and string nodes
	val  float64
	str  string
}

// Compile resolves r against table t and the submission host. Names are
// looked up again in t, so a requirement parsed with one table compiles
// against another that defines the same names.
func (r *ResReq) Compile(t *Table, local Local) (*Compiled, error) {
	if t == nil {
		t = BuiltinTable()
	}
	c := &compiler{t: t, local: local}
	return c.req(r)
}

type compiler struct {
	t     *Table
	local Local
}

func (c *compiler) req(r *ResReq) (*Compiled, error) {
	switch r.Kind {
	case KindCompound:
		out := &Compiled{Kind: KindCompound, root: -1}
		for _, term := range r.Terms {
			sc, err := c.simple(term.Req)
			if err != nil {
				return nil, err
			}
			out.Terms = append(out.Terms, CompiledTerm{Slots: term.Slots, Req: sc})
		}
		return out, nil
	case KindAlternative:
		out := &Compiled{Kind: KindAlternative, root: -1}
		for _, a := range r.Alts {
			ac, err := c.req(a)
			if err != nil {
				return nil, err
			}
			out.Alternatives = append(out.Alternatives, ac)
		}
		return out, nil
	}
	return c.simple(r.Simple)
}

func (c *compiler) index(name string) (int, error) {
	i, ok := c.t.Index(name)
	if !ok {
		return 0, fmt.Errorf("compiling resource requirement: %w: %s", ErrUnknownResource, name)
	}
	return i, nil
}

func (c *compiler) simple(s *Simple) (*Compiled, error) {
	out := &Compiled{Kind: KindSimple, root: -1, named: make([]uint64, (c.t.Len()+63)/64), nodes: make([]node, 0, 8)}
	if s == nil {
		s = &Simple{TypeRule: TypeLocal}
	}
	out.TypeRule = s.TypeRule
	if s.TypeRule == TypeLocal {
		out.typeLocal, out.localType = true, c.local.Type
	}
	if s.Select != nil && s.Select.X != nil {
		root, err := c.expr(out, s.Select.X)
		if err != nil {
			return nil, err
		}
		out.root = root
	}
	if s.Order != nil {
		out.OrderResort = s.Order.Resort
		for _, k := range s.Order.Keys {
			i, err := c.index(k.Name)
			if err != nil {
				return nil, err
			}
			out.Order = append(out.Order, OrderKey{Index: i, Name: k.Name, Reverse: k.Reverse,
				Ascending: c.t.Def(i).Increasing != k.Reverse})
		}
	} else {
		out.Order = []OrderKey{
			{Index: IdxR15s, Name: "r15s", Ascending: true},
			{Index: IdxPg, Name: "pg", Ascending: true},
		}
	}
	if s.Rusage != nil {
		for _, a := range s.Rusage.Alts {
			var us []Usage
			for gi, g := range a.Groups {
				d := time.Duration(DurationSeconds(g.Duration)) * time.Second
				for _, it := range g.Items {
					i, err := c.index(it.Name)
					if err != nil {
						return nil, err
					}
					us = append(us, Usage{Index: i, Name: it.Name, Value: it.Value.Scaled(),
						Duration: d, Decay: g.Decay == 1 && d > 0, Group: gi})
				}
			}
			out.Rusage = append(out.Rusage, us)
		}
	}
	if s.Span != nil {
		sp := &Span{Hosts: s.Span.Hosts, Block: s.Span.Block}
		if pt := s.Span.Ptile; pt != nil {
			sp.Ptile, sp.PtileMax = pt.N, pt.Max
			sp.PtileByName = append([]PtileEntry(nil), pt.ByName...)
		}
		out.Span = sp
	}
	if s.Same != nil {
		for _, n := range s.Same.Names {
			i, err := c.index(n)
			if err != nil {
				return nil, err
			}
			out.Same = append(out.Same, i)
		}
	}
	if s.Cu != nil {
		cu := *s.Cu
		out.Cu = &cu
	}
	return out, nil
}

func (c *compiler) add(out *Compiled, n node) int32 {
	out.nodes = append(out.nodes, n)
	return int32(len(out.nodes) - 1)
}

// binOp returns the opcode of a binary operator.
func binOp(t Token) (opcode, bool) {
	switch t {
	case MUL:
		return opMul, true
	case QUO:
		return opDiv, true
	case ADD:
		return opAdd, true
	case SUB:
		return opSub, true
	case GTR:
		return opGT, true
	case LSS:
		return opLT, true
	case GEQ:
		return opGE, true
	case LEQ:
		return opLE, true
	case EQL, ASSIGN:
		return opEQ, true
	case NEQ:
		return opNE, true
	case LAND:
		return opAnd, true
	case LOR:
		return opOr, true
	}
	return 0, false
}

func (c *compiler) expr(out *Compiled, x Expr) (int32, error) {
	switch x := x.(type) {
	case *Ident:
		i, err := c.index(x.Name)
		if err != nil {
			return 0, err
		}
		out.named[i/64] |= 1 << (i % 64)
		op := opNum
		if c.t.Def(i).Type == Boolean {
			op = opBool
		}
		return c.add(out, node{op: op, idx: int32(i)}), nil
	case *NumberLit:
		return c.add(out, node{op: opConst, val: x.Scaled()}), nil
	case *CallExpr:
		i, err := c.index(x.Arg.Name)
		if err != nil {
			return 0, err
		}
		out.named[i/64] |= 1 << (i % 64)
		kind := NUMBER
		switch c.t.Def(i).Type {
		case String:
			kind = STRING
		case Boolean:
			kind = IDENT
		}
		return c.add(out, node{op: opDefined, cmp: kind, idx: int32(i)}), nil
	case *UnaryExpr:
		a, err := c.expr(out, x.X)
		if err != nil {
			return 0, err
		}
		op := opNeg
		if x.Op == NOT {
			op = opNot
		}
		return c.add(out, node{op: op, a: a}), nil
	case *BinaryExpr:
		if n, ok := c.strCmp(out, x); ok {
			return n, nil
		}
		if n, ok, err := c.fused(out, x); ok || err != nil {
			return n, err
		}
		a, err := c.expr(out, x.X)
		if err != nil {
			return 0, err
		}
		b, err := c.expr(out, x.Y)
		if err != nil {
			return 0, err
		}
		op, ok := binOp(x.Op)
		if !ok {
			return 0, fmt.Errorf("compiling resource requirement: %w: operator %s", ErrSyntax, x.Op)
		}
		return c.add(out, node{op: op, a: a, b: b}), nil
	case *StringLit:
		return 0, fmt.Errorf("compiling resource requirement: %w: string %q outside a comparison", ErrSyntax, x.Value)
	}
	return 0, fmt.Errorf("compiling resource requirement: %w: unexpected %T", ErrSyntax, x)
}

// fused compiles a binary operation with a literal operand into one node.
func (c *compiler) fused(out *Compiled, x *BinaryExpr) (int32, bool, error) {
	var other Expr
	var k float64
	op := x.Op
	litLeft := false
	if lit, ok := x.Y.(*NumberLit); ok {
		other, k = x.X, lit.Scaled()
	} else if lit, ok := x.X.(*NumberLit); ok {
		other, k, litLeft = x.Y, lit.Scaled(), true
	} else {
		return 0, false, nil
	}
	switch {
	case op.IsComparison():
		if litLeft {
			op = mirror(op)
		}
		if id, ok := other.(*Ident); ok {
			i, err := c.index(id.Name)
			if err != nil {
				return 0, false, err
			}
			if c.t.Def(i).Type == Numeric {
				out.named[i/64] |= 1 << (i % 64)
				return c.add(out, node{op: opNumCmpK, cmp: op, idx: int32(i), val: k}), true, nil
			}
		}
		a, err := c.expr(out, other)
		if err != nil {
			return 0, false, err
		}
		return c.add(out, node{op: opCmpK, cmp: op, a: a, val: k}), true, nil
	case op.IsArithmetic():
		if id, ok := other.(*Ident); ok {
			i, err := c.index(id.Name)
			if err != nil {
				return 0, false, err
			}
			if c.t.Def(i).Type == Numeric {
				out.named[i/64] |= 1 << (i % 64)
				code := opArithKNum
				if litLeft {
					code = opKArithNum
				}
				return c.add(out, node{op: code, cmp: op, idx: int32(i), val: k}), true, nil
			}
		}
		a, err := c.expr(out, other)
		if err != nil {
			return 0, false, err
		}
		code := opArithK
		if litLeft {
			code = opKArith
		}
		return c.add(out, node{op: code, cmp: op, a: a, val: k}), true, nil
	}
	return 0, false, nil
}

func compare(cmp Token, a, b float64) bool {
	switch cmp {
	case GTR:
		return a > b
	case LSS:
		return a < b
	case GEQ:
		return a >= b
	case LEQ:
		return a <= b
	case EQL, ASSIGN:
		return a == b
	case NEQ:
		return a != b && a == a && b == b
	}
	return false
}

func arith(op Token, a, b float64) float64 {
	switch op {
	case MUL:
		return a * b
	case QUO:
		return a / b
	case ADD:
		return a + b
	case SUB:
		return a - b
	}
	return math.NaN()
}

// strCmp compiles resource OP value (either way round). type/model == any
// is always true; local is the submission host's value.
func (c *compiler) strCmp(out *Compiled, x *BinaryExpr) (int32, bool) {
	id, lok := x.X.(*Ident)
	lit, rok := x.Y.(*StringLit)
	op := x.Op
	if !lok || !rok {
		id, lok = x.Y.(*Ident)
		lit, rok = x.X.(*StringLit)
		if !lok || !rok {
			return 0, false
		}
		op = mirror(op)
	}
	i, ok := c.t.Index(id.Name)
	if !ok || c.t.Def(i).Type != String {
		return 0, false
	}
	out.named[i/64] |= 1 << (i % 64)
	v := lit.Value
	if (i == IdxType || i == IdxModel) && !lit.Quoted {
		switch v {
		case "any":
			return c.add(out, node{op: opConst, val: 1}), true
		case "local":
			if i == IdxType {
				v = c.local.Type
			} else {
				v = c.local.Model
			}
		}
	}
	return c.add(out, node{op: opStrCmp, cmp: op, idx: int32(i), str: v}), true
}

// mirror swaps a comparison's operands: a < b is b > a.
func mirror(op Token) Token {
	switch op {
	case GTR:
		return LSS
	case LSS:
		return GTR
	case GEQ:
		return LEQ
	case LEQ:
		return GEQ
	}
	return op
}

func truth(v float64) bool { return v != 0 && v == v }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (c *Compiled) eval(i int32, h *Host) float64 {
	n := &c.nodes[i]
	switch n.op {
	case opConst:
		return n.val
	case opNum:
		if int(n.idx) < len(h.Num) {
			return h.Num[n.idx]
		}
		return math.NaN()
	case opBool:
		if int(n.idx) < len(h.Num) && truth(h.Num[n.idx]) {
			return 1
		}
		return 0
	case opNeg:
		return -c.eval(n.a, h)
	case opNot:
		return b2f(!truth(c.eval(n.a, h)))
	case opAnd:
		return b2f(truth(c.eval(n.a, h)) && truth(c.eval(n.b, h)))
	case opOr:
		return b2f(truth(c.eval(n.a, h)) || truth(c.eval(n.b, h)))
	case opStrCmp:
		if int(n.idx) >= len(h.Str) || h.Str[n.idx] == "" {
			return 0
		}
		s := h.Str[n.idx]
		switch n.cmp {
		case EQL, ASSIGN:
			return b2f(s == n.str)
		case NEQ:
			return b2f(s != n.str)
		case GTR:
			return b2f(s > n.str)
		case LSS:
			return b2f(s < n.str)
		case GEQ:
			return b2f(s >= n.str)
		case LEQ:
			return b2f(s <= n.str)
		}
		return 0
	case opNumCmpK:
		if int(n.idx) < len(h.Num) {
			return b2f(compare(n.cmp, h.Num[n.idx], n.val))
		}
		return 0
	case opCmpK:
		return b2f(compare(n.cmp, c.eval(n.a, h), n.val))
	case opArithK:
		return arith(n.cmp, c.eval(n.a, h), n.val)
	case opKArith:
		return arith(n.cmp, n.val, c.eval(n.a, h))
	case opArithKNum:
		if int(n.idx) < len(h.Num) {
			return arith(n.cmp, h.Num[n.idx], n.val)
		}
		return math.NaN()
	case opKArithNum:
		if int(n.idx) < len(h.Num) {
			return arith(n.cmp, n.val, h.Num[n.idx])
		}
		return math.NaN()
	case opDefined:
		switch n.cmp {
		case STRING:
			return b2f(int(n.idx) < len(h.Str) && h.Str[n.idx] != "")
		case IDENT: // Boolean: the host has it
			return b2f(int(n.idx) < len(h.Num) && truth(h.Num[n.idx]))
		}
		return b2f(int(n.idx) < len(h.Num) && h.Num[n.idx] == h.Num[n.idx])
	}
	a, b := c.eval(n.a, h), c.eval(n.b, h)
	switch n.op {
	case opMul:
		return a * b
	case opDiv:
		return a / b
	case opAdd:
		return a + b
	case opSub:
		return a - b
	case opGT:
		return b2f(a > b)
	case opLT:
		return b2f(a < b)
	case opGE:
		return b2f(a >= b)
	case opLE:
		return b2f(a <= b)
	case opEQ:
		return b2f(a == b)
	case opNE:
		return b2f(a != b && a == a && b == b)
	}
	return 0
}

// Select reports whether host h satisfies the select section, the default
// type rule and the host's exclusive resources. For a compound or
// alternative requirement it reports whether any term or alternative does.
func (c *Compiled) Select(h *Host) bool {
	switch c.Kind {
	case KindCompound:
		for i := range c.Terms {
			if c.Terms[i].Req.Select(h) {
				return true
			}
		}
		return false
	case KindAlternative:
		for _, a := range c.Alternatives {
			if a.Select(h) {
				return true
			}
		}
		return false
	}
	if c.typeLocal {
		if IdxType >= len(h.Str) || h.Str[IdxType] == "" || h.Str[IdxType] != c.localType {
			return false
		}
	}
	for _, e := range h.Exclusive {
		if e < 0 || e/64 >= len(c.named) || c.named[e/64]&(1<<(e%64)) == 0 {
			return false
		}
	}
	return c.root < 0 || truth(c.eval(c.root, h))
}

// Less reports whether host a is better than host b by the order keys:
// the first key that differs decides; undefined values sort last.
func (c *Compiled) Less(a, b *Host) bool {
	switch c.Kind {
	case KindCompound:
		if len(c.Terms) > 0 {
			return c.Terms[0].Req.Less(a, b)
		}
		return false
	case KindAlternative:
		if len(c.Alternatives) > 0 {
			return c.Alternatives[0].Less(a, b)
		}
		return false
	}
	for i := range c.Order {
		k := &c.Order[i]
		va, vb := math.NaN(), math.NaN()
		if k.Index < len(a.Num) {
			va = a.Num[k.Index]
		}
		if k.Index < len(b.Num) {
			vb = b.Num[k.Index]
		}
		if less, decided := k.Compare(va, vb); decided {
			return less
		}
	}
	return false
}

// Compare orders two hosts' values of the key: less reports that va comes
// first, decided that they differ. A missing value (NaN) comes last.
func (k *OrderKey) Compare(va, vb float64) (less, decided bool) {
	na, nb := va != va, vb != vb
	switch {
	case na && nb, va == vb:
		return false, false
	case na:
		return false, true
	case nb:
		return true, true
	case k.Ascending:
		return va < vb, true
	default:
		return va > vb, true
	}
}

// Names reports whether the select section names resource i (for the
// exclusive resource rule).
func (c *Compiled) Names(i int) bool {
	return i >= 0 && i/64 < len(c.named) && c.named[i/64]&(1<<(i%64)) != 0
}
