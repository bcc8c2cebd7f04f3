package resreq

import (
	"math"
	"testing"
)

// refSelect is a direct AST interpreter of the documented semantics, used to
// check the compiler (fused opcodes, mirrored comparisons) differentially.
func refSelect(s *Simple, t *Table, local Local, h *Host) bool {
	if s == nil {
		s = &Simple{TypeRule: TypeLocal}
	}
	num := func(i int) float64 {
		if i < len(h.Num) {
			return h.Num[i]
		}
		return math.NaN()
	}
	strv := func(i int) string {
		if i < len(h.Str) {
			return h.Str[i]
		}
		return ""
	}
	if s.TypeRule == TypeLocal && (strv(IdxType) == "" || strv(IdxType) != local.Type) {
		return false
	}
	named := map[int]bool{}
	if s.Select != nil {
		walk(s.Select.X, func(x Expr) {
			if id, ok := x.(*Ident); ok {
				i, _ := t.Index(id.Name)
				named[i] = true
			}
		})
	}
	for _, e := range h.Exclusive {
		if !named[e] {
			return false
		}
	}
	if s.Select == nil || s.Select.X == nil {
		return true
	}
	tv := func(v float64) bool { return v != 0 && !math.IsNaN(v) }
	bf := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	cmpNum := func(op Token, a, b float64) bool {
		if math.IsNaN(a) || math.IsNaN(b) {
			return false
		}
		switch op {
		case GTR:
			return a > b
		case LSS:
			return a < b
		case GEQ:
			return a >= b
		case LEQ:
			return a <= b
		case EQL:
			return a == b
		case NEQ:
			return a != b
		}
		panic("op")
	}
	var ev func(x Expr) float64
	ev = func(x Expr) float64 {
		switch x := x.(type) {
		case *Ident:
			i, _ := t.Index(x.Name)
			if t.Def(i).Type == Boolean {
				return bf(tv(num(i)))
			}
			return num(i)
		case *NumberLit:
			return x.Scaled()
		case *CallExpr:
			i, _ := t.Index(x.Arg.Name)
			switch t.Def(i).Type {
			case String:
				return bf(strv(i) != "")
			case Boolean:
				return bf(tv(num(i)))
			}
			return bf(!math.IsNaN(num(i)))
		case *UnaryExpr:
			if x.Op == NOT {
				return bf(!tv(ev(x.X)))
			}
			return -ev(x.X)
		case *BinaryExpr:
			var res *Ident
			var lit *StringLit
			op := x.Op
			if id, ok := x.X.(*Ident); ok {
				if l, ok := x.Y.(*StringLit); ok {
					res, lit = id, l
				}
			}
			if id, ok := x.Y.(*Ident); ok {
				if l, ok := x.X.(*StringLit); ok {
					res, lit = id, l
					switch op {
					case GTR:
						op = LSS
					case LSS:
						op = GTR
					case GEQ:
						op = LEQ
					case LEQ:
						op = GEQ
					}
				}
			}
			if res != nil {
				i, _ := t.Index(res.Name)
				want := lit.Value
				if (i == IdxType || i == IdxModel) && !lit.Quoted {
					if want == "any" {
						return 1
					}
					if want == "local" {
						want = local.Type
						if i == IdxModel {
							want = local.Model
						}
					}
				}
				v := strv(i)
				if v == "" {
					return 0
				}
				switch op {
				case EQL:
					return bf(v == want)
				case NEQ:
					return bf(v != want)
				case GTR:
					return bf(v > want)
				case LSS:
					return bf(v < want)
				case GEQ:
					return bf(v >= want)
				case LEQ:
					return bf(v <= want)
				}
				panic("op")
			}
			switch op {
			case LAND:
				return bf(tv(ev(x.X)) && tv(ev(x.Y)))
			case LOR:
				return bf(tv(ev(x.X)) || tv(ev(x.Y)))
			case MUL:
				return ev(x.X) * ev(x.Y)
			case QUO:
				return ev(x.X) / ev(x.Y)
			case ADD:
				return ev(x.X) + ev(x.Y)
			case SUB:
				return ev(x.X) - ev(x.Y)
			}
			return bf(cmpNum(op, ev(x.X), ev(x.Y)))
		}
		panic("expr")
	}
	return tv(ev(s.Select.X))
}

// refHosts are hosts with varied values for differential checks.
var refHostsCache = buildRefHosts()

func refHosts() []*Host { return refHostsCache }

func buildRefHosts() []*Host {
	n := testTable.Len()
	vals := []float64{math.NaN(), 0, 1, -1, 0.5, 3, 100, 4096, math.Inf(1)}
	strs := []string{"", "LINUX", "x86_64", "any", "local", "IntelI5", "4.2", "hostA"}
	var hs []*Host
	for k := 0; k < 24; k++ {
		h := &Host{Num: make([]float64, n), Str: make([]string, n)}
		for i := 0; i < n; i++ {
			h.Num[i] = vals[(i*7+k*3)%len(vals)]
			h.Str[i] = strs[(i*5+k)%len(strs)]
			if testTable.Def(i).Type == Boolean {
				h.Num[i] = float64((i + k) % 2)
			}
		}
		if k%5 == 4 {
			h.Exclusive = []int{NumBuiltin + k%len(testDefs)}
		}
		hs = append(hs, h)
	}
	return append(hs, &Host{})
}

func checkAgainstRef(t *testing.T, r *ResReq, src string) {
	t.Helper()
	local := Local{Type: "LINUX", Model: "IntelI5"}
	c, err := r.Compile(testTable, local)
	if err != nil {
		t.Fatalf("%q: compile: %v", src, err)
	}
	check := func(s *Simple, sc *Compiled) {
		for hi, h := range refHosts() {
			if got, want := sc.Select(h), refSelect(s, testTable, local, h); got != want {
				t.Fatalf("%q host %d: compiled Select %v, reference %v", src, hi, got, want)
			}
		}
	}
	switch r.Kind {
	case KindSimple:
		check(r.Simple, c)
	case KindCompound:
		for i, term := range r.Terms {
			check(term.Req, c.Terms[i].Req)
		}
	}
}

// TestCompiledMatchesReference runs every valid string of the other tests
// through the compiler and the reference interpreter.
func TestCompiledMatchesReference(t *testing.T) {
	srcs := append([]string(nil), fuzzSeeds...)
	srcs = append(srcs,
		"4 < mem", "4 <= mem", "4 > mem", "4 >= mem", "4 == mem", "4 != mem",
		"mem * 2 > 3", "2 * mem > 3", "mem / 2 < 1", "8 / mem < 3", "mem - 1 > 0", "1 - mem > 0", "mem + 1 == 2",
		"(mem + swp) * 2 > 10", "2 - (mem + swp) < 0", "(mem * swp) != 0", "-mem > -2", "!(mem > 1)",
		"hname > hostA", "hostA < hname", "hostA >= hname", "hname <= 'hostA'", "type == local && model == local",
		"'LINUX' == type", "fs || hpux && !cs", "nan != nan", "inf == inf", "mem != 4096",
		"ut < 70", "mem > 4", "defined(os_version) && defined(fs) && defined(avail_scratch)")
	for _, s := range srcs {
		for _, o := range []Options{
			{Table: testTable}, {Table: testTable, Context: CtxLsload}, {Table: testTable, Context: CtxQueue, Unit: "GB"},
		} {
			r, err := Parse(s, o)
			if err != nil {
				continue
			}
			checkAgainstRef(t, r, s)
		}
	}
}
