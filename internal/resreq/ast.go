package resreq

import "math"

// Kind is the shape of a resource requirement.
type Kind int

const (
	// KindSimple is one requirement for all slots.
	KindSimple Kind = iota
	// KindCompound is n1*{req1} + n2*{req2} ...: a requirement per slot count.
	KindCompound
	// KindAlternative is {req1} || {req2} ...: the first satisfiable wins.
	KindAlternative
)

func (k Kind) String() string {
	switch k {
	case KindSimple:
		return "simple"
	case KindCompound:
		return "compound"
	case KindAlternative:
		return "alternative"
	}
	return "?"
}

// ResReq is a parsed resource requirement. It is immutable once returned:
// Merge and ParseMulti share unchanged subtrees between results.
type ResReq struct {
	Kind Kind
	// Simple is the requirement of a KindSimple.
	Simple *Simple
	// Terms are the terms of a KindCompound.
	Terms []*Term
	// Alts are the alternatives of a KindAlternative; each is a simple or a
	// compound requirement.
	Alts []*ResReq
	// Notes are what the non-strict syntax ignored (text LSF silently drops:
	// a word after the sections, a second select section). They are not part
	// of the requirement and are not printed.
	Notes []*Error
}

// Term is one term of a compound requirement: Slots slots with requirement
// Req. Slots is 0 when the count was omitted (last term only): the term
// takes the slots the other terms leave.
type Term struct {
	SlotsPos int
	Slots    int
	Req      *Simple
}

// TypeRule is the default host type rule of a requirement that does not
// name type itself.
type TypeRule int

const (
	// TypeExplicit: the select section names type, or the context has no
	// default (STOP_COND, RESUME_COND).
	TypeExplicit TypeRule = iota
	// TypeAny: no type restriction by default (lshosts, lsload; bsub with a
	// string or Boolean resource; a queue with a model or Boolean resource).
	TypeAny
	// TypeLocal: hosts of the submission host's type only (type==local).
	TypeLocal
)

func (t TypeRule) String() string {
	switch t {
	case TypeExplicit:
		return "explicit"
	case TypeAny:
		return "type==any"
	case TypeLocal:
		return "type==local"
	}
	return "?"
}

// Simple is a simple requirement: its sections, each nil when absent.
type Simple struct {
	Select *SelectSection
	Order  *OrderSection
	Rusage *RusageSection
	Span   *SpanSection
	Same   *SameSection
	Cu     *CuSection
	// TypeRule is the default type rule, decided from the context and the
	// select section's contents.
	TypeRule TypeRule
}

// SelectSection is select[expr] or the implicit select at the string's start.
type SelectSection struct {
	Pos int
	X   Expr
}

// OrderSection is order[[-]name[:[-]name]...].
type OrderSection struct {
	Pos int
	// Resort is LSF 9's leading '!': sort again after the other ordering
	// policies.
	Resort bool
	Keys   []*OrderKeyExpr
}

// OrderKeyExpr is one key of an order section.
type OrderKeyExpr struct {
	Pos     int
	Reverse bool // leading '-': worst first
	Name    string
}

// RusageSection is rusage[alt || alt ...].
type RusageSection struct {
	Pos  int
	Alts []*RusageAlt
}

// RusageAlt is one alternative: usage strings separated by commas, each with
// its own duration and decay.
type RusageAlt struct {
	Groups []*RusageGroup
}

// RusageGroup is one usage string: name=value[:name=value]...
// [:duration=d][:decay=0|1].
type RusageGroup struct {
	Items    []*RusageItem
	Duration *NumberLit // nil: the job's whole life; unit "", m, h or s
	DecayPos int
	Decay    int // -1: not given; 0 or 1
}

// RusageItem is name=value.
type RusageItem struct {
	Pos   int
	Name  string
	Value *NumberLit
}

// SpanSection is span[hosts=1], span[hosts=-1], span[ptile=...] or
// span[block=n].
type SpanSection struct {
	Pos   int
	Hosts int // 0: not given; 1 or -1
	Ptile *Ptile
	Block int // 0: not given
}

// Ptile is span's ptile value: a default (a number or '!') and per host
// type or model counts.
type Ptile struct {
	N      int  // slots per host; 0 when not given
	Max    bool // '!': the host's MXJ
	ByName []PtileEntry
}

// PtileEntry is TYPE:n or MODEL:n in a ptile list.
type PtileEntry struct {
	Name string
	N    int
}

// SameSection is same[name[:name]...].
type SameSection struct {
	Pos   int
	Names []string
}

// CuSection is cu[type=...:pref=...:maxcus=...:balance:excl|usablecuslots=n].
type CuSection struct {
	Pos           int
	Type          string
	Pref          string // config, minavail, maxavail, bestfit; "" = config
	MaxCUs        int
	Balance       bool
	Excl          bool
	UsableCUSlots int
}

// Expr is a select expression node.
type Expr interface {
	Pos() int
	exprNode()
}

type (
	// Ident is a resource name, resolved to its canonical name and table
	// index.
	Ident struct {
		NamePos int
		Name    string
		Index   int
	}

	// NumberLit is a number with an optional unit (4GB). Value is the number
	// as written; Scale converts it to the internal unit (MB for mem, swp and
	// tmp; a fraction for ut given as a percentage in non-strict mode).
	NumberLit struct {
		ValuePos int
		Text     string
		Unit     string
		Value    float64
		Scale    float64
	}

	// StringLit is a string value: 'quoted' or a bare word compared with a
	// string resource (type == LINUX).
	StringLit struct {
		ValuePos int
		Value    string
		Quoted   bool
	}

	// UnaryExpr is -X or !X.
	UnaryExpr struct {
		OpPos int
		Op    Token
		X     Expr
	}

	// BinaryExpr is X op Y. The non-strict '=' and ':' are stored as == and
	// &&.
	BinaryExpr struct {
		X     Expr
		OpPos int
		Op    Token
		Y     Expr
	}

	// CallExpr is defined(name).
	CallExpr struct {
		NamePos int
		Fun     string
		Arg     *Ident
	}
)

func (x *Ident) Pos() int      { return x.NamePos }
func (x *NumberLit) Pos() int  { return x.ValuePos }
func (x *StringLit) Pos() int  { return x.ValuePos }
func (x *UnaryExpr) Pos() int  { return x.OpPos }
func (x *BinaryExpr) Pos() int { return x.X.Pos() }
func (x *CallExpr) Pos() int   { return x.NamePos }

func (*Ident) exprNode()      {}
func (*NumberLit) exprNode()  {}
func (*StringLit) exprNode()  {}
func (*UnaryExpr) exprNode()  {}
func (*BinaryExpr) exprNode() {}
func (*CallExpr) exprNode()   {}

// Scaled returns the literal's value in the internal unit.
func (x *NumberLit) Scaled() float64 {
	switch {
	case x.Scale == 0 || x.Scale == 1:
		return x.Value
	case x.Scale < 1:
		// Divide by the exact reciprocal (1024, 100): 70 * 0.01 != 0.7.
		return x.Value / math.Round(1/x.Scale)
	}
	return x.Value * x.Scale
}
