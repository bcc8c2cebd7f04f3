package resreq

import (
	"fmt"
	"strconv"
	"strings"
)

// The order, rusage, span, same and cu sections are not subject to the
// strict select syntax: their names and keywords ignore case when nothing
// matches exactly.

// split cuts ts at each sep token, appending the pieces and the separators
// to the given slices (callers pass stack buffers).
func split(ts []token, sep Token, pieces [][]token, seps []token) ([][]token, []token) {
	start := 0
	for i, t := range ts {
		if t.tok == sep {
			pieces = append(pieces, ts[start:i])
			seps = append(seps, t)
			start = i + 1
		}
	}
	return append(pieces, ts[start:]), seps
}

// seenSet is a small set of resource indices (sections name few).
type seenSet []int

func (s *seenSet) add(i int) bool {
	for _, j := range *s {
		if j == i {
			return false
		}
	}
	*s = append(*s, i)
	return true
}

// emptyPiece reports an empty piece of a separated list.
func (p *parser) emptyPiece(i int, seps []token, kw token, closePos int) {
	switch {
	case i < len(seps):
		p.failTok(seps[i], "missing value before "+seps[i].lit)
	case i > 0:
		p.fail(closePos, seps[i-1].lit, "missing value after "+seps[i-1].lit)
	default:
		p.failTok(kw, "empty section")
	}
}

func (p *parser) positiveInt(t token, what string) int {
	if t.tok != NUMBER {
		p.failTok(t, what+" must be a positive integer")
	}
	n, err := strconv.Atoi(t.lit)
	if err != nil || n <= 0 {
		p.failTok(t, what+" must be a positive integer")
	}
	return n
}

func (p *parser) word(lit, w string) bool { return lit == w || strings.EqualFold(lit, w) }

// parseOrder parses order[[!][-]name[:[-]name]...].
func (p *parser) parseOrder(kw token, ts []token, closePos int) *OrderSection {
	if len(ts) == 0 {
		return nil
	}
	sec := &OrderSection{Pos: kw.pos}
	if ts[0].tok == NOT {
		sec.Resort = true
		ts = ts[1:]
	}
	var pbuf [8][]token
	var sbuf [8]token
	var seenBuf [8]int
	pieces, seps := split(ts, COLON, pbuf[:0], sbuf[:0])
	seen := seenSet(seenBuf[:0])
	sec.Keys = make([]*OrderKeyExpr, 0, len(pieces))
	for i, piece := range pieces {
		if len(piece) == 0 {
			p.emptyPiece(i, seps, kw, closePos)
		}
		key := &OrderKeyExpr{Pos: piece[0].pos}
		if piece[0].tok == SUB {
			key.Reverse = true
			piece = piece[1:]
			if len(piece) == 0 {
				p.fail(key.Pos, "-", "missing resource name after -")
			}
		}
		if piece[0].tok != IDENT {
			p.failTok(piece[0], "resource name expected")
		}
		if len(piece) > 1 {
			p.failTok(piece[1], "syntax error")
		}
		idx, d := p.resolve(piece[0].pos, piece[0].lit, false)
		if d.Type != Numeric {
			p.failTok(piece[0], "order needs a numeric resource")
		}
		if !seen.add(idx) {
			p.failTok(piece[0], "resource appears twice in order")
		}
		key.Name = d.Name
		sec.Keys = append(sec.Keys, key)
	}
	return sec
}

// parseRusage parses rusage[usage[, usage]...[|| usage...]] where usage is
// name=value[:name=value]...[:duration=d][:decay=0|1].
func (p *parser) parseRusage(kw token, ts []token, closePos int) *RusageSection {
	if len(ts) == 0 {
		return nil
	}
	sec := &RusageSection{Pos: kw.pos}
	var abuf, gbuf, ibuf [8][]token
	var asep, gsep, isep [8]token
	var seenBuf [8]int
	alts, altSeps := split(ts, LOR, abuf[:0], asep[:0])
	for ai, altToks := range alts {
		if len(altToks) == 0 {
			p.emptyPiece(ai, altSeps, kw, closePos)
		}
		alt := &RusageAlt{}
		seen := seenSet(seenBuf[:0])
		groups, groupSeps := split(altToks, COMMA, gbuf[:0], gsep[:0])
		for gi, groupToks := range groups {
			if len(groupToks) == 0 {
				p.emptyPiece(gi, groupSeps, kw, closePos)
			}
			g := &RusageGroup{Decay: -1}
			dropped := 0
			items, itemSeps := split(groupToks, COLON, ibuf[:0], isep[:0])
			for ii, it := range items {
				if len(it) == 0 {
					p.emptyPiece(ii, itemSeps, kw, closePos)
				}
				if it[0].tok != IDENT {
					p.failTok(it[0], "resource name expected")
				}
				if len(it) < 2 || it[1].tok != ASSIGN {
					near := it[0]
					if len(it) >= 2 {
						near = it[1]
					}
					p.failTok(near, "expected name=value")
				}
				if len(it) < 3 {
					p.fail(it[1].pos, it[0].lit+"=", "missing value")
				}
				if len(it) > 3 {
					p.failTok(it[3], "syntax error")
				}
				name, val := it[0], it[2]
				if val.tok != NUMBER {
					p.failTok(val, "value must be a number")
				}
				switch {
				case p.word(name.lit, "duration"):
					if g.Duration != nil {
						p.failTok(name, "duration given twice")
					}
					g.Duration = p.duration(val)
				case p.word(name.lit, "decay"):
					if g.Decay >= 0 {
						p.failTok(name, "decay given twice")
					}
					if val.lit != "0" && val.lit != "1" {
						p.failTok(val, "decay must be 0 or 1")
					}
					g.DecayPos = name.pos
					g.Decay = int(val.lit[0] - '0')
				default:
					idx, d := p.resolve(name.pos, name.lit, false)
					if d.Type != Numeric {
						p.failTok(name, "rusage needs a numeric resource")
					}
					if !d.Consumable {
						if p.strict {
							p.failTok(name, MsgNonConsumable)
						}
						p.note(name.pos, name.lit, "non-consumable resource ignored in rusage")
						dropped++
						continue
					}
					if !seen.add(idx) {
						p.failTok(name, "resource appears twice in rusage")
					}
					lit := p.numberLit(val)
					p.memValue(lit, idx)
					g.Items = append(g.Items, &RusageItem{Pos: name.pos, Name: d.Name, Value: lit})
				}
			}
			if len(g.Items) == 0 {
				if dropped > 0 {
					continue
				}
				p.failTok(groupToks[0], "usage string names no resource")
			}
			alt.Groups = append(alt.Groups, g)
		}
		if len(alt.Groups) > 0 {
			sec.Alts = append(sec.Alts, alt)
		}
	}
	if len(sec.Alts) == 0 {
		return nil
	}
	return sec
}

// duration parses a duration value: minutes, or a number with m, h or s.
func (p *parser) duration(t token) *NumberLit {
	num, unit := splitNumber(t.lit)
	switch strings.ToLower(unit) {
	case "", "m", "h", "s":
	default:
		p.failTok(t, "duration unit must be m, h or s")
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		p.failTok(t, "duration must be a whole number")
	}
	return &NumberLit{ValuePos: t.pos, Text: num, Unit: unit, Value: float64(n), Scale: 1}
}

// DurationSeconds returns a rusage duration in seconds (minutes by default).
func DurationSeconds(d *NumberLit) int64 {
	if d == nil {
		return 0
	}
	v := int64(d.Value)
	switch strings.ToLower(d.Unit) {
	case "s":
		return v
	case "h":
		return v * 3600
	}
	return v * 60
}

// parseSpan parses span[hosts=1|-1], span[ptile=...] and span[block=n],
// keywords separated by colons.
func (p *parser) parseSpan(kw token, ts []token, closePos int) *SpanSection {
	if len(ts) == 0 {
		return nil
	}
	sec := &SpanSection{Pos: kw.pos}
	i := 0
	seen := map[string]bool{}
	for {
		if i >= len(ts) {
			p.fail(closePos, ":", "missing keyword after :")
		}
		key := ts[i]
		if key.tok != IDENT {
			p.failTok(key, "span keyword expected")
		}
		if i+1 >= len(ts) || ts[i+1].tok != ASSIGN {
			p.failTok(key, "expected "+key.lit+"=value")
		}
		i += 2
		if i >= len(ts) {
			p.fail(closePos, key.lit+"=", "missing value")
		}
		name := strings.ToLower(key.lit)
		if seen[name] {
			p.failTok(key, "keyword given twice")
		}
		seen[name] = true
		switch name {
		case "hosts":
			neg := false
			if ts[i].tok == SUB {
				neg = true
				i++
				if i >= len(ts) {
					p.fail(closePos, "-", "missing value")
				}
			}
			n := p.positiveInt(ts[i], "hosts")
			if n != 1 {
				p.failTok(ts[i], "hosts must be 1 or -1")
			}
			if neg {
				n = -1
			}
			sec.Hosts = n
			i++
		case "ptile":
			sec.Ptile = &Ptile{}
			i = p.parsePtile(sec.Ptile, ts, i, closePos)
		case "block":
			sec.Block = p.positiveInt(ts[i], "block")
			i++
		default:
			p.failTok(key, "unknown span keyword "+key.lit)
		}
		if i == len(ts) {
			break
		}
		if ts[i].tok != COLON {
			p.failTok(ts[i], "syntax error")
		}
		i++
	}
	switch {
	case sec.Hosts != 0 && sec.Ptile != nil:
		p.failTok(kw, "hosts and ptile cannot be combined")
	case sec.Block != 0 && (sec.Hosts != 0 || sec.Ptile != nil):
		p.failTok(kw, "block cannot be combined with hosts or ptile")
	}
	return sec
}

// parsePtile parses n | '!' | name:n, separated by commas, from ts[i].
func (p *parser) parsePtile(pt *Ptile, ts []token, i, closePos int) int {
	hasDefault := false
	names := map[string]bool{}
	for {
		if i >= len(ts) {
			p.fail(closePos, ",", "missing ptile value")
		}
		t := ts[i]
		switch {
		case t.tok == NUMBER, t.tok == STRING && t.lit == "!", t.tok == NOT:
			if hasDefault {
				p.failTok(t, "ptile has two default values")
			}
			hasDefault = true
			if t.tok == NUMBER {
				pt.N = p.positiveInt(t, "ptile")
			} else {
				pt.Max = true
			}
			i++
		case t.tok == IDENT:
			if i+2 >= len(ts) || ts[i+1].tok != COLON || ts[i+2].tok != NUMBER {
				p.failTok(t, "expected "+t.lit+":n in ptile")
			}
			if names[t.lit] {
				p.failTok(t, t.lit+" appears twice in ptile")
			}
			names[t.lit] = true
			pt.ByName = append(pt.ByName, PtileEntry{Name: t.lit, N: p.positiveInt(ts[i+2], "ptile")})
			i += 3
		default:
			p.failTok(t, "ptile value must be a number, '!' or type:number")
		}
		if i >= len(ts) || ts[i].tok != COMMA {
			return i
		}
		i++
	}
}

// parseSame parses same[name[:name]...]: static resources only.
func (p *parser) parseSame(kw token, ts []token, closePos int) *SameSection {
	if len(ts) == 0 {
		return nil
	}
	sec := &SameSection{Pos: kw.pos}
	var pbuf [8][]token
	var sbuf [8]token
	var seenBuf [8]int
	pieces, seps := split(ts, COLON, pbuf[:0], sbuf[:0])
	seen := seenSet(seenBuf[:0])
	for i, piece := range pieces {
		if len(piece) == 0 {
			p.emptyPiece(i, seps, kw, closePos)
		}
		if piece[0].tok != IDENT {
			p.failTok(piece[0], "resource name expected")
		}
		if len(piece) > 1 {
			p.failTok(piece[1], "syntax error")
		}
		idx, d := p.resolve(piece[0].pos, piece[0].lit, false)
		if d.Dynamic() {
			p.failTok(piece[0], "same needs a static resource")
		}
		if !seen.add(idx) {
			p.failTok(piece[0], "resource appears twice in same")
		}
		sec.Names = append(sec.Names, d.Name)
	}
	return sec
}

// cuPrefs are the values of cu[pref=...].
var cuPrefs = []string{"config", "minavail", "maxavail", "bestfit"}

// parseCu parses cu[type=t:pref=p:maxcus=n:balance:excl|usablecuslots=n].
func (p *parser) parseCu(kw token, ts []token, closePos int) *CuSection {
	if len(ts) == 0 {
		return nil
	}
	sec := &CuSection{Pos: kw.pos}
	var pbuf [8][]token
	var sbuf [8]token
	pieces, seps := split(ts, COLON, pbuf[:0], sbuf[:0])
	seen := map[string]bool{}
	for i, piece := range pieces {
		if len(piece) == 0 {
			p.emptyPiece(i, seps, kw, closePos)
		}
		key := piece[0]
		if key.tok != IDENT {
			p.failTok(key, "cu keyword expected")
		}
		name := strings.ToLower(key.lit)
		if seen[name] {
			p.failTok(key, "keyword given twice")
		}
		seen[name] = true
		var val token
		switch name {
		case "balance", "excl":
			if len(piece) > 1 {
				p.failTok(piece[1], name+" takes no value")
			}
		case "type", "pref", "maxcus", "usablecuslots":
			if len(piece) < 2 || piece[1].tok != ASSIGN {
				p.failTok(key, "expected "+key.lit+"=value")
			}
			if len(piece) < 3 {
				p.fail(piece[1].pos, key.lit+"=", "missing value")
			}
			if len(piece) > 3 {
				p.failTok(piece[3], "syntax error")
			}
			val = piece[2]
		default:
			p.failTok(key, "unknown cu keyword "+key.lit)
		}
		switch name {
		case "balance":
			sec.Balance = true
		case "excl":
			sec.Excl = true
		case "type":
			if val.tok != IDENT {
				p.failTok(val, "compute unit type expected")
			}
			sec.Type = val.lit
		case "pref":
			ok := false
			for _, v := range cuPrefs {
				if val.tok == IDENT && strings.EqualFold(val.lit, v) {
					sec.Pref, ok = v, true
				}
			}
			if !ok {
				p.failTok(val, fmt.Sprintf("pref must be one of %s", strings.Join(cuPrefs, ", ")))
			}
		case "maxcus":
			sec.MaxCUs = p.positiveInt(val, "maxcus")
		case "usablecuslots":
			sec.UsableCUSlots = p.positiveInt(val, "usablecuslots")
		}
	}
	if sec.Excl && sec.UsableCUSlots > 0 {
		p.failTok(kw, "excl and usablecuslots cannot be combined")
	}
	return sec
}
