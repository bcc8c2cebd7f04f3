package resreq

import (
	"strconv"
	"strings"
)

// String returns the canonical form: sections in the order select, order,
// rusage, span, same, cu, one blank apart; names canonical (aliases and case
// resolved); every binary operation below the top of a select string in
// parentheses; = written ==. Parsing the result with the same Options gives
// an equal ResReq.
func (r *ResReq) String() string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	r.print(&b)
	return b.String()
}

func (r *ResReq) print(b *strings.Builder) {
	switch r.Kind {
	case KindSimple:
		r.Simple.print(b)
	case KindCompound:
		for i, t := range r.Terms {
			if i > 0 {
				b.WriteString(" + ")
			}
			if t.Slots > 0 {
				b.WriteString(strconv.Itoa(t.Slots))
				b.WriteString("*")
			}
			b.WriteString("{")
			t.Req.print(b)
			b.WriteString("}")
		}
	case KindAlternative:
		for i, a := range r.Alts {
			if i > 0 {
				b.WriteString(" || ")
			}
			b.WriteString("{")
			a.print(b)
			b.WriteString("}")
		}
	}
}

// String returns the canonical form of a simple requirement.
func (s *Simple) String() string {
	var b strings.Builder
	s.print(&b)
	return b.String()
}

func (s *Simple) print(b *strings.Builder) {
	if s == nil {
		return
	}
	sep := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "{") {
			b.WriteByte(' ')
		}
	}
	if s.Select != nil && s.Select.X != nil {
		sep()
		b.WriteString("select[")
		printExpr(b, s.Select.X, false)
		b.WriteString("]")
	}
	if s.Order != nil {
		sep()
		s.Order.print(b)
	}
	if s.Rusage != nil {
		sep()
		s.Rusage.print(b)
	}
	if s.Span != nil {
		sep()
		s.Span.print(b)
	}
	if s.Same != nil {
		sep()
		b.WriteString("same[")
		b.WriteString(strings.Join(s.Same.Names, ":"))
		b.WriteString("]")
	}
	if s.Cu != nil {
		sep()
		s.Cu.print(b)
	}
}

// Effective returns the requirement as it is scheduled, LSF's effective
// RES_REQ (bjobs -l, LSB_EFFECTIVE_RSRCREQ): the canonical form with the
// defaults that apply written out. rule is the compiled requirement's
// TypeRule: type == local (or any) is ANDed to the select expression, or is
// the select section; a requirement without an order section orders by
// r15s:pg. Compound and alternative requirements are in canonical form.
func (r *ResReq) Effective(rule TypeRule) string {
	if r == nil || r.Kind != KindSimple || r.Simple == nil {
		return r.String()
	}
	s := r.Simple
	var b strings.Builder
	typ := ""
	switch rule {
	case TypeLocal:
		typ = "type == local"
	case TypeAny:
		typ = "type == any"
	}
	hasSelect := s.Select != nil && s.Select.X != nil
	switch {
	case typ != "" && hasSelect:
		b.WriteString("select[")
		printExpr(&b, s.Select.X, true)
		b.WriteString(" && (" + typ + ")]")
	case typ != "":
		b.WriteString("select[" + typ + "]")
	case hasSelect:
		(&Simple{Select: s.Select}).print(&b)
	}
	order := s.Order
	if order == nil {
		order = &OrderSection{Keys: []*OrderKeyExpr{{Name: "r15s"}, {Name: "pg"}}}
	}
	(&Simple{Order: order, Rusage: effectiveRusage(s.Rusage), Span: s.Span, Same: s.Same, Cu: s.Cu}).print(&b)
	return b.String()
}

// effectiveRusage is r with every value written without a unit shown with
// two decimals, as LSF's effective and combined requirements show them
// ("rusage[mem=2000.00]" for rusage[mem=2000]); a value with a unit stays
// as written.
func effectiveRusage(r *RusageSection) *RusageSection {
	if r == nil {
		return nil
	}
	out := &RusageSection{Pos: r.Pos, Alts: make([]*RusageAlt, len(r.Alts))}
	for i, a := range r.Alts {
		na := &RusageAlt{Groups: make([]*RusageGroup, len(a.Groups))}
		for j, g := range a.Groups {
			ng := *g
			ng.Items = make([]*RusageItem, len(g.Items))
			for k, it := range g.Items {
				ni := *it
				if it.Value != nil && it.Value.Unit == "" {
					v := *it.Value
					v.Text = strconv.FormatFloat(v.Value, 'f', 2, 64)
					ni.Value = &v
				}
				ng.Items[k] = &ni
			}
			na.Groups[j] = &ng
		}
		out.Alts[i] = na
	}
	return out
}

// ExprString returns the canonical form of a select expression.
func ExprString(x Expr) string {
	var b strings.Builder
	printExpr(&b, x, false)
	return b.String()
}

func printExpr(b *strings.Builder, x Expr, nested bool) {
	switch x := x.(type) {
	case nil:
	case *Ident:
		b.WriteString(x.Name)
	case *NumberLit:
		b.WriteString(x.Text)
		b.WriteString(x.Unit)
	case *StringLit:
		if x.Quoted {
			b.WriteByte('\'')
			b.WriteString(x.Value)
			b.WriteByte('\'')
		} else {
			b.WriteString(x.Value)
		}
	case *CallExpr:
		b.WriteString(x.Fun)
		b.WriteByte('(')
		b.WriteString(x.Arg.Name)
		b.WriteByte(')')
	case *UnaryExpr:
		b.WriteString(x.Op.String())
		switch x.X.(type) {
		case *UnaryExpr, *BinaryExpr:
			b.WriteByte('(')
			printExpr(b, x.X, false)
			b.WriteByte(')')
		default:
			printExpr(b, x.X, true)
		}
	case *BinaryExpr:
		if nested {
			b.WriteByte('(')
		}
		printExpr(b, x.X, true)
		b.WriteByte(' ')
		b.WriteString(x.Op.String())
		b.WriteByte(' ')
		printExpr(b, x.Y, true)
		if nested {
			b.WriteByte(')')
		}
	}
}

func (o *OrderSection) print(b *strings.Builder) {
	b.WriteString("order[")
	if o.Resort {
		b.WriteByte('!')
	}
	for i, k := range o.Keys {
		if i > 0 {
			b.WriteByte(':')
		}
		if k.Reverse {
			b.WriteByte('-')
		}
		b.WriteString(k.Name)
	}
	b.WriteString("]")
}

func (r *RusageSection) print(b *strings.Builder) {
	b.WriteString("rusage[")
	for i, a := range r.Alts {
		if i > 0 {
			b.WriteString(" || ")
		}
		for j, g := range a.Groups {
			if j > 0 {
				b.WriteString(", ")
			}
			g.print(b)
		}
	}
	b.WriteString("]")
}

func (g *RusageGroup) print(b *strings.Builder) {
	for i, it := range g.Items {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(it.Name)
		b.WriteByte('=')
		b.WriteString(it.Value.Text)
		b.WriteString(it.Value.Unit)
	}
	if g.Duration != nil {
		b.WriteString(":duration=")
		b.WriteString(g.Duration.Text)
		b.WriteString(g.Duration.Unit)
	}
	if g.Decay >= 0 {
		b.WriteString(":decay=")
		b.WriteString(strconv.Itoa(g.Decay))
	}
}

func (s *SpanSection) print(b *strings.Builder) {
	b.WriteString("span[")
	var parts []string
	if s.Hosts != 0 {
		parts = append(parts, "hosts="+strconv.Itoa(s.Hosts))
	}
	if s.Ptile != nil {
		var vals []string
		if s.Ptile.Max {
			vals = append(vals, "'!'")
		} else if s.Ptile.N > 0 {
			vals = append(vals, strconv.Itoa(s.Ptile.N))
		}
		for _, e := range s.Ptile.ByName {
			vals = append(vals, e.Name+":"+strconv.Itoa(e.N))
		}
		parts = append(parts, "ptile="+strings.Join(vals, ","))
	}
	if s.Block != 0 {
		parts = append(parts, "block="+strconv.Itoa(s.Block))
	}
	b.WriteString(strings.Join(parts, ":"))
	b.WriteString("]")
}

func (c *CuSection) print(b *strings.Builder) {
	var parts []string
	if c.Type != "" {
		parts = append(parts, "type="+c.Type)
	}
	if c.Pref != "" {
		parts = append(parts, "pref="+c.Pref)
	}
	if c.MaxCUs > 0 {
		parts = append(parts, "maxcus="+strconv.Itoa(c.MaxCUs))
	}
	if c.Balance {
		parts = append(parts, "balance")
	}
	if c.Excl {
		parts = append(parts, "excl")
	}
	if c.UsableCUSlots > 0 {
		parts = append(parts, "usablecuslots="+strconv.Itoa(c.UsableCUSlots))
	}
	b.WriteString("cu[")
	b.WriteString(strings.Join(parts, ":"))
	b.WriteString("]")
}
