package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

var resreqSpec = lsfopt.New("h|strict|m|c:|q:|u:")

func init() {
	Register(&Command{Name: "resreq", Sub: true, Summary: "parse and explain resource requirement strings", Run: runResreq})
}

func resreqUsage(w io.Writer) {
	fmt.Fprintln(w, `Usage: basalt resreq [-strict] [-c bsub|queue|lsload|lshosts|lsplace|lsrun|bhosts|cond]
                     [-u unit] [-m] [-q "queue_res_req"] "res_req" ...
  -strict  LSF_STRICT_RESREQ=Y (default: lsf.conf's setting)
  -c       the command or level the string comes from (default bsub)
  -u       LSF_UNIT_FOR_LIMITS for mem, swp and tmp values (default: lsf.conf's, else MB)
  -m       merge the strings as bsub merges several -R options
  -q       merge with this queue-level RES_REQ`)
}

// runResreq is "basalt resreq": it prints each requirement's canonical form
// and a breakdown of its sections, or the error with a caret under the
// offending column.
func runResreq(ctx context.Context, env *Env, args []string) int {
	res, err := resreqSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "basalt resreq: %v\n", err)
		resreqUsage(env.Stderr)
		return ExitUsage
	}
	if res.Has("h") {
		resreqUsage(env.Stdout)
		return 0
	}
	if len(res.Operands) == 0 {
		resreqUsage(env.Stderr)
		return ExitUsage
	}
	c := resreq.CtxBsub
	if v, ok := res.Last("c"); ok {
		var known bool
		if c, known = resreq.ParseContext(v); !known {
			fmt.Fprintf(env.Stderr, "basalt resreq: unknown context %q\n", v)
			resreqUsage(env.Stderr)
			return ExitUsage
		}
	}
	o := resreqOptions(ctx, env, c)
	if res.Has("strict") {
		o.Strict = true
	}
	if u, ok := res.Last("u"); ok {
		o.Unit = u
	}
	var queue *resreq.ResReq
	if q, ok := res.Last("q"); ok {
		qo := o
		qo.Context = resreq.CtxQueue
		queue, err = resreq.Parse(q, qo)
		if err != nil {
			printResReqError(env, []string{q}, err, "queue RES_REQ")
			return ExitUsage
		}
	}
	status := 0
	var reqs []*resreq.ResReq
	var srcs [][]string
	if res.Has("m") {
		r, err := resreq.ParseMulti(res.Operands, o)
		if err != nil {
			printResReqError(env, res.Operands, err, "")
			return ExitUsage
		}
		reqs, srcs = append(reqs, r), append(srcs, res.Operands)
	} else {
		for _, s := range res.Operands {
			r, err := resreq.Parse(s, o)
			if err != nil {
				printResReqError(env, []string{s}, err, "")
				status = ExitUsage
				continue
			}
			reqs, srcs = append(reqs, r), append(srcs, []string{s})
		}
	}
	for i, r := range reqs {
		if i > 0 {
			fmt.Fprintln(env.Stdout)
		}
		for _, n := range r.Notes {
			src := srcs[i][0]
			if n.Arg < len(srcs[i]) {
				src = srcs[i][n.Arg]
			}
			fmt.Fprintf(env.Stdout, "note: near %q: %s\n", n.Near, n.Msg)
			printCaret(env.Stdout, src, n.Pos, "    ")
		}
		if queue != nil {
			m, err := resreq.Merge(r, queue)
			if err != nil {
				printResReqError(env, srcs[i], err, "")
				status = ExitUsage
				continue
			}
			r = m
		}
		explainResReq(env.Stdout, r, o)
	}
	return status
}

// printResReqError prints the error with the string and a caret under the
// offending column.
func printResReqError(env *Env, srcs []string, err error, what string) {
	e := resreq.FirstError(err)
	if e == nil {
		fmt.Fprintf(env.Stderr, "%v\n", err)
		return
	}
	src := srcs[0]
	if e.Arg < len(srcs) {
		src = srcs[e.Arg]
	}
	if what != "" {
		fmt.Fprintf(env.Stderr, "%s: ", what)
	}
	if len(srcs) > 1 {
		fmt.Fprintf(env.Stderr, "-R #%d: ", e.Arg+1)
	}
	fmt.Fprintf(env.Stderr, "column %d: %v\n", utf8.RuneCountInString(src[:min(e.Pos, len(src))])+1, e)
	printCaret(env.Stderr, src, e.Pos, "    ")
}

// printCaret prints src and a caret under byte offset pos.
func printCaret(w io.Writer, src string, pos int, indent string) {
	pos = max(0, min(pos, len(src)))
	flat := strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, src)
	fmt.Fprintf(w, "%s%s\n%s%s^\n", indent, flat, indent, strings.Repeat(" ", utf8.RuneCountInString(src[:pos])))
}

// explainResReq prints the canonical form and each section.
func explainResReq(w io.Writer, r *resreq.ResReq, o resreq.Options) {
	fmt.Fprintf(w, "canonical: %s\n", r)
	t := o.Table
	if t == nil {
		t = resreq.BuiltinTable()
	}
	c, err := r.Compile(t, resreq.Local{})
	if err != nil {
		fmt.Fprintf(w, "compile: %v\n", err)
		return
	}
	switch r.Kind {
	case resreq.KindSimple:
		fmt.Fprintln(w, "kind: simple")
		explainSimple(w, r.Simple, c, "")
	case resreq.KindCompound:
		fmt.Fprintf(w, "kind: compound, %d terms\n", len(r.Terms))
		explainTerms(w, r, c, "")
	case resreq.KindAlternative:
		fmt.Fprintf(w, "kind: alternative, %d alternatives (the first satisfiable one is used)\n", len(r.Alts))
		for i, a := range r.Alts {
			fmt.Fprintf(w, "alternative %d: %s\n", i+1, a)
			ac := c.Alternatives[i]
			if a.Kind == resreq.KindCompound {
				explainTerms(w, a, ac, "  ")
			} else {
				explainSimple(w, a.Simple, ac, "  ")
			}
		}
	}
}

func explainTerms(w io.Writer, r *resreq.ResReq, c *resreq.Compiled, indent string) {
	for i, term := range r.Terms {
		slots := "the remaining slots"
		if term.Slots > 0 {
			slots = fmt.Sprintf("%d slots", term.Slots)
		}
		fmt.Fprintf(w, "%sterm %d: %s: %s\n", indent, i+1, slots, term.Req)
		explainSimple(w, term.Req, c.Terms[i].Req, indent+"  ")
	}
}

func explainSimple(w io.Writer, s *resreq.Simple, c *resreq.Compiled, indent string) {
	line := func(name, format string, args ...any) {
		fmt.Fprintf(w, "%s%-8s %s\n", indent, name+":", fmt.Sprintf(format, args...))
	}
	if s.Select != nil && s.Select.X != nil {
		line("select", "%s", resreq.ExprString(s.Select.X))
	} else {
		line("select", "(none)")
	}
	switch s.TypeRule {
	case resreq.TypeLocal:
		line("type", "type==local by default (hosts of the submission host's type)")
	case resreq.TypeAny:
		line("type", "type==any by default")
	default:
		line("type", "no default")
	}
	var keys []string
	for _, k := range c.Order {
		dir := "smallest first"
		if !k.Ascending {
			dir = "largest first"
		}
		name := k.Name
		if k.Reverse {
			name = "-" + name
		}
		keys = append(keys, fmt.Sprintf("%s (%s)", name, dir))
	}
	dflt := ""
	if s.Order == nil {
		dflt = " [default]"
	}
	resort := ""
	if c.OrderResort {
		resort = " [re-sorted after the other policies]"
	}
	line("order", "%s%s%s", strings.Join(keys, ", "), dflt, resort)
	if c.Rusage == nil {
		line("rusage", "(none)")
	}
	for i, alt := range c.Rusage {
		var us []string
		for _, u := range alt {
			v := fmt.Sprintf("%s=%g", u.Name, u.Value)
			switch u.Index {
			case resreq.IdxMem, resreq.IdxSwp, resreq.IdxTmp:
				v += " MB"
			}
			if u.Duration > 0 {
				v += " for " + u.Duration.String()
				if u.Decay {
					v += " decaying"
				}
			}
			us = append(us, v)
		}
		name := "rusage"
		if i > 0 {
			name = "or"
		}
		line(name, "%s", strings.Join(us, ", "))
	}
	if sp := c.Span; sp != nil {
		var parts []string
		switch sp.Hosts {
		case 1:
			parts = append(parts, "all slots on one host")
		case -1:
			parts = append(parts, "no limit (cancels the queue's span)")
		}
		if sp.PtileMax {
			parts = append(parts, "ptile: the host's MXJ")
		} else if sp.Ptile > 0 {
			parts = append(parts, fmt.Sprintf("ptile: %d slots per host", sp.Ptile))
		}
		for _, e := range sp.PtileByName {
			parts = append(parts, fmt.Sprintf("%d slots per %s host", e.N, e.Name))
		}
		if sp.Block > 0 {
			parts = append(parts, fmt.Sprintf("blocks of %d slots", sp.Block))
		}
		line("span", "%s", strings.Join(parts, "; "))
	}
	if s.Same != nil {
		line("same", "%s", strings.Join(s.Same.Names, ", "))
	}
	if cu := s.Cu; cu != nil {
		line("cu", "%s", strings.TrimSuffix(strings.TrimPrefix((&resreq.Simple{Cu: cu}).String(), "cu["), "]"))
	}
}
