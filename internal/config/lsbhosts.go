package config

import (
	"math"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config/lex"
	"github.com/basalt-lsf/basalt/internal/config/timewin"
)

// LSBHosts is lsb.hosts: per-host batch parameters, host groups and host
// partitions. Groups and partitions are resolved by the loader.
type LSBHosts struct {
	Path string
	// HostSection reports whether the file has a Host section. Without one
	// every server host of the cluster is a batch server with default
	// parameters.
	HostSection bool
	Rows        []*HostRow
	Groups      []*HostGroup
	Partitions  []*HostPartition

	rowByName map[string]*HostRow // lower-cased row name
}

// HostRow is a row of the Host section. Name is a host, a host model, a
// host type or "default"; a host's own row overrides its model's, which
// overrides its type's, which overrides the default row.
type HostRow struct {
	Name string
	// MXJ is the host's job slot limit; -1 is unlimited. MXJCPUs ('!')
	// means "the number of CPUs", known only at run time.
	MXJ     int
	MXJCPUs bool
	// JLU is the per-user slot limit on the host; 0 is unlimited.
	JLU            int
	DispatchWindow timewin.Window
	Thresholds     []LoadThreshold
	Mig            int // minutes; -1 = none
	Pos            Pos
}

// HostGroup is a row of the HostGroup section.
type HostGroup struct {
	Name string
	// Spec is GROUP_MEMBER as written: host names, group names, all,
	// ~exclusions, wildcards (host*), ranges (host[1-10]).
	Spec []string
	// External groups ('!') get their members from egroup -m.
	External bool
	Admins   []string
	// Members are the resolved host names, in cluster order.
	Members []string
	Pos     Pos
}

// HostPartition is a HostPartition section (host-partition fairshare).
type HostPartition struct {
	Name     string
	HostSpec []string
	Hosts    []string // resolved
	Shares   []ShareAssignment
	Pos      Pos
}

// Group returns the host group named name.
func (h *LSBHosts) Group(name string) *HostGroup {
	if h == nil {
		return nil
	}
	for _, g := range h.Groups {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// Row returns the Host section row named name (a host, model, type or
// "default").
func (h *LSBHosts) Row(name string) *HostRow {
	if h == nil {
		return nil
	}
	if h.rowByName != nil {
		return h.rowByName[strings.ToLower(name)]
	}
	for _, r := range h.Rows {
		if strings.EqualFold(r.Name, name) {
			return r
		}
	}
	return nil
}

func parseLSBHosts(f *lex.File, d *Diagnostics) *LSBHosts {
	h := &LSBHosts{Path: f.Name, rowByName: map[string]*HostRow{}}
	for _, sec := range f.Sections {
		switch {
		case sec.Is("Host"):
			h.HostSection = true
			h.parseHostRows(sec, d)
		case sec.Is("HostGroup"):
			h.parseGroups(sec, d)
		case sec.Is("HostPartition"):
			h.parsePartition(sec, d)
		default:
			d.Warnf(sec.Pos, "section %s in lsb.hosts is not supported by Basalt; section ignored", sec.Name)
		}
	}
	return h
}

func (h *LSBHosts) parseHostRows(sec *lex.Section, d *Diagnostics) {
	t := sec.Table(d)
	nameCol := t.Col("HOST_NAME")
	if nameCol < 0 {
		d.Warnf(sec.Pos, "section Host: no HOST_NAME column; section ignored")
		return
	}
	mxjCol, jluCol, winCol, migCol := t.Col("MXJ"), t.Col("JL/U"), t.Col("DISPATCH_WINDOW"), t.Col("MIG")
	var thr []int
	for i, c := range t.Columns {
		switch strings.ToUpper(c.Text) {
		case "HOST_NAME", "MXJ", "JL/U", "DISPATCH_WINDOW", "MIG":
			continue
		}
		if _, ok := canonicalIndex(c.Text); ok || (nameOK(c.Text) && strings.ToLower(c.Text) == c.Text) {
			thr = append(thr, i) // external indices are checked by the loader
			continue
		}
		d.Warnf(c.Pos, "section Host: column %s is not supported by Basalt; ignored", c.Text)
	}
	for _, r := range t.Rows {
		row := &HostRow{Name: r.Fields[nameCol].Text, MXJ: -1, Mig: -1, Pos: r.Pos}
		where := "Host <" + row.Name + ">"
		if !nameOK(row.Name) {
			d.Warnf(r.Pos, "section Host: bad HOST_NAME <%s>; line ignored", row.Name)
			continue
		}
		if h.Row(row.Name) != nil {
			d.Warnf(r.Pos, "section Host: %s is listed twice; line ignored", row.Name)
			continue
		}
		if tok, ok := r.Get(mxjCol); ok {
			if tok.Text == "!" {
				row.MXJCPUs = true
			} else if n, ok := tokVal("MXJ", tok, where, d).int(0, math.MaxInt32); ok {
				row.MXJ = n
			}
		}
		if tok, ok := r.Get(jluCol); ok {
			if n, ok := tokVal("JL/U", tok, where, d).int(1, math.MaxInt32); ok {
				row.JLU = n
			}
		}
		if tok, ok := r.Get(winCol); ok {
			if w, ok := tokVal("DISPATCH_WINDOW", tok, where, d).inner().window(); ok {
				row.DispatchWindow = w
			}
		}
		if tok, ok := r.Get(migCol); ok {
			if n, ok := tokVal("MIG", tok, where, d).int(0, math.MaxInt32); ok {
				row.Mig = n
			}
		}
		for _, c := range thr {
			if tok, ok := r.Get(c); ok {
				idx, builtin := canonicalIndex(t.Columns[c].Text)
				if !builtin {
					idx = t.Columns[c].Text
				}
				if th, ok := tokVal(t.Columns[c].Text, tok, where, d).threshold(idx); ok {
					row.Thresholds = append(row.Thresholds, th)
				}
			}
		}
		h.Rows = append(h.Rows, row)
		h.rowByName[strings.ToLower(row.Name)] = row
	}
}

func (h *LSBHosts) parseGroups(sec *lex.Section, d *Diagnostics) {
	t := sec.Table(d)
	nameCol, memCol := t.Col("GROUP_NAME"), t.Col("GROUP_MEMBER")
	if nameCol < 0 || memCol < 0 {
		d.Warnf(sec.Pos, "section HostGroup: GROUP_NAME and GROUP_MEMBER columns are required; section ignored")
		return
	}
	adminCol := t.Col("GROUP_ADMIN")
	for _, c := range t.Columns {
		switch strings.ToUpper(c.Text) {
		case "GROUP_NAME", "GROUP_MEMBER", "GROUP_ADMIN", "CONDENSE":
		default:
			d.Warnf(c.Pos, "section HostGroup: column %s is not supported by Basalt; ignored", c.Text)
		}
	}
	for _, r := range t.Rows {
		g := &HostGroup{Name: r.Fields[nameCol].Text, Pos: r.Pos}
		switch {
		case !nameOK(g.Name) || g.Name == "all" || g.Name == "others" || g.Name == "none" || g.Name == "default":
			d.Warnf(r.Pos, "section HostGroup: bad or reserved group name <%s>; line ignored", g.Name)
			continue
		case h.Group(g.Name) != nil:
			d.Warnf(r.Pos, "section HostGroup: group %s is defined twice; line ignored", g.Name)
			continue
		}
		mem := r.Fields[memCol]
		for _, w := range mem.Words(d) {
			if w.Text == "!" {
				g.External = true
				continue
			}
			g.Spec = append(g.Spec, w.Text)
		}
		if !g.External && len(g.Spec) == 0 && !mem.IsDefault() {
			d.Warnf(mem.Pos, "HostGroup <%s>: no members", g.Name)
		}
		if tok, ok := r.Get(adminCol); ok {
			for _, w := range tok.Words(d) {
				g.Admins = append(g.Admins, w.Text)
			}
		}
		h.Groups = append(h.Groups, g)
	}
}

func (h *LSBHosts) parsePartition(sec *lex.Section, d *Diagnostics) {
	p := &HostPartition{Pos: sec.Pos}
	var sharesVal *val
	for _, kv := range sec.KeyValues(d) {
		v := kvVal(kv, "HostPartition", d)
		switch v.key {
		case "HPART_NAME":
			p.Name = strings.TrimSpace(kv.Value)
		case "HOSTS":
			p.HostSpec = v.names()
		case "USER_SHARES":
			sv := v
			sharesVal = &sv
		default:
			d.Warnf(kv.KeyPos, "HostPartition: unknown keyword %s; ignored", kv.Key)
		}
	}
	if !nameOK(p.Name) {
		d.Warnf(sec.Pos, "HostPartition: HPART_NAME is missing or bad; section ignored")
		return
	}
	where := "HostPartition <" + p.Name + ">"
	if len(p.HostSpec) == 0 {
		d.Warnf(sec.Pos, "%s: HOSTS is required; section ignored", where)
		return
	}
	if sharesVal == nil {
		d.Warnf(sec.Pos, "%s: USER_SHARES is required; section ignored", where)
		return
	}
	sharesVal.where = where
	p.Shares, _ = sharesVal.shares(nil)
	for _, o := range h.Partitions {
		if o.Name == p.Name {
			d.Warnf(sec.Pos, "%s is defined twice; section ignored", where)
			return
		}
	}
	h.Partitions = append(h.Partitions, p)
}

// hostRange is a name[a-b]suffix pattern: the names prefix+n+suffix for n
// from lo to hi, zero-padded to width when the bound is written so (n[01-10]).
type hostRange struct {
	prefix, suffix string
	lo, hi, width  int
}

// parseRange parses a name[a-b] (or name[a-b]suffix) pattern.
func parseRange(s string) (hostRange, bool) {
	open := strings.IndexByte(s, '[')
	close := strings.IndexByte(s, ']')
	if open <= 0 || close < open {
		return hostRange{}, false
	}
	lo, hi, found := strings.Cut(s[open+1:close], "-")
	a, err1 := strconv.Atoi(lo)
	b, err2 := strconv.Atoi(hi)
	if !found || err1 != nil || err2 != nil || a < 0 || b < a || strings.ContainsAny(lo+hi, "+") {
		return hostRange{}, false
	}
	r := hostRange{prefix: s[:open], suffix: s[close+1:], lo: a, hi: b}
	if len(lo) > 1 && lo[0] == '0' {
		r.width = len(lo)
	}
	return r, true
}

// match reports whether name is one of the range's names (case-
// insensitively, as host names are), without expanding the range.
func (r hostRange) match(name string) bool {
	if len(name) <= len(r.prefix)+len(r.suffix) ||
		!strings.EqualFold(name[:len(r.prefix)], r.prefix) || !strings.EqualFold(name[len(name)-len(r.suffix):], r.suffix) {
		return false
	}
	digits := name[len(r.prefix) : len(name)-len(r.suffix)]
	n, err := strconv.Atoi(digits)
	if err != nil || digits[0] == '+' || digits[0] == '-' || n < r.lo || n > r.hi {
		return false
	}
	if r.width > 0 {
		return len(digits) == r.width
	}
	return strconv.Itoa(n) == digits
}

// memberRange expands name[a-b] (and name[a-b]suffix) to the names it
// stands for (at most 100000); ok is false when s is not a range.
func memberRange(s string) ([]string, bool) {
	r, ok := parseRange(s)
	if !ok || r.hi-r.lo > 100000 {
		return nil, false
	}
	var out []string
	for i := r.lo; i <= r.hi; i++ {
		n := strconv.Itoa(i)
		for len(n) < r.width {
			n = "0" + n
		}
		out = append(out, r.prefix+n+r.suffix)
	}
	return out, true
}
