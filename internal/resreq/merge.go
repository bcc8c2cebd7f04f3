package resreq

import "fmt"

// MsgCompoundMulti is the error for a compound or alternative requirement
// given with other -R options.
const MsgCompoundMulti = "compound resource requirements do not support multiple -R options"

// ParseMulti parses bsub's several -R options and merges them into one
// simple requirement: the select sections are ANDed in order; the first order,
// span and cu sections are used; rusage usage strings are concatenated (a
// resource may appear once; || alternatives cannot be merged with another
// -R's rusage); same sections are combined. Compound and alternative
// requirements do not support multiple -R options. Error positions carry the
// index of the option in Error.Arg.
func ParseMulti(reqs []string, o Options) (*ResReq, error) {
	switch len(reqs) {
	case 0:
		return Parse("", o)
	case 1:
		return Parse(reqs[0], o)
	}
	var errs ErrorList
	var parsed []*Simple
	var notes []*Error
	for i, s := range reqs {
		r, err := parseArg(s, i, o, false)
		if err != nil {
			if l, ok := err.(ErrorList); ok {
				errs = append(errs, l...)
			}
			continue
		}
		if r.Kind != KindSimple {
			pos, near := firstToken(s)
			errs.Add(i, pos, near, MsgCompoundMulti, ErrSyntax)
			continue
		}
		parsed = append(parsed, r.Simple)
		notes = append(notes, r.Notes...)
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	s, err := mergeOptions(parsed, o)
	if err != nil {
		return nil, err
	}
	return &ResReq{Kind: KindSimple, Simple: s, Notes: notes}, nil
}

func firstToken(s string) (int, string) {
	var sc Scanner
	sc.Init(s, 0, nil)
	pos, _, lit := sc.Scan()
	return pos, lit
}

func and(x, y Expr) Expr {
	switch {
	case x == nil:
		return y
	case y == nil:
		return x
	}
	return &BinaryExpr{X: x, OpPos: y.Pos(), Op: LAND, Y: y}
}

func mergeOptions(ss []*Simple, o Options) (*Simple, error) {
	out := &Simple{}
	var errs ErrorList
	for arg, s := range ss {
		if s.Select != nil && s.Select.X != nil {
			if out.Select == nil {
				out.Select = &SelectSection{Pos: s.Select.Pos, X: s.Select.X}
			} else {
				out.Select = &SelectSection{Pos: out.Select.Pos, X: and(out.Select.X, s.Select.X)}
			}
		}
		if out.Order == nil {
			out.Order = s.Order
		}
		if out.Span == nil {
			out.Span = s.Span
		}
		if out.Cu == nil {
			out.Cu = s.Cu
		}
		out.Same = unionSame(out.Same, s.Same)
		switch {
		case s.Rusage == nil:
		case out.Rusage == nil:
			out.Rusage = s.Rusage
		case len(out.Rusage.Alts) > 1 || len(s.Rusage.Alts) > 1:
			errs.Add(arg, s.Rusage.Pos, "rusage", "rusage alternatives (||) cannot be merged with another -R option's rusage", ErrSyntax)
		default:
			seen := map[string]bool{}
			for _, g := range out.Rusage.Alts[0].Groups {
				for _, it := range g.Items {
					seen[it.Name] = true
				}
			}
			for _, g := range s.Rusage.Alts[0].Groups {
				for _, it := range g.Items {
					if seen[it.Name] {
						errs.Add(arg, it.Pos, it.Name, "resource appears twice in rusage", ErrSyntax)
					}
				}
			}
			groups := append(append([]*RusageGroup(nil), out.Rusage.Alts[0].Groups...), s.Rusage.Alts[0].Groups...)
			out.Rusage = &RusageSection{Pos: out.Rusage.Pos, Alts: []*RusageAlt{{Groups: groups}}}
		}
	}
	if out.Select != nil && exprDepth(out.Select.X) > maxDepth {
		arg, pos := 0, 0
		for i, s := range ss {
			if s.Select != nil && s.Select.X != nil {
				arg, pos = i, s.Select.Pos
			}
		}
		errs.Add(arg, pos, "select", MsgNestedTooDeep, ErrSyntax)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	t := o.Table
	if t == nil {
		t = BuiltinTable()
	}
	out.TypeRule = typeRule(out.Select, t, o.Context)
	return out, nil
}

func unionSame(a, b *SameSection) *SameSection {
	switch {
	case b == nil:
		return a
	case a == nil:
		return b
	}
	out := &SameSection{Pos: a.Pos, Names: append([]string(nil), a.Names...)}
	for _, n := range b.Names {
		dup := false
		for _, m := range out.Names {
			dup = dup || m == n
		}
		if !dup {
			out.Names = append(out.Names, n)
		}
	}
	return out
}

func (s *Simple) empty() bool {
	return s == nil || (s.Select == nil || s.Select.X == nil) && s.Order == nil && s.Rusage == nil &&
		s.Span == nil && s.Same == nil && s.Cu == nil
}

func (r *ResReq) empty() bool { return r == nil || r.Kind == KindSimple && r.Simple.empty() }

// Merge combines a job-level requirement with the queue's RES_REQ (LSF's
// rules, reference §2.7). Either may be nil (not given).
//
//   - select: a host must satisfy both.
//   - order: the job's; the queue's is ignored once the job gives any
//     requirement, and the default r15s:pg applies if the job has none.
//   - rusage: merged per resource, the job's value winning; the queue's
//     resources, durations and decays are kept where the job gives none.
//     For the internal load indices the job's value and duration may not
//     exceed the queue's (ErrMerge). Job-level || alternatives replace the
//     queue's rusage.
//   - span and cu: the job's if given, else the queue's; span[hosts=-1]
//     cancels the queue's span.
//   - same: both combined.
//   - type: type==local applies only if neither level lifted it.
//
// A compound job requirement merges the queue's simple one into each term,
// an alternative one into each alternative. A compound or alternative queue
// requirement is used only when the job gives none.
func Merge(job, queue *ResReq) (*ResReq, error) {
	switch {
	case job.empty() && queue == nil:
		if job != nil {
			return job, nil
		}
		return &ResReq{Kind: KindSimple, Simple: &Simple{TypeRule: TypeLocal}}, nil
	case queue == nil:
		return job, nil
	case job.empty() && queue.Kind != KindSimple:
		return queue, nil
	case job.empty():
		s := *queue.Simple
		if job != nil && job.Simple != nil {
			s.TypeRule = mergeTypeRule(job.Simple.TypeRule, queue.Simple.TypeRule)
		}
		return &ResReq{Kind: KindSimple, Simple: &s}, nil
	case queue.Kind != KindSimple:
		return job, nil
	}
	switch job.Kind {
	case KindCompound:
		out := &ResReq{Kind: KindCompound}
		for _, t := range job.Terms {
			s, err := mergeSimple(t.Req, queue.Simple)
			if err != nil {
				return nil, err
			}
			out.Terms = append(out.Terms, &Term{SlotsPos: t.SlotsPos, Slots: t.Slots, Req: s})
		}
		return out, nil
	case KindAlternative:
		out := &ResReq{Kind: KindAlternative}
		for _, a := range job.Alts {
			m, err := Merge(a, queue)
			if err != nil {
				return nil, err
			}
			out.Alts = append(out.Alts, m)
		}
		return out, nil
	}
	s, err := mergeSimple(job.Simple, queue.Simple)
	if err != nil {
		return nil, err
	}
	return &ResReq{Kind: KindSimple, Simple: s}, nil
}

func mergeTypeRule(job, queue TypeRule) TypeRule {
	switch {
	case job == TypeLocal && queue == TypeLocal:
		return TypeLocal
	case job == TypeExplicit || queue == TypeExplicit:
		return TypeExplicit
	}
	return TypeAny
}

func mergeSimple(j, q *Simple) (*Simple, error) {
	out := &Simple{Order: j.Order, TypeRule: mergeTypeRule(j.TypeRule, q.TypeRule)}
	var jx, qx Expr
	if j.Select != nil {
		jx = j.Select.X
	}
	if q.Select != nil {
		qx = q.Select.X
	}
	if x := and(jx, qx); x != nil {
		if exprDepth(x) > maxDepth {
			return nil, ErrorList{{Pos: x.Pos(), Near: "select", Msg: MsgNestedTooDeep, Err: ErrSyntax}}
		}
		pos := 0
		if j.Select != nil {
			pos = j.Select.Pos
		}
		out.Select = &SelectSection{Pos: pos, X: x}
	}
	switch {
	case j.Span != nil && j.Span.Hosts == -1:
	case j.Span != nil:
		out.Span = j.Span
	default:
		out.Span = q.Span
	}
	out.Cu = j.Cu
	if out.Cu == nil {
		out.Cu = q.Cu
	}
	out.Same = unionSame(j.Same, q.Same)
	ru, err := mergeRusage(j.Rusage, q.Rusage)
	if err != nil {
		return nil, err
	}
	out.Rusage = ru
	return out, nil
}

func mergeRusage(j, q *RusageSection) (*RusageSection, error) {
	switch {
	case j == nil:
		return q, nil
	case q == nil, len(j.Alts) > 1:
		return j, nil
	}
	out := &RusageSection{Pos: j.Pos}
	for _, qa := range q.Alts {
		a, err := mergeRusageAlt(j.Alts[0], qa)
		if err != nil {
			return nil, err
		}
		out.Alts = append(out.Alts, a)
	}
	return out, nil
}

// effUsage is one usage with the duration and decay that apply to it.
type effUsage struct {
	item  *RusageItem
	dur   *NumberLit
	decay int
}

func mergeRusageAlt(ja, qa *RusageAlt) (*RusageAlt, error) {
	type qent struct {
		item  *RusageItem
		group *RusageGroup
	}
	qmap := map[string]qent{}
	for _, g := range qa.Groups {
		for _, it := range g.Items {
			qmap[it.Name] = qent{it, g}
		}
	}
	var errs ErrorList
	var us []effUsage
	inJob := map[string]bool{}
	for _, g := range ja.Groups {
		for _, it := range g.Items {
			inJob[it.Name] = true
			e := effUsage{it, g.Duration, g.Decay}
			if qe, ok := qmap[it.Name]; ok {
				if i, ok := BuiltinTable().Index(it.Name); ok && i < NumLoadIndices {
					if it.Value.Scaled() > qe.item.Value.Scaled() {
						errs.Add(0, it.Pos, it.Name, fmt.Sprintf("rusage value exceeds the queue's (%s=%s%s)",
							qe.item.Name, qe.item.Value.Text, qe.item.Value.Unit), ErrMerge)
					}
					if g.Duration != nil && qe.group.Duration != nil &&
						DurationSeconds(g.Duration) > DurationSeconds(qe.group.Duration) {
						errs.Add(0, g.Duration.ValuePos, it.Name, "rusage duration exceeds the queue's", ErrMerge)
					}
				}
				if g.Duration == nil {
					e.dur = qe.group.Duration
					if g.Decay < 0 {
						e.decay = qe.group.Decay
					}
				}
			}
			us = append(us, e)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	for _, g := range qa.Groups {
		for _, it := range g.Items {
			if !inJob[it.Name] {
				us = append(us, effUsage{it, g.Duration, g.Decay})
			}
		}
	}
	// Regroup: usages with the same duration and decay share a usage string.
	out := &RusageAlt{}
	byKey := map[string]*RusageGroup{}
	for _, u := range us {
		key := fmt.Sprintf("life/%d", u.decay)
		if u.dur != nil {
			key = fmt.Sprintf("%ds/%d", DurationSeconds(u.dur), u.decay)
		}
		g, ok := byKey[key]
		if !ok {
			g = &RusageGroup{Duration: u.dur, Decay: u.decay}
			byKey[key] = g
			out.Groups = append(out.Groups, g)
		}
		g.Items = append(g.Items, u.item)
	}
	return out, nil
}

// CheckSelect is bsub's BSUB_CHK_RESREQ check: the select sections of each
// -R string against the strict syntax (whatever LSF_STRICT_RESREQ says), with
// the names checked against the resource table. The other sections are only
// delimited, not checked. The error is an *Error whose Error() is LSF's
// message without ". Job not submitted."; nil when the strings are valid (or
// there are none).
func CheckSelect(reqs []string, o Options) error {
	o.Strict = true
	for i, s := range reqs {
		r, err := parseArg(s, i, o, true)
		if err != nil {
			if e := FirstError(err); e != nil {
				return e
			}
			return err
		}
		if len(reqs) > 1 && r.Kind != KindSimple {
			pos, near := firstToken(s)
			return &Error{Arg: i, Pos: pos, Near: near, Msg: MsgCompoundMulti, Err: ErrSyntax}
		}
	}
	return nil
}

// exprDepth returns the depth of an expression tree (a leaf is 0).
func exprDepth(x Expr) int {
	switch x := x.(type) {
	case *UnaryExpr:
		return 1 + exprDepth(x.X)
	case *BinaryExpr:
		return 1 + max(exprDepth(x.X), exprDepth(x.Y))
	}
	return 0
}
