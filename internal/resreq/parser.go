package resreq

import (
	"fmt"
	"strconv"
	"strings"
)

// Context is the command or configuration level a requirement comes from. It
// decides the default host type rule.
type Context int

const (
	// CtxBsub: bsub -R (also bmod -R, brestart -R). The zero Context.
	CtxBsub Context = iota
	// CtxQueue: lsb.queues RES_REQ.
	CtxQueue
	// CtxLsload: lsload -R (type==any by default).
	CtxLsload
	// CtxLshosts: lshosts -R (type==any by default).
	CtxLshosts
	// CtxLsplace: lsplace -R.
	CtxLsplace
	// CtxLsrun: lsrun -R and lsgrun -R.
	CtxLsrun
	// CtxBhosts: bhosts -R.
	CtxBhosts
	// CtxCond: lsb.queues STOP_COND and RESUME_COND (only select is used; no
	// default type).
	CtxCond
)

var contextNames = map[Context]string{
	CtxBsub: "bsub", CtxQueue: "queue", CtxLsload: "lsload", CtxLshosts: "lshosts",
	CtxLsplace: "lsplace", CtxLsrun: "lsrun", CtxBhosts: "bhosts", CtxCond: "cond",
}

func (c Context) String() string {
	if s, ok := contextNames[c]; ok {
		return s
	}
	return fmt.Sprintf("Context(%d)", int(c))
}

// ParseContext returns the context named s (bsub, queue, lsload, lshosts,
// lsplace, lsrun, lsgrun, bhosts, cond).
func ParseContext(s string) (Context, bool) {
	if s == "lsgrun" {
		return CtxLsrun, true
	}
	for c, n := range contextNames {
		if n == s {
			return c, true
		}
	}
	return 0, false
}

// Options control parsing.
type Options struct {
	// Strict is LSF_STRICT_RESREQ=Y: the select section must follow the
	// strict syntax and rusage may not name a non-consumable resource.
	Strict bool
	// Context is the command or level the string comes from.
	Context Context
	// Table resolves names; nil means BuiltinTable().
	Table *Table
	// Unit is LSF_UNIT_FOR_LIMITS, the unit of mem, swp and tmp values
	// written without one; "" means MB.
	Unit string
}

// Messages of the errors the parser reports (Error.Msg), so tests and
// callers can refer to them.
const (
	MsgDuplicateSection = "duplicate section"
	MsgUnknownResource  = "unknown resource name"
	MsgSectionBlank     = "at least one blank must separate sections"
	MsgUnknownSection   = "not a valid section"
	MsgOutsideSection   = "not part of any section"
	MsgColon            = "colon (:) not allowed in the select string"
	MsgDoubleNot        = "multiple logical NOT operators (!!) not allowed"
	MsgDefinedBlanks    = "blanks not allowed between defined( ) and the resource name"
	MsgQuotes           = "quotes are only allowed around the whole resource requirement string"
	MsgEscape           = "escape characters not supported in string literals"
	MsgBooleanOp        = "Boolean resource can only be used with &&, || and !"
	MsgStringOp         = "string resource can only be used with =, ==, !=, <, >, <= and >="
	MsgStringValue      = "string resource must be compared with a string value"
	MsgSharedQuotes     = "values of shared string resources must be in single quotes"
	MsgNonConsumable    = "non-consumable resource in rusage"
	MsgDefinedArg       = "resource name not accepted by defined()"
	MsgUtRange          = "ut must be a number between 0.0 and 1.0"
	MsgNestedTooDeep    = "expression nested too deeply"
)

// maxDepth bounds the depth of a select expression's tree (a chain of n
// operators is n deep); maxNest bounds the parser's recursion (parentheses,
// unary operators, precedence levels), which the canonical form of a tree
// within maxDepth never reaches.
const (
	maxDepth = 1000
	maxNest  = 10 * maxDepth
)

type token struct {
	pos int
	tok Token
	lit string
}

type bailout struct{}

type parser struct {
	src    string
	arg    int
	o      Options
	t      *Table
	strict bool
	// selectOnly: parse the select section only; the other sections are
	// delimited but not checked (bsub's BSUB_CHK_RESREQ).
	selectOnly bool

	toks   []token
	eofPos int
	errs   ErrorList
	notes  []*Error
	// unitScale is the scale of a unit-less mem/swp/tmp value.
	unitScale float64
}

// Parse parses a resource requirement string. Errors are an ErrorList of
// positioned *Error; each wraps ErrSyntax or ErrUnknownResource.
func Parse(s string, o Options) (*ResReq, error) {
	return parseArg(s, 0, o, false)
}

func parseArg(s string, arg int, o Options, selectOnly bool) (r *ResReq, err error) {
	p := newParser(s, arg, o)
	p.selectOnly = selectOnly
	defer func() {
		if e := recover(); e != nil {
			if _, ok := e.(bailout); !ok {
				panic(e)
			}
			r = nil
		}
		if len(p.errs) > 0 {
			p.errs.Sort()
			r, err = nil, p.errs
		}
	}()
	p.init()
	r = p.parseReq(p.toks, p.eofPos)
	r.Notes = p.notes
	return r, nil
}

func newParser(s string, arg int, o Options) *parser {
	t := o.Table
	if t == nil {
		t = BuiltinTable()
	}
	return &parser{src: s, arg: arg, o: o, t: t, strict: o.Strict}
}

func (p *parser) init() {
	scale, ok := unitScale(p.o.Unit)
	if !ok {
		p.errs.Add(p.arg, 0, p.o.Unit, "unknown LSF_UNIT_FOR_LIMITS unit", ErrSyntax)
		panic(bailout{})
	}
	p.unitScale = scale
	base, body := stripQuotes(p.src)
	var sc Scanner
	sc.Init(body, base, func(pos int, near, msg string) {
		p.errs.Add(p.arg, pos, near, msg, ErrSyntax)
	})
	p.toks = make([]token, 0, len(body)/3+4)
	for {
		pos, tok, lit := sc.Scan()
		if tok == EOF {
			p.eofPos = pos
			break
		}
		p.toks = append(p.toks, token{pos, tok, lit})
	}
	if sc.ErrorCount > 0 {
		panic(bailout{})
	}
	p.splitGluedKeywords()
}

// stripQuotes removes one pair of quotes around the whole string: bsub -R
// "'swp>100'" and RES_REQ="swp>100". It returns the offset of the body.
func stripQuotes(s string) (int, string) {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	if j-i >= 2 && (s[i] == '\'' || s[i] == '"') && s[j-1] == s[i] &&
		!strings.ContainsRune(s[i+1:j-1], rune(s[i])) {
		return i + 1, s[i+1 : j-1]
	}
	return 0, s
}

func (p *parser) fail(pos int, near, msg string) {
	p.failClass(pos, near, msg, ErrSyntax)
}

func (p *parser) failClass(pos int, near, msg string, class error) {
	p.errs.Add(p.arg, pos, near, msg, class)
	panic(bailout{})
}

func (p *parser) failTok(t token, msg string) { p.fail(t.pos, tokenText(t), msg) }

// tokenText is a token as written: strings with their quotes.
func tokenText(t token) string {
	switch t.tok {
	case STRING:
		return "'" + t.lit + "'"
	case DSTRING:
		return `"` + t.lit + `"`
	}
	return t.lit
}

func (p *parser) note(pos int, near, msg string) {
	p.notes = append(p.notes, &Error{Arg: p.arg, Pos: pos, Near: near, Msg: msg, Err: ErrSyntax})
}

// sectionKeywords, longest first (for splitting glued keywords).
var sectionKeywords = []string{"affinity", "select", "rusage", "order", "span", "same", "cu"}

// keyword returns the canonical section keyword lit names, or "". The strict
// syntax is case-sensitive; otherwise case is ignored.
func (p *parser) keyword(lit string) string {
	kw, _ := p.keywordIndex(lit)
	return kw
}

func (p *parser) keywordIndex(lit string) (string, int) {
	for i, kw := range sectionKeywords {
		if lit == kw || !p.strict && strings.EqualFold(lit, kw) {
			return kw, i
		}
	}
	return "", -1
}

// isWord reports whether lit is the word w (ignoring case in the old syntax).
func (p *parser) isWord(lit, w string) bool {
	return lit == w || !p.strict && strings.EqualFold(lit, w)
}

// splitGluedKeywords finds a word followed by '[' that is not a section
// keyword. "type==anyrusage[mem=1024]" glues the select string to the next
// section: the strict syntax rejects it, the old syntax splits it.
func (p *parser) splitGluedKeywords() {
	for i := 0; i+1 < len(p.toks); i++ {
		t := p.toks[i]
		if t.tok != IDENT && t.tok != NUMBER || p.toks[i+1].tok != LBRACK || p.keyword(t.lit) != "" {
			continue
		}
		kw := ""
		for _, k := range sectionKeywords {
			if len(t.lit) > len(k) && p.keyword(t.lit[len(t.lit)-len(k):]) == k {
				kw = k
				break
			}
		}
		if kw == "" {
			if t.tok == NUMBER {
				continue // "1 [": a syntax error reported in context
			}
			p.failTok(t, MsgUnknownSection)
		}
		if p.strict {
			p.failTok(t, MsgSectionBlank)
		}
		cut := len(t.lit) - len(kw)
		head := token{t.pos, t.tok, t.lit[:cut]}
		tail := token{t.pos + cut, IDENT, t.lit[cut:]}
		p.toks = append(p.toks[:i], append([]token{head, tail}, p.toks[i+1:]...)...)
		i++
	}
}

func (p *parser) isSectionStart(ts []token, i int) bool {
	return i+1 < len(ts) && ts[i].tok == IDENT && ts[i+1].tok == LBRACK && p.keyword(ts[i].lit) != ""
}

func isCompoundStart(ts []token) bool {
	return len(ts) >= 3 && ts[0].tok == NUMBER && ts[1].tok == MUL && ts[2].tok == LBRACE
}

// matchBrace returns the index of the '}' matching ts[i] ('{'), or -1.
func matchBrace(ts []token, i int) int {
	depth := 0
	for j := i; j < len(ts); j++ {
		switch ts[j].tok {
		case LBRACE:
			depth++
		case RBRACE:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// parseReq parses a whole requirement: alternative, compound or simple.
func (p *parser) parseReq(ts []token, endPos int) *ResReq {
	switch {
	case len(ts) > 0 && ts[0].tok == LBRACE:
		return p.parseAlternatives(ts, endPos)
	case isCompoundStart(ts):
		return p.parseCompound(ts)
	}
	return &ResReq{Kind: KindSimple, Simple: p.parseSimple(ts, endPos)}
}

func (p *parser) parseAlternatives(ts []token, endPos int) *ResReq {
	var alts []*ResReq
	i := 0
	for {
		if i >= len(ts) {
			p.fail(endPos, "||", "expected {requirement} after ||")
		}
		if ts[i].tok != LBRACE {
			p.failTok(ts[i], "expected {requirement}")
		}
		j := matchBrace(ts, i)
		if j < 0 {
			p.failTok(ts[i], "missing }")
		}
		inner := ts[i+1 : j]
		var m *ResReq
		switch {
		case isCompoundStart(inner):
			m = p.parseCompound(inner)
		case len(inner) > 0 && inner[0].tok == LBRACE:
			p.failTok(inner[0], "alternatives cannot be nested")
		default:
			m = &ResReq{Kind: KindSimple, Simple: p.parseSimple(inner, ts[j].pos)}
		}
		alts = append(alts, m)
		i = j + 1
		if i == len(ts) {
			break
		}
		switch ts[i].tok {
		case LOR:
			i++
		case ADD:
			p.failTok(ts[i], "only the last term of a compound requirement may omit its slot count")
		default:
			p.failTok(ts[i], "expected || between alternatives")
		}
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return &ResReq{Kind: KindAlternative, Alts: alts}
}

func (p *parser) parseCompound(ts []token) *ResReq {
	r := &ResReq{Kind: KindCompound}
	i := 0
	for {
		term := &Term{}
		switch {
		case i+2 < len(ts) && ts[i].tok == NUMBER && ts[i+1].tok == MUL && ts[i+2].tok == LBRACE:
			n, err := strconv.Atoi(ts[i].lit)
			if err != nil || n <= 0 {
				p.failTok(ts[i], "slot count must be a positive integer")
			}
			term.SlotsPos, term.Slots = ts[i].pos, n
			i += 2
		case i < len(ts) && ts[i].tok == LBRACE:
			term.SlotsPos = ts[i].pos
		case i < len(ts):
			p.failTok(ts[i], "expected n*{requirement}")
		}
		j := matchBrace(ts, i)
		if j < 0 {
			p.failTok(ts[i], "missing }")
		}
		term.Req = p.parseSimple(ts[i+1:j], ts[j].pos)
		r.Terms = append(r.Terms, term)
		i = j + 1
		if i == len(ts) {
			break
		}
		if ts[i].tok != ADD {
			p.failTok(ts[i], "expected + between compound terms")
		}
		if term.Slots == 0 {
			p.fail(term.SlotsPos, "{", "only the last term of a compound requirement may omit its slot count")
		}
		i++
		if i == len(ts) {
			p.fail(ts[i-1].pos, "+", "expected n*{requirement} after +")
		}
	}
	return r
}

func isBinaryOp(t Token) bool { return t.Precedence() > LowestPrec }

// rawSection is a section found by parseSimple's structure pass.
type rawSection struct {
	kw       token // keyword; for the implicit select, its first token
	name     string
	content  []token
	closePos int
}

// parseSimple parses the sections of a simple requirement: first its
// structure (where each section starts and ends, duplicates, text outside
// sections), then each section's contents.
func (p *parser) parseSimple(ts []token, endPos int) *Simple {
	for _, t := range ts {
		if t.tok == LBRACE || t.tok == RBRACE {
			p.failTok(t, "unexpected "+t.lit)
		}
	}
	var secBuf [6]rawSection
	secs := secBuf[:0]
	selectSeen := false
	i, n := 0, len(ts)
	if n > 0 && !p.isSectionStart(ts, 0) {
		j := 0
		for j < n && !p.isSectionStart(ts, j) {
			j++
		}
		implicit := ts[:j]
		end := endPos
		if j < n {
			end = ts[j].pos
			if p.keyword(ts[j].lit) == "select" {
				if p.strict {
					p.failTok(ts[j], MsgDuplicateSection)
				}
				if last := implicit[len(implicit)-1]; isBinaryOp(last.tok) {
					p.note(last.pos, last.lit, "operator before a second select section ignored")
					implicit = implicit[:len(implicit)-1]
				}
			}
		}
		if len(implicit) > 0 {
			secs = append(secs, rawSection{kw: implicit[0], name: "select", content: implicit, closePos: end})
		}
		selectSeen = true
		i = j
	}
	var seen [8]bool // by sectionKeywords index
	for i < n {
		if !p.isSectionStart(ts, i) {
			j := i
			for j < n && !p.isSectionStart(ts, j) {
				j++
			}
			if p.strict {
				p.failTok(ts[i], MsgOutsideSection)
			}
			end := endPos
			if j < n {
				end = ts[j].pos
			}
			p.note(ts[i].pos, tokenText(ts[i]), fmt.Sprintf("ignored: %s", strings.TrimSpace(p.src[ts[i].pos:end])))
			i = j
			continue
		}
		kw := ts[i]
		k := i + 1
		depth := 0
		for ; k < n; k++ {
			if ts[k].tok == LBRACK {
				depth++
			} else if ts[k].tok == RBRACK {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if k >= n {
			p.fail(kw.pos, kw.lit, "missing ]")
		}
		name, kwi := p.keywordIndex(kw.lit)
		sec := rawSection{kw: kw, name: name, content: ts[i+2 : k], closePos: ts[k].pos}
		i = k + 1
		switch {
		case name == "select" && selectSeen:
			if p.strict {
				p.failTok(kw, MsgDuplicateSection)
			}
			p.note(kw.pos, kw.lit, "second select section ignored")
			continue
		case name == "select":
			selectSeen = true
		case p.selectOnly:
			continue // not checked by BSUB_CHK_RESREQ
		case seen[kwi]:
			p.failTok(kw, MsgDuplicateSection)
		}
		seen[kwi] = true
		secs = append(secs, sec)
	}
	s := &Simple{}
	for _, sec := range secs {
		for _, t := range sec.content {
			if t.tok == LBRACK {
				p.failTok(t, "unexpected [")
			}
		}
		kw, content, closePos := sec.kw, sec.content, sec.closePos
		switch sec.name {
		case "select":
			if len(content) > 0 {
				s.Select = &SelectSection{Pos: kw.pos, X: p.parseSelectExpr(content, closePos)}
			}
		case "order":
			s.Order = p.parseOrder(kw, content, closePos)
		case "rusage":
			s.Rusage = p.parseRusage(kw, content, closePos)
		case "span":
			s.Span = p.parseSpan(kw, content, closePos)
		case "same":
			s.Same = p.parseSame(kw, content, closePos)
		case "cu":
			s.Cu = p.parseCu(kw, content, closePos)
		case "affinity":
			p.failTok(kw, "affinity section not supported")
		}
	}
	if p.o.Context == CtxCond {
		p.condOnlySelect(s)
	}
	s.TypeRule = typeRule(s.Select, p.t, p.o.Context)
	return s
}

// condOnlySelect drops the sections STOP_COND and RESUME_COND ignore (all
// but select), leaving a note for each.
func (p *parser) condOnlySelect(s *Simple) {
	drop := func(pos int, name string) {
		p.note(pos, name, "only the select section is used in STOP_COND and RESUME_COND; "+name+" ignored")
	}
	if s.Order != nil {
		drop(s.Order.Pos, "order")
		s.Order = nil
	}
	if s.Rusage != nil {
		drop(s.Rusage.Pos, "rusage")
		s.Rusage = nil
	}
	if s.Span != nil {
		drop(s.Span.Pos, "span")
		s.Span = nil
	}
	if s.Same != nil {
		drop(s.Same.Pos, "same")
		s.Same = nil
	}
	if s.Cu != nil {
		drop(s.Cu.Pos, "cu")
		s.Cu = nil
	}
}

// typeRule decides the default type rule (the seed's "If no type is
// specified, the default depends on the command").
func typeRule(sel *SelectSection, t *Table, ctx Context) TypeRule {
	var n names
	if sel != nil {
		n.collect(sel.X, t)
	}
	switch ctx {
	case CtxLsload, CtxLshosts:
		return TypeAny
	case CtxCond:
		return TypeExplicit
	}
	switch {
	case n.hasType:
		return TypeExplicit
	case ctx == CtxQueue && n.hasModelBool, ctx != CtxQueue && n.hasStrBool:
		return TypeAny
	}
	return TypeLocal
}

// names records the kinds of resources a select string names.
type names struct{ hasType, hasStrBool, hasModelBool bool }

func (n *names) collect(x Expr, t *Table) {
	idx := -1
	switch x := x.(type) {
	case *Ident:
		idx = x.Index
	case *CallExpr:
		idx = x.Arg.Index
	case *UnaryExpr:
		n.collect(x.X, t)
	case *BinaryExpr:
		n.collect(x.X, t)
		n.collect(x.Y, t)
	}
	if idx < 0 || idx >= t.Len() {
		return
	}
	switch d := t.Def(idx); {
	case idx == IdxType:
		n.hasType = true
	case idx == IdxModel, d.Type == Boolean:
		n.hasStrBool, n.hasModelBool = true, true
	case d.Type == String:
		n.hasStrBool = true
	}
}

// walk calls f for x and every expression below it.
func walk(x Expr, f func(Expr)) {
	if x == nil {
		return
	}
	f(x)
	switch x := x.(type) {
	case *UnaryExpr:
		walk(x.X, f)
	case *BinaryExpr:
		walk(x.X, f)
		walk(x.Y, f)
	case *CallExpr:
		f(x.Arg)
	}
}

// lookup resolves a resource name. The select section's strict syntax is
// case-sensitive; everything else ignores case when no name matches exactly.
func (p *parser) lookup(name string, caseSensitive bool) (int, bool) {
	if caseSensitive {
		return p.t.Index(name)
	}
	return p.t.IndexFold(name)
}

func (p *parser) resolve(pos int, name string, caseSensitive bool) (int, ResourceDef) {
	i, ok := p.lookup(name, caseSensitive)
	if !ok {
		p.failClass(pos, name, MsgUnknownResource, ErrUnknownResource)
	}
	return i, p.t.Def(i)
}

// unitScale returns the factor converting a value in unit u to MB.
func unitScale(u string) (float64, bool) {
	switch strings.ToUpper(u) {
	case "", "MB", "M":
		return 1, true
	case "KB", "K":
		return 1.0 / 1024, true
	case "GB", "G":
		return 1024, true
	case "TB", "T":
		return 1024 * 1024, true
	case "PB", "P":
		return 1024 * 1024 * 1024, true
	case "EB", "E":
		return 1024 * 1024 * 1024 * 1024, true
	case "ZB", "Z":
		return 1024 * 1024 * 1024 * 1024 * 1024, true
	}
	return 0, false
}

// isMemIndex reports whether values of resource i are amounts of memory:
// LSF_UNIT_FOR_LIMITS applies to mem, swp and tmp; explicit units are also
// accepted for maxmem, maxswp and maxtmp.
func isMemIndex(i int, withMax bool) bool {
	switch i {
	case IdxMem, IdxSwp, IdxTmp:
		return true
	case IdxMaxmem, IdxMaxswp, IdxMaxtmp:
		return withMax
	}
	return false
}

// numberLit builds a literal from a NUMBER token, leaving its unit to be
// checked where the literal is used.
func (p *parser) numberLit(t token) *NumberLit {
	num, unit := splitNumber(t.lit)
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		p.failTok(t, "bad number")
	}
	return &NumberLit{ValuePos: t.pos, Text: num, Unit: unit, Value: v, Scale: 1}
}

// memValue applies units to a value of resource idx (select comparison or
// rusage): an explicit unit or LSF_UNIT_FOR_LIMITS for mem, swp and tmp.
func (p *parser) memValue(lit *NumberLit, idx int) {
	if lit.Unit != "" {
		sc, ok := unitScale(lit.Unit)
		if !ok || !isMemIndex(idx, true) {
			p.fail(lit.ValuePos, lit.Text+lit.Unit, fmt.Sprintf("unit %s not allowed here", lit.Unit))
		}
		lit.Scale = sc
		return
	}
	if isMemIndex(idx, false) {
		lit.Scale = p.unitScale
	}
}
